"""Machinery shared by the rating estimators.

Input checks, the order in which rating periods are replayed, and the part of
the scikit-learn face that does not depend on the rating system.

Rating periods
--------------
The ``period`` column may hold any hashable labels. All matches with the same
label form one rating period, and periods are processed in the order of their
first row. A label that reappears after another period has started still
belongs to its first period: tournaments overlap in real data, and the label is
the user's statement of which matches belong together. Without a ``period``
column every match is its own period, processed in row order.

The schedule
------------
Glicko-2's update is heavy (an iteration per player and period), so its
replay is vectorised. Updates of periods that share no player commute, so the
replay groups periods into *levels*: a period's level is one more than the
highest level of any earlier period of any of its players. Periods of one
level share no player and are updated together in one vectorised step; a
player's periods fall in strictly increasing levels, in their original order.
The result is exactly the period-by-period replay; only the number of NumPy
steps changes: it is the longest chain of periods linked by shared players (at
least the number of periods the busiest player took part in), not the number
of periods. Elo's update is a few float operations, and a plain loop is faster.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from numbers import Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from skcodex._compat.scikit_learn import Interval, StrOptions, fit_context
from skcodex._format.persistence import PersistenceMixin
from skcodex.data import adjust_for_luck, check_luck, check_match_table, check_outcome
from skcodex.data._table import time_order

#: Rating points per unit of the logistic (natural-log odds) scale: 400 / ln 10,
#: rounded as in Glickman's paper. Elo's ``10 ** (d / 400)`` is ``exp(d / SCALE)``.
GLICKO_SCALE = 173.7178


@dataclass(frozen=True)
class TrainingMatches:
    """A validated training table reduced to arrays.

    ``player1``/``player2`` are codes into ``players`` (in order of first
    appearance), ``period`` codes into ``period_labels`` (in order of first
    appearance, which is the processing order) and ``score`` is player 1's
    score used by the updates (``y`` or ``y - luck``).
    """

    player1: np.ndarray
    player2: np.ndarray
    players: pd.Index
    period: np.ndarray
    period_labels: np.ndarray
    score: np.ndarray

    @property
    def n_players(self) -> int:
        return len(self.players)

    @property
    def n_periods(self) -> int:
        return len(self.period_labels)

    @cached_property
    def matches(self) -> np.ndarray:
        """Each player's number of matches."""
        both = np.concatenate([self.player1, self.player2])
        return np.bincount(both, minlength=self.n_players)

    @cached_property
    def last_period(self) -> np.ndarray:
        """The code of each player's last period."""
        both = np.concatenate([self.player1, self.player2])
        periods = np.concatenate([self.period, self.period])
        last = np.full(self.n_players, -1, dtype=np.int64)
        np.maximum.at(last, both, periods)
        return last


def check_outcome_fast(y: Any, n_matches: int) -> np.ndarray:
    """`check_outcome`, with a vectorised path for the common case of a clean numeric array.

    A 1-D integer, boolean or float array of the right length holding only 0
    and 1 is accepted as `check_outcome` would accept it; anything else goes
    through `check_outcome`, which gives the error message.
    """
    if isinstance(y, (np.ndarray, pd.Series)) and y.ndim == 1 and len(y) == n_matches:
        arr = np.asarray(y)
        if arr.dtype.kind in "biuf" and np.all((arr == 0) | (arr == 1)):
            return arr.astype(np.int8)
    return check_outcome(y, n_matches)


