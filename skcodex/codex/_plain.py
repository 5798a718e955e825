"""Decks of any game in plain notation: the starter first, then its side components.

Codex decks are written in forum notation against the Codex catalogue
(`skcodex.codex.parse_deck`). Other games name a deck by its parts: a
fighting-game character (``Ryu``), a hero with two colours
(``Tala/Red/Blue``). A `PlainCatalogue` reads such strings: the first
``/``-separated name is the starter (character, faction, hero), the others are
side components. It can list the names allowed, or leave them open, so that
every name seen in the data becomes a level, and it can tie a component to the
one starter it belongs to (a wargame's caster to its faction), declared or
learned from a table's decks (`PlainCatalogue.learn_ties`).
"""

from __future__ import annotations

import csv
import difflib
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

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


def _ties(values: Any) -> tuple[tuple[str, str], ...] | None:
    """``tied_to`` as ``((component, starter), ...)``: from a mapping or from pairs."""
    if values is None:
        return None
    if isinstance(values, str):
        raise TypeError(
            "tied_to must map each tied component to its starter "
            f"({{'Deneghra': 'Cryx'}}), got the single string {values!r}"
        )
    pairs = list(values.items()) if isinstance(values, Mapping) else list(values)
    out = []
    for pair in pairs:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(
                "tied_to must map each tied component to its starter "
                f"({{'Deneghra': 'Cryx'}}) or be (component, starter) pairs; got {pair!r}"
            )
        out.append((pair[0], pair[1]))
    _names([c for c, _ in out], "tied_to's components")  # each once, case aside
    spelling: dict[Any, str] = {}  # a starter named in several ties: spelled as first named
    for _, s in out:
        spelling.setdefault(s.casefold() if isinstance(s, str) else s, s)
    _names(list(spelling.values()), "tied_to's starters")  # refuses what is not a name
    return tuple((c, spelling[s.casefold()]) for c, s in out)


