"""Sets in format text (``:boK``, ``:final-boK``) and series in a match table."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from skcodex.tournament._series import check_best_of
from skcodex.tournament._stage import TournamentError

# -- stages of a tournament played in sets --------------------------------------------


def describe_sets(stage: Any) -> str:
    """The set lengths of a stage in words (empty for single games)."""
    words = []
    if getattr(stage, "best_of", 1) > 1:
        words.append(f"best of {stage.best_of}")
    final = getattr(stage, "final_best_of", None)
    if final is not None and final != stage.best_of:
        words.append(f"final best of {final}")
    return "".join(f", {w}" for w in words)


def split_sets(part: str) -> tuple[str, int | None, int | None]:
    """A stage's text without its set suffixes, and their lengths.

    ``"knockout:8:bo3:final-bo5"`` gives ``("knockout:8", 3, 5)``; absent
    suffixes give None.
    """
    pieces = part.split(":")
    best_of = final = None
    while len(pieces) > 1:
        token = pieces[-1].strip().lower()
        if token.startswith("final-bo"):
            if final is not None:
                raise TournamentError(f"{part.strip()[:40]!r}: give 'final-boN' once")
            final = _set_number(token[len("final-bo") :], part, "final-bo")
        elif token.startswith("bo"):
            if best_of is not None:
                raise TournamentError(f"{part.strip()[:40]!r}: give 'boN' once")
            best_of = _set_number(token[2:], part, "bo")
        else:
            break
        pieces.pop()
    return ":".join(pieces), best_of, final


def _set_number(digits: str, part: str, prefix: str) -> int:
    shown = part.strip()[:40]
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 3:
        raise TournamentError(
            f"{shown!r}: '{prefix}' takes an odd number of games, e.g. '{prefix}3'"
        )
    return check_best_of(int(digits), f"{shown!r}: the games of a set")


# -- series recorded in a match table -------------------------------------------------


def series_table(X: pd.DataFrame, y: Any) -> pd.DataFrame:
    """Each series of a match table with its score, one row a series.

    Parameters
    ----------
    X : pandas.DataFrame
        A match table with a ``series`` column (games of one series share a
        label; an empty label is a game outside any series, left out here).
    y : array-like of shape (n_matches,)
        1 where player 1 of the row won, 0 where player 2 did.

    Returns
    -------
    pandas.DataFrame
        ``series``, ``player1`` (who moved first in the series' first game, in
        table order), ``player2``, ``deck1`` and ``deck2`` (the decks each
        played, in order of first use, joined by ``;``), ``games``, ``wins1``,
        ``wins2`` and ``winner`` (1: player 1 won more games, 0: player 2 did,
        0.5: level), in the order the series started.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"player1": ["ann", "bob", "ann"], "player2": ["bob", "ann", "bob"],
    ...                   "deck1": ["MonoRed", "MonoBlue", "MonoRed"],
    ...                   "deck2": ["MonoBlue", "MonoRed", "MonoBlue"],
    ...                   "series": ["final", "final", "final"]})
    >>> series_table(X, [1, 1, 1])[["player1", "player2", "wins1", "wins2", "winner"]]
      player1 player2  wins1  wins2  winner
    0     ann     bob      2      1     1.0
    """
    from skcodex.data import check_match_table, check_outcome

    table = check_match_table(X, read_decks=False)
    outcome = check_outcome(y, len(table))
    if "series" not in table.columns:
        raise TournamentError("the match table has no 'series' column")
    rows: dict = {}
    raw1, raw2 = X["deck1"].tolist(), X["deck2"].tolist()
    for k in range(len(table)):
        label = table["series"].iloc[k]
        if pd.isna(label):
            continue
        p1, p2 = table["player1"].iloc[k], table["player2"].iloc[k]
        if label not in rows:
            rows[label] = {"player1": p1, "player2": p2, "decks": ([], []), "wins": [0, 0]}
        entry = rows[label]
        side = 0 if p1 == entry["player1"] else 1
        for who, deck in ((side, raw1[k]), (1 - side, raw2[k])):
            if str(deck) not in entry["decks"][who]:
                entry["decks"][who].append(str(deck))
        won = side if outcome[k] == 1 else 1 - side
        entry["wins"][won] += 1
    out = pd.DataFrame(
        {
            "series": list(rows),
            "player1": [r["player1"] for r in rows.values()],
            "player2": [r["player2"] for r in rows.values()],
            "deck1": [";".join(r["decks"][0]) for r in rows.values()],
            "deck2": [";".join(r["decks"][1]) for r in rows.values()],
            "games": [sum(r["wins"]) for r in rows.values()],
            "wins1": [r["wins"][0] for r in rows.values()],
            "wins2": [r["wins"][1] for r in rows.values()],
        }
    )
    out["winner"] = np.sign(out["wins1"] - out["wins2"]) * 0.5 + 0.5
    return out
