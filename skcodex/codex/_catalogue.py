"""The Codex card catalogue: starters, specs and their colours, deck nicknames."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from types import MappingProxyType
from typing import Literal

from skcodex.codex._deck import Deck

#: The seven base starters: six colours and Neutral.
STARTERS: tuple[str, ...] = ("Black", "Blue", "Green", "Neutral", "Purple", "Red", "White")

#: The twenty base specs, each with the starter (colour) it belongs to.
SPEC_COLOURS: Mapping[str, str] = MappingProxyType(
    {
        "Anarchy": "Red",
        "Blood": "Red",
        "Fire": "Red",
        "Demonology": "Black",
        "Disease": "Black",
        "Necromancy": "Black",
        "Law": "Blue",
        "Peace": "Blue",
        "Truth": "Blue",
        "Balance": "Green",
        "Feral": "Green",
        "Growth": "Green",
        "Future": "Purple",
        "Past": "Purple",
        "Present": "Purple",
        "Discipline": "White",
        "Ninjitsu": "White",
        "Strength": "White",
        "Bashing": "Neutral",
        "Finesse": "Neutral",
    }
)

_MONO = {
    colour: tuple(sorted(s for s, c in SPEC_COLOURS.items() if c == colour))
    for colour in STARTERS
    if colour != "Neutral"
}

#: Common deck nicknames used on the forum.
NICKNAMES: Mapping[str, Deck] = MappingProxyType(
    {
        **{f"Mono{colour}": Deck(colour, specs) for colour, specs in _MONO.items()},
        "Nightmare": Deck("Black", ("Demonology", "Necromancy", "Finesse")),
        "Daymare": Deck("White", ("Discipline", "Strength", "Finesse")),
        "Miracle Grow": Deck("Red", ("Anarchy", "Growth", "Strength")),
        "SkeleGrow": Deck("Red", ("Anarchy", "Growth", "Necromancy")),
        "PPA": Deck("Purple", ("Past", "Anarchy", "Peace")),
        "Crashbarrow.dec": Deck("Black", ("Necromancy", "Blood", "Truth")),
        "That's Just De-Greyding": Deck("Purple", ("Present", "Anarchy", "Strength")),
    }
)

DeckKind = Literal["multicolour", "monocolour", "draft"]


@dataclass(frozen=True, eq=True)
class Catalogue:
    """The components a deck can be built from.

    Parameters
    ----------
    spec_colours : mapping of str to str, default the base Codex specs
        Each spec and the starter (colour) it belongs to.
    starters : iterable, default ('Black', 'Blue', 'Green', 'Neutral', 'Purple', 'Red', 'White')
        Every starter, by name. Starters named in `spec_colours` are added.
    nicknames : mapping of str to Deck, default the base Codex nicknames
        Names that stand for a whole deck (``MonoRed``).
    specs_per_deck : int, default 3
        How many specs a deck holds (3 in Codex).

    Examples
    --------
    >>> from skcodex.codex import CODEX
    >>> CODEX.colour("Anarchy")
    'Red'
    >>> variant = CODEX.with_specs({"DemonBash": "Black"})
    >>> variant.colour("DemonBash")
    'Black'
    """

    spec_colours: Mapping[str, str] = field(default_factory=lambda: SPEC_COLOURS)
    starters: tuple[str, ...] = STARTERS
    nicknames: Mapping[str, Deck] = field(default_factory=lambda: NICKNAMES)
    specs_per_deck: int = 3

    def __post_init__(self) -> None:
        spec_colours = dict(self.spec_colours)
        starters = tuple(dict.fromkeys([*self.starters, *spec_colours.values()]))
        object.__setattr__(self, "spec_colours", MappingProxyType(spec_colours))
        object.__setattr__(self, "starters", starters)
        object.__setattr__(self, "nicknames", MappingProxyType(dict(self.nicknames)))
        clash = set(spec_colours) & set(starters)
        if clash:
            raise ValueError(f"names used both as spec and starter: {sorted(clash)}")
        names = [*spec_colours, *starters]
        unreadable = [
            n
            for n in names
            if not isinstance(n, str) or not n or n != n.strip() or any(c in n for c in "/[]")
        ]
        if unreadable:  # deck notation could not name them
            raise ValueError(
                "spec and starter names must be non-empty strings without surrounding spaces "
                f"or '/', '[', ']'; got {unreadable[:3]!r}"
            )
        lookup = {name.casefold(): name for name in names}
        if len(lookup) < len(names):  # notation is read case-insensitively
            folded = [n.casefold() for n in names]
            same = sorted(n for n in names if folded.count(n.casefold()) > 1)
            raise ValueError(f"spec and starter names differ only in case: {same[:4]!r}")
        object.__setattr__(self, "_lookup", lookup)
        nick = {name.casefold(): deck for name, deck in self.nicknames.items()}
        object.__setattr__(self, "_nick_lookup", nick)
        # Hashed on every deck read (parsing is memoised per catalogue): computed once.
        key = (
            tuple(sorted(spec_colours.items())),
            starters,
            tuple(sorted(self.nicknames.items())),
            self.specs_per_deck,
        )
        object.__setattr__(self, "_hash", hash(key))

    def __reduce__(self):
        return (
            Catalogue,
            (dict(self.spec_colours), self.starters, dict(self.nicknames), self.specs_per_deck),
        )

    def __copy__(self) -> Catalogue:
        return self  # immutable

    def __deepcopy__(self, memo: dict) -> Catalogue:
        return self  # immutable

    def __hash__(self) -> int:
        return self._hash  # type: ignore[attr-defined]

    @property
    def specs(self) -> tuple[str, ...]:
        """Every spec name, in catalogue order."""
        return tuple(self.spec_colours)

    def colour(self, spec: str) -> str:
        """The starter a spec belongs to.

        Parameters
        ----------
        spec : str
            A spec of the catalogue, spelt as the catalogue spells it.

        Returns
        -------
        str
            The spec's starter (colour).
        """
        return self.spec_colours[spec]

    def canonical(self, name: str) -> str | None:
        """The catalogue's spelling of a spec or starter name (case-insensitive), or None.

        Parameters
        ----------
        name : str
            A spec or starter name, in any case, surrounding spaces ignored.

        Returns
        -------
        str or None
            The name as the catalogue spells it; None when it is not in the catalogue.
        """
        return self._lookup.get(name.strip().casefold())

    def nickname(self, name: str) -> Deck | None:
        """The deck a nickname stands for (case-insensitive), or None.

        Parameters
        ----------
        name : str
            A nickname, in any case, surrounding spaces ignored.

        Returns
        -------
        Deck or None
            The deck; None when the name is no nickname of the catalogue.
        """
        return self._nick_lookup.get(name.strip().casefold())  # type: ignore[attr-defined]

    def with_specs(self, spec_colours: Mapping[str, str]) -> Catalogue:
        """A catalogue with extra (e.g. variant) specs added.

        Parameters
        ----------
        spec_colours : mapping of str to str
            Each new spec and the starter (colour) it belongs to.

        Returns
        -------
        Catalogue
            A new catalogue; this one is unchanged.
        """
        return Catalogue(
            {**self.spec_colours, **spec_colours},
            self.starters,
            self.nicknames,
            self.specs_per_deck,
        )

    def with_starters(self, starters: Iterable[str]) -> Catalogue:
        """A catalogue with extra (e.g. variant) starters added.

        Parameters
        ----------
        starters : iterable of str
            The new starters' names.

        Returns
        -------
        Catalogue
            A new catalogue; this one is unchanged.
        """
        return Catalogue(
            self.spec_colours, (*self.starters, *starters), self.nicknames, self.specs_per_deck
        )

    def with_nicknames(self, nicknames: Mapping[str, Deck]) -> Catalogue:
        """A catalogue with extra deck nicknames.

        Parameters
        ----------
        nicknames : mapping of str to Deck
            Each new nickname and the deck it stands for.

        Returns
        -------
        Catalogue
            A new catalogue; this one is unchanged.
        """
        return Catalogue(
            self.spec_colours,
            self.starters,
            {**self.nicknames, **nicknames},
            self.specs_per_deck,
        )


#: The base Codex catalogue: 7 starters, 20 specs, the usual nicknames.
CODEX = Catalogue()


def legal_decks(kind: DeckKind = "multicolour", catalogue: Catalogue | None = None) -> list[Deck]:
    """Enumerate the decks of one kind, in a fixed order.

    Parameters
    ----------
    kind : {"multicolour", "monocolour", "draft"}, default "multicolour"
        ``"multicolour"``: every deck whose starter shares the colour of at least
        one of its specs (the forum's usual rule; 3,084 decks in base Codex).
        ``"monocolour"``: all specs of the starter's colour (6 decks).
        ``"draft"``: any starter with any distinct specs (7,980 decks).
    catalogue : Catalogue or None, default None
        The catalogue of specs and starters; the base Codex catalogue by default.

    Returns
    -------
    list of Deck
        Every deck of that kind, by starter in catalogue order, then by specs.

    Examples
    --------
    >>> from skcodex.codex import legal_decks
    >>> len(legal_decks("multicolour")), len(legal_decks("monocolour")), len(legal_decks("draft"))
    (3084, 6, 7980)
    """
    cat = CODEX if catalogue is None else catalogue
    if kind not in ("multicolour", "monocolour", "draft"):
        raise ValueError(f"kind must be 'multicolour', 'monocolour' or 'draft', got {kind!r}")
    k = cat.specs_per_deck
    spec_sets = list(combinations(sorted(cat.specs), k))
    decks = []
    for starter in cat.starters:
        for specs in spec_sets:
            own = sum(cat.colour(s) == starter for s in specs)
            if (
                kind == "draft"
                or (kind == "multicolour" and own > 0)
                or (kind == "monocolour" and own == k)
            ):
                decks.append(Deck(starter, specs))
    return decks


def monocolour_decks(catalogue: Catalogue | None = None) -> list[Deck]:
    """The six monocolour decks Codex was balanced around.

    Variant specs of the same colour (a catalogue read from codexdata holds
    many) would make more monocolour decks; only the base game's six are
    returned. A catalogue without the base game's specs gets every
    monocolour deck it has.

    Parameters
    ----------
    catalogue : Catalogue or None, default None
        The catalogue of specs and starters; the base Codex catalogue by default.

    Returns
    -------
    list of Deck
        The monocolour decks, by starter.

    Examples
    --------
    >>> from skcodex.codex import deck_label
    >>> [deck_label(d) for d in monocolour_decks()]
    ['MonoBlack', 'MonoBlue', 'MonoGreen', 'MonoPurple', 'MonoRed', 'MonoWhite']
    """
    cat = CODEX if catalogue is None else catalogue
    base = [
        d
        for d in legal_decks("monocolour")
        if d.starter in cat.starters and all(s in cat.spec_colours for s in d.specs)
    ]
    return base or legal_decks("monocolour", cat)
