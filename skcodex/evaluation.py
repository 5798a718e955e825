"""Forward-chained forecasts of several models, their scores, and paired bootstrap intervals."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from sklearn import metrics
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from skcodex.metrics import brier_score, positive_class_probability

__all__ = [
    "bootstrap_against_best_other",
    "forward_forecasts",
    "forward_stacking",
    "log_loss",
    "paired_bootstrap",
    "score_table",
    "stacking_weights",
]


def forward_forecasts(
    models: Mapping[str, Any],
    X: pd.DataFrame,
    y: Any,
    cv: Any,
    *,
    groups: Any = None,
    fit_params: Mapping[str, Mapping[str, Any]] | None = None,
    verbose: bool = False,
) -> pd.DataFrame:
    """Fit every model on each training split and forecast its test split.

    Parameters
    ----------
    models : mapping of name to estimator
        Unfitted estimators; each is cloned for every split.
    X : pandas.DataFrame
        The match table.
    y : array-like
        1 where player 1 won.
    cv : splitter
        E.g. `skcodex.TournamentSplit`; its splits must not overlap.
    groups : array-like or None, default None
        Passed to ``cv.split``.
    fit_params : mapping of name to dict, or None, default None
        Extra ``fit`` keyword arguments per model.
    verbose : bool, default False
        Print progress.

    Returns
    -------
    pandas.DataFrame
        One row per forecast match: ``split`` (the split's number), ``period``
        (the match's period when X has one), ``row`` (position in X), ``y``,
        and one column per model with its P(player 1 wins).
        ``attrs["convergence"]`` counts the fits that warned, per model.
    """
    y = np.asarray(y)
    frames = []
    warned = dict.fromkeys(models, 0)
    for split, (train, test) in enumerate(cv.split(X, y, groups)):
        frame = pd.DataFrame({"split": split, "row": test, "y": y[test]})
        if "period" in X.columns:
            frame.insert(1, "period", X["period"].to_numpy()[test])
        for name, model in models.items():
            est = clone(model)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                est.fit(X.iloc[train], y[train], **(fit_params or {}).get(name, {}))
            warned[name] += any(issubclass(w.category, ConvergenceWarning) for w in caught)
            frame[name] = positive_class_probability(est, X.iloc[test])
            if verbose:
                print(f"  split {split}: {name} done", flush=True)
        frames.append(frame)
    out = pd.concat(frames, ignore_index=True)
    out.attrs["convergence"] = warned
    return out


def _models(forecasts: pd.DataFrame) -> list[str]:
    fixed = {"split", "period", "row", "y"}
    return [c for c in forecasts.columns if c not in fixed]


def log_loss(y: np.ndarray, p: np.ndarray) -> float:
    """Mean negative log-likelihood of binary outcomes (natural log): scikit-learn's.

    Parameters
    ----------
    y : array-like of shape (n_matches,)
        1 where player 1 won, 0 where player 2 won.
    p : array-like of shape (n_matches,)
        Forecast P(player 1 wins).

    Returns
    -------
    float
        The log loss.
    """
    return float(metrics.log_loss(np.asarray(y), np.asarray(p, dtype=float), labels=[0, 1]))


def score_table(forecasts: pd.DataFrame, by: str = "period") -> pd.DataFrame:
    """Brier score per split (or period) and pooled, one column per model.

    The last two rows are ``pooled`` (all forecast matches together) and
    ``log loss (pooled)``.

    Parameters
    ----------
    forecasts : pandas.DataFrame
        From `forward_forecasts`: ``y`` and one column of forecasts per model.
    by : str, default "period"
        The column the rows are grouped by; ``split`` when ``forecasts`` has no
        such column.

    Returns
    -------
    pandas.DataFrame
        One row per group, then the pooled rows; a ``matches`` column and one
        column per model.
    """
    models = _models(forecasts)
    key = by if by in forecasts.columns else "split"
    rows = {}
    for label, part in forecasts.groupby(key, sort=False):
        rows[label] = {m: brier_score(part["y"], part[m]) for m in models}
        rows[label]["matches"] = len(part)
    y = forecasts["y"].to_numpy()
    rows["pooled"] = {m: brier_score(y, forecasts[m]) for m in models}
    rows["pooled"]["matches"] = len(forecasts)
    rows["log loss (pooled)"] = {m: log_loss(y, forecasts[m].to_numpy()) for m in models}
    rows["log loss (pooled)"]["matches"] = len(forecasts)
    return pd.DataFrame(rows).T[["matches", *models]]


def paired_bootstrap(
    forecasts: pd.DataFrame,
    model: str,
    other: str,
    *,
    n_resamples: int = 2000,
    interval: float = 0.95,
    random_state: Any = 0,
) -> dict[str, float]:
    """Brier difference ``model - other`` with a paired bootstrap interval over matches.

    Negative means ``model`` forecasts better. Both are scored on the same
    resampled matches, so the interval reflects the difference only.

    Parameters
    ----------
    forecasts : pandas.DataFrame
        From `forward_forecasts`: ``y`` and one column of forecasts per model.
    model : str
        The model whose score the other's is subtracted from.
    other : str
        The model compared against.
    n_resamples : int, default 2000
        Bootstrap resamples of the matches.
    interval : float, default 0.95
        Width of the percentile interval.
    random_state : int, RandomState instance or None, default 0
        Seed or generator of the resamples.

    Returns
    -------
    dict of str to float
        ``difference`` (the mean Brier difference), ``lower`` and ``upper``.
    """
    rng = check_random_state(random_state)
    y = forecasts["y"].to_numpy()
    diff = (y - forecasts[model].to_numpy()) ** 2 - (y - forecasts[other].to_numpy()) ** 2
    idx = rng.randint(0, len(diff), size=(n_resamples, len(diff)))
    means = diff[idx].mean(axis=1)
    tail = (1 - interval) / 2
    return {
        "difference": float(diff.mean()),
        "lower": float(np.quantile(means, tail)),
        "upper": float(np.quantile(means, 1 - tail)),
    }


def bootstrap_against_best_other(forecasts: pd.DataFrame, **kwargs: Any) -> pd.DataFrame:
    """For each model, its paired bootstrap difference from the best other model (pooled Brier).

    Parameters
    ----------
    forecasts : pandas.DataFrame
        From `forward_forecasts`: ``y`` and one column of forecasts per model.
    **kwargs
        Passed to `paired_bootstrap` (``n_resamples``, ``interval``,
        ``random_state``).

    Returns
    -------
    pandas.DataFrame
        Indexed by model: ``best other`` (the other model of lowest pooled
        Brier score), ``difference``, ``lower`` and ``upper``.
    """
    models = _models(forecasts)
    y = forecasts["y"].to_numpy()
    brier = {m: brier_score(y, forecasts[m]) for m in models}
    rows = []
    for m in models:
        others = [o for o in models if o != m]
        best = min(others, key=brier.get)
        rows.append(
            {"model": m, "best other": best, **paired_bootstrap(forecasts, m, best, **kwargs)}
        )
    return pd.DataFrame(rows).set_index("model")


def _checked_probabilities(values: Any, what: str) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    bad = ~np.isfinite(array) | (array < 0) | (array > 1)
    if bad.any():
        raise ValueError(
            f"{what} must be probabilities in [0, 1]; {int(bad.sum())} value(s) are not "
            f"(the first: {array[bad][0]!r})"
        )
    return array


def stacking_weights(forecasts: Any, y: Any) -> np.ndarray:
    """The weights of the mix of forecasts with the best log score (stacking).

    Stacking (Yao, Vehtari, Simpson and Gelman 2018) forecasts with a weighted
    mix of several models' predictive distributions, ``sum_k w_k P_k``, the
    weights (non-negative, summing to 1) chosen to maximise the mix's summed
    log score ``sum_i y_i log P_i + (1 - y_i) log(1 - P_i)`` on forecasts made
    before the outcomes were known. The score is concave in the weights, so the
    optimum is found to solver precision.

    Parameters
    ----------
    forecasts : array-like of shape (n_matches, n_models)
        Each model's P(player 1 wins), one column per model.
    y : array-like of shape (n_matches,)
        The outcomes: 1 where player 1 won, 0 where player 2 won (0.5 for a draw).

    Returns
    -------
    ndarray of shape (n_models,)
        The weights. With no matches the first model takes all the weight.

    Examples
    --------
    >>> import numpy as np
    >>> from skcodex.evaluation import stacking_weights
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.uniform(0.2, 0.8, 4000)
    >>> y = rng.uniform(size=4000) < truth
    >>> # the true probabilities against a coin flip: nearly all the weight on the truth
    >>> stacking_weights(np.column_stack([truth, np.full(4000, 0.5)]), y).round(2)
    array([0.95, 0.05])
    """
    P = _checked_probabilities(forecasts, "forecasts")
    if P.ndim != 2 or P.shape[1] == 0:
        raise ValueError(
            f"forecasts must be a 2-d array, one column per model; got shape {P.shape}"
        )
    outcome = _checked_probabilities(y, "y").reshape(-1)
    if len(outcome) != len(P):
        raise ValueError(f"y has {len(outcome)} outcomes but forecasts has {len(P)} rows")
    k = P.shape[1]
    if len(outcome) == 0:
        return np.eye(k)[0]
    P = np.clip(P, 1e-12, 1 - 1e-12)

    def loss(w: np.ndarray) -> float:
        p = np.clip(P @ w, 1e-12, 1 - 1e-12)
        return -float(np.sum(outcome * np.log(p) + (1 - outcome) * np.log1p(-p)))

    def gradient(w: np.ndarray) -> np.ndarray:
        p = np.clip(P @ w, 1e-12, 1 - 1e-12)
        return -((outcome / p - (1 - outcome) / (1 - p)) @ P)

    fit = minimize(
        loss,
        np.full(k, 1.0 / k),
        jac=gradient,
        method="SLSQP",
        bounds=[(0.0, 1.0)] * k,
        constraints=[{"type": "eq", "fun": lambda w: w.sum() - 1.0}],
        options={"ftol": 1e-12, "maxiter": 500},
    )
    w = np.clip(fit.x, 0.0, None)
    return w / w.sum()


def forward_stacking(
    forecasts: pd.DataFrame, models: list[str], *, name: str | None = None
) -> pd.DataFrame:
    """Each split forecast by the mix of ``models`` stacked on the splits before it.

    The forward form of stacking: split ``s`` (of `forward_forecasts`, numbered in
    time order) is forecast by ``sum_k w_k P_k`` with the `stacking_weights` of
    every match of the splits before ``s``, so every forecast is made from
    outcomes known before the split began. The first split, with nothing before
    it, is forecast by ``models[0]`` alone: put the simplest model first.

    Parameters
    ----------
    forecasts : pandas.DataFrame
        From `forward_forecasts`: ``split``, ``y`` and one column of forecasts
        per model. It is not modified.
    models : list of str
        The columns of ``forecasts`` to stack (two or more), the fallback first.
    name : str or None, default None
        The name of the stacked column; by default ``"stacking: "`` and the
        models' names.

    Returns
    -------
    pandas.DataFrame
        A copy of ``forecasts`` with the stacked column added;
        ``attrs["stacking_weights"]`` holds the weights used for each split
        (one row per split, one column per model).
    """
    models = list(models)
    missing = [m for m in ["split", "y", *models] if m not in forecasts.columns]
    if missing:
        raise ValueError(f"forecasts has no column(s) {missing}; it has {list(forecasts.columns)}")
    if len(set(models)) < 2 or len(set(models)) != len(models):
        raise ValueError(f"models must name two or more different columns; got {models}")
    name = name or "stacking: " + ", ".join(models)
    if name in forecasts.columns:
        raise ValueError(f"forecasts already has a column {name!r}; pass another name")
    P = _checked_probabilities(forecasts[models], "the models' forecasts")
    y = _checked_probabilities(forecasts["y"], "y")
    split = forecasts["split"].to_numpy()
    stacked = np.empty(len(y))
    weights = {}
    for s in np.unique(split):
        before, here = split < s, split == s
        weights[s] = stacking_weights(P[before], y[before])
        stacked[here] = P[here] @ weights[s]
    out = forecasts.copy()
    out[name] = stacked
    table = pd.DataFrame.from_dict(weights, orient="index", columns=models).rename_axis("split")
    out.attrs = {**forecasts.attrs, "stacking_weights": table}
    return out
