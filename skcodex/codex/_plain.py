"""Decks of any game in plain notation: the starter first, then its side components.

Codex decks are written in forum notation against the Codex catalogue
(`skcodex.codex.parse_deck`). Other games name a deck by its parts: a
fighting-game character (``Ryu``), a hero with two colours
(``Tala/Red/Blue``). A `PlainCatalogue` reads such strings: the first
``/``-separated name is the starter (character, faction, hero), the others are
side components. It can list the names allowed, or leave them open, so that
every name seen in the data becomes a level.
"""

from __future__ import annotations

import csv
import difflib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from skcodex.codex._deck import Deck, DeckParseError

#: Largest catalogue file read (a catalogue is a short list of names).
MAX_CATALOGUE_BYTES = 1_000_000
_KINDS = {"starter": "starter", "component": "component", "spec": "component"}


class CatalogueFileError(ValueError):
    """A catalogue file that cannot be read; the message names the line and the problem."""


def _names(values: Iterable[str] | None, what: str) -> tuple[str, ...] | None:
    if values is None:
        return None
    if isinstance(values, str):
        raise TypeError(f"{what} must be a sequence of names, got the single string {values!r}")
    out = tuple(values)
    bad = [v for v in out if not isinstance(v, str) or not v or v != v.strip() or "/" in v]
    if bad:
        raise ValueError(
            f"{what} must be non-empty names without surrounding spaces or '/'; got {bad[:3]!r}"
        )
    # One pass (a file's catalogue may list a hundred thousand names): count each folded name.
    counts = Counter(v.casefold() for v in out)
    same = sorted({v for v in out if counts[v.casefold()] > 1})
    if same:
        raise ValueError(f"{what} name the same thing more than once: {same[:4]!r}")
    return out


