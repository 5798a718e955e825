"""Forum deck notation: ``[Demonology]/Anarchy/Law``, ``Anarchy/Growth/Law/Black``, ``MonoRed``."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from skcodex._docstrings import shared_parameters
from skcodex.codex._catalogue import CODEX, Catalogue
from skcodex.codex._deck import Deck, DeckParseError
from skcodex.codex._plain import PlainCatalogue


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
    catalogue : Catalogue or PlainCatalogue or None, default None
        The specs, starters and nicknames to read against (base Codex by
        default). A `PlainCatalogue` reads another game's plain notation,
        ``starter/component/...``.

    Returns
    -------
    Deck
        The deck the text names.

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


def checked_deck(deck: Deck, catalogue: Catalogue | PlainCatalogue) -> Deck:
    """A deck given as a `Deck` checked against a catalogue, as `parse_deck` checks a string.

    Its number of specs (components) must be the catalogue's, its names the
    catalogue's (case aside, returned as the catalogue spells them), and with a
    `PlainCatalogue` no component may be tied to another starter.

    Parameters
    ----------
    deck : Deck
        The deck.
    catalogue : Catalogue or PlainCatalogue
        What it is checked against.

    Returns
    -------
    Deck
        The deck, its names spelt as the catalogue spells them.

    Raises
    ------
    DeckParseError
        Naming the deck and what is wrong with it.
    """
    if isinstance(catalogue, PlainCatalogue):
        text, k = catalogue.format(deck), catalogue.specs_per_deck
        sw, cw = catalogue.starter_word, catalogue.component_word
        if k is not None and len(deck.specs) != k:
            raise DeckParseError(
                f"deck {text!r} has {len(deck.specs)} {cw}(s) after its {sw}; the catalogue "
                f"gives every deck {k} {cw}{'' if k == 1 else 's'}"
            )
        return catalogue._named_deck(deck.starter, deck.specs, text)
    text = "/".join([deck.starter, *deck.specs])
    if len(deck.specs) != catalogue.specs_per_deck:
        raise DeckParseError(
            f"deck {text!r} has {len(deck.specs)} specs; a deck has {catalogue.specs_per_deck}"
        )
    starter = catalogue.canonical(deck.starter)
    if starter not in catalogue.starters:
        hint = difflib.get_close_matches(deck.starter, catalogue.starters, n=1)
        also = f" (did you mean {hint[0]!r}?)" if hint else ""
        raise DeckParseError(f"unknown starter {deck.starter!r} in deck {text!r}{also}")
    specs = [_name(catalogue, spec, text) for spec in deck.specs]
    not_specs = [s for s in specs if s in catalogue.starters]
    if not_specs:
        raise DeckParseError(f"deck {text!r} holds the starter {not_specs[0]!r} as a spec")
    return Deck(starter, specs)


@shared_parameters
def format_deck(deck: Deck, catalogue: Catalogue | PlainCatalogue | None = None) -> str:
    """Write a deck in forum notation; `parse_deck` reads it back to the same deck.

    {deck_writing_parameters}

    Returns
    -------
    str
        The deck in forum notation (plain notation with a `PlainCatalogue`).

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


@shared_parameters
def deck_label(deck: Deck, catalogue: Catalogue | PlainCatalogue | None = None) -> str:
    """A short readable name: the catalogue's nickname if it has one, else its notation.

    Codex decks are written in forum notation; a `PlainCatalogue`'s decks,
    and decks the Codex catalogue cannot write, in plain notation
    (``starter/component/...``). `parse_decks` reads such labels back.

    {deck_writing_parameters}

    Returns
    -------
    str
        The deck's label.

    Examples
    --------
    >>> deck_label(parse_deck("[Anarchy/Blood/Fire]"))
    'MonoRed'
    >>> deck_label(Deck("Black", ["Demonology", "Anarchy", "Law"]))
    '[Demonology]/Anarchy/Law'
    """
    cat = CODEX if catalogue is None else catalogue
    if isinstance(cat, PlainCatalogue):
        return cat.format(deck)
    for name, nick in cat.nicknames.items():
        if nick == deck:
            return name
    if len(deck.specs) == cat.specs_per_deck:
        try:
            return format_deck(deck, cat)
        except ValueError:
            pass
    return "/".join([deck.starter, *deck.specs])


