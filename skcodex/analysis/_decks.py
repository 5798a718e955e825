"""Which decks the analyses look at: the most played ones, or those a user names."""

from __future__ import annotations

from typing import Any

import pandas as pd

from skcodex.analysis._base import catalogue, check_count, check_fitted
from skcodex.codex import Catalogue, Deck, deck_label, monocolour_decks, parse_decks
from skcodex.data import check_match_table

__all__ = ["DECK_KEYWORDS", "N_DEFAULT_DECKS", "default_decks", "most_played_decks"]

#: How many of the most played decks the deck analyses use by default.
N_DEFAULT_DECKS = 8

#: Keywords that choose a deck list: the most played decks of the fitted data
#: (the default), or Codex's six monocolour decks.
DECK_KEYWORDS = ("most played", "monocolour")


def default_decks(clf: Any, n: int = N_DEFAULT_DECKS) -> list[Deck]:
    """The ``n`` decks played most often in the data a classifier was fitted on.

    Both seats are counted; ties are broken by first appearance. This is the
    default deck list of `matchup_table`, `deck_ranking` and `nash_weights`.
    A classifier saved before deck counts were kept gets Codex's monocolour
    decks.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        A fitted classifier.
    n : int, default 8
        How many decks.

    Returns
    -------
    list of Deck
        The decks, most played first.
    """
    check_fitted(clf)
    n = check_count(n, "n")
    played = tuple(clf.vocabulary_.decks)
    if played:
        return list(played[:n])
    return monocolour_decks(catalogue(clf))


def _choose_decks(decks: Any, clf: Any, what: str) -> list[Deck]:
    """The decks an analysis argument names: a keyword of `DECK_KEYWORDS`, or decks.

    Strings are labels of the fitted decks or notation read against the
    classifier's catalogue (`skcodex.codex.parse_decks`).
    """
    cat = catalogue(clf)
    keyword = decks.strip().lower() if isinstance(decks, str) else None
    if decks is None or keyword == "most played":
        return default_decks(clf)
    if keyword == "monocolour":
        if not isinstance(cat, Catalogue) or clf.layout_.specs_per_deck != 3:
            raise ValueError(
                f"{what}='monocolour' names Codex's monocolour decks, but this model's decks "
                f"are not Codex decks; pass a list of decks or 'most played'"
            )
        return monocolour_decks(cat)
    chosen = parse_decks(decks, cat, clf.vocabulary_.decks, what)
    twice = repeated_deck(chosen)
    if twice is not None:
        first, second = twice
        raise ValueError(
            f"{what} names the deck {deck_label(chosen[first], cat)!r} twice (entries "
            f"{first} and {second}); name each deck once"
        )
    return chosen


def repeated_deck(decks: list[Deck]) -> tuple[int, int] | None:
    """The positions of the first deck a list holds twice (its first and second), or None."""
    seen: dict[Deck, int] = {}
    for i, deck in enumerate(decks):
        if deck in seen:
            return seen[deck], i
        seen[deck] = i
    return None


def _choose_deck_lists(clf: Any, decks1: Any, decks2: Any) -> tuple[list[Deck], list[Deck]]:
    """Player 1's and player 2's decks; player 2's default to player 1's."""
    d1 = _choose_decks(decks1, clf, "decks1")
    return d1, d1 if decks2 is None else _choose_decks(decks2, clf, "decks2")


def most_played_decks(
    X: pd.DataFrame, n: int = 20, catalogue: Catalogue | None = None
) -> list[Deck]:
    """The ``n`` decks played most often in a match table, counting both seats.

    Ties are broken by first appearance.

    Parameters
    ----------
    X : pandas.DataFrame
        The match table, one row a match: ``player1`` (who moves first), ``player2``,
        ``deck1``, ``deck2``, and optionally ``period`` and ``date``.
    n : int, default 20
        How many decks.
    catalogue : Catalogue or None, default None
        The catalogue the deck notation is read with; Codex's by default.

    Returns
    -------
    list of Deck
        The decks, most played first.

    Examples
    --------
    >>> import pandas as pd
    >>> from skcodex.codex import deck_label
    >>> X = pd.DataFrame({"player1": ["a", "b"], "player2": ["b", "c"],
    ...                   "deck1": ["MonoRed", "MonoBlue"], "deck2": ["MonoBlue", "MonoRed"]})
    >>> [deck_label(d) for d in most_played_decks(X, 1)]
    ['MonoRed']
    """
    n = check_count(n, "n")
    table = check_match_table(X, catalogue)
    counts = pd.Series([*table["deck1"], *table["deck2"]]).value_counts(sort=False)
    order = counts.sort_values(ascending=False, kind="stable")
    return list(order.index[:n])
