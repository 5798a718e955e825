"""Other estimates of a never-seen player's level and spread, judged by the rule.

The default forecasts a player never seen in training with a skill drawn around the
late arrivals' mean skill, ``m_d`` per posterior draw (`newcomer_mean.py`). On the forum
data's later folds WHR still forecasts matches with a newcomer better, and two things
may hold ``m_d`` back: the late arrivals' skills are shrunk towards 0 (most played few
matches), and their skill is that of their whole record, not that of their first period.
This benchmark scores two estimates that answer each, both fixed before any fold was
scored, with the default's ``tau = 0.5`` as the prior scale of the mean:

- **deconvolved**: each late arrival's posterior skill (mean ``mu_i``, variance ``v_i``
  over the draws) read as the evidence it carries beyond the prior ``N(0, sd_d^2)``, a
  likelihood of precision ``lambda_i = max(1/v_i - 1/sd_d^2, 0)`` and location
  ``eta_i / lambda_i`` with ``eta_i = mu_i / v_i``; their mean is then the normal
  estimate of a group mean, each player's evidence widened by the spread ``sd_d``:
  ``m_d = sum(eta_i / (1 + lambda_i sd_d^2)) / (sum(lambda_i / (1 + lambda_i sd_d^2))
  + 1/tau^2)``. A player the matches say nothing about counts for nothing, where the
  default counts their skill (near 0) in full.
- **calibrated on debuts**: one level ``m`` for every draw, the one that best forecasts
  the training table's own debut matches (a late arrival in their first period against
  a player who is not in theirs) with the debutant read as never seen: the maximum over
  ``m`` in -1.2, -1.15, ..., 0.6 of their log-likelihood plus ``log N(m; 0, tau^2)``.
- **the late arrivals' spread**: the default's ``m_d``, but the never-seen player's skill
  drawn with the late arrivals' own spread rather than every player's: per draw, the
  spread of their skill draws about their mean, pooled with the population's spread
  ``sd_d`` as ``PRIOR_COUNT`` observations: ``s_d^2 = (PRIOR_COUNT sd_d^2 + sum_i
  (theta_i - mean theta)^2) / (PRIOR_COUNT + n - 1)``. A newcomer field tighter than
  the whole population (the established players at both ends, the newcomers between)
  is then drawn tighter, so the forecasts against strong and weak opponents part more.

Every forecast of a fold comes from the same fit and the same draws through the
package's quadrature (`newcomer_mean.py`'s reference computation with ``m_d`` given),
so the paired differences carry no sampler noise. The static model with
``newcomer_skill="population"`` is the incumbent of the rule (as in ``default_rule.py``);
the default's own column and the paired difference from it are reported beside, and so
is the rule's verdict against the default (``verdict against the default``), the
incumbent a change of today's default faces.

Run: python benchmarks/newcomer_variants.py [--records codex,nfl,hockey,football,chess,nba]
     [--draws 1000] [--out benchmarks/results/newcomer_variants.json]
"""

from __future__ import annotations

import json
import time
import warnings

import default_rule
import numpy as np
import pandas as pd
from forecast import STATIC
from newcomer_mean import (
    TAU,
    arguments,
    newcomer_mean_forecasts,
    population,
    score_records,
    windows,
)

from skcodex import BayesianMatchupClassifier
from skcodex.data._codes import period_labels

DEFAULT = "skcodex default (late arrivals)"
DECONVOLVED = "deconvolved late-arrival mean"
CALIBRATED = "level calibrated on debuts"
SPREAD = "late arrivals' spread"
#: The population spread's weight, in late arrivals, in the late arrivals' spread.
PRIOR_COUNT = 2.0
#: The levels the calibrated estimate chooses among.
GRID = np.round(np.arange(-1.2, 0.6001, 0.05), 2)


def deconvolved_mean(skills: np.ndarray, player_sd: np.ndarray, tau: float = TAU) -> np.ndarray:
    """``m_d`` per draw from the late arrivals' skill draws (the module's first estimate).

    ``skills`` has shape (n_draws, n_late); ``player_sd`` shape (n_draws,).
    """
    mu, v = skills.mean(axis=0), skills.var(axis=0)
    var = np.square(player_sd)[:, None]
    precision = np.maximum(1.0 / v[None, :] - 1.0 / var, 0.0)
    widened = 1.0 + precision * var
    return (mu / v / widened).sum(axis=1) / ((precision / widened).sum(axis=1) + 1.0 / tau**2)


def late_spread(
    skills: np.ndarray, player_sd: np.ndarray, prior_count: float = PRIOR_COUNT
) -> np.ndarray:
    """``s_d`` per draw: the late arrivals' spread pooled with ``player_sd`` (third estimate).

    ``skills`` has shape (n_draws, n_late); ``player_sd`` shape (n_draws,).
    """
    n = skills.shape[1]
    squares = np.square(skills - skills.mean(axis=1, keepdims=True)).sum(axis=1)
    return np.sqrt((prior_count * np.square(player_sd) + squares) / (prior_count + n - 1))