@dataclass(frozen=True)
class PlainCatalogue:
    """The starters and side components of a game, read in plain deck notation.

    A deck string is ``starter`` or ``starter/component/component...``: the
    first name is the starter, the others the side components, in any order.
    Names are matched case-insensitively against the lists given, and come
    back spelled as listed; a list left as None is open: any name is accepted
    as written (so ``Ryu`` and ``ryu`` are then two names).

    Parameters
    ----------
    starters : sequence of str or None, default None
        Every starter (character, faction, hero). None: any name.
    components : sequence of str or None, default None
        Every side component (colour, spec, loadout part). None: any name.
    specs_per_deck : int or None, default None
        How many side components every deck holds (0 for characters alone).
        None: any number, the same for every deck of a table.
    starter_word : str, default "starter"
        How the game calls its starters, used in error messages (``"character"``).
    component_word : str, default "component"
        How the game calls its components, used in error messages (``"colour"``).

    Examples
    --------
    >>> from skcodex.codex import PlainCatalogue, parse_deck
    >>> heroes = PlainCatalogue(components=["Red", "Blue", "Green"], specs_per_deck=2)
    >>> parse_deck("Tala/blue/Red", heroes)
    Deck(starter='Tala', specs=('Blue', 'Red'))
    >>> parse_deck("Ryu", PlainCatalogue(specs_per_deck=0))
    Deck(starter='Ryu', specs=())
    """

    starters: tuple[str, ...] | None = None
    components: tuple[str, ...] | None = None
    specs_per_deck: int | None = None
    starter_word: str = "starter"
    component_word: str = "component"

    def __post_init__(self) -> None:
        starters = _names(self.starters, "starters")
        components = _names(self.components, "components")
        object.__setattr__(self, "starters", starters)
        object.__setattr__(self, "components", components)
        k = self.specs_per_deck
        if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 0):
            raise ValueError(f"specs_per_deck must be an integer >= 0 or None, got {k!r}")
        if starters is not None and components is not None:
            clash = {s.casefold() for s in starters} & {c.casefold() for c in components}
            if clash:
                raise ValueError(f"names used both as starter and component: {sorted(clash)}")
        for word in (self.starter_word, self.component_word):
            if not isinstance(word, str) or not word.strip():
                raise ValueError(f"starter_word and component_word must be words, got {word!r}")

    @property
    def is_open(self) -> bool:
        """True when starters or components are not listed (read from the data)."""
        return self.starters is None or self.components is None

    @property
    def specs(self) -> tuple[str, ...]:
        """The components listed (empty when open)."""
        return self.components or ()

    def _canonical(self, name: str, kind: str, word: str, text: str) -> str:
        known = getattr(self, kind)
        if known is None:
            return name
        found = self._lookup(kind).get(name.casefold())
        if found is None:
            hint = difflib.get_close_matches(name, known, n=1) if len(known) <= 1000 else []
            also = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise DeckParseError(f"unknown {word} {name!r} in deck {text!r}{also}")
        return found

    def _lookup(self, kind: str) -> dict[str, str]:
        """The names of ``kind`` by their folded form, built once (not once per deck read)."""
        cache = self.__dict__.setdefault("_lookups", {})
        if kind not in cache:
            cache[kind] = {k.casefold(): k for k in getattr(self, kind)}
        return cache[kind]

    def parse(self, text: str) -> Deck:
        """Read one deck string.

        Parameters
        ----------
        text : str
            The deck, ``starter`` or ``starter/component/component...``.

        Returns
        -------
        Deck
            The deck, its names spelled as listed.

        Raises
        ------
        DeckParseError
            Naming the problem with the string.
        """
        if not isinstance(text, str):
            raise DeckParseError(f"a deck must be written as a string, got {text!r}")
        stripped = text.strip()
        if not stripped:
            raise DeckParseError(f"empty deck string {text!r}")
        if len(stripped) > 500:
            raise DeckParseError(
                f"deck string of {len(stripped):,} characters is too long to be a deck: "
                f"{stripped[:40]!r}..."
            )
        parts = [p.strip() for p in stripped.split("/")]
        if any(not p for p in parts):
            raise DeckParseError(f"empty name in deck {text!r} (a deck is starter/component/...)")
        cw, sw = self.component_word, self.starter_word
        k = self.specs_per_deck
        if k is not None and len(parts) - 1 != k:
            plural = "" if k == 1 else "s"
            raise DeckParseError(
                f"deck {text!r} has {len(parts) - 1} {cw}(s) after its {sw}; a deck here has "
                f"{k} {cw}{plural} (write {sw}" + "".join(f"/{cw}{i + 1}" for i in range(k)) + ")"
            )
        if self.components is not None and parts[0].casefold() in {
            c.casefold() for c in self.components
        }:
            raise DeckParseError(f"deck {text!r} starts with the {cw} {parts[0]!r}, not a {sw}")
        starter = self._canonical(parts[0], "starters", sw, text)
        comps = [self._canonical(p, "components", cw, text) for p in parts[1:]]
        repeated = sorted({c for c in comps if comps.count(c) > 1})
        if repeated:
            raise DeckParseError(f"deck {text!r} repeats the {cw} {', '.join(repeated)}")
        return Deck(starter, comps)

    def format(self, deck: Deck) -> str:
        """Write a deck in plain notation; `parse` reads it back to the same deck.

        Parameters
        ----------
        deck : Deck
            The deck to write.

        Returns
        -------
        str
            ``starter/component/...``, the components in the deck's order.
        """
        if not isinstance(deck, Deck):
            raise TypeError(f"format needs a Deck, got {type(deck).__name__}")
        return "/".join([deck.starter, *deck.specs])

    @classmethod
    def from_file(cls, path: str | Path, specs_per_deck: int | None = None) -> PlainCatalogue:
        """Read a catalogue file: a CSV with a header ``kind,name``.

        ``kind`` is ``starter`` or ``component`` (``spec`` is accepted too).
        A row ``specs_per_deck,K`` fixes the number of components per deck,
        unless ``specs_per_deck`` is given here; rows ``starter_word,hero``
        and ``component_word,colour`` name the parts in messages and the
        report. Lines starting with ``#`` are comments. With no component
        rows every deck is a starter alone.

        Parameters
        ----------
        path : str or pathlib.Path
            The catalogue file.
        specs_per_deck : int or None, default None
            Components per deck, overriding the file's ``specs_per_deck`` row.

        Returns
        -------
        PlainCatalogue
            The catalogue the file lists.

        Raises
        ------
        CatalogueFileError
            Naming the line at fault.
        """
        p = Path(path)
        if not p.is_file():
            raise CatalogueFileError(f"catalogue file {str(p)!r} does not exist or is not a file")
        if p.stat().st_size > MAX_CATALOGUE_BYTES:
            raise CatalogueFileError(
                f"catalogue file {str(p)!r} is larger than {MAX_CATALOGUE_BYTES:,} bytes"
            )
        try:
            text = p.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError:
            raise CatalogueFileError(f"catalogue file {str(p)!r} is not UTF-8 text") from None
        starters: list[str] = []
        components: list[str] = []
        k_file: int | None = None
        words: dict[str, str] = {}
        rows = [
            (n, row)
            for n, row in enumerate(csv.reader(text.splitlines()), start=1)
            if row and any(c.strip() for c in row) and not row[0].lstrip().startswith("#")
        ]
        if not rows or [c.strip().lower() for c in rows[0][1]] != ["kind", "name"]:
            raise CatalogueFileError(
                f"catalogue file {str(p)!r} must start with the header 'kind,name', "
                "then one row per starter or component (starter,Ryu / component,Red)"
            )
        for n, row in rows[1:]:
            if len(row) != 2:
                raise CatalogueFileError(
                    f"{p.name}, line {n}: expected 'kind,name', got {','.join(row)!r}"
                )
            kind, name = (c.strip() for c in row)
            if kind.lower() == "specs_per_deck":
                if not name.isdigit():
                    raise CatalogueFileError(
                        f"{p.name}, line {n}: specs_per_deck must be a whole number >= 0, "
                        f"got {name!r}"
                    )
                k_file = int(name)
                continue
            if kind.lower() in ("starter_word", "component_word"):
                if not name:
                    raise CatalogueFileError(f"{p.name}, line {n}: {kind} needs a word")
                words[kind.lower()] = name
                continue
            if kind.lower() not in _KINDS:
                raise CatalogueFileError(
                    f"{p.name}, line {n}: kind must be 'starter' or 'component', got {kind!r}"
                )
            if not name or "/" in name:
                raise CatalogueFileError(
                    f"{p.name}, line {n}: a name must be non-empty and without '/', got {name!r}"
                )
            (starters if _KINDS[kind.lower()] == "starter" else components).append(name)
        if not starters:
            raise CatalogueFileError(f"catalogue file {str(p)!r} lists no starter")
        k = specs_per_deck if specs_per_deck is not None else k_file
        if k is None and not components:
            k = 0
        try:
            return cls(tuple(starters), tuple(components), k, **words)
        except (ValueError, TypeError) as err:
            raise CatalogueFileError(f"{p.name}: {err}") from None
