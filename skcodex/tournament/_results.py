"""Results already played, checked against the entrants and looked up by round and pair."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from skcodex.tournament._formats import TournamentError

__all__ = ["Results", "check_results"]


class Results:
    """Matches already played (or paired), by tournament round.

    Parameters
    ----------
    rounds, first, second, winner : ndarray of shape (n_records,)
        Round (1-based), the entrant who moved first and the other (entrant
        numbers), and the winner (-1: paired but not yet played).
    n_entrants : int
    """

    def __init__(self, rounds, first, second, winner, n_entrants: int):
        self.rounds = np.asarray(rounds, dtype=np.int64)
        self.first = np.asarray(first, dtype=np.int64)
        self.second = np.asarray(second, dtype=np.int64)
        self.winner = np.asarray(winner, dtype=np.int64)
        self.n_entrants = n_entrants

    def __len__(self) -> int:
        return len(self.rounds)

    def round_pairs(self, round_: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The pairs of a round with records (first mover, other), or None."""
        here = self.rounds == round_
        if not here.any():
            return None
        return self.first[here], self.second[here]

    def forced(self, start: int, stop: int, leg: int) -> tuple[np.ndarray, np.ndarray] | None:
        """Winner and first mover of each pair's ``leg``-th meeting in rounds [start, stop).

        Both arrays are (n_entrants, n_entrants), symmetric, -1 where nothing is recorded.
        """
        here = np.flatnonzero((self.rounds >= start) & (self.rounds < stop))
        if len(here) == 0:
            return None
        winner = np.full((self.n_entrants, self.n_entrants), -1)
        first = np.full((self.n_entrants, self.n_entrants), -1)
        seen: dict = {}
        for k in here[np.argsort(self.rounds[here], kind="stable")]:
            i, j = self.first[k], self.second[k]
            pair = (min(i, j), max(i, j))
            count = seen.get(pair, 0)
            seen[pair] = count + 1
            if count == leg and self.winner[k] >= 0:
                winner[i, j] = winner[j, i] = self.winner[k]
                first[i, j] = first[j, i] = i
        return winner, first


def check_results(results: Any, names: list) -> Results:
    """Read results so far: ``round``, ``player1`` (moved first), ``player2``, ``winner``.

    ``winner`` may be empty for a pairing not yet played (Swiss rounds use the
    pairing as given).
    """
    n = len(names)
    if results is None:
        return Results([], [], [], [], n)
    if not isinstance(results, pd.DataFrame):
        raise TournamentError(f"results must be a table (DataFrame), got {type(results).__name__}")
    missing = [c for c in ("round", "player1", "player2") if c not in results.columns]
    if missing:
        raise TournamentError(f"the results table needs the column(s) {', '.join(missing)}")
    number = {name: k for k, name in enumerate(names)}
    rounds, first, second, winner = [], [], [], []
    taken: set = set()
    has_winner = "winner" in results.columns
    for row, record in enumerate(results.itertuples(index=False), start=1):
        rec = record._asdict()
        r = rec["round"]
        if isinstance(r, (bool, np.bool_)) or not float(r).is_integer() or r < 1:
            raise TournamentError(
                f"results row {row}: round must be a whole number >= 1, got {r!r}"
            )
        for col in ("player1", "player2"):
            if rec[col] not in number:
                raise TournamentError(f"results row {row}: {rec[col]!r} is not an entrant")
        i, j = number[rec["player1"]], number[rec["player2"]]
        if i == j:
            raise TournamentError(f"results row {row}: {rec['player1']!r} cannot play themself")
        for k in (i, j):
            if (int(r), k) in taken:
                raise TournamentError(
                    f"results row {row}: {names[k]!r} already has a match in round {int(r)}"
                )
            taken.add((int(r), k))
        w = rec["winner"] if has_winner else None
        if w is None or (isinstance(w, float) and np.isnan(w)) or w == "":
            w_code = -1
        elif w in (rec["player1"], rec["player2"]):
            w_code = number[w]
        else:
            raise TournamentError(
                f"results row {row}: the winner {w!r} is neither {rec['player1']!r} nor "
                f"{rec['player2']!r}"
            )
        rounds.append(int(r))
        first.append(i)
        second.append(j)
        winner.append(w_code)
    return Results(rounds, first, second, winner, n)
