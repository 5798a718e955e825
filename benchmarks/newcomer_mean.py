"""A never-seen player drawn around the table's late arrivals, judged by the rule.

The static model forecasts a player never seen in training with a skill drawn from the
population of every player, ``N(0, sd)``. On the forum data that player usually loses
more than the forecast says (docs/real-data.md): players who join a table after its
first period are not a random draw from that population. This benchmark scores one
change, fixed before any fold was scored, that touches the forecasts alone:

- the *late arrivals* of a training table are its players who did not play in its
  first period (the period of its earliest match);
- per posterior draw ``d``, their mean skill ``m_d`` is estimated by a normal-normal
  update: each late arrival's skill draw is one observation of ``N(m, sd_d^2)`` and
  ``m ~ N(0, tau^2)`` a priori, with ``tau = 0.5``, the scale of the debut offset's
  prior (the package's prior for how far a debutant's level sits from the others'):
  ``m_d = (sum of their skills / sd_d^2) / (n / sd_d^2 + 1 / tau^2)``;
- a never-seen player's skill is then ``N(m_d, sd_d^2)``: the same spread, moved to the
  late arrivals' mean. A match between two never-seen players is unchanged (the means
  cancel), and so is every match of a table without late arrivals.

It is the estimator's ``newcomer_skill`` (``"late arrivals"``, the default, against
``"population"``), a forecast-time parameter: each fold is fitted once and both forecasts
come from the same posterior draws, so the paired difference carries no sampler noise,
and a record whose forecast matches meet no newcomer gives the same forecasts exactly.
Every fold also checks the estimator against this script's own computation
(`newcomer_mean_forecasts`, written before the estimator had the parameter): the
never-seen cells integrated by the package's quadrature with ``m_d`` read as a known
effect, which with ``m_d = 0`` is the ``"population"`` forecast.

Each record is scored as in ``default_rule.py`` (same folds, same draws, same rule),
with WHR on the forum data for the issue's comparison.

Run: python benchmarks/newcomer_mean.py [--records codex,nfl,hockey,football,chess,nba]
     [--draws 1000] [--out benchmarks/results/newcomer_mean.json]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import default_rule
import numpy as np
import pandas as pd
from forecast import DEFAULT_DATA, HERE, STATIC, rating_systems

from skcodex import BayesianMatchupClassifier, brier_score
from skcodex._matchup import never_seen, prediction
from skcodex.evaluation import log_loss

NEWCOMER_MEAN = "skcodex static, newcomers around late arrivals"
#: The prior scale of the late arrivals' mean: the debut offset's prior sd.
TAU = 0.5


def late_arrivals(X: pd.DataFrame) -> set:
    """Players of ``X`` who did not play in its first period (that of its earliest match)."""
    order = X.sort_values("date", kind="stable") if "date" in X else X
    first = order["period"].iloc[0]
    opening = order[order["period"] == first]
    everyone = set(X["player1"]) | set(X["player2"])
    return everyone - (set(opening["player1"]) | set(opening["player2"]))


def newcomer_mean_forecasts(
    clf, X: pd.DataFrame, late: set, tau: float = TAU, shift=True, mean=None, spread=None
):
    """P(player 1 wins) with each never-seen player's skill drawn around the late arrivals.

    Rows with no never-seen player, or with two, are ``predict_proba``'s with
    ``newcomer_skill="population"``. ``shift=False`` gives ``m_d = 0``: that forecast
    through the same computation (a check). ``mean`` (one value per draw) replaces
    ``m_d`` by another estimate of the never-seen player's level, and ``spread`` (one
    value per draw) the player spread the never-seen player's skill is drawn with.
    """
    p_static = population(clf, X)
    _, grown, index = clf._encoded(X)
    fitted = clf._fitted_draws()
    forecast = fitted.layout
    players = list(clf.vocabulary_.players)
    codes_late = [players.index(p) for p in late if p in players]
    n = len(codes_late)
    if grown == forecast:
        return p_static.copy(), n
    known, weights, needs_draws = never_seen.never_seen_terms(forecast, grown, index)
    size = forecast.size
    new_side = known[:, :2] == size  # the two skill columns: a never-seen player
    one_new = (new_side.sum(axis=1) == 1) & ~needs_draws
    if not one_new.any() or n == 0:
        return p_static.copy(), n
    sd = fitted.spreads[:, [fitted.sampled_spreads.index(s) for s in forecast.spreads]]
    sd_player = sd[:, forecast.spreads.index("player")]
    skills = fitted.effects[:, forecast.offsets["skill"] + np.array(codes_late)]
    precision = n / sd_player**2 + 1.0 / tau**2
    m = skills.sum(axis=1) / sd_player**2 / precision if shift else np.zeros(len(sd_player))
    m = m if mean is None else np.asarray(mean, dtype=float)
    theta = np.concatenate([fitted.effects, m[:, None]], axis=1)  # column `size`: m_d
    rows = np.flatnonzero(one_new)
    moved = known[rows].copy()
    moved[moved == size] = size + 1  # the zero marker, one column further on
    side = new_side[rows].argmax(axis=1)
    moved[np.arange(len(rows)), side] = size  # the newcomer's skill reads m_d (its sign applies)
    if spread is not None:  # only the never-seen player's skill reads the player spread
        sd = sd.copy()
        sd[:, forecast.spreads.index("player")] = np.asarray(spread, dtype=float)
    out = p_static.copy()
    out[rows] = prediction.mean_win_probability_integrated(
        theta, moved, forecast.signs, weights[rows], sd
    )
    return out, n


def population(clf, X: pd.DataFrame) -> np.ndarray:
    """``clf``'s P(player 1 wins) with ``newcomer_skill="population"`` (``clf`` left as it was)."""
    kept = clf.newcomer_skill
    try:
        return clf.set_params(newcomer_skill="population").predict_proba(X)[:, 1]
    finally:
        clf.set_params(newcomer_skill=kept)


