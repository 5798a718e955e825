"""Calibration of match forecasts: reliability tables, Murphy's decomposition of the
Brier score, the expected calibration error, the calibration slope and the check of
confident forecasts."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy.special import expit, logit
from scipy.stats import beta, norm

from skcodex._docstrings import shared_parameters
from skcodex.metrics._scores import _check_pair, brier_score

__all__ = [
    "LOGIT_CLIP",
    "brier_decomposition",
    "calibration_error",
    "calibration_slope",
    "overconfidence",
    "reliability_table",
]


#: Forecasts are clipped to ``[LOGIT_CLIP, 1 - LOGIT_CLIP]`` before their log-odds are taken.
LOGIT_CLIP = 1e-6


def _check_interval(interval: Any) -> float:
    if isinstance(interval, bool) or not isinstance(interval, (int, float, np.floating)):
        raise ValueError(f"interval must be a number between 0 and 1, got {interval!r}")
    if not 0 < interval < 1:
        raise ValueError(f"interval must be between 0 and 1, got {interval!r}")
    return float(interval)


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


@shared_parameters
def reliability_table(
    y_true: Any,
    p_win: Any,
    n_bins: int = 10,
    strategy: str = "uniform",
    interval: float = 0.90,
) -> pd.DataFrame:
    """Bin forecasts against how often player 1 actually won.

    Parameters
    ----------
    {binned_forecasts}
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width bins on [0, 1], or bins holding about equal numbers of
        forecasts. Each bin holds its lower edge, not its upper one
        (``[0.1, 0.2)``), except the last, which holds 1.
    interval : float, default 0.9
        Width of the interval on the observed frequency.

    Returns
    -------
    pandas.DataFrame
        One row per non-empty bin: ``bin_lower``, ``bin_upper``, ``count``,
        ``mean_forecast``, ``observed`` (share won by player 1) and
        ``lower``/``upper``, a Jeffreys interval for the observed share. For
        well calibrated forecasts ``observed`` is close to ``mean_forecast``.
        ``attrs["interval"]`` holds ``interval``.

    Examples
    --------
    >>> table = reliability_table([0, 1, 1, 1], [0.2, 0.3, 0.8, 0.9], n_bins=2)
    >>> table[["count", "mean_forecast", "observed"]].round(3).values.tolist()
    [[2.0, 0.25, 0.5], [2.0, 0.85, 1.0]]
    """
    y, p = _check_pair(y_true, p_win)
    _check_interval(interval)
    edges, which = _bins(p, n_bins, strategy)
    count = np.bincount(which, minlength=len(edges) - 1).astype(float)
    keep = count > 0
    wins = np.bincount(which, weights=y, minlength=len(edges) - 1)[keep]
    n = count[keep]
    tail = (1.0 - interval) / 2.0
    table = pd.DataFrame(
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
    table.attrs["interval"] = float(interval)
    return table


@shared_parameters
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

    Parameters
    ----------
    {binned_forecasts}
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width bins on [0, 1], or bins holding about equal numbers of
        forecasts. Bins are those of `reliability_table`.

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


@shared_parameters
def calibration_error(
    y_true: Any, p_win: Any, n_bins: int = 10, strategy: str = "uniform"
) -> float:
    """Expected calibration error: the mean distance of forecasts from what came true, by bin.

    The forecasts are binned as in `reliability_table`; over bins ``k``
    holding ``n_k`` of the ``N`` forecasts, with mean forecast ``f_k`` and
    observed frequency ``o_k``,

    ``ECE = sum_k n_k |f_k - o_k| / N``.

    0 is perfectly calibrated on these bins. It is not 0 for perfectly
    calibrated forecasts of a finite sample: each ``o_k`` is a share of
    ``n_k`` outcomes, off by about ``sqrt(f_k (1 - f_k) / n_k)``, so compare
    forecasters on the same matches and the same bins, and read the intervals
    of `reliability_table` or `calibration_slope` for whether a gap is more
    than chance.

    Parameters
    ----------
    y_true : array-like of shape (n_matches,)
        1 where player 1 won, 0 where player 2 won (values in between, such
        as luck-adjusted outcomes, are used as they are).
    {p_win}
    n_bins : int, default 10
        Number of bins.
    strategy : {"uniform", "quantile"}, default "uniform"
        ``"uniform"``: equal-width bins ``[0, 0.1), [0.1, 0.2), ..., [0.9,
        1]`` (for 10 bins), a forecast on an edge in the bin above it.
        ``"quantile"``: adaptive bins, their edges at the quantiles of the
        forecasts so each holds about ``N / n_bins`` of them (fewer bins when
        many forecasts are equal); the error is then not dominated by a few
        matches in a sparse bin.

    Returns
    -------
    float
        The expected calibration error, between 0 and 1.

    See Also
    --------
    reliability_table : The bins themselves, with an interval on each observed share.
    calibration_slope : Calibration as one regression slope, with its interval.

    Examples
    --------
    >>> from skcodex.metrics import calibration_error
    >>> y = [0, 1, 1, 1, 0]
    >>> p = [0.05, 0.15, 0.85, 0.95, 0.9]
    >>> # bins [0, 0.5): forecast 0.1, won 1 of 2; [0.5, 1]: forecast 0.9, won 2 of 3
    >>> round(calibration_error(y, p, n_bins=2), 4)  # (2 * 0.4 + 3 * 0.2333) / 5
    0.3
    """
    table = reliability_table(y_true, p_win, n_bins, strategy)
    weight = table["count"].to_numpy() / table["count"].sum()
    gap = np.abs(table["mean_forecast"].to_numpy() - table["observed"].to_numpy())
    return float(np.sum(weight * gap))


def _logistic_fit(z: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Maximum likelihood of ``y ~ Bernoulli(sigmoid(a + b z))`` by Newton's method.

    Returns ``(a, b)`` and the inverse of the Fisher information at them. ``y``
    in [0, 1] (fractional outcomes: the binomial quasi-likelihood).
    """
    X = np.column_stack([np.ones_like(z), z])

    def loglik(coef):
        eta = X @ coef
        return float(np.sum(y * eta - np.logaddexp(0.0, eta)))

    coef = np.array([0.0, 1.0])  # perfect calibration: where well-made forecasts are
    current = loglik(coef)
    for _ in range(100):
        mu = expit(X @ coef)
        info = (X * (mu * (1 - mu))[:, None]).T @ X
        step = np.linalg.solve(info, X.T @ (y - mu))
        t = 1.0
        while True:  # halve the step until the likelihood does not fall
            trial = coef + t * step
            value = loglik(trial)
            if value >= current - 1e-12 * abs(current) or t < 1e-10:
                break
            t /= 2
        coef, current = trial, value
        if np.max(np.abs(t * step)) < 1e-10:
            break
    else:
        raise ValueError(
            "the regression of outcomes on forecast log-odds does not converge: the "
            "forecasts separate wins from losses perfectly, so no finite slope fits"
        )
    if np.max(np.abs(coef)) > 1e3:
        raise ValueError(
            "the forecasts separate wins from losses perfectly, so no finite slope fits"
        )
    mu = expit(X @ coef)
    info = (X * (mu * (1 - mu))[:, None]).T @ X
    return coef, np.linalg.inv(info)


