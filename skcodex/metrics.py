"""Brier scores of match forecasts, their calibration, and a scorer for model selection.

`brier_score` and `brier_skill_score` score forecasts; `reliability_table` and
`brier_decomposition` say where a score comes from (calibration against
resolution); `brier_scorer` plugs the score into scikit-learn's model selection.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import beta

__all__ = [
    "COIN_FLIP_BRIER",
    "brier_decomposition",
    "brier_score",
    "brier_scorer",
    "brier_skill_score",
    "positive_class_probability",
    "reliability_table",
]

COIN_FLIP_BRIER = 0.25


def _check_pair(y_true: Any, p_win: Any) -> tuple[np.ndarray, np.ndarray]:
    try:
        y = np.asarray(y_true, dtype=float)
        p = np.asarray(p_win, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"outcomes and probabilities must be numbers: {err}") from None
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


def brier_score(y_true: Any, p_win: Any, sample_weight: Any = None) -> float:
    """Mean squared difference between outcome and forecast win probability.

    A coin flip (``p_win = 0.5``) scores 0.25; a perfect forecast 0; lower is better.

    Parameters
    ----------
    y_true : array-like of shape (n_matches,)
        1 where player 1 won, 0 where player 2 won (values in between, such as
        0.5 for a draw, are scored as they are).
    p_win : array-like of shape (n_matches,)
        Forecast probability that player 1 wins.
    sample_weight : array-like of shape (n_matches,) or None, default None
        Weights of the matches: finite, non-negative, not all zero, one per match.

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


def brier_skill_score(y_true: Any, p_win: Any, sample_weight: Any = None) -> float:
    """Improvement over the coin flip: ``1 - brier_score / 0.25`` (1 is perfect, 0 a coin flip).

    Parameters
    ----------
    y_true : array-like of shape (n_matches,)
        1 where player 1 won, 0 where player 2 won (values in between, such as
        0.5 for a draw, are scored as they are).
    p_win : array-like of shape (n_matches,)
        Forecast probability that player 1 wins.
    sample_weight : array-like of shape (n_matches,) or None, default None
        Weights of the matches: finite, non-negative, not all zero, one per match.

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


def positive_class_probability(estimator: Any, X: Any) -> np.ndarray:
    """P(player 1 wins) from an estimator's ``predict_proba``, located through ``classes_``."""
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