def prepare_training(X: Any, y: Any, luck: Any = None) -> TrainingMatches:
    """Validate ``X``, ``y`` and ``luck`` and reduce them to arrays; the inputs are not modified."""
    table = check_match_table(X, read_decks=False)  # ratings ignore decks: any game's will do
    n = len(table)
    outcome = check_outcome_fast(y, n)
    score = outcome.astype(float)
    if luck is not None:  # ratings have no likelihood to keep proper: the warning only
        score = adjust_for_luck(table, score, check_luck(luck, n), bounded=False)
    order = time_order(table)
    if order is not None:  # replay in time order, whatever the order of the rows
        table = table.iloc[order].reset_index(drop=True)
        score = score[order]
    codes, players = pd.factorize(
        pd.concat([table["player1"], table["player2"]], ignore_index=True)
    )
    if "period" in table.columns:
        period, labels = pd.factorize(table["period"])
        labels = np.asarray(labels, dtype=object)
    else:
        period = np.arange(n)
        labels = np.arange(n) if order is None else order  # the caller's row positions
    return TrainingMatches(
        player1=codes[:n].astype(np.int64),
        player2=codes[n:].astype(np.int64),
        players=pd.Index(players),
        period=period.astype(np.int64),
        period_labels=labels,
        score=score,
    )


def first_mover_points(setting: float | str, score: np.ndarray) -> float:
    """The first-mover advantage in rating points: fixed, or from player 1's mean score.

    ``"auto"`` solves ``1 / (1 + 10 ** (-h / 400)) = w`` for ``h``, where ``w``
    is player 1's mean score with one win and one loss added (so that a
    training set that player 1 always won gives a large finite advantage,
    not an infinite one), clipped to [0.001, 0.999].
    """
    if isinstance(setting, str):
        w = (float(np.sum(score)) + 1.0) / (len(score) + 2.0)
        w = min(max(w, 0.001), 0.999)
        return float(400.0 * np.log10(w / (1.0 - w)))
    value = float(setting)
    if not np.isfinite(value):
        raise ValueError(f"first_mover_advantage must be finite or 'auto', got {setting!r}")
    return value


def check_finite_params(estimator: BaseEstimator, names: tuple[str, ...]) -> None:
    """Reject NaN and infinite values, which sklearn's `Interval` lets through for open bounds."""
    for name in names:
        value = getattr(estimator, name)
        if not np.isfinite(float(value)):
            raise ValueError(
                f"The {name!r} parameter of {type(estimator).__name__} must be finite; "
                f"got {value!r}"
            )


@dataclass(frozen=True)
class Schedule:
    """The replay order of a training set, grouped into levels (see the module docstring).

    A *slot* is one player's part in one period; a *side* is one player's part
    in one match, so each match has two sides and each side feeds one slot.
    Level ``l`` holds the slots ``slot_bounds[l]:slot_bounds[l + 1]`` (a
    player has at most one slot per level) and the sides
    ``side_bounds[l]:side_bounds[l + 1]``; a side's ``side_slot`` and
    ``side_opp`` (the opponent's slot) count from the level's first slot.
    """

    order: np.ndarray  # training rows in processing order
    side_match: np.ndarray  # position in ``order`` of each side's match
    side_first: np.ndarray  # whether the side is player 1
    side_slot: np.ndarray
    side_opp: np.ndarray
    slot_player: np.ndarray
    slot_idle: np.ndarray  # periods the player sat out since their previous slot
    side_bounds: np.ndarray
    slot_bounds: np.ndarray

    @property
    def n_levels(self) -> int:
        return len(self.slot_bounds) - 1

    def levels(self):
        """Yield ``(side_slice, slot_slice)`` for each level in order."""
        mb, sb = self.side_bounds.tolist(), self.slot_bounds.tolist()
        for lv in range(len(mb) - 1):
            yield slice(mb[lv], mb[lv + 1]), slice(sb[lv], sb[lv + 1])


def _period_levels(a: np.ndarray, b: np.ndarray, per: np.ndarray, n_players: int) -> np.ndarray:
    """Level of each period; ``a``, ``b``, ``per`` are sorted by period."""
    n = len(per)
    n_periods = int(per[-1]) + 1
    last = [0] * n_players
    if n_periods == n:  # one match per period: the common case without a period column
        levels = []
        append = levels.append
        for i, j in zip(a.tolist(), b.tolist()):
            lv = (last[i] if last[i] > last[j] else last[j]) + 1
            last[i] = last[j] = lv
            append(lv)
        return np.asarray(levels, dtype=np.int64)
    starts = np.r_[0, np.flatnonzero(np.diff(per)) + 1].tolist()
    ends = [*starts[1:], n]
    al, bl = a.tolist(), b.tolist()
    levels = np.empty(n_periods, dtype=np.int64)
    for t, (s, e) in enumerate(zip(starts, ends)):
        members = set(al[s:e])
        members.update(bl[s:e])
        lv = max(last[p] for p in members) + 1
        for p in members:
            last[p] = lv
        levels[t] = lv
    return levels


