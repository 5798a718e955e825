"""Elo ratings as a scikit-learn classifier of match outcomes.

Player 1's expected score is ``E = 1 / (1 + 10 ** ((r2 - r1 - h) / 400))``
with ``h`` the first-mover advantage; after a match player 1 gains
``K (s - E)`` and player 2 loses the same.
"""

from __future__ import annotations

import functools
import math
from numbers import Real
from typing import Any, ClassVar

import numpy as np

from skcodex._compat.scikit_learn import Interval, StrOptions
from skcodex.ratings._base import (
    RATING_CONSTRAINTS,
    RATING_STATE,
    RatingClassifierMixin,
    TrainingMatches,
)

__all__ = ["EloClassifier"]


def _expected(r1: Any, r2: Any, h: float) -> Any:
    """Player 1's expected score, written as skelo writes it so that both agree to the bit."""
    with np.errstate(over="ignore"):  # a vast rating gap gives 10 ** x = inf, and E = 0
        return 1.0 / (1.0 + 10.0 ** ((r2 - (r1 + h)) / 400.0))


#: Above this exponent ``10.0 ** x`` overflows a Python float (which raises, where NumPy
#: and the compiled kernel give inf); the loop then uses inf, as they do.
_MAX_EXPONENT = 308.0


#: Below this many matches the plain loop is used: it costs about a microsecond a
#: match, less than loading the compiled kernel in a new process.
_KERNEL_MIN_MATCHES = 20_000