def parse_decks(
    decks: str | Deck | Iterable[str | Deck],
    catalogue: Catalogue | PlainCatalogue | None = None,
    known: Iterable[Deck] = (),
    what: str = "decks",
) -> list[Deck]:
    """Read a list of decks from one deck or several, each a `Deck` or a string.

    A string is first looked up among the labels (`deck_label`) of the
    ``known`` decks, so a label printed for a deck outside the catalogue's
    notation reads back as that deck, and is otherwise read with `parse_deck`.

    Parameters
    ----------
    decks : str, Deck, or iterable of str or Deck
        One deck, or several.
    catalogue : Catalogue or PlainCatalogue or None, default None
        What strings are read against (base Codex by default).
    known : iterable of Deck, default ()
        Decks whose labels are accepted as they are.
    what : str, default "decks"
        The argument's name, for error messages.

    Returns
    -------
    list of Deck
        The decks, in the order given.

    Examples
    --------
    >>> [str(d) for d in parse_decks(["MonoRed", "[Demonology]/Anarchy/Law"])]
    ['Red: Anarchy/Blood/Fire', 'Black: Anarchy/Demonology/Law']
    """
    if isinstance(decks, (str, Deck)):
        decks = [decks]
    labels = {deck_label(d, catalogue): d for d in known}
    out = []
    for value in decks:
        if isinstance(value, Deck):
            out.append(value)
        elif isinstance(value, str):
            found = labels.get(value.strip())
            out.append(found if found is not None else parse_deck(value, catalogue))
        else:
            raise TypeError(f"{what} must hold deck strings or Decks, got {value!r}")
    if not out:
        raise ValueError(f"{what} is empty; give at least one deck")
    return out


def plain_catalogue_for(deck_texts: Iterable[str]) -> PlainCatalogue | None:
    """The open catalogue that reads a table's decks when they are not Codex decks.

    When more than half of the distinct deck strings read as Codex decks, the
    table is taken for Codex data (its errors are then the useful ones) and
    None is returned. Otherwise every deck is read as ``starter/component/...``
    with every name a level, and all decks must hold the same number of
    components; the catalogue returned fixes that number.

    Parameters
    ----------
    deck_texts : iterable of str
        The deck strings of a table (both seats).

    Returns
    -------
    PlainCatalogue or None

    Raises
    ------
    ValueError
        If the decks are not Codex decks and hold different numbers of
        components.

    Examples
    --------
    >>> plain_catalogue_for(["Zerg", "Terran", "Protoss"])
    PlainCatalogue(starters=None, components=None, specs_per_deck=0, starter_word='starter', \
component_word='component', tied_to=None)
    >>> plain_catalogue_for(["MonoRed", "MonoBlue", "Zerg/Red"]) is None
    True
    """
    texts = list(dict.fromkeys(str(t) for t in deck_texts))
    codex = 0
    for text in texts:
        try:
            parse_deck(text)
            codex += 1
        except DeckParseError:
            pass
    if not texts or codex * 2 > len(texts):
        return None
    counts = {text: len(text.strip().split("/")) - 1 for text in texts}
    if len(set(counts.values())) > 1:
        by_count: dict[int, str] = {}
        for text, n in counts.items():
            by_count.setdefault(n, text)
        examples = "; ".join(f"{text!r} has {n}" for n, text in sorted(by_count.items()))
        raise ValueError(
            "the decks are not Codex decks, and read as starter/component/... they hold "
            f"different numbers of components after the starter ({examples})"
        )
    return PlainCatalogue(specs_per_deck=next(iter(counts.values())))
