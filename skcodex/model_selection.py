"""Forward-chaining cross-validation by tournament."""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.model_selection import BaseCrossValidator

from skcodex.data import period_times

__all__ = ["TournamentSplit"]


@dataclass(frozen=True)
class _Fold:
    tournament: Any
    start: Any
    end: Any
    train: np.ndarray
    test: np.ndarray


def _n_rows(X: Any) -> int:
    if hasattr(X, "shape") and len(X.shape) > 0:
        return int(X.shape[0])
    try:
        return len(X)
    except TypeError:
        raise TypeError(
            f"X must be a match table or an array-like with one row a match; got {type(X).__name__}"
        ) from None


def _as_datetime(values: Any, column: str) -> np.ndarray:
    try:
        parsed = pd.to_datetime(pd.Series(values).reset_index(drop=True))
    except (ValueError, TypeError) as err:
        raise ValueError(f"TournamentSplit cannot read column {column!r} as dates: {err}") from None
    if parsed.isna().any():
        pos = int(np.flatnonzero(parsed.isna().to_numpy())[0])
        raise ValueError(f"column {column!r} has no date at row {pos}")
    return parsed.to_numpy(dtype="datetime64[ns]")


def _match_times(X: Any, n: int, labels: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """When each match started and ended.

    From the date columns when there are any; else from the tournament labels
    themselves when they have an order of their own (numbers, dates,
    `pandas.Period` months; see `skcodex.data.period_times`); else the row position.
    """
    columns = set(X.columns) if isinstance(X, pd.DataFrame) else set()
    if not columns & {"start", "end", "date"}:
        times = period_times(labels.infer_objects())
        if times is not None:
            rank = pd.factorize(times, sort=True)[0].astype(np.int64)
            return rank, rank
        order = np.arange(n)
        return order, order
    start_col = next(c for c in ("start", "date", "end") if c in columns)
    end_col = "end" if "end" in columns else start_col
    start = _as_datetime(X[start_col], start_col)
    end = start if end_col == start_col else _as_datetime(X[end_col], end_col)
    backwards = np.flatnonzero(end < start)
    if len(backwards):
        raise ValueError(
            f"match at row {int(backwards[0])} ends before it starts "
            f"({end_col!r} is before {start_col!r})"
        )
    return start, end


class TournamentSplit(BaseCrossValidator):
    """Forward-chaining cross-validation, one tournament a fold.

    Each fold tests on one tournament's matches and trains on every match,
    of any tournament, that ended before that tournament started: a forecast
    made on the eve of the tournament, scored on the tournament.

    The rule, precisely:

    1. Each match has a start and an end. From a DataFrame ``X`` they are the
       ``start`` and ``end`` columns; failing those, ``date`` is both (a
       one-day match); failing any date column, the tournament labels' own
       order when they have one (numbers, dates, `pandas.Period` months:
       earlier labels first, whatever the order of the rows), else the match's
       row position, so the table order is the time order.
    2. A tournament spans from its first match's start to its last match's
       end. Tournaments are ordered by their start (ties: by their end, then
       by the row of their first match).
    3. The test tournaments are the last ``n_splits`` in that order. For a
       test tournament T, the training set is every match whose end is
       strictly before T's start (dates are compared as given, so a match
       that ended on the day T started is left out). The test set is every
       match of T.

    Tournaments may overlap in time: a long-running series that started
    before T and is still going is tested only on its own turn, and trains
    T's fold only with its matches that ended before T started; its later
    matches, and matches of other tournaments that run alongside T, are in
    neither set of T's fold. Folds come out in order of their test
    tournament's start.

    Parameters
    ----------
    n_splits : int, default=8
        How many tournaments to test on (the ones that start last). There
        must be more tournaments than this, and each test tournament must
        have at least one match that ended before it started.

    See Also
    --------
    sklearn.model_selection.TimeSeriesSplit : Forward chaining by row count.
    sklearn.model_selection.LeaveOneGroupOut : One group a fold, trained on all others.

    Notes
    -----
    The tournament of each match comes from ``groups`` when given, else from
    the ``period`` column of ``X``. With scikit-learn's metadata routing
    switched on, pass the labels as ``params={"groups": ...}`` or leave them
    in the ``period`` column.

    Examples
    --------
    >>> import pandas as pd
    >>> from skcodex import TournamentSplit
    >>> X = pd.DataFrame({
    ...     "player1": ["a", "b", "a", "c", "b", "a"],
    ...     "player2": ["b", "c", "c", "a", "a", "b"],
    ...     "deck1": ["MonoRed"] * 6,
    ...     "deck2": ["MonoBlue"] * 6,
    ...     "period": ["T1", "T1", "LONG", "T2", "T2", "LONG"],
    ...     "start": pd.to_datetime(["2020-01-01", "2020-01-02", "2020-01-03",
    ...                              "2020-01-05", "2020-01-06", "2020-01-06"]),
    ...     "end": pd.to_datetime(["2020-01-02", "2020-01-03", "2020-01-04",
    ...                            "2020-01-06", "2020-01-07", "2020-03-01"]),
    ... })
    >>> cv = TournamentSplit(n_splits=2)
    >>> cv
    TournamentSplit(n_splits=2)
    >>> for train, test in cv.split(X):
    ...     print(train, test)
    [0] [2 5]
    [0 1 2] [3 4]
    >>> cv.describe(X)[["tournament", "n_train", "n_test"]]
      tournament  n_train  n_test
    0       LONG        1       2
    1         T2        3       2
    """

    # Ask for ``groups`` by default under metadata routing (what scikit-learn's
    # GroupsConsumerMixin sets; that class is not public).
    __metadata_request__split: ClassVar[dict] = {"groups": True}

    def __init__(self, n_splits: int = 8):
        if isinstance(n_splits, bool) or not isinstance(n_splits, numbers.Integral):
            raise ValueError(f"n_splits must be an integer >= 1, got {n_splits!r}")
        if n_splits < 1:
            raise ValueError(f"n_splits must be an integer >= 1, got {n_splits!r}")
        self.n_splits = int(n_splits)

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """The number of folds, ``n_splits``; the arguments are ignored.

        Parameters
        ----------
        X : object, optional
            Ignored; present for the scikit-learn API.
        y : object, optional
            Ignored; present for the scikit-learn API.
        groups : object, optional
            Ignored; present for the scikit-learn API.

        Returns
        -------
        int
            ``n_splits``.
        """
        return self.n_splits

    def split(
        self, X: Any, y: Any = None, groups: Any = None
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Generate the training and test row positions of each fold.

        Parameters
        ----------
        X : pandas.DataFrame or array-like of shape (n_matches, ...)
            The match table. Its ``start``/``end`` or ``date`` columns, when
            present, give the time of each match; otherwise tournament labels
            that have an order of their own (numbers, dates, `pandas.Period`)
            do, and failing those the row order.
        y : array-like, optional
            Ignored; present for the scikit-learn API.
        groups : array-like of shape (n_matches,), optional
            The tournament of each match. Defaults to ``X["period"]``.

        Yields
        ------
        train : numpy.ndarray of int
            Positions of the matches that ended before the test tournament started.
        test : numpy.ndarray of int
            Positions of the test tournament's matches.

        Raises
        ------
        ValueError
            If no tournament labels are found, there are not more tournaments
            than ``n_splits``, or a test tournament has no earlier match to
            train on.
        """
        folds, _ = self._plan(X, groups)
        for fold in folds:
            yield fold.train, fold.test

    def describe(self, X: Any, y: Any = None, groups: Any = None) -> pd.DataFrame:
        """One row a fold: the test tournament, its span and the sizes of both sets.

        Parameters
        ----------
        X : pandas.DataFrame or array-like of shape (n_matches, ...)
            The match table, as for `split`.
        y : array-like, optional
            Ignored, as for `split`.
        groups : array-like of shape (n_matches,), optional
            The tournament of each match, as for `split`.

        Returns
        -------
        pandas.DataFrame
            Columns ``tournament``, ``start``, ``end`` (the tournament's span;
            row positions when the table has no dates), ``n_train``,
            ``n_test`` and ``train_end`` (when the last training match ended).
        """
        folds, end = self._plan(X, groups)
        return pd.DataFrame(
            {
                "tournament": [f.tournament for f in folds],
                "start": [f.start for f in folds],
                "end": [f.end for f in folds],
                "n_train": [len(f.train) for f in folds],
                "n_test": [len(f.test) for f in folds],
                "train_end": [end[f.train].max() for f in folds],
            }
        )

    def _plan(self, X: Any, groups: Any) -> tuple[list[_Fold], np.ndarray]:
        """The folds, and the end time of each match."""
        n = _n_rows(X)
        if groups is None:
            if not (isinstance(X, pd.DataFrame) and "period" in X.columns):
                raise ValueError(
                    "TournamentSplit needs the tournament of each match: give X a 'period' "
                    "column or pass groups="
                )
            groups = X["period"]
        values = np.asarray(groups, dtype=object)
        if values.ndim != 1 or len(values) != n:
            raise ValueError(
                f"groups must hold one tournament label a match: X has {n} rows, "
                f"groups has shape {values.shape}"
            )
        labels = pd.Series(values)
        if labels.isna().any():
            pos = int(np.flatnonzero(labels.isna().to_numpy())[0])
            raise ValueError(f"the tournament label is missing at row {pos}")
        codes, uniques = pd.factorize(labels, sort=False)
        start, end = _match_times(X, n, labels)

        n_tournaments = len(uniques)
        if n_tournaments <= self.n_splits:
            raise ValueError(
                f"TournamentSplit(n_splits={self.n_splits}) needs at least {self.n_splits + 1} "
                f"tournaments (one or more to train on before the first test tournament); "
                f"the data have {n_tournaments}"
            )
        first_start = np.array([start[codes == k].min() for k in range(n_tournaments)])
        last_end = np.array([end[codes == k].max() for k in range(n_tournaments)])
        first_row = np.array([np.flatnonzero(codes == k)[0] for k in range(n_tournaments)])
        order = np.lexsort((first_row, last_end.view(np.int64), first_start.view(np.int64)))

        folds = []
        for k in order[-self.n_splits :]:
            train = np.flatnonzero(end < first_start[k])
            if len(train) == 0:
                raise ValueError(
                    f"tournament {uniques[k]!r} is a test tournament of "
                    f"TournamentSplit(n_splits={self.n_splits}), but no match ended before it "
                    "started, so its fold has nothing to train on; use a smaller n_splits"
                )
            folds.append(
                _Fold(
                    tournament=uniques[k],
                    start=first_start[k],
                    end=last_end[k],
                    train=train,
                    test=np.flatnonzero(codes == k),
                )
            )
        return folds, end


def prior_grid() -> list[dict[str, list[float]]]:
    """A small default grid over the spread priors for `GridSearchCV`.

    Three settings of the deck-spread prior locations (the seed's 0 for all
    three; the package default -1, -1.5, -2; and tighter still, -1.5, -2,
    -2.5) crossed with two player-spread locations (0 and -0.5): 6 candidates.

    Examples
    --------
    >>> from skcodex.model_selection import prior_grid
    >>> sum(len(g["log_sd_player_loc"]) for g in prior_grid())
    6
    """
    decks = [(0.0, 0.0, 0.0), (-1.0, -1.5, -2.0), (-1.5, -2.0, -2.5)]
    return [
        {
            "log_sd_player_loc": [0.0, -0.5],
            "log_sd_stst_loc": [stst],
            "log_sd_stsp_loc": [stsp],
            "log_sd_spsp_loc": [spsp],
        }
        for stst, stsp, spsp in decks
    ]