def build_schedule(
    player1: np.ndarray, player2: np.ndarray, period: np.ndarray, n_players: int
) -> Schedule:
    """Group the periods of a training set into levels of player-disjoint periods.

    ``period`` holds period codes numbered in processing order from 0.
    """
    order = np.argsort(period, kind="stable")
    a, b, per = player1[order], player2[order], period[order]
    period_level = _period_levels(a, b, per, n_players) - 1
    match_level = period_level[per]
    by_level = np.argsort(match_level, kind="stable")
    order, a, b, per = order[by_level], a[by_level], b[by_level], per[by_level]
    match_level = match_level[by_level]
    n_levels = int(match_level[-1]) + 1
    n = len(order)

    # slots: unique (period, player) pairs, grouped by level
    keys = np.concatenate([per * n_players + a, per * n_players + b])
    unique_keys, inverse = np.unique(keys, return_inverse=True)
    slot_period = unique_keys // n_players
    slot_player = unique_keys % n_players
    slot_level = period_level[slot_period]
    slot_order = np.argsort(slot_level, kind="stable")
    rank = np.empty_like(slot_order)
    rank[slot_order] = np.arange(len(slot_order))
    slot = rank[inverse.ravel()]
    slot_player, slot_period = slot_player[slot_order], slot_period[slot_order]
    slot_bounds = np.searchsorted(slot_level[slot_order], np.arange(n_levels + 1))

    # periods sat out between a player's consecutive slots
    by_player = np.lexsort((slot_period, slot_player))
    gaps = np.diff(slot_period[by_player]) - 1
    same = np.diff(slot_player[by_player]) == 0
    slot_idle = np.zeros(len(slot_player), dtype=np.int64)
    slot_idle[by_player[1:]] = np.where(same, gaps, 0)

    # sides: in each level, the player-1 sides of its matches, then the player-2 sides
    match_bounds = np.searchsorted(match_level, np.arange(n_levels + 1))
    q = np.arange(n)
    first = match_bounds[match_level] + q
    second = match_bounds[match_level + 1] + q
    base = slot_bounds[match_level]
    side_match = np.empty(2 * n, dtype=np.int64)
    side_first = np.empty(2 * n, dtype=bool)
    side_slot = np.empty(2 * n, dtype=np.int64)
    side_opp = np.empty(2 * n, dtype=np.int64)
    local1, local2 = slot[:n] - base, slot[n:] - base
    side_match[first], side_match[second] = q, q
    side_first[first], side_first[second] = True, False
    side_slot[first], side_slot[second] = local1, local2
    side_opp[first], side_opp[second] = local2, local1
    return Schedule(
        order=order,
        side_match=side_match,
        side_first=side_first,
        side_slot=side_slot,
        side_opp=side_opp,
        slot_player=slot_player,
        slot_idle=slot_idle,
        side_bounds=2 * match_bounds,
        slot_bounds=slot_bounds,
    )


def sort_ratings(ratings: pd.DataFrame) -> pd.DataFrame:
    """Best rating first; ties by player name."""
    return ratings.sort_values(
        ["rating", "player"],
        ascending=[False, True],
        kind="stable",
        key=lambda col: col.map(str) if col.name == "player" else col,
    ).reset_index(drop=True)


#: The fitted attributes every rating estimator saves (see `skcodex._format.persistence`); each
#: estimator adds the arrays its probabilities are read from.
RATING_STATE = ("classes_", "first_mover_advantage_", "n_periods_", "ratings_", "_players")

