"""Forward-chained forecasts of several models, their scores, and paired bootstrap intervals."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from sklearn import metrics
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from skcodex.metrics import brier_score, positive_class_probability

__all__ = [
    "bootstrap_against_best_other",
    "forward_forecasts",
    "log_loss",
    "paired_bootstrap",
    "score_table",
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