@dataclass(frozen=True)
class PlainCatalogue:
    """The starters and side components of a game, read in plain deck notation.

    A deck string is ``starter`` or ``starter/component/component...``: the
    first name is the starter, the others the side components, in any order.
    Names are matched case-insensitively against the lists given, and come
    back spelled as listed; a list left as None is open: any name is accepted.
    Case counts no more in an open list than in a listed one: a name spelled
    as one of ``tied_to`` comes back spelled as there, and a match table read
    against an open catalogue takes names that differ only in case (``Ryu``,
    ``ryu``) as one name, spelled as the fitted model or, in fit, as the
    table's first match spells it.

    A component may be tied to the one starter it belongs to (``tied_to``: a
    wargame's caster to its faction, a hero's signature card to the hero): a
    deck holding it under another starter is refused, with the deck it was
    likely meant to be. Components not in ``tied_to`` go with any starter.

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
    tied_to : mapping of str to str or None, default None
        Components tied to one starter, ``{component: starter}``
        (``{"Deneghra": "Cryx"}``); kept as ``((component, starter), ...)``.
        Names are matched case-insensitively; with listed starters or
        components, each must be listed. None: no component is tied. A
        catalogue file declares them in a ``starter`` column
        (`from_file`); `learn_ties` finds them in a table's decks.

    Examples
    --------
    >>> from skcodex.codex import PlainCatalogue, parse_deck
    >>> heroes = PlainCatalogue(components=["Red", "Blue", "Green"], specs_per_deck=2)
    >>> parse_deck("Tala/blue/Red", heroes)
    Deck(starter='Tala', specs=('Blue', 'Red'))
    >>> parse_deck("Ryu", PlainCatalogue(specs_per_deck=0))
    Deck(starter='Ryu', specs=())
    >>> warmachine = PlainCatalogue(specs_per_deck=1, tied_to={"Deneghra": "Cryx"})
    >>> parse_deck("cryx/deneghra", warmachine)
    Deck(starter='Cryx', specs=('Deneghra',))
    >>> try:
    ...     parse_deck("Cygnar/Deneghra", warmachine)
    ... except ValueError as err:
    ...     print(err)
    component 'Deneghra' belongs to starter 'Cryx', not 'Cygnar', in deck 'Cygnar/Deneghra' \
(did you mean 'Cryx/Deneghra'?)
    """

    starters: tuple[str, ...] | None = None
    components: tuple[str, ...] | None = None
    specs_per_deck: int | None = None
    starter_word: str = "starter"
    component_word: str = "component"
    tied_to: tuple[tuple[str, str], ...] | None = None

    def __post_init__(self) -> None:
        starters = _names(self.starters, "starters")
        components = _names(self.components, "components")
        object.__setattr__(self, "starters", starters)
        object.__setattr__(self, "components", components)
        ties = _ties(self.tied_to)
        if ties is not None:
            ties = tuple(
                (
                    self._listed(c, components, "tied_to's component", "components"),
                    self._listed(s, starters, "tied_to's starter", "starters"),
                )
                for c, s in ties
            )
            clash = {s.casefold() for _, s in ties} & {c.casefold() for c, _ in ties}
            if clash:
                raise ValueError(
                    f"tied_to uses names both as starter and component: {sorted(clash)}"
                )
        object.__setattr__(self, "tied_to", ties)
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

    @staticmethod
    def _listed(name: str, listed: tuple[str, ...] | None, what: str, where: str) -> str:
        """``name`` spelled as ``listed`` spells it (as given when the list is open)."""
        if listed is None:
            return name
        found = {k.casefold(): k for k in listed}.get(name.casefold())
        if found is None:
            raise ValueError(f"{what} {name!r} is not one of the {where} listed")
        return found

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
        if known is None:  # open: a name of tied_to keeps its spelling there
            return self._tie_spellings(kind).get(name.casefold(), name)
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

    def _tie_spellings(self, kind: str) -> dict[str, str]:
        """The starters (``kind="starters"``) or components of ``tied_to`` by folded form."""
        cache = self.__dict__.setdefault("_lookups", {})
        key = "tied " + kind
        if key not in cache:
            at = 1 if kind == "starters" else 0
            cache[key] = {pair[at].casefold(): pair[at] for pair in self.tied_to or ()}
        return cache[key]

    def starter_of(self, component: str) -> str | None:
        """Name the starter ``component`` is tied to (case aside), or None when it is free.

        Parameters
        ----------
        component : str
            A component's name.

        Returns
        -------
        str or None
            The starter it is tied to, spelled as the catalogue spells it; None
            when it is tied to none.

        Examples
        --------
        >>> cat = PlainCatalogue(specs_per_deck=1, tied_to={"Deneghra": "Cryx"})
        >>> cat.starter_of("deneghra"), cat.starter_of("Haley")
        ('Cryx', None)
        """
        cache = self.__dict__.setdefault("_lookups", {})
        if "owner" not in cache:
            cache["owner"] = {c.casefold(): s for c, s in self.tied_to or ()}
        return cache["owner"].get(str(component).casefold())

    def check_ties(self, deck: Deck, text: str | None = None) -> None:
        """Refuse a deck holding a component tied to another starter (`DeckParseError`).

        The message names the component, the starter it belongs to and the deck
        it was likely meant to be, and any components allowed with the deck's
        starter that are spelled close to it.

        Parameters
        ----------
        deck : Deck
            The deck, its names spelled as the catalogue spells them.
        text : str, optional
            How the deck was written (for the message); its plain notation otherwise.
        """
        if not self.tied_to:
            return
        starter = deck.starter.casefold()
        for comp in deck.specs:
            owner = self.starter_of(comp)
            if owner is None or owner.casefold() == starter:
                continue
            written = text if text is not None else self.format(deck)
            right = "/".join((owner, *deck.specs))
            allowed = [
                c
                for c in (self.components or [c for c, _ in self.tied_to])
                if (self.starter_of(c) or deck.starter).casefold() == starter
            ]
            close = difflib.get_close_matches(comp, allowed, n=3) if len(allowed) <= 1000 else []
            others = ""
            if close:
                names = ", ".join(repr(c) for c in close)
                others = f" Or one of {deck.starter!r}'s {self.component_word}s: {names}?"
            raise DeckParseError(
                f"{self.component_word} {comp!r} belongs to {self.starter_word} {owner!r}, "
                f"not {deck.starter!r}, in deck {written!r} (did you mean {right!r}?{others})"
            )

    def learn_ties(self, decks: Any) -> PlainCatalogue:
        """Tie every component seen under one starter only to it, in a copy of this catalogue.

        For games whose components belong to one starter but whose catalogue
        does not say which: a component that every deck of ``decks`` holding it
        pairs with the same starter is taken as tied to that starter (adding to
        the ties already declared); a later deck holding it under another
        starter is then refused, as a declared tie is. A component seen with
        several starters stays free. A component seen in few decks is tied on
        little evidence: read the ties found (``tied_to``) before relying on
        them.

        Parameters
        ----------
        decks : iterable of str or Deck, or pandas.DataFrame
            Deck strings (read with this catalogue) or `Deck` values, or a
            match table whose ``deck1`` and ``deck2`` columns hold them.

        Returns
        -------
        PlainCatalogue
            A copy with ``tied_to`` holding the declared and the learned ties.

        Raises
        ------
        DeckParseError
            If a deck cannot be read, or breaks a declared tie.
        ValueError
            If a component's learned starter clashes with the catalogue's names.

        Examples
        --------
        >>> cat = PlainCatalogue(specs_per_deck=1)
        >>> decks = ["Cryx/Deneghra", "Cygnar/Haley", "Cryx/Gorman", "Cygnar/Gorman"]
        >>> cat.learn_ties(decks).tied_to
        (('Deneghra', 'Cryx'), ('Haley', 'Cygnar'))
        """
        if hasattr(decks, "columns") and {"deck1", "deck2"} <= set(decks.columns):
            decks = [*decks["deck1"], *decks["deck2"]]
        if isinstance(decks, (str, Deck)):
            decks = [decks]
        seen: dict[str, tuple[str, dict[str, str]]] = {}  # folded component: (spelling, starters)
        spelling: dict[str, str] = {}  # each starter as first seen
        for value in decks:
            deck = value if isinstance(value, Deck) else self.parse(value)
            starter = spelling.setdefault(deck.starter.casefold(), deck.starter)
            for comp in deck.specs:
                _, starters = seen.setdefault(comp.casefold(), (comp, {}))
                starters.setdefault(starter.casefold(), starter)
        learned = dict(self.tied_to or ())
        declared = {c.casefold() for c in learned}
        for key, (comp, starters) in seen.items():
            if key not in declared and len(starters) == 1:
                learned[comp] = next(iter(starters.values()))
        return replace(self, tied_to=learned or None)

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
        return self._named_deck(parts[0], parts[1:], text)

    def _named_deck(self, starter: str, components: Iterable[str], text: str) -> Deck:
        """The deck of these names, spelt as listed: unknown names, repeats and ties refused.

        What `parse` checks once a string is split, and what a `Deck` given as
        it is gets checked by (`skcodex.codex._notation.checked_deck`).

        Parameters
        ----------
        starter : str
            The starter's name, in any case.
        components : iterable of str
            The components' names, in any case.
        text : str
            The deck as the user gave it, for the messages.

        Returns
        -------
        Deck

        Raises
        ------
        DeckParseError
            Naming the problem with the deck.
        """
        cw, sw = self.component_word, self.starter_word
        starter = self._canonical(starter, "starters", sw, text)
        comps = [self._canonical(p, "components", cw, text) for p in components]
        repeated = sorted({c for c in comps if comps.count(c) > 1})
        if repeated:
            raise DeckParseError(f"deck {text!r} repeats the {cw} {', '.join(repeated)}")
        deck = Deck(starter, comps)
        self.check_ties(deck, text)
        return deck

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
        """Read a catalogue file: a CSV with a header ``kind,name`` or ``kind,name,starter``.

        ``kind`` is ``starter`` or ``component`` (``spec`` is accepted too).
        In a third column ``starter``, a component row may name the starter
        the component is tied to (``component,Deneghra,Cryx``; see
        ``tied_to``); left empty, the component goes with any starter.
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
        header = [c.strip().lower() for c in rows[0][1]] if rows else []
        if header not in (["kind", "name"], ["kind", "name", "starter"]):
            raise CatalogueFileError(
                f"catalogue file {str(p)!r} must start with the header 'kind,name' (or "
                "'kind,name,starter' to tie components to a starter), then one row per "
                "starter or component (starter,Ryu / component,Red)"
            )
        width = len(header)
        ties: dict[str, str] = {}
        for n, row in rows[1:]:
            if len(row) == 2 and width == 3:
                row = [*row, ""]
            if len(row) != width:
                raise CatalogueFileError(
                    f"{p.name}, line {n}: expected '{','.join(header)}', got {','.join(row)!r}"
                )
            kind, name = (c.strip() for c in row[:2])
            owner = row[2].strip() if width == 3 else ""
            if owner and kind.lower() not in ("component", "spec"):
                raise CatalogueFileError(
                    f"{p.name}, line {n}: only a component row names a starter in the third "
                    f"column, got {','.join(row)!r}"
                )
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
            if owner:
                ties[name] = owner
        if not starters:
            raise CatalogueFileError(f"catalogue file {str(p)!r} lists no starter")
        k = specs_per_deck if specs_per_deck is not None else k_file
        if k is None and not components:
            k = 0
        try:
            return cls(tuple(starters), tuple(components), k, **words, tied_to=ties or None)
        except (ValueError, TypeError) as err:
            raise CatalogueFileError(f"{p.name}: {err}") from None