#: The parameter bounds every rating estimator shares; each adds its own.
RATING_CONSTRAINTS: dict[str, list] = {
    # the scale is arbitrary; past a million, rounding starts to eat small changes
    "initial_rating": [Interval(Real, -1e6, 1e6, closed="both")],
    # 2000 points are odds of 100,000 to 1 for the first mover ("auto" stays within 1200)
    "first_mover_advantage": [Interval(Real, -2000, 2000, closed="both"), StrOptions({"auto"})],
}


class RatingClassifierMixin(PersistenceMixin, ClassifierMixin, BaseEstimator):
    """What the rating estimators share: the replay in ``fit``, lookup of players, predictions.

    ``fit`` is a template: validate the parameters and the training data, set
    the first-mover advantage, replay the matches in time order with the
    subclass's update (``_replay``), and store the ratings. A subclass
    supplies

    - ``_finite_params``: the parameters that must be finite numbers;
    - ``_scale``: rating points per unit of the scale its update works on (1
      for Elo, 173.7178 for Glicko-2); the first-mover advantage reaches
      ``_replay`` on that scale;
    - ``_replay(data, h)``: runs the updates over the `TrainingMatches`, sets
      the fitted arrays its ``_p_win`` reads, and returns the per-player
      columns of ``ratings_`` (``rating`` first) in player-code order;
    - ``_p_win(code1, code2)``: player 1's win probability, where code ``-1``
      is a player not seen in training.
    """

    _finite_params: ClassVar[tuple[str, ...]] = ()
    _scale: ClassVar[float] = 1.0

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: pd.DataFrame, y: Any, *, luck: Any = None) -> RatingClassifierMixin:
        """Replay the training matches in time order.

        Parameters
        ----------
        X : pandas.DataFrame
            A match table, rows in time order (see `skcodex.data`).
        y : array-like of shape (n_matches,)
            1 where player 1 won, 0 where player 2 won.
        luck : array-like of shape (n_matches,), optional
            Player 1's net luck per match on the win-probability scale; the
            updates then use the score ``y - luck``.

        Returns
        -------
        self
            The fitted estimator.
        """
        check_finite_params(self, self._finite_params)
        data = prepare_training(X, y, luck)
        h = first_mover_points(self.first_mover_advantage, data.score) / self._scale
        columns = self._replay(data, h)
        self.classes_ = np.array([0, 1])
        self.first_mover_advantage_ = float(h * self._scale)
        self.n_periods_ = int(data.n_periods)
        self._players = data.players
        ratings = pd.DataFrame(
            {
                "player": data.players.to_numpy(),
                **columns,
                "matches": data.matches,
                "last_period": data.period_labels[data.last_period],
            }
        )
        self.ratings_ = sort_ratings(ratings)
        return self

    def _codes(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        check_is_fitted(self)
        table = check_match_table(X, require_rows=False, read_decks=False)
        index = self._players
        return index.get_indexer(table["player1"]), index.get_indexer(table["player2"])

    def predict_proba(self, X: Any) -> np.ndarray:
        """Win probabilities from the ratings at the end of ``fit``.

        Parameters
        ----------
        X : pandas.DataFrame
            A match table (``player1``, ``player2``, ``deck1``, ``deck2``, ...).
            A player not seen in training gets the initial rating.

        Returns
        -------
        ndarray of shape (n_matches, 2)
            Columns in ``classes_`` order ``[0, 1]``: P(player 2 wins), P(player 1 wins).
        """
        code1, code2 = self._codes(X)
        p = self._p_win(code1, code2)
        return np.column_stack([1.0 - p, p])

    def predict(self, X: Any) -> np.ndarray:
        """The more likely outcome: 1 where player 1 is favoured, else 0 (a tie gives 0).

        Parameters
        ----------
        X : pandas.DataFrame
            A match table.

        Returns
        -------
        ndarray of shape (n_matches,)
            1 where P(player 1 wins) exceeds one half, else 0.
        """
        p = self.predict_proba(X)[:, 1]
        return self.classes_[(p > 0.5).astype(np.int64)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.string = True
        return tags