def _period_bounds(per: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive) of each run of equal period codes in ``per``."""
    starts = np.r_[0, np.flatnonzero(np.diff(per)) + 1].astype(np.int64)
    ends = np.r_[starts[1:], len(per)].astype(np.int64)
    return starts, ends


def _replay_loop(a, b, per, score, rating, k, h) -> None:
    """Replay matches sorted by period in plain Python (see `_replay`)."""
    r = rating.tolist()
    al, bl, sl = a.tolist(), b.tolist(), score.tolist()
    if len(per) == 0 or int(per[-1]) + 1 == len(per):  # one match per period
        for i, j, s in zip(al, bl, sl):
            x = (r[j] - (r[i] + h)) / 400.0
            change = k * (s - 1.0 / (1.0 + (10.0**x if x < _MAX_EXPONENT else math.inf)))
            r[i] += change
            r[j] -= change
    else:
        starts, ends = _period_bounds(per)
        for start, end in zip(starts.tolist(), ends.tolist()):
            total: dict[int, float] = {}
            for i, j, s in zip(al[start:end], bl[start:end], sl[start:end]):
                x = (r[j] - (r[i] + h)) / 400.0
                change = k * (s - 1.0 / (1.0 + (10.0**x if x < _MAX_EXPONENT else math.inf)))
                total[i] = total.get(i, 0.0) + change
                total[j] = total.get(j, 0.0) - change
            for p, change in total.items():
                r[p] += change
    rating[:] = r


@functools.cache
def _replay_kernel():
    """The replay compiled with numba (built or read from numba's cache on first use), or None."""
    try:
        import numba
    except ImportError:  # pragma: no cover - numba comes with pytensor
        return None

    @numba.njit(cache=True, nogil=True)
    def replay(a, b, starts, ends, score, rating, k, h, total):  # pragma: no cover - compiled
        # The same float operations, in the same order, as `_replay_loop` (a one-match
        # period adds 0.0 + change and 0.0 - change: exactly its direct update).
        for t in range(len(starts)):
            lo, hi = starts[t], ends[t]
            for m in range(lo, hi):
                i, j = a[m], b[m]
                change = k * (
                    score[m] - 1.0 / (1.0 + 10.0 ** ((rating[j] - (rating[i] + h)) / 400.0))
                )
                total[i] += change
                total[j] -= change
            for m in range(lo, hi):
                for p in (a[m], b[m]):
                    rating[p] += total[p]
                    total[p] = 0.0

    return replay


def _replay(a, b, per, score, rating, k, h, *, engine: str = "auto") -> None:
    """Replay matches sorted by period, updating ``rating`` in place.

    Elo's update is a handful of float operations, so a compiled loop (numba)
    is used for large training sets and a plain Python loop for small ones;
    both give the same ratings to the bit. ``engine`` ("auto", "numba" or
    "python") forces one of them.
    """
    small = engine == "auto" and len(per) < _KERNEL_MIN_MATCHES
    kernel = None if engine == "python" or small else _replay_kernel()
    if kernel is None:  # a small table, or numba missing: not worth loading the kernel
        _replay_loop(a, b, per, score, rating, k, h)
        return
    starts, ends = _period_bounds(per) if len(per) else (per[:0], per[:0])
    kernel(
        np.ascontiguousarray(a, dtype=np.int64),
        np.ascontiguousarray(b, dtype=np.int64),
        starts,
        ends,
        np.ascontiguousarray(score, dtype=np.float64),
        rating,
        float(k),
        float(h),
        np.zeros(len(rating)),
    )


class EloClassifier(RatingClassifierMixin):
    """Elo ratings as a scikit-learn classifier of match outcomes.

    ``fit`` replays the matches in row order (or rating period by rating
    period); ``predict_proba`` uses the ratings at the end of ``fit``. Decks
    are ignored.

    Parameters
    ----------
    k_factor : float, default=20.0
        The K factor: the most rating a player can gain or lose in one match.
    initial_rating : float, default=1500.0
        Rating of a new player, and of a player not seen in training.
    updates : {"match", "period"}, default="match"
        ``"match"`` updates after every match, in row order. ``"period"``
        updates every player of a rating period (the ``period`` column) at
        once, from the ratings at the start of the period, by ``K`` times the
        sum of their ``s - E`` over the period; without a ``period`` column
        it is the same as ``"match"``.
    first_mover_advantage : float or "auto", default=0.0
        Rating points added to player 1 (who moved first) in every expected
        score, in fitting and in prediction. ``"auto"`` sets it from player 1's
        mean score in the training data, ``400 log10(w / (1 - w))`` with
        ``w = (wins + 1) / (n + 2)``.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Always ``[0, 1]``: class 1 means player 1 won.
    ratings_ : pandas.DataFrame
        One row a training player, best first: ``player``, ``rating``,
        ``matches``, ``last_period`` (the label of the player's last period;
        the row position in the training table when there is no ``period``
        column). Elo has no deviation or volatility.
    first_mover_advantage_ : float
        The advantage used, in rating points.
    n_periods_ : int
        Number of rating periods in the training data.

    Notes
    -----
    Periods are processed in the order of their first row; a label that
    reappears after another period started still belongs to its first period.
    ``fit(X, y, luck=l)`` updates with player 1's score ``y - l``, which may
    lie outside [0, 1].

    Examples
    --------
    >>> import pandas as pd
    >>> from skcodex import EloClassifier
    >>> X = pd.DataFrame({
    ...     "player1": ["ann", "bob", "ann"],
    ...     "player2": ["bob", "cat", "cat"],
    ...     "deck1": ["MonoRed", "MonoBlue", "MonoRed"],
    ...     "deck2": ["MonoBlue", "MonoGreen", "MonoGreen"],
    ... })
    >>> model = EloClassifier(k_factor=32).fit(X, [1, 1, 1])
    >>> model.ratings_.round(1).values.tolist()
    [['ann', 1530.5, 2, 2], ['bob', 1500.7, 2, 1], ['cat', 1468.8, 2, 2]]
    >>> model.predict_proba(X.iloc[:1]).round(3).tolist()
    [[0.457, 0.543]]
    """

    #: The fitted attributes a saved file holds (see `skcodex._format.persistence`).
    _persisted_state: ClassVar[tuple[str, ...]] = (*RATING_STATE, "_rating")
    _finite_params: ClassVar[tuple[str, ...]] = ("k_factor", "initial_rating")

    # Bounds keep every expected score computable (``10 ** (d / 400)`` overflows a float
    # past d = 123,000 points) and every rating change visible in a float:
    _parameter_constraints: ClassVar[dict] = {
        **RATING_CONSTRAINTS,
        # one match moves a rating by at most K: beyond 10,000 points (25 times the
        # logistic scale) one result outweighs any history, and at 1e308 ratings overflow
        "k_factor": [Interval(Real, 0, 1e4, closed="right")],
        "updates": [StrOptions({"match", "period"})],
    }

    def __init__(
        self,
        k_factor: float = 20.0,
        initial_rating: float = 1500.0,
        updates: str = "match",
        first_mover_advantage: float | str = 0.0,
    ):
        self.k_factor = k_factor
        self.initial_rating = initial_rating
        self.updates = updates
        self.first_mover_advantage = first_mover_advantage

    def _replay(self, data: TrainingMatches, h: float) -> dict[str, np.ndarray]:
        """Elo's updates, match by match or period by period; the final ratings."""
        n = len(data.score)
        period = data.period if self.updates == "period" else np.arange(n)
        rating = np.full(data.n_players, float(self.initial_rating))
        order = np.argsort(period, kind="stable")
        _replay(
            data.player1[order],
            data.player2[order],
            period[order],
            data.score[order],
            rating,
            float(self.k_factor),
            h,
        )
        self._rating = np.append(rating, float(self.initial_rating))
        return {"rating": rating}

    def _p_win(self, code1: np.ndarray, code2: np.ndarray) -> np.ndarray:
        # code -1 (an unseen player) picks the appended initial rating
        return _expected(self._rating[code1], self._rating[code2], self.first_mover_advantage_)
