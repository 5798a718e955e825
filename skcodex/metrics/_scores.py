"""Brier scores of match forecasts, and a scorer for model selection."""

from __future__ import annotations

from typing import Any

import numpy as np

from skcodex._docstrings import shared_parameters

__all__ = [
    "COIN_FLIP_BRIER",
    "brier_score",
    "brier_scorer",
    "brier_skill_score",
    "positive_class_probability",
]

COIN_FLIP_BRIER = 0.25


def _as_numbers(y_true: Any, forecast: Any) -> tuple[np.ndarray, np.ndarray]:
    """Outcomes and forecasts as float arrays; a clear error when they are not numbers."""
    try:
        return np.asarray(y_true, dtype=float), np.asarray(forecast, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"outcomes and probabilities must be numbers: {err}") from None


def _check_pair(y_true: Any, p_win: Any) -> tuple[np.ndarray, np.ndarray]:
    y, p = _as_numbers(y_true, p_win)
    if y.ndim != 1 or p.ndim != 1:
        raise ValueError(
            f"y_true and p_win must be one-dimensional; got shapes {y.shape} and {p.shape} "
            "(pass P(player 1 wins), i.e. column 1 of predict_proba)"
        )
    if len(y) != len(p):
        raise ValueError(f"y_true has {len(y)} outcomes but p_win has {len(p)} probabilities")
    if len(y) == 0:
        raise ValueError("no matches to score")
    if not np.all(np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        bad = p[~(np.isfinite(p) & (p >= 0) & (p <= 1))][0]
        raise ValueError(f"p_win must be probabilities in [0, 1]; found {float(bad)!r}")
    if not np.all(np.isfinite(y)) or np.any((y < 0) | (y > 1)):
        bad = y[~(np.isfinite(y) & (y >= 0) & (y <= 1))][0]
        raise ValueError(
            f"y_true must be outcomes in [0, 1] (1 = player 1 won); found {float(bad)!r}"
        )
    return y, p


def _check_weights(sample_weight: Any, n: int) -> np.ndarray | None:
    """Validate match weights as scikit-learn does: n finite, non-negative numbers, not all 0."""
    if sample_weight is None:
        return None
    try:
        w = np.asarray(sample_weight, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"sample_weight must be numbers: {err}") from None
    if w.ndim != 1:
        raise ValueError(f"sample_weight must be one-dimensional, got shape {w.shape}")
    if len(w) != n:
        raise ValueError(f"sample_weight has {len(w)} weights but there are {n} matches")
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if len(bad):
        raise ValueError(
            f"sample_weight must be finite and non-negative; found {float(w[bad[0]])!r} "
            f"at position {int(bad[0])}"
        )
    if not w.sum() > 0:
        raise ValueError("sample_weight sums to zero: at least one match must have weight")
    return w


@shared_parameters
def brier_score(y_true: Any, p_win: Any, sample_weight: Any = None) -> float:
    """Mean squared difference between outcome and forecast win probability.

    A coin flip (``p_win = 0.5``) scores 0.25; a perfect forecast 0; lower is better.

    {brier_parameters}

    Returns
    -------
    float
        The weighted mean of ``(y_true - p_win) ** 2``.

    Examples
    --------
    >>> from skcodex import brier_score
    >>> brier_score([1, 0, 1], [0.5, 0.5, 0.5])
    0.25
    >>> round(brier_score([1, 0], [0.9, 0.2]), 3)
    0.025
    """
    y, p = _check_pair(y_true, p_win)
    weights = _check_weights(sample_weight, len(y))
    return float(np.average((y - p) ** 2, weights=weights))


@shared_parameters
def brier_skill_score(y_true: Any, p_win: Any, sample_weight: Any = None) -> float:
    """Improvement over the coin flip: ``1 - brier_score / 0.25`` (1 is perfect, 0 a coin flip).

    {brier_parameters}

    Returns
    -------
    float
        ``1 - brier_score(y_true, p_win, sample_weight) / 0.25``.

    Examples
    --------
    >>> from skcodex import brier_skill_score
    >>> brier_skill_score([1, 0], [0.5, 0.5])
    0.0
    """
    return 1.0 - brier_score(y_true, p_win, sample_weight) / COIN_FLIP_BRIER


@shared_parameters
def positive_class_probability(estimator: Any, X: Any) -> np.ndarray:
    """P(player 1 wins) from an estimator's ``predict_proba``, located through ``classes_``.

    Parameters
    ----------
    {estimator_forecasts}

    Returns
    -------
    ndarray of shape (n_matches,)
        The ``predict_proba`` column of class 1.

    Raises
    ------
    ValueError
        If the estimator has no ``classes_``, they do not hold 1, or
        ``predict_proba`` returns a table of another shape.
    """
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        raise ValueError(
            f"{type(estimator).__name__} has no classes_; fit it before scoring, and make sure "
            "it says which predict_proba column is which class"
        )
    classes = np.asarray(classes).tolist()
    if 1 not in classes:
        raise ValueError(
            f"{type(estimator).__name__}.classes_ is {classes}; it must contain 1 (player 1 won)"
        )
    proba = np.asarray(estimator.predict_proba(X), dtype=float)
    if proba.ndim != 2 or proba.shape[1] != len(classes):
        raise ValueError(
            f"predict_proba returned shape {proba.shape}; expected (n, {len(classes)}) "
            "to match classes_"
        )
    return proba[:, classes.index(1)]


@shared_parameters
def brier_scorer(estimator: Any, X: Any, y: Any, sample_weight: Any = None) -> float:
    """Negated Brier score for ``scoring=`` in scikit-learn (greater is better).

    Reads the probability of class 1 through the estimator's ``classes_``, so
    an estimator whose ``predict_proba`` columns come in another order is
    still scored on the right column.

    Parameters
    ----------
    {estimator_forecasts}
    y : array-like of shape (n_matches,)
        1 where player 1 won, 0 where player 2 won.
    sample_weight : array-like of shape (n_matches,) or None, default None
        Weights of the matches, as for `brier_score`.

    Returns
    -------
    float
        Minus the Brier score of the estimator's P(player 1 wins).

    Examples
    --------
    >>> from sklearn.model_selection import cross_val_score
    >>> from skcodex import EloClassifier, brier_scorer
    >>> from skcodex.datasets import make_matches
    >>> data = make_matches(n_players=20, n_matches=300, random_state=0)
    >>> scores = cross_val_score(EloClassifier(), data.X, data.y, scoring=brier_scorer, cv=3)
    >>> bool((scores < 0).all())
    True
    """
    outcomes = np.asarray(y, dtype=float)
    if 0.5 in np.asarray(getattr(estimator, "classes_", [])).tolist() or np.any(outcomes == 0.5):
        raise ValueError(
            "the table holds draws (y = 0.5, classes_ [0, 0.5, 1]): the binary Brier score "
            "scores wins only; use skcodex.metrics.ranked_probability_scorer or "
            "multiclass_brier_scorer, which score all three outcomes"
        )
    return -brier_score(outcomes, positive_class_probability(estimator, X), sample_weight)
