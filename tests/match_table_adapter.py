"""Run scikit-learn's generic estimator checks on match tables.

The checks feed numeric arrays; the estimators take only a match table. The
adapted classes below are the package's estimators with one change: a numeric
array ``X`` is turned into a match table, row by row and deterministically,
before the estimator sees it. Everything else (``get_params``, ``clone``,
fitted attributes, pickling, tags) is the estimator's own, so the checks test
the package's code.

Row ``x`` becomes the match ``a<i>`` (moving first) against ``b<j>`` with decks
``DECKS[k]`` and ``DECKS[l]``, where ``i, j, k, l`` are ``floor(2 x)`` of the
row's first four features (cycling through them when there are fewer). A
non-finite value leaves player 1 missing, so the estimator's own validation
reports it. Anything that is not a two-dimensional real array (sparse input,
complex numbers, a 1-D array, strings) is passed through unchanged, for the
estimator to refuse.

A match table always has the same columns, so the number of numeric features
is the adapter's business: like `sklearn.utils.validation.validate_data`, it
refuses to predict for an array of another width than the one fitted.
"""

from __future__ import annotations

import functools
import linecache
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from skcodex import BayesianMatchupClassifier, EloClassifier, Glicko2Classifier
from skcodex.data import MatchTableError

DECKS = ("MonoBlack", "MonoBlue", "MonoGreen", "MonoPurple", "MonoRed", "MonoWhite")
COLUMNS = ("player1", "player2", "deck1", "deck2")


def to_match_table(X: Any) -> Any:
    """The match table a numeric array stands for (see the module docstring)."""
    if isinstance(X, pd.DataFrame) and set(COLUMNS) <= set(X.columns):
        return X
    if sp.issparse(X) or isinstance(X, str):
        return X
    try:
        arr = np.asarray(X)
    except Exception:
        return X
    if arr.dtype == object:
        try:
            arr = arr.astype(float)
        except (TypeError, ValueError):
            return X
    if arr.ndim != 2 or arr.shape[1] == 0 or arr.dtype.kind not in "biuf":
        return X
    arr = arr.astype(float)
    d = arr.shape[1]
    finite = np.isfinite(arr).all(axis=1)
    codes = np.floor(2 * np.where(np.isfinite(arr), arr, 0.0)).clip(-1e6, 1e6).astype(np.int64)
    col = [codes[:, j % d] for j in range(4)]
    player1 = np.array([f"a{v}" for v in col[0]], dtype=object)
    player1[~finite] = None
    return pd.DataFrame(
        {
            "player1": player1,
            "player2": [f"b{v}" for v in col[1]],
            "deck1": [DECKS[v % len(DECKS)] for v in col[2]],
            "deck2": [DECKS[v % len(DECKS)] for v in col[3]],
        }
    )


class _MatchTableInput:
    """Turns numeric X into a match table before the estimator's own methods run."""

    def fit(self, X, y=None, **params):
        self._numeric_width = _width(X)
        return super().fit(to_match_table(X), y, **params)

    def _table(self, X):
        width, fitted = _width(X), getattr(self, "_numeric_width", None)
        if None not in (width, fitted) and width != fitted:
            raise ValueError(
                f"X has {width} features, but {type(self).__name__} is expecting "
                f"{fitted} features as input (the adapter's check)"
            )
        return to_match_table(X)

    def predict(self, X):
        return super().predict(self._table(X))

    def predict_proba(self, X):
        return super().predict_proba(self._table(X))

    def score(self, X, y, sample_weight=None):
        return super().score(self._table(X), y, sample_weight=sample_weight)


def _width(X: Any) -> int | None:
    """The number of numeric features (None for a match table or anything not 2-D)."""
    if isinstance(X, pd.DataFrame):
        return None
    try:
        shape = X.shape if sp.issparse(X) else np.shape(X)
    except Exception:
        return None
    return int(shape[1]) if len(shape) == 2 else None


class AdaptedElo(_MatchTableInput, EloClassifier):
    """`EloClassifier` reading numeric X through `to_match_table`."""


class AdaptedGlicko2(_MatchTableInput, Glicko2Classifier):
    """`Glicko2Classifier` reading numeric X through `to_match_table`."""


class AdaptedBayes(_MatchTableInput, BayesianMatchupClassifier):
    """`BayesianMatchupClassifier` reading numeric X through `to_match_table`."""


# -- expected failures, each with the reason it fails -------------------------------------


@dataclass(frozen=True)
class ExpectedFailure:
    """Why a check cannot pass on match tables, and how to recognise that it failed so.

    ``error`` must appear in the raised exception's chain (its cause or context)
    with ``pattern`` found in its message or in the source line that raised it.
    """

    reason: str
    error: type[BaseException]
    pattern: str


def check_name(check: Any) -> str:
    """The name of a check from `parametrize_with_checks` (partials unwrapped)."""
    while isinstance(check, functools.partial):
        check = check.func
    return check.__name__


def _raising_line(exc: BaseException) -> str:
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return ""
    return linecache.getline(tb.tb_frame.f_code.co_filename, tb.tb_lineno)


