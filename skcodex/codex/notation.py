"""Forum deck notation: ``[Demonology]/Anarchy/Law``, ``Anarchy/Growth/Law/Black``, ``MonoRed``."""

from __future__ import annotations

import difflib

from skcodex.codex.catalogue import CODEX, Catalogue
from skcodex.codex.deck import Deck
from skcodex.codex.plain import PlainCatalogue


class DeckParseError(ValueError):
    """A deck string that cannot be read; the message names the text and the problem."""


def _name(cat: Catalogue, raw: str, text: str) -> str:
    name = cat.canonical(raw)
    if name is None:
        hint = difflib.get_close_matches(raw, [*cat.specs, *cat.starters], n=1)
        also = f" (did you mean {hint[0]!r}?)" if hint else ""
        raise DeckParseError(f"unknown spec or starter {raw.strip()!r} in deck {text!r}{also}")
    return name


def parse_deck(text: str, catalogue: Catalogue | PlainCatalogue | None = None) -> Deck:
    """Read a deck written in forum notation.

    The bracketed specs share the starter's colour (``[Blood/Fire]/Finesse`` is
    the Red starter with Blood, Fire and Finesse; ``[Anarchy/Blood/Fire]`` is
    MonoRed). When no spec shares the starter's colour, the starter is named as
    an extra last part (``Anarchy/Growth/Law/Black``). A nickname from the
    catalogue stands for its deck. Names are matched case-insensitively.

    Parameters
    ----------
    text : str
        The deck as written.
    catalogue : Catalogue or PlainCatalogue, optional
        The specs, starters and nicknames to read against (base Codex by
        default). A `PlainCatalogue` reads another game's plain notation,
        ``starter/component/...``.

    Returns
    -------
    Deck

    Raises
    ------
    DeckParseError
        If the text is not a deck of the catalogue; the message says why.

    Examples
    --------
    >>> from skcodex.codex import parse_deck
    >>> parse_deck("[Demonology]/Anarchy/Law")
    Deck(starter='Black', specs=('Anarchy', 'Demonology', 'Law'))
    >>> parse_deck("MonoRed") == parse_deck("[Anarchy/Blood/Fire]")
    True
    """
    if isinstance(catalogue, PlainCatalogue):
        return catalogue.parse(text)
    cat = CODEX if catalogue is None else catalogue
    if not isinstance(text, str):
        raise DeckParseError(f"a deck must be written as a string, got {text!r}")
    stripped = text.strip()
    if not stripped:
        raise DeckParseError(f"empty deck string {text!r}")
    nick = cat.nickname(stripped)
    if nick is not None:
        return nick
    if len(stripped) > 500:  # no deck is this long; keep the error message short
        raise DeckParseError(
            f"deck string of {len(stripped):,} characters is too long to be a deck: "
            f"{stripped[:40]!r}..."
        )
    k = cat.specs_per_deck

    bracketed: list[str] = []
    rest = stripped
    if rest.startswith("["):
        close = rest.find("]")
        if close < 0:
            raise DeckParseError(f"unclosed '[' in deck {text!r}")
        bracketed = [_name(cat, part, text) for part in rest[1:close].split("/")]
        rest = rest[close + 1 :].lstrip()
        if rest and not rest.startswith("/"):
            raise DeckParseError(f"expected '/' after ']' in deck {text!r}")
        rest = rest[1:]
    if "[" in rest or "]" in rest:
        raise DeckParseError(f"misplaced bracket in deck {text!r}")
    others = [_name(cat, part, text) for part in rest.split("/")] if rest else []

    if any(p in cat.starters for p in bracketed):
        raise DeckParseError(f"a starter cannot be bracketed in deck {text!r}")
    starter_parts = [p for p in others if p in cat.starters]
    if len(starter_parts) > 1 or (starter_parts and others[-1] != starter_parts[0]):
        raise DeckParseError(f"a deck names at most one starter, as its last part: {text!r}")
    specs = [p for p in (*bracketed, *others) if p not in cat.starters]
    if len(specs) != k:
        raise DeckParseError(f"deck {text!r} has {len(specs)} specs; a deck has {k}")
    repeated = sorted({s for s in specs if specs.count(s) > 1})
    if repeated:
        raise DeckParseError(f"deck {text!r} repeats the spec {', '.join(repeated)}")

    if bracketed:
        colours = {cat.colour(s) for s in bracketed}
        if len(colours) > 1:
            raise DeckParseError(
                f"the bracketed specs of {text!r} belong to different starters: "
                + ", ".join(sorted(colours))
            )
        starter = colours.pop()
        if starter_parts and starter_parts[0] != starter:
            raise DeckParseError(
                f"deck {text!r} names the starter {starter_parts[0]} but its bracketed "
                f"specs are {starter}"
            )
    elif starter_parts:
        starter = starter_parts[0]
    else:
        raise DeckParseError(
            f"deck {text!r} names no starter: bracket the specs of the starter's colour "
            "([Blood]/Law/Peace) or name the starter last (Law/Peace/Truth/Red)"
        )
    return Deck(starter, specs)


def format_deck(deck: Deck, catalogue: Catalogue | PlainCatalogue | None = None) -> str:
    """Write a deck in forum notation; `parse_deck` reads it back to the same deck.

    Examples
    --------
    >>> from skcodex.codex import Deck, format_deck
    >>> format_deck(Deck("Red", ["Finesse", "Fire", "Blood"]))
    '[Blood/Fire]/Finesse'
    >>> format_deck(Deck("Black", ["Anarchy", "Growth", "Law"]))
    'Anarchy/Growth/Law/Black'
    """
    if isinstance(catalogue, PlainCatalogue):
        return catalogue.format(deck)
    cat = CODEX if catalogue is None else catalogue
    if not isinstance(deck, Deck):
        raise TypeError(f"format_deck needs a Deck, got {type(deck).__name__}")
    if not deck.specs:
        return deck.starter
    unknown = [s for s in deck.specs if s not in cat.spec_colours]
    if unknown:
        raise ValueError(f"spec {unknown[0]!r} of {deck} is not in the catalogue")
    own = [s for s in deck.specs if cat.colour(s) == deck.starter]
    others = [s for s in deck.specs if cat.colour(s) != deck.starter]
    if not own:
        return "/".join([*others, deck.starter])
    head = "[" + "/".join(own) + "]"
    return "/".join([head, *others])