def brier_scorer(estimator: Any, X: Any, y: Any, sample_weight: Any = None) -> float:
    """Negated Brier score for ``scoring=`` in scikit-learn (greater is better).

    Reads the probability of class 1 through the estimator's ``classes_``, so
    an estimator whose ``predict_proba`` columns come in another order is
    still scored on the right column.

    Parameters
    ----------
    estimator : fitted classifier
        Any estimator with ``classes_`` (holding 1) and ``predict_proba``.
    X : pandas.DataFrame or array-like
        The matches to forecast, as the estimator reads them.
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
    return -brier_score(
        np.asarray(y, dtype=float), positive_class_probability(estimator, X), sample_weight
    )


# -- calibration -----------------------------------------------------------------------


def _bins(p: np.ndarray, n_bins: int, strategy: str) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")
    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, n_bins + 1)
    elif strategy == "quantile":
        edges = np.unique(np.quantile(p, np.linspace(0.0, 1.0, n_bins + 1)))
        edges[0], edges[-1] = 0.0, 1.0
    else:
        raise ValueError(f"strategy must be 'uniform' or 'quantile', got {strategy!r}")
    which = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, len(edges) - 2)
    return edges, which


def reliability_table(
    y_true: Any,
    p_win: Any,
    n_bins: int = 10,
    strategy: str = "uniform",
    interval: float = 0.90,
) -> pd.DataFrame:
    """Forecasts binned against how often player 1 actually won.

    Parameters
    ----------
    y_true : array-like of shape (n_matches,)
        1 where player 1 won, 0 where player 2 won.
    p_win : array-like of shape (n_matches,)
        Forecast P(player 1 wins).
    n_bins : int, default 10
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width bins on [0, 1], or bins holding about equal numbers of
        forecasts.
    interval : float, default 0.9
        Width of the interval on the observed frequency.

    Returns
    -------
    pandas.DataFrame
        One row per non-empty bin: ``bin_lower``, ``bin_upper``, ``count``,
        ``mean_forecast``, ``observed`` (share won by player 1) and
        ``lower``/``upper``, a Jeffreys interval for the observed share. For
        well calibrated forecasts ``observed`` is close to ``mean_forecast``.

    Examples
    --------
    >>> table = reliability_table([0, 1, 1, 1], [0.2, 0.3, 0.8, 0.9], n_bins=2)
    >>> table[["count", "mean_forecast", "observed"]].round(3).values.tolist()
    [[2.0, 0.25, 0.5], [2.0, 0.85, 1.0]]
    """
    y, p = _check_pair(y_true, p_win)
    if not 0 < interval < 1:
        raise ValueError(f"interval must be between 0 and 1, got {interval!r}")
    edges, which = _bins(p, n_bins, strategy)
    count = np.bincount(which, minlength=len(edges) - 1).astype(float)
    keep = count > 0
    wins = np.bincount(which, weights=y, minlength=len(edges) - 1)[keep]
    n = count[keep]
    tail = (1.0 - interval) / 2.0
    return pd.DataFrame(
        {
            "bin_lower": edges[:-1][keep],
            "bin_upper": edges[1:][keep],
            "count": n,
            "mean_forecast": np.bincount(which, weights=p, minlength=len(edges) - 1)[keep] / n,
            "observed": wins / n,
            "lower": beta.ppf(tail, wins + 0.5, n - wins + 0.5),
            "upper": beta.ppf(1.0 - tail, wins + 0.5, n - wins + 0.5),
        }
    )


def brier_decomposition(
    y_true: Any, p_win: Any, n_bins: int = 10, strategy: str = "uniform"
) -> pd.Series:
    """The Brier score and Murphy's decomposition over forecast bins.

    ``brier ≈ reliability - resolution + uncertainty``, with, over bins ``k``
    holding ``n_k`` of the ``N`` forecasts, mean forecast ``f_k`` and observed
    frequency ``o_k`` (overall frequency ``o``):

    - reliability ``= sum n_k (f_k - o_k)^2 / N`` (0 is perfectly calibrated);
    - resolution ``= sum n_k (o_k - o)^2 / N`` (higher separates outcomes better);
    - uncertainty ``= o (1 - o)`` (the score of always forecasting ``o``).

    The identity is exact when every forecast in a bin takes the same value;
    otherwise ``within_bin`` holds the remainder, ``brier - (reliability -
    resolution + uncertainty)``, which comes from forecasts varying inside
    their bins.

    Returns
    -------
    pandas.Series
        ``brier``, ``reliability``, ``resolution``, ``uncertainty``,
        ``within_bin``, and ``n`` (number of forecasts).

    Examples
    --------
    >>> parts = brier_decomposition([0, 1, 1, 1], [0.25, 0.25, 0.85, 0.85], n_bins=2)
    >>> bool(abs(parts["reliability"] - parts["resolution"] + parts["uncertainty"]
    ...          - parts["brier"]) < 1e-12)
    True
    """
    y, p = _check_pair(y_true, p_win)
    table = reliability_table(y, p, n_bins, strategy)
    n = len(y)
    base = float(y.mean())
    weight = table["count"].to_numpy() / n
    reliability = float(np.sum(weight * (table["mean_forecast"] - table["observed"]) ** 2))
    resolution = float(np.sum(weight * (table["observed"] - base) ** 2))
    uncertainty = base * (1.0 - base)
    brier = brier_score(y, p)
    return pd.Series(
        {
            "brier": brier,
            "reliability": reliability,
            "resolution": resolution,
            "uncertainty": uncertainty,
            "within_bin": brier - (reliability - resolution + uncertainty),
            "n": float(n),
        }
    )