@shared_parameters
def calibration_slope(y_true: Any, p_win: Any, interval: float = 0.95) -> pd.Series:
    """Calibration slope and intercept: the logistic regression of outcome on forecast log-odds.

    Fits ``P(player 1 wins) = sigmoid(a + b logit(p))`` to the outcomes by
    maximum likelihood. Forecasts that are right as they are give ``b = 1``
    and ``a = 0``. A slope below 1 says the forecasts are too bold (their
    log-odds too far from 0: what they call 80% comes true less often); above 1,
    too timid. The intercept says whether player 1 wins more (above 0) or less
    often than forecast at even odds.

    The interval of each coefficient is Wald's, from the Fisher information
    at the fit: about ``interval`` of them cover the true coefficient when
    matches are independent. Forecasts are clipped to ``[1e-6, 1 - 1e-6]``
    (`LOGIT_CLIP`) before their log-odds are taken, so a forecast of 0 or 1
    counts as very sure rather than infinitely so.

    Parameters
    ----------
    y_true : array-like of shape (n_matches,)
        1 where player 1 won, 0 where player 2 won (values in between, such
        as luck-adjusted outcomes, are fitted by the binomial
        quasi-likelihood; the interval then assumes binomial variance).
    {p_win}
    interval : float, default 0.95
        Width of the intervals.

    Returns
    -------
    pandas.Series
        ``slope``, ``slope_lower``, ``slope_upper``, ``intercept``,
        ``intercept_lower``, ``intercept_upper`` and ``n`` (matches).

    Raises
    ------
    ValueError
        For outcomes all the same, forecasts all the same, or forecasts that
        separate wins from losses perfectly: no finite slope fits those.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.special import expit
    >>> from skcodex.metrics import calibration_slope
    >>> rng = np.random.default_rng(0)
    >>> log_odds = rng.normal(0.0, 1.5, 20_000)
    >>> won = rng.random(20_000) < expit(0.7 * log_odds)  # forecasts too bold
    >>> fit = calibration_slope(won, expit(log_odds))
    >>> bool(fit["slope_lower"] < 0.7 < fit["slope_upper"])
    True
    """
    y, p = _check_pair(y_true, p_win)
    width = _check_interval(interval)
    if np.ptp(y) == 0:
        raise ValueError("the outcomes are all the same: a calibration slope needs wins and losses")
    z = logit(np.clip(p, LOGIT_CLIP, 1 - LOGIT_CLIP))
    if np.ptp(z) == 0:
        raise ValueError("the forecasts are all the same: a calibration slope needs them to vary")
    wins, losses = z[y == 1], z[y == 0]
    if len(wins) + len(losses) == len(y) and (
        wins.min() >= losses.max() or losses.min() >= wins.max()
    ):
        raise ValueError(
            "the forecasts separate wins from losses perfectly, so no finite slope fits"
        )
    coef, cov = _logistic_fit(z, y)
    half = norm.ppf(0.5 + width / 2) * np.sqrt(np.diag(cov))
    (a, b), (ha, hb) = coef, half
    return pd.Series(
        {
            "slope": b,
            "slope_lower": b - hb,
            "slope_upper": b + hb,
            "intercept": a,
            "intercept_lower": a - ha,
            "intercept_upper": a + ha,
            "n": float(len(y)),
        }
    )


