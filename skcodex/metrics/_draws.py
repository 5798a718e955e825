"""Scores of three-outcome forecasts (player 2 wins, draw, player 1 wins); see `skcodex.metrics`."""

from __future__ import annotations

from typing import Any

import numpy as np

from skcodex._docstrings import shared_parameters
from skcodex.metrics._scores import _as_numbers, _check_weights

__all__ = [
    "multiclass_brier_score",
    "multiclass_brier_scorer",
    "outcome_probabilities_of",
    "ranked_probability_score",
    "ranked_probability_scorer",
]

#: The outcomes, in the order of the forecast's columns.
_OUTCOMES = (0.0, 0.5, 1.0)


def _check_outcomes(y_true: Any, proba: Any) -> tuple[np.ndarray, np.ndarray]:
    """Outcomes 0, 0.5, 1 as one-hot rows, and the forecasts as (n, 3) columns in that order."""
    y, p = _as_numbers(y_true, proba)
    if y.ndim != 1:
        raise ValueError(f"y_true must be one-dimensional, got shape {y.shape}")
    if p.ndim != 2 or p.shape[1] not in (2, 3):
        raise ValueError(
            f"proba must be a (n_matches, 3) array of [P(player 2 wins), P(draw), "
            f"P(player 1 wins)] (predict_proba of a model fitted with draws), or (n_matches, 2) "
            f"without a draw column; got shape {p.shape}"
        )
    if len(y) != len(p):
        raise ValueError(f"y_true has {len(y)} outcomes but proba has {len(p)} rows")
    if len(y) == 0:
        raise ValueError("no matches to score")
    if p.shape[1] == 2:  # a forecast that gives a draw no chance
        p = np.column_stack([p[:, 0], np.zeros(len(p)), p[:, 1]])
    bad = ~np.isin(y, _OUTCOMES)
    if bad.any():
        raise ValueError(
            "y_true must hold 1 (player 1 won), 0.5 (a draw) or 0 (player 2 won); "
            f"found {float(y[bad][0])!r}"
        )
    if not np.all(np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError("proba must hold probabilities in [0, 1]")
    total = p.sum(axis=1)
    if not np.allclose(total, 1.0, atol=1e-6):
        row = int(np.argmax(np.abs(total - 1.0)))
        raise ValueError(
            f"each row of proba must sum to 1; row {row} sums to {float(total[row])!r}"
        )
    onehot = (y[:, None] == np.array(_OUTCOMES)[None, :]).astype(float)
    return onehot, p


@shared_parameters
def ranked_probability_score(y_true: Any, proba: Any, sample_weight: Any = None) -> float:
    """Ranked probability score of three-outcome forecasts (lower is better).

    The outcomes are ordered (player 2 wins < draw < player 1 wins), and the
    score compares cumulative forecasts with cumulative outcomes:
    ``((F_1 - O_1)^2 + (F_2 - O_2)^2) / 2`` per match, with ``F_1`` =
    P(player 2 wins), ``F_2`` = P(player 2 wins) + P(draw) and ``O`` the same
    sums of the outcome's indicators; divided by the number of categories
    less one (Epstein 1969, as in football forecasting), so it lies in
    [0, 1]. A forecast near the outcome is penalised less than one far from
    it: a draw forecast for a win costs less than a loss forecast.

    {three_outcome_parameters}

    Returns
    -------
    float
        The weighted mean of the matches' scores, in [0, 1].

    Examples
    --------
    >>> from skcodex.metrics import ranked_probability_score
    >>> round(ranked_probability_score([1, 0], [[0.2, 0.3, 0.5], [0.2, 0.3, 0.5]]), 3)
    0.295
    """
    onehot, p = _check_outcomes(y_true, proba)
    weights = _check_weights(sample_weight, len(p))
    f = np.cumsum(p, axis=1)[:, :2]
    o = np.cumsum(onehot, axis=1)[:, :2]
    per_match = ((f - o) ** 2).sum(axis=1) / 2.0
    return float(np.average(per_match, weights=weights))


@shared_parameters
def multiclass_brier_score(y_true: Any, proba: Any, sample_weight: Any = None) -> float:
    """Multi-class Brier score of three-outcome forecasts (lower is better).

    ``sum_k (p_k - o_k)^2`` over the three outcomes, averaged over matches
    (Brier 1950's original score, in [0, 2]). On a table without draws and a
    forecast without a draw column it is twice the binary `brier_score`.

    {three_outcome_parameters}

    Returns
    -------
    float
        The weighted mean over matches of ``sum_k (p_k - o_k)^2``, in [0, 2].

    Examples
    --------
    >>> from skcodex.metrics import multiclass_brier_score
    >>> round(multiclass_brier_score([0.5], [[0.2, 0.3, 0.5]]), 2)
    0.78
    """
    onehot, p = _check_outcomes(y_true, proba)
    weights = _check_weights(sample_weight, len(p))
    return float(np.average(((p - onehot) ** 2).sum(axis=1), weights=weights))


def outcome_probabilities_of(estimator: Any, X: Any) -> np.ndarray:
    """An estimator's forecasts as (n, 3) columns [P(player 2 wins), P(draw), P(player 1 wins)].

    The columns are found through ``classes_``: ``[0, 0.5, 1]`` (a model with
    draws) or ``[0, 1]`` (a model without: P(draw) = 0).
    """
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        raise ValueError(f"{type(estimator).__name__} has no classes_; fit it before scoring")
    classes = [float(c) for c in np.asarray(classes).tolist()]
    if not set(classes) <= set(_OUTCOMES) or not {0.0, 1.0} <= set(classes):
        raise ValueError(
            f"{type(estimator).__name__}.classes_ is {classes}; a three-outcome score needs "
            "classes [0, 1] or [0, 0.5, 1]"
        )
    proba = np.asarray(estimator.predict_proba(X), dtype=float)
    if proba.ndim != 2 or proba.shape[1] != len(classes):
        raise ValueError(
            f"predict_proba returned shape {proba.shape}; expected (n, {len(classes)})"
        )
    out = np.zeros((len(proba), 3))
    for column, c in enumerate(classes):
        out[:, _OUTCOMES.index(c)] = proba[:, column]
    return out


@shared_parameters
def ranked_probability_scorer(estimator: Any, X: Any, y: Any, sample_weight: Any = None) -> float:
    """Negated `ranked_probability_score` for ``scoring=`` in scikit-learn (greater is better).

    {three_outcome_scorer_parameters}

    Returns
    -------
    float
        Minus the ranked probability score.
    """
    return -ranked_probability_score(y, outcome_probabilities_of(estimator, X), sample_weight)


@shared_parameters
def multiclass_brier_scorer(estimator: Any, X: Any, y: Any, sample_weight: Any = None) -> float:
    """Negated `multiclass_brier_score` for ``scoring=`` in scikit-learn (greater is better).

    {three_outcome_scorer_parameters}

    Returns
    -------
    float
        Minus the multi-class Brier score.
    """
    return -multiclass_brier_score(y, outcome_probabilities_of(estimator, X), sample_weight)
