"""Forward-chaining cross-validation by tournament."""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.model_selection import BaseCrossValidator

from skcodex.data._table import period_times

__all__ = ["TournamentSplit", "latest_share_split", "prior_grid"]


@dataclass(frozen=True)
class _Fold:
    tournament: Any  # a label, or a tuple of labels when small tournaments were merged
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
    from skcodex.data._dates import read_dates

    try:
        parsed = read_dates(pd.Series(values).reset_index(drop=True), column)
    except ValueError as err:
        raise ValueError(f"TournamentSplit cannot read column {column!r} as dates: {err}") from None
    if parsed.isna().any():
        pos = int(np.flatnonzero(parsed.isna().to_numpy())[0])
        raise ValueError(f"column {column!r} has no date at row {pos}")
    return parsed.to_numpy(dtype="datetime64[ns]")


def _match_times(X: Any, n: int, labels: pd.Series | None = None) -> tuple[np.ndarray, np.ndarray]:
    """When each match started and ended.

    From the date columns when there are any; else from the tournament labels
    themselves when they have an order of their own (numbers, dates,
    `pandas.Period` months; read as times); else the row position.
    """
    columns = set(X.columns) if isinstance(X, pd.DataFrame) else set()
    if not columns & {"start", "end", "date"}:
        times = None if labels is None else period_times(labels.infer_objects())
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

    4. With ``min_test_matches``, a test fold may hold several tournaments
       that follow each other in that order: going back from the last
       tournament, each fold takes tournaments until it holds at least
       ``min_test_matches`` matches. Its training set is every match that
       ended before the fold's first tournament started.

    Parameters
    ----------
    n_splits : int, default=8
        How many test folds (of the tournaments that start last). There
        must be more tournaments than the folds need, and each fold must
        have at least one match that ended before it started.
    min_test_matches : int, default=1
        Fewest matches a test fold holds; small tournaments are merged with
        the ones after them until a fold holds this many (1: one tournament
        a fold).

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

    def __init__(self, n_splits: int = 8, min_test_matches: int = 1):
        for name, value in (("n_splits", n_splits), ("min_test_matches", min_test_matches)):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
        self.n_splits = int(n_splits)
        self.min_test_matches = int(min_test_matches)

    def __repr__(self) -> str:
        extra = "" if self.min_test_matches == 1 else f", min_test_matches={self.min_test_matches}"
        return f"{type(self).__name__}(n_splits={self.n_splits}{extra})"

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
            Columns ``tournament`` (its label; a tuple of labels when the fold
            merges several), ``start``, ``end`` (the fold's span;
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
        first_start = np.array([start[codes == k].min() for k in range(n_tournaments)])
        last_end = np.array([end[codes == k].max() for k in range(n_tournaments)])
        first_row = np.array([np.flatnonzero(codes == k)[0] for k in range(n_tournaments)])
        order = np.lexsort((first_row, last_end.view(np.int64), first_start.view(np.int64)))
        groups_of_folds = self._test_groups(order, np.bincount(codes, minlength=n_tournaments))
        if groups_of_folds is None:
            if self.min_test_matches == 1:
                raise ValueError(
                    f"{self!r} needs at least {self.n_splits + 1} tournaments (one or more "
                    f"to train on before the first test tournament); the data have "
                    f"{n_tournaments}"
                )
            raise ValueError(
                f"{self!r} needs {self.n_splits} test folds of at least "
                f"{self.min_test_matches} matches each and a tournament before them to train "
                f"on; the data have {n} matches in {n_tournaments} tournaments"
            )

        folds = []
        for members in groups_of_folds:
            begins = first_start[members].min()
            train = np.flatnonzero(end < begins)
            label = uniques[members[0]] if len(members) == 1 else tuple(uniques[members])
            if len(train) == 0:
                raise ValueError(
                    f"tournament {label!r} is a test fold of {self!r}, but no match ended "
                    "before it started, so its fold has nothing to train on; use a smaller "
                    "n_splits or min_test_matches"
                )
            folds.append(
                _Fold(
                    tournament=label,
                    start=begins,
                    end=last_end[members].max(),
                    train=train,
                    test=np.flatnonzero(np.isin(codes, members)),
                )
            )
        return folds, end

    def _test_groups(self, order: np.ndarray, sizes: np.ndarray) -> list[np.ndarray] | None:
        """The tournaments of each test fold, earliest fold first (None if too few).

        Going back from the last tournament in ``order``, each fold takes
        tournaments until it holds at least ``min_test_matches`` matches; at
        least one tournament must be left before the earliest fold.
        """
        groups: list[np.ndarray] = []
        stop = len(order)
        while len(groups) < self.n_splits:
            count, begin = 0, stop
            while begin > 0 and count < self.min_test_matches:
                begin -= 1
                count += int(sizes[order[begin]])
            if count < self.min_test_matches:
                return None
            groups.append(order[begin:stop])
            stop = begin
        if stop == 0:
            return None
        return groups[::-1]


def latest_share_split(
    X: pd.DataFrame, share: float = 0.15, since: Any = None, groups: Any = None
) -> tuple[np.ndarray, np.ndarray]:
    """Hold out the latest tournaments: those making up a share of the matches, or since a date.

    The held-out tournaments are the last in `TournamentSplit`'s order (by
    start) that together hold at least ``share`` of the matches, or, with
    ``since``, every tournament that starts on or after that date. The
    training set is every match that ended before the first held-out
    tournament started (`TournamentSplit`'s rule).

    Parameters
    ----------
    X : pandas.DataFrame
        The match table, with a ``period`` column (or pass ``groups``) and
        optionally ``date`` or ``start``/``end``.
    share : float, default 0.15
        Least share of the matches held out, in (0, 1).
    since : date-like or None, default None
        Hold out the tournaments starting on or after this date instead.
    groups : array-like or None, default None
        The tournament of each match; defaults to ``X["period"]``.

    Returns
    -------
    train : numpy.ndarray of int
        Row positions of the training matches.
    test : numpy.ndarray of int
        Row positions of the held-out matches.

    Raises
    ------
    ValueError
        If the share is not in (0, 1), the date cannot be read or no
        tournament starts on or after it, or no tournament is left to train on.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"period": ["A"] * 8 + ["B"] * 1 + ["C"] * 1})
    >>> train, test = latest_share_split(X, share=0.15)
    >>> train.tolist(), test.tolist()
    ([0, 1, 2, 3, 4, 5, 6, 7], [8, 9])
    """
    n = _n_rows(X)
    if since is None:
        if isinstance(share, bool) or not isinstance(share, numbers.Real) or not 0 < share < 1:
            raise ValueError(f"share must be a number between 0 and 1, got {share!r}")
        least = max(1, int(np.ceil(share * n - 1e-9)))
    else:
        least = _matches_since(X, since, groups)
    cv = TournamentSplit(n_splits=1, min_test_matches=least)
    return next(cv.split(X, groups=groups))


def _matches_since(X: pd.DataFrame, since: Any, groups: Any) -> int:
    """How many matches the tournaments starting on or after ``since`` hold."""
    try:
        when = pd.Timestamp(since)
    except (ValueError, TypeError):
        raise ValueError(f"cannot read the hold-out date {since!r} as a date") from None
    if when is pd.NaT:
        raise ValueError(f"cannot read the hold-out date {since!r} as a date")
    columns = set(X.columns) if isinstance(X, pd.DataFrame) else set()
    if not columns & {"start", "end", "date"}:
        raise ValueError("a hold-out date needs a 'date' (or 'start') column in the match table")
    n = _n_rows(X)
    start, _ = _match_times(X, n)
    labels = pd.Series(np.asarray(X["period"] if groups is None else groups, dtype=object))
    codes, _ = pd.factorize(labels, sort=False)
    first = pd.Series(start).groupby(codes).min()
    late = first.index[first.to_numpy() >= np.datetime64(when.to_datetime64(), "ns")]
    count = int(np.isin(codes, late).sum())
    if count == 0:
        raise ValueError(f"no tournament starts on or after {when.date()}: nothing to hold out")
    if count == n:
        raise ValueError(
            f"every tournament starts on or after {when.date()}: nothing would be left to fit "
            "on; give a later date"
        )
    return count


def prior_grid(specs_per_deck: int = 3) -> list[dict[str, list[float]]]:
    """A small default grid over the spread priors for `GridSearchCV`.

    Three settings of the deck-spread prior locations (the seed's 0 for all
    three; the package default -1, -1.5, -2; and tighter still, -1.5, -2,
    -2.5) crossed with two player-spread locations (0 and -0.5): 6 candidates.
    Only the spreads of blocks the model has are varied: with decks of a
    starter alone (``specs_per_deck=0``) there are no starter-vs-component or
    component-vs-component effects, so only the starter-vs-starter location
    (0, -1, -1.5) changes.

    Parameters
    ----------
    specs_per_deck : int, default 3
        Side components per deck (3 for Codex; 0 for characters or races alone).

    Returns
    -------
    list of dict
        Parameter grids for `GridSearchCV` (``param_grid``).

    Examples
    --------
    >>> from skcodex.model_selection import prior_grid
    >>> sum(len(g["log_sd_player_loc"]) for g in prior_grid())
    6
    >>> sorted(prior_grid(specs_per_deck=0)[0])
    ['log_sd_player_loc', 'log_sd_stst_loc']
    """
    if isinstance(specs_per_deck, bool) or not isinstance(specs_per_deck, numbers.Integral):
        raise ValueError(f"specs_per_deck must be an integer >= 0, got {specs_per_deck!r}")
    if specs_per_deck < 0:
        raise ValueError(f"specs_per_deck must be an integer >= 0, got {specs_per_deck!r}")
    decks = [(0.0, 0.0, 0.0), (-1.0, -1.5, -2.0), (-1.5, -2.0, -2.5)]
    grids = []
    for stst, stsp, spsp in decks:
        grid = {"log_sd_player_loc": [0.0, -0.5], "log_sd_stst_loc": [stst]}
        if specs_per_deck > 0:
            grid |= {"log_sd_stsp_loc": [stsp], "log_sd_spsp_loc": [spsp]}
        grids.append(grid)
    return grids
