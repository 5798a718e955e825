"""The `Deck` value type: a starter plus a fixed number of distinct specs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


class DeckParseError(ValueError):
    """A deck string that cannot be read; the message names the text and the problem."""


@dataclass(frozen=True, order=True)
class Deck:
    """A deck: one starter and distinct specs, in a normalised (sorted) order.

    `Deck` knows nothing of Codex: any game whose decks are a starter plus a
    fixed number (zero or more) of side components can use it with its own
    names: a fighting-game character (``Deck("Ryu")``), a hero with two
    colours (``Deck("Hero", ("Red", "Blue"))``). Parsing forum notation
    against the Codex catalogue is `skcodex.codex.parse_deck`.

    Parameters
    ----------
    starter : str
        The starter deck (the character, faction or hero).
    specs : iterable of str, default ()
        The specs (side components); they must be distinct. They are stored
        sorted, so two decks with the same parts compare and hash equal
        whatever order they were given in.

    Examples
    --------
    >>> from skcodex.codex import Deck
    >>> Deck("Red", ["Fire", "Anarchy", "Blood"])
    Deck(starter='Red', specs=('Anarchy', 'Blood', 'Fire'))
    >>> Deck("Red", ("Fire", "Anarchy", "Blood")) == Deck("Red", ("Anarchy", "Blood", "Fire"))
    True
    >>> Deck("Ryu")
    Deck(starter='Ryu', specs=())
    """

    starter: str
    specs: tuple[str, ...]

    def __init__(self, starter: str, specs: Iterable[str] = ()):
        if not isinstance(starter, str) or not starter.strip():
            raise ValueError(f"a deck's starter must be a non-empty string, got {starter!r}")
        if isinstance(specs, str):
            raise TypeError(
                f"a deck's specs must be a sequence of strings, got the single string {specs!r}"
            )
        try:
            specs = tuple(s.strip() if isinstance(s, str) else s for s in specs)
        except TypeError:
            raise TypeError(
                f"a deck's specs must be a sequence of strings, got {type(specs).__name__}"
            ) from None
        for spec in specs:
            if not isinstance(spec, str) or not spec.strip():
                raise ValueError(f"a deck's specs must be non-empty strings, got {spec!r}")
        repeated = sorted({s for s in specs if specs.count(s) > 1})
        if repeated:
            raise ValueError(
                f"a deck's specs must be distinct; {', '.join(repeated)} appears more than once"
            )
        object.__setattr__(self, "starter", starter.strip())
        object.__setattr__(self, "specs", tuple(sorted(specs)))

    def __str__(self) -> str:
        if not self.specs:
            return self.starter
        return f"{self.starter}: {'/'.join(self.specs)}"