def forward(X, y, cv, catalogue, draws: int, with_whr: bool) -> tuple[pd.DataFrame, dict]:
    """Every fold fitted once: the static forecasts, the newcomer-mean ones (and WHR's)."""
    params = {"draws": draws, "tune": draws, "random_state": 0, "catalogue": catalogue}
    y = np.asarray(y)
    frames, checks = [], {"largest |reference - estimator|": 0.0, "late arrivals": []}
    for split, (train, test) in enumerate(cv.split(X, y)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf = BayesianMatchupClassifier(**params, **STATIC, newcomer_skill="late arrivals")
            clf.fit(X.iloc[train], y[train])
        late = late_arrivals(X.iloc[train])
        p_static = population(clf, X.iloc[test])
        p_new = clf.predict_proba(X.iloc[test])[:, 1]  # the default: "late arrivals"
        reference, n = newcomer_mean_forecasts(clf, X.iloc[test], late)
        unshifted, _ = newcomer_mean_forecasts(clf, X.iloc[test], late, shift=False)
        checks["largest |reference - estimator|"] = max(
            checks["largest |reference - estimator|"],
            float(np.abs(reference - p_new).max()),
            float(np.abs(unshifted - p_static).max()),
        )
        checks["late arrivals"].append(n)
        frame = pd.DataFrame(
            {
                "split": split,
                "period": X["period"].iloc[test].to_numpy() if "period" in X else None,
                "row": test,
                "y": y[test],
                default_rule.STATIC_NAME: p_static,
                NEWCOMER_MEAN: p_new,
            }
        )
        if with_whr:
            whr = rating_systems()["WHR"].fit(X.iloc[train], y[train])
            frame["WHR"] = whr.predict_proba(X.iloc[test])[:, 1]
        frames.append(frame)
        print(f"  fold {split}: {len(test)} matches, {n} late arrivals", flush=True)
    return pd.concat(frames, ignore_index=True), checks


def windows(
    forecasts: pd.DataFrame,
    names: list[str],
    incumbent: str = default_rule.STATIC_NAME,
    key: str = "minus static",
) -> dict:
    """Per window of folds: its matches, each forecast's Brier and log loss, each minus the
    incumbent's (paired, under ``key``)."""
    out = {}
    for window, part in default_rule.halves(forecasts).items():
        yy = part["y"].to_numpy()
        out[window] = {
            "matches": len(part),
            "brier": {m: brier_score(yy, part[m]) for m in names},
            "log loss": {m: log_loss(yy, part[m].to_numpy()) for m in names},
            key: {m: default_rule.paired(part, m, incumbent) for m in names if m != incumbent},
        }
    return out


def arguments(out: str, description: str) -> argparse.Namespace:
    """The command line of a newcomer benchmark writing ``results/<out>`` by default."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--records", default="codex,nfl,hockey,football,chess,nba")
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, default=HERE / "results" / out)
    return parser.parse_args()


def score_records(args, result: dict, evaluate, candidates: list[str]) -> dict:
    """Each record of ``args.records`` scored by ``evaluate``, then each candidate's verdict.

    Prints every window's Brier scores and writes ``result`` to ``args.out`` after each
    record, so that a long run keeps what it has scored.
    """
    for name in args.records.split(","):
        print(f"{name}:", flush=True)
        result["records"][name] = evaluate(name, args)
        for window, entry in result["records"][name]["windows"].items():
            brier = "  ".join(f"{m} {v:.4f}" for m, v in entry["brier"].items())
            print(f"  {window}: {brier}")
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    records = result["records"]
    result["verdict"] = {
        c: default_rule.verdict({k: {"x": v["rule"][c]} for k, v in records.items()}, "x")
        for c in candidates
    }
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["verdict"], indent=2))
    return result


def evaluate(name: str, args) -> dict:
    X, y, cv, catalogue = default_rule.record(name, args)
    started = time.time()
    forecasts, checks = forward(X, y, cv, catalogue, args.draws, with_whr=name == "codex")
    names = [c for c in forecasts.columns if c not in {"split", "period", "row", "y"}]
    new = default_rule.newcomer_flags(forecasts, X, y, cv)
    out = {"matches": len(forecasts), "folds": int(forecasts["split"].nunique()), **checks}
    out["newcomers"] = default_rule.newcomer_split(forecasts, new, names)
    out["windows"] = windows(forecasts, names)
    if "WHR" in names:
        out["minus WHR"] = {
            w: default_rule.paired(part, NEWCOMER_MEAN, "WHR")
            for w, part in default_rule.halves(forecasts).items()
        }
    out["rule"] = default_rule.rule(forecasts, NEWCOMER_MEAN, default_rule.STATIC_NAME)
    out["seconds"] = round(time.time() - started, 1)
    return out


def main() -> None:
    args = arguments("newcomer_mean.json", __doc__.splitlines()[0])
    result = {"draws": args.draws, "tau": TAU, "records": {}}
    if args.out.exists():  # records scored before are kept
        result["records"] = json.loads(args.out.read_text()).get("records", {})
    for name in args.records.split(","):
        print(f"{name}:", flush=True)
        result["records"][name] = evaluate(name, args)
        windows = result["records"][name]["windows"]
        for window, entry in windows.items():
            brier = "  ".join(f"{m} {v:.4f}" for m, v in entry["brier"].items())
            diff = entry["minus static"][NEWCOMER_MEAN]
            print(f"  {window}: {brier}; minus static {diff['difference']:+.5f} ({diff['se']:.5f})")
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    result["verdict"] = default_rule.verdict(
        {k: {"x": v["rule"]} for k, v in result["records"].items()}, "x"
    )
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["verdict"], indent=2))


if __name__ == "__main__":
    main()
