"""Results already played, checked against the entrants and looked up by round and pair."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from skcodex.tournament._formats import TournamentError

__all__ = ["Recorded", "Results", "check_results"]


class Results:
    """Matches already played (or paired), by tournament round.

    Parameters
    ----------
    rounds, first, second, winner : ndarray of shape (n_records,)
        Round (1-based), the entrant who moved first and the other (entrant
        numbers), and the winner (-1: paired but not yet played).
    n_entrants : int
    """

    def __init__(self, rounds, first, second, winner, n_entrants: int, rows=None):
        #: Each record's row in the table given (1-based), for messages.
        self.rows = np.arange(1, len(rounds) + 1) if rows is None else np.asarray(rows)
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

    def meetings(self, start: int, stop: int, n_simulations: int) -> Recorded | None:
        """The results of rounds [start, stop), each bound to the meeting it was recorded for.

        A pair's records are taken in round order: the first binds the pair's first
        meeting in those rounds, the second its second meeting, and so on (a double
        elimination's rematch in the losers' bracket or the grand final is a meeting
        of its own). None when nothing is recorded there.
        """
        here = np.flatnonzero((self.rounds >= start) & (self.rounds < stop))
        if len(here) == 0:
            return None
        legs: dict = {}
        for k in here[np.argsort(self.rounds[here], kind="stable")]:
            i, j = int(self.first[k]), int(self.second[k])
            legs.setdefault((min(i, j), max(i, j)), []).append((int(self.winner[k]), i))
        return Recorded(legs, self.n_entrants, n_simulations)


class Recorded:
    """Recorded results looked up meeting by meeting in each simulated tournament.

    Parameters
    ----------
    legs : dict
        For each pair ``(i, j)`` with ``i < j``, its records in round order as
        ``(winner, first mover)`` (winner -1: paired, not yet played).
    n_entrants, n_simulations : int
    """

    def __init__(self, legs: dict, n_entrants: int, n_simulations: int):
        n_pairs = len(legs)
        depth = max(len(v) for v in legs.values())
        self.pair = np.full((n_entrants, n_entrants), -1, dtype=np.int64)
        self.winner = np.full((n_pairs, depth + 1), -1, dtype=np.int64)
        self.first = np.full((n_pairs, depth + 1), -1, dtype=np.int64)
        for p, ((i, j), records) in enumerate(legs.items()):
            self.pair[i, j] = self.pair[j, i] = p
            for leg, (w, f) in enumerate(records):
                self.winner[p, leg], self.first[p, leg] = w, f
        self.count = np.zeros((n_simulations, n_pairs), dtype=np.int64)

    def take(self, sims: np.ndarray, i: np.ndarray, j: np.ndarray):
        """The recorded winner and first mover of these meetings (-1: none), counting them.

        ``sims``, ``i``, ``j`` list one meeting each; a simulation holds each
        entrant at most once among them.
        """
        pair = self.pair[i, j]
        has = np.flatnonzero(pair >= 0)
        winner = np.full(len(i), -1, dtype=np.int64)
        first = np.full(len(i), -1, dtype=np.int64)
        if len(has):
            s, p = sims[has], pair[has]
            leg = np.minimum(self.count[s, p], self.winner.shape[1] - 1)
            self.count[s, p] += 1
            winner[has] = self.winner[p, leg]
            first[has] = np.where(winner[has] >= 0, self.first[p, leg], -1)
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
        r = _round(rec["round"], row)
        for col in ("player1", "player2"):
            if not _is_name(rec[col]) or rec[col] not in number:
                raise TournamentError(f"results row {row}: {_short(rec[col])} is not an entrant")
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
        if w is None or (_is_name(w) and pd.isna(w)) or (isinstance(w, str) and w == ""):
            w_code = -1
        elif not _is_name(w):
            raise TournamentError(f"results row {row}: the winner {_short(w)} is not a name")
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


#: The last round a results table may name (a tournament of people plays far fewer).
MAX_ROUND = 1_000_000


def _round(value: Any, row: int) -> int:
    """A record's round as an int from 1 to `MAX_ROUND`, or a one-line error naming the row."""
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if isinstance(value, (float, np.floating)) and np.isfinite(value) and float(value).is_integer():
        ok, value = True, float(value)
    if not ok or not 1 <= value <= MAX_ROUND:
        raise TournamentError(
            f"results row {row}: round must be a whole number from 1 to {MAX_ROUND:,}, "
            f"got {_short(value)}"
        )
    return int(value)


def _is_name(value: Any) -> bool:
    """Whether ``value`` can be a name: text or a number (not a list, a dict, ...)."""
    return isinstance(value, (str, int, float, np.integer, np.floating)) or value is pd.NA


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "..."