def failed_as_stated(exc: BaseException, expected: ExpectedFailure) -> bool:
    """Whether ``exc`` (or an exception in its chain) is the stated failure."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, expected.error) and re.search(
            expected.pattern, f"{exc}\n{_raising_line(exc)}"
        ):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def assert_fails_as_stated(check: Any, estimator: Any, expected: ExpectedFailure) -> None:
    """Run a check listed as an expected failure; it must fail, and for its stated reason."""
    name = check_name(check)
    try:
        check(estimator)
    except Exception as exc:
        if failed_as_stated(exc, expected):
            return
        raise AssertionError(
            f"{name} failed, but not for its stated reason ({expected.reason})"
        ) from exc
    raise AssertionError(f"{name} is listed as an expected failure but passed: {expected.reason}")


_NOT_A_TABLE = "X must be a pandas DataFrame with columns player1"
_OUTCOME = r"y must be 1 \(player1 won\) or 0 \(player2 won\); got"

#: Checks that cannot pass on match tables, for either kind of estimator.
EXPECTED_FAILURES = {
    "check_complex_data": ExpectedFailure(
        "passes complex numbers, which a match table cannot hold: the estimator says X must "
        "be a match table, not 'Complex data not supported'",
        MatchTableError,
        _NOT_A_TABLE,
    ),
    "check_estimators_empty_data_messages": ExpectedFailure(
        "passes an array of 0 features; a match table always has its four columns, so the "
        "message says X must be a match table, not '0 feature(s)'",
        MatchTableError,
        _NOT_A_TABLE,
    ),
    "check_estimators_nan_inf": ExpectedFailure(
        "NaN or inf becomes a missing player, refused with a message naming the row rather "
        "than sklearn's 'Input contains NaN'",
        MatchTableError,
        r"column 'player1' is missing a value at row \d+",
    ),
    "check_estimator_sparse_tag": ExpectedFailure(
        "passes sparse data, which a match table cannot be: the message says X must be a "
        "match table rather than that sparse input is not supported",
        MatchTableError,
        _NOT_A_TABLE + r".*got csr_",
    ),
    "check_estimator_sparse_array": ExpectedFailure(
        "passes sparse arrays, which a match table cannot be: the message says X must be a "
        "match table rather than that sparse input is not supported",
        MatchTableError,
        _NOT_A_TABLE + r".*got \w+_array",
    ),
    "check_estimator_sparse_matrix": ExpectedFailure(
        "passes sparse matrices, which a match table cannot be: the message says X must be a "
        "match table rather than that sparse input is not supported",
        MatchTableError,
        _NOT_A_TABLE + r".*got \w+_matrix",
    ),
    "check_fit2d_predict1d": ExpectedFailure(
        "predicts on a 1-D array, which is no match table: the message says so rather than "
        "'Reshape your data'",
        MatchTableError,
        _NOT_A_TABLE + ".*got ndarray",
    ),
    "check_classifiers_classes": ExpectedFailure(
        "fits string class labels ('one', ...); an outcome is 1 (player 1 won) or 0",
        MatchTableError,
        _OUTCOME + " 'one' at row 0",
    ),
    "check_classifiers_regression_target": ExpectedFailure(
        "a continuous y is refused with a message naming the value, not 'Unknown label type'",
        MatchTableError,
        _OUTCOME + r" [0-9.]+ at row \d+",
    ),
    "check_classifier_not_supporting_multiclass": ExpectedFailure(
        "a three-class y is refused by the outcome check ('got 2 at row ...'), not with "
        "sklearn's multiclass wording",
        MatchTableError,
        _OUTCOME + r" 2 at row \d+",
    ),
    "check_classifier_data_not_an_array": ExpectedFailure(
        "fits a three-class y (0, 1, 2) although the estimator is tagged binary; an outcome "
        "is 1 or 0",
        MatchTableError,
        _OUTCOME + r" 2 at row \d+",
    ),
    "check_estimators_dtypes": ExpectedFailure(
        "fits a y of 0 to 3 whatever the tags say; an outcome is 1 or 0",
        MatchTableError,
        _OUTCOME + r" [23] at row \d+",
    ),
    "check_supervised_y_2d": ExpectedFailure(
        "a one-column y is read as its column, as a one-column frame is, without sklearn's "
        "DataConversionWarning",
        AssertionError,
        r"expected 1 DataConversionWarning",
    ),
    "check_n_features_in": ExpectedFailure(
        "n_features_in_ describes the match table the estimator is given (its columns), "
        "not the numeric array the adapter reads it from",
        AssertionError,
        r"n_features_in_",
    ),
}

#: The rating classifiers' further expected failures.
RATINGS_EXPECTED_FAILURES = {
    **EXPECTED_FAILURES,
    "check_n_features_in": ExpectedFailure(
        "the rating classifiers set no n_features_in_: they read a match table's columns by "
        "name and keep no feature count",
        AssertionError,
        r"hasattr\(estimator, \"n_features_in_\"\)",
    ),
    "check_n_features_in_after_fitting": ExpectedFailure(
        "the rating classifiers set no n_features_in_ (see check_n_features_in)",
        AssertionError,
        r"does not set the `n_features_in_` attribute",
    ),
    "check_fit2d_1feature": ExpectedFailure(
        "fits a y of 0, 1 and 2 on a one-feature array; an outcome is 1 or 0",
        MatchTableError,
        _OUTCOME + r" 2 at row \d+",
    ),
}