@shared_parameters
def overconfidence(
    y_true: Any, p_win: Any, threshold: float = 0.7, interval: float = 0.9
) -> pd.Series:
    """Whether confident forecasts come true as often as they say, judged by an interval.

    A match has a favourite, the side forecast to win: a forecast ``p`` of
    player 1 is one of ``max(p, 1 - p)`` for the favourite. Among the matches
    whose favourite is given more than ``threshold``, the favourites' mean
    forecast is set against the share they won, with a Jeffreys interval on
    that share (as `reliability_table`). The forecasts are overconfident at
    the top when the whole interval lies below the mean forecast (the
    favourites won less often than forecast, by more than chance explains),
    underconfident when it lies above.

    Parameters
    ----------
    {y_true}
    {p_win}
    threshold : float, default 0.7
        The favourite's forecast above which a forecast counts as confident,
        between 0.5 and 1.
    interval : float, default 0.9
        Width of the interval on the share won.

    Returns
    -------
    pandas.Series
        ``threshold``, ``count`` (confident forecasts), ``mean_forecast``
        (the favourites' mean forecast), ``observed`` (the share the
        favourites won), ``lower`` and ``upper`` (its interval),
        ``overconfident`` and ``underconfident`` (booleans; both False when
        no forecast is above the threshold).

    Examples
    --------
    >>> import numpy as np
    >>> from skcodex.metrics import overconfidence
    >>> p = np.array([0.9] * 100 + [0.1] * 100)  # favourites given 90%
    >>> won = np.r_[np.arange(100) < 70, np.arange(100) >= 70]  # they won 70%
    >>> check = overconfidence(won, p)
    >>> round(check["mean_forecast"], 3), round(check["observed"], 3), check["overconfident"]
    (0.9, 0.7, True)
    """
    y, p = _check_pair(y_true, p_win)
    width = _check_interval(interval)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.floating)):
        raise ValueError(f"threshold must be a number between 0.5 and 1, got {threshold!r}")
    if not 0.5 <= threshold < 1:
        raise ValueError(f"threshold must be between 0.5 and 1, got {threshold!r}")
    favourite = np.maximum(p, 1 - p)
    favourite_won = np.where(p >= 0.5, y, 1 - y)
    top = favourite > threshold
    n = int(top.sum())
    out = {"threshold": float(threshold), "count": float(n)}
    if n == 0:
        nan = float("nan")
        out |= dict.fromkeys(("mean_forecast", "observed", "lower", "upper"), nan)
        return pd.Series({**out, "overconfident": False, "underconfident": False}, dtype=object)
    wins = float(favourite_won[top].sum())
    tail = (1.0 - width) / 2.0
    mean = float(favourite[top].mean())
    lower = float(beta.ppf(tail, wins + 0.5, n - wins + 0.5))
    upper = float(beta.ppf(1.0 - tail, wins + 0.5, n - wins + 0.5))
    out |= {"mean_forecast": mean, "observed": wins / n, "lower": lower, "upper": upper}
    return pd.Series(
        {**out, "overconfident": upper < mean, "underconfident": lower > mean}, dtype=object
    )
