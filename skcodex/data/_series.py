"""The optional ``series`` column of a match table: games of one series (a best-of-N set).

A series label groups games played as one set between the same two players. The fit
reads every game as a game (a series changes nothing in it); the label is kept for
series-level questions (`skcodex.tournament.series_table`, `predict_series`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["check_series"]


def check_series(table: pd.DataFrame, index: pd.Index, error: type, row_label, label_codes) -> None:
    """Refuse series labels that are not labels, and series whose games change players.

    A missing label is a game outside any series. Labels are hashable scalars (text,
    number or date); every game of a series is between the same two players (either
    may move first). ``table`` holds the checked players; ``index`` the caller's index
    (rows are named by it); ``label_codes`` reads the labels, as it reads the ``period``
    column's.
    """
    series = table["series"]
    present = series.notna().to_numpy()

    def refuse(value):
        if isinstance(value, (bool, np.bool_)):
            return "is True or False, not a series label"
        return None

    codes, labels = label_codes(
        series, "series", index, each="per game, empty for a game outside any series", refuse=refuse
    )
    if not present.any():
        return
    rows = np.flatnonzero(present)
    one = table["player1"].to_numpy(dtype=object)[rows]
    two = table["player2"].to_numpy(dtype=object)[rows]
    pairs = [frozenset((a, b)) for a, b in zip(one, two)]
    first: dict[int, int] = {}
    for k, code in enumerate(codes[rows]):
        start = first.setdefault(int(code), k)
        if pairs[k] != pairs[start]:
            label = labels[code]
            raise error(
                f"column 'series': series {label!r} has games between {one[start]!r} and "
                f"{two[start]!r} ({row_label(index, int(rows[start]))}) and between {one[k]!r} "
                f"and {two[k]!r} ({row_label(index, int(rows[k]))}); the games of a series are "
                "between the same two players (give each pairing its own label)"
            )
