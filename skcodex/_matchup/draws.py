"""Draws: a third outcome, by an ordered-logit extension of the model's log-odds.

A table whose outcomes ``y`` hold 1 (player 1 won), 0.5 (a draw, scored half
as in chess) or 0 (player 2 won) is fitted with one more parameter, a draw
threshold ``c > 0``, on the same linear predictor ``q`` (the signed sum of a
match's effects, `skcodex._matchup.layout`):

    P(player 1 wins) = sigmoid(q - c)
    P(player 2 wins) = sigmoid(-q - c)
    P(draw)          = 1 - sigmoid(q - c) - sigmoid(-q - c)

the cumulative (ordered) logit of Rao and Kupper (1967) with thresholds
``-c`` and ``c``. Between equal sides (``q = 0``) the chance of a draw is
``tanh(c / 2)``; it falls as the sides grow unequal. With no draws in a table
the model is not built this way at all: it fits exactly as before.

Why the ordered logit rather than Davidson (1970)'s model: its terms are
those of the binomial likelihood shifted by ``c`` (a win's term is
``log sigmoid(q - c)``, a loss's ``log sigmoid(-q - c)``), so its gradient in
``q`` is as simple, and a draw's term has the closed form

    log P(draw) = log(1 - exp(-2c)) + (c - q) - softplus(c - q) - softplus(-c - q)

which stays finite for any ``q`` and ``c > 0``. Matches that share an
index row share ``q``, so, as for wins alone (`skcodex._matchup.layout.collapse_matches`),
each distinct row adds its wins, draws and losses as counts: one term per
row, not per match. The threshold is ``c = exp(u)`` with
``u ~ N(DRAW_PRIOR)``: a median draw chance between equal sides near 18 %,
and 95 % of the prior between about 2.5 % and 86 %.

The rows' draw counts are the model's ``pm.Data`` ``draws``; ``y`` is, as
for wins alone, the sum of the outcomes (wins plus half the draws) and
``trials`` the matches, so the wins are ``y - draws / 2`` and the losses
``trials - y - draws / 2``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "CLASSES",
    "DRAW",
    "DRAW_PRIOR",
    "LOG_THRESHOLD",
    "THRESHOLD",
    "checked_outcome",
    "draw_loglik",
    "draw_summary",
    "has_draws",
    "log_odds_draws",
    "loglik_terms",
    "outcome_probabilities",
    "threshold_draws",
]

#: The outcome of a draw: half a win.
DRAW = 0.5
#: ``classes_`` of a model fitted with draws; the columns of its ``predict_proba``.
CLASSES = np.array([0.0, 0.5, 1.0])
#: Prior (loc, scale) of the log of the draw threshold.
DRAW_PRIOR = (-1.0, 1.0)
#: The posterior's draw threshold ``c`` and its log (the sampled variable).
THRESHOLD = "draw_threshold"
LOG_THRESHOLD = "draw_log_threshold"


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def checked_outcome(y: Any, n_matches: int) -> np.ndarray:
    """Outcomes 1, 0.5 (a draw) or 0, checked, as floats.

    Outcomes without a draw are read exactly as `skcodex.data.check_outcome`
    reads them (True and False too); with a draw, each outcome must be the
    number 0, 0.5 or 1. Raises `skcodex.data.MatchTableError` naming the
    first outcome that is none of them.
    """
    from skcodex.data import MatchTableError, check_outcome

    arr = y
    if isinstance(arr, pd.DataFrame) and arr.shape[1] == 1:
        arr = arr.iloc[:, 0]
    if isinstance(arr, np.ndarray) and arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if isinstance(arr, pd.Series):
        arr = arr.to_numpy()
    values = np.asarray(arr, dtype=object) if arr is not None else None
    half = values is not None and values.ndim == 1 and len(values) == n_matches
    half = half and any(_is_half(v) for v in values)
    if not half:
        return check_outcome(y, n_matches).astype(float)
    out = np.empty(len(values))
    for pos, value in enumerate(values):
        if isinstance(value, (bool, np.bool_)):
            out[pos] = float(value)
        elif isinstance(value, (int, float, np.integer, np.floating)) and value in (0, 0.5, 1):
            out[pos] = float(value)
        else:
            raise MatchTableError(
                "y must be 1 (player1 won), 0.5 (a draw) or 0 (player2 won); "
                f"got {_plain(value)!r} at row {pos}"
            )
    return out


def _is_half(value: Any) -> bool:
    return isinstance(value, (float, np.floating)) and not isinstance(value, bool) and value == DRAW


def has_draws(y: np.ndarray) -> bool:
    """Whether checked outcomes hold a draw."""
    return bool(np.any(np.asarray(y, dtype=float) == DRAW))


def draw_counts(outcome: np.ndarray) -> np.ndarray:
    """1.0 where a match was drawn, else 0.0 (one row per match)."""
    return (np.asarray(outcome, dtype=float) == DRAW).astype(float)


# -- the likelihood ---------------------------------------------------------------------


def _log_draw(q, c, xp):
    """``log P(draw)``: ``log(1 - e^{-2c}) + (c - q) - softplus(c - q) - softplus(-c - q)``."""
    if xp is np:
        softplus = np.logaddexp
        return np.log(-np.expm1(-2.0 * c)) + (c - q) - softplus(0, c - q) - softplus(0, -c - q)
    return xp.log(-xp.expm1(-2.0 * c)) + (c - q) - xp.softplus(c - q) - xp.softplus(-c - q)


def loglik_terms(y, q, c, trials=1.0, draws=None) -> np.ndarray:
    """Each row's ordered-logit log-likelihood, in NumPy.

    ``y`` the sum of the outcomes of the ``trials`` matches behind a row
    (wins plus half the draws) and ``draws`` their draws (by default: the
    outcome is one match's, a draw where it is 0.5); ``q`` the log-odds and
    ``c`` the threshold, broadcast together.
    """
    y = np.asarray(y, dtype=float)
    q = np.asarray(q, dtype=float)
    c = np.asarray(c, dtype=float)
    d = (y == DRAW).astype(float) if draws is None else np.asarray(draws, dtype=float)
    wins = y - d / 2
    losses = trials - y - d / 2
    from scipy.special import log_expit

    out = wins * log_expit(q - c) + losses * log_expit(-q - c)
    return out + np.where(d > 0, d * _log_draw(q, c, np), 0.0)


def draw_loglik(theta, index, signs, y, trials, draws, threshold):
    """The ordered-logit log-likelihood of every row, summed, as a PyTensor scalar.

    A gather of the rows' effects (the binary model's `skcodex._matchup.loglik_op`
    kernel has no threshold); used only when the table holds a draw.
    """
    import pytensor.tensor as pt

    q = (theta[index] * pt.as_tensor(np.asarray(signs, dtype=float))).sum(axis=1)
    wins = y - draws / 2
    losses = trials - y - draws / 2
    c = threshold
    # log sigmoid(x) = -softplus(-x)
    terms = -wins * pt.softplus(c - q) - losses * pt.softplus(q + c)
    return pt.sum(terms) + pt.sum(draws * _log_draw(q, c, pt))


def add_draw_likelihood(theta, index, signs, y, trials, n_rows: int):
    """Inside a PyMC model: the threshold's variables, the ``draws`` data and the likelihood.

    Returns the log-likelihood (a PyTensor scalar) for the caller's potential.
    """
    import pymc as pm
    import pytensor.tensor as pt

    draws = pm.Data("draws", np.zeros(n_rows))
    log_c = pm.Normal(LOG_THRESHOLD, *DRAW_PRIOR)
    c = pm.Deterministic(THRESHOLD, pt.exp(log_c))
    return draw_loglik(theta, index, signs, y, trials, draws, c)


# -- the posterior and forecasts ----------------------------------------------------------


def threshold_draws(idata) -> np.ndarray:
    """The draw threshold per posterior draw (chains flattened), float64."""
    from skcodex._compat import posterior

    return posterior.draws(idata, THRESHOLD).astype(np.float64).ravel()


def log_odds_draws(theta: np.ndarray, index: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """``q = theta[:, index] @ signs`` per draw, (n_draws, n_matches), in blocks of matches."""
    theta = np.asarray(theta, dtype=float)
    index = np.asarray(index, dtype=np.int64)
    signs = np.asarray(signs, dtype=float)
    out = np.empty((theta.shape[0], len(index)))
    step = max(1, 2**22 // max(1, theta.shape[0] * index.shape[1]))
    for start in range(0, len(index), step):
        part = index[start : start + step]
        out[:, start : start + step] = theta[:, part] @ signs
    return out


def outcome_probabilities(q, c) -> np.ndarray:
    """``[P(player 2 wins), P(draw), P(player 1 wins)]`` (last axis) for log-odds ``q``.

    The columns are in the order of `CLASSES`; ``q`` and ``c`` broadcast.
    The draw's probability is computed as its own expression (not one minus
    the others), so it is exact where it is small.
    """
    from scipy.special import expit

    q = np.asarray(q, dtype=float)
    c = np.asarray(c, dtype=float)
    win = expit(q - c)
    loss = expit(-q - c)
    draw = np.exp(_log_draw(q, c, np))
    return np.stack(np.broadcast_arrays(loss, draw, win), axis=-1)


def draw_summary(idata, interval: float = 0.9) -> pd.DataFrame:
    """Posterior mean and equal-tailed interval of the threshold and the even draw rate.

    Rows ``threshold`` (``c``) and ``draw_rate_even`` (``tanh(c / 2)``, the
    chance of a draw between equal sides); columns ``mean``, ``sd``,
    ``lower``, ``upper`` (the ``interval`` equal-tailed interval).
    """
    c = threshold_draws(idata)
    lo, hi = (1 - interval) / 2, 1 - (1 - interval) / 2
    rows = {}
    for name, values in (("threshold", c), ("draw_rate_even", np.tanh(c / 2))):
        rows[name] = {
            "mean": float(values.mean()),
            "sd": float(values.std(ddof=1)) if len(values) > 1 else 0.0,
            "lower": float(np.quantile(values, lo)),
            "upper": float(np.quantile(values, hi)),
        }
    return pd.DataFrame.from_dict(rows, orient="index")


def check_can_fit(estimator, luck) -> None:
    """Refuse what a model with draws cannot be fitted with: luck, approximate methods."""
    from skcodex.data import MatchTableError

    if luck is not None:
        raise MatchTableError(
            "y holds draws (0.5) and luck was given: luck-adjusted outcomes are fitted by the "
            "binary quasi-likelihood, which has no draw; fit without luck, or leave the draws out"
        )
    method = getattr(estimator, "method", "nuts")
    if method != "nuts":
        raise ValueError(
            f"y holds draws (0.5), which method={method!r} cannot fit: a model with draws "
            "is fitted by NUTS only; use method='nuts'"
        )


def outcome_draws(estimator, X) -> np.ndarray:
    """``[P(player 2 wins), P(draw), P(player 1 wins)]`` per draw, (n_draws, n_matches, 3).

    ``estimator`` is a `skcodex.BayesianMatchupClassifier` fitted with draws;
    never-seen levels get fresh N(0, sd) draws keyed to their names, as in
    its ``predict_proba_draws``.
    """
    from skcodex._matchup import never_seen

    codes, layout, index = estimator._encoded(X)
    c = threshold_draws(estimator.idata_)
    signs = estimator._forecast_layout.signs
    q = never_seen.win_probability_draws(
        estimator._fitted_draws(),
        layout,
        index,
        estimator._levels(codes),
        per_draw=lambda t, i: log_odds_draws(t, i, signs),
    )
    return outcome_probabilities(q, c[:, None])