def debut_rows(X: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of ``X`` with one late arrival in their first period against a player who is not.

    Returns the rows, and whether player 1 / player 2 of each is the debutant.
    """
    order = {p: i for i, p in enumerate(period_labels(X))}
    period = X["period"].map(order).to_numpy()
    first: dict = {}
    for side in ("player1", "player2"):
        for player, k in zip(X[side], period):
            first[player] = min(first.get(player, k), k)
    new1 = np.array([first[p] == k > 0 for p, k in zip(X["player1"], period)])
    new2 = np.array([first[p] == k > 0 for p, k in zip(X["player2"], period)])
    rows = np.flatnonzero(new1 ^ new2)
    return rows, new1[rows], new2[rows]


def calibrated_level(clf, X: pd.DataFrame, y, late: set, tau: float = TAU) -> float:
    """The level that best forecasts ``X``'s debut matches (the module's second estimate)."""
    rows, new1, new2 = debut_rows(X)
    if not len(rows):
        return 0.0
    debuts = X.iloc[rows].copy()
    debuts.loc[new1, "player1"] = "never seen in the table"
    debuts.loc[new2, "player2"] = "never seen in the table"
    outcome = np.asarray(y)[rows]
    n_draws = clf._fitted_draws().effects.shape[0]
    scores = []
    for level in GRID:
        p, _ = newcomer_mean_forecasts(clf, debuts, late, mean=np.full(n_draws, level))
        p = np.clip(p, 1e-12, 1 - 1e-12)
        loglik = np.sum(outcome * np.log(p) + (1 - outcome) * np.log(1 - p))
        scores.append(loglik - 0.5 * (level / tau) ** 2)
    return float(GRID[int(np.argmax(scores))])


def forward(X, y, cv, catalogue, draws: int) -> tuple[pd.DataFrame, dict]:
    """Every fold fitted once; the four forecasts of its matches from the same draws."""
    params = {"draws": draws, "tune": draws, "random_state": 0, "catalogue": catalogue}
    y = np.asarray(y)
    frames, levels = [], {"late arrivals": [], DECONVOLVED: [], CALIBRATED: []}
    levels["late arrivals' spread / every player's"] = []
    for split, (train, test) in enumerate(cv.split(X, y)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf = BayesianMatchupClassifier(**params, **STATIC).fit(X.iloc[train], y[train])
        codes = clf.late_arrivals_ if clf.late_arrivals_ is not None else []
        late = {clf.vocabulary_.players[i] for i in codes}
        test_X = X.iloc[test]
        p_static = population(clf, test_X)
        columns = {default_rule.STATIC_NAME: p_static, DEFAULT: clf.predict_proba(test_X)[:, 1]}
        if late:
            fitted = clf._fitted_draws()
            sd = fitted.spreads[:, fitted.sampled_spreads.index("player")]
            skills = fitted.effects[:, fitted.layout.offsets["skill"] + np.asarray(codes)]
            deconvolved = deconvolved_mean(skills, sd)
            level = calibrated_level(clf, X.iloc[train], y[train], late)
            columns[DECONVOLVED], _ = newcomer_mean_forecasts(clf, test_X, late, mean=deconvolved)
            constant = np.full(len(sd), level)
            columns[CALIBRATED], _ = newcomer_mean_forecasts(clf, test_X, late, mean=constant)
            spread = late_spread(skills, sd)
            columns[SPREAD], _ = newcomer_mean_forecasts(clf, test_X, late, spread=spread)
            ratio = float(np.median(spread / sd))
            levels["late arrivals' spread / every player's"].append(round(ratio, 3))
            levels[DECONVOLVED].append(round(float(deconvolved.mean()), 3))
            levels[CALIBRATED].append(level)
            levels["late arrivals"].append(round(float(clf._newcomer_skill_mean().mean()), 3))
        else:
            columns[DECONVOLVED] = columns[CALIBRATED] = columns[SPREAD] = p_static
        period = X["period"].iloc[test].to_numpy() if "period" in X else None
        frames.append(pd.DataFrame({"split": split, "period": period, "row": test, "y": y[test]}))
        frames[-1] = frames[-1].assign(**columns)
        print(f"  fold {split}: {len(test)} matches, {len(late)} late arrivals", flush=True)
    return pd.concat(frames, ignore_index=True), {"mean level per fold": levels}


def evaluate(name: str, args) -> dict:
    X, y, cv, catalogue = default_rule.record(name, args)
    started = time.time()
    forecasts, levels = forward(X, y, cv, catalogue, args.draws)
    names = [c for c in forecasts.columns if c not in {"split", "period", "row", "y"}]
    new = default_rule.newcomer_flags(forecasts, X, y, cv)
    out = {"matches": len(forecasts), "folds": int(forecasts["split"].nunique()), **levels}
    out["newcomers"] = default_rule.newcomer_split(forecasts, new, names)
    out["windows"] = windows(forecasts, names)
    for window, part in default_rule.halves(forecasts).items():
        out["windows"][window]["minus default"] = {
            m: default_rule.paired(part, m, DEFAULT) for m in (DECONVOLVED, CALIBRATED, SPREAD)
        }
    out["rule"] = {
        m: default_rule.rule(forecasts, m, default_rule.STATIC_NAME)
        for m in (DECONVOLVED, CALIBRATED, SPREAD)
    }
    # the default is the incumbent a change of today's default is judged against
    out["rule against the default"] = {
        m: default_rule.rule(forecasts, m, DEFAULT) for m in (DECONVOLVED, CALIBRATED, SPREAD)
    }
    out["seconds"] = round(time.time() - started, 1)
    return out


def main() -> None:
    args = arguments("newcomer_variants.json", __doc__.splitlines()[0])
    result = {"draws": args.draws, "tau": TAU, "prior count": PRIOR_COUNT, "records": {}}
    score_records(args, result, evaluate, [DECONVOLVED, CALIBRATED, SPREAD])
    records = result["records"]
    result["verdict against the default"] = {
        c: default_rule.verdict(
            {k: {"x": v["rule against the default"][c]} for k, v in records.items()}, "x"
        )
        for c in (DECONVOLVED, CALIBRATED, SPREAD)
    }
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["verdict against the default"], indent=2))


if __name__ == "__main__":
    main()
