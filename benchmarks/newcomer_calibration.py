"""Where the forecasts of matches with a newcomer go wrong: level and slope, against WHR.

On the forward folds of `default_rule` (each fold forecast by models fitted on every
match before it), the forecasts are split into matches with exactly one newcomer (a
player not in the fold's training matches), turned to the seen player's side, and
matches between two seen players. For each model and each kind of match it reports the
Brier score, the mean forecast against the observed rate (for newcomer matches: how
often the seen player won) and the calibration slope with its 95% interval
(`skcodex.metrics.calibration_slope`: above 1, too timid; below 1, too bold).

Models: the static model, the debut option, WHR and the players-only logistic regression
of `default_rule` (read from its ``--cache`` when fitted before), and the static model
and the walk fitted with every deck made the same (skills alone). A last row undoes the
static model's averaging over a newcomer's unknown skill (``N(0, sd_player)``, with
``sd_player`` the posterior median of a fit on every match) by the probit approximation
``logit p * sqrt(1 + pi s^2 / 8)`` for each newcomer's spread ``s``: the forecasts taken
at the newcomer's mean skill. The same approximation then moves the newcomer's skill
distribution over a grid (mean 0 to 0.8 below the population's, spread 0 to 1.3) and
reports the Brier score of the matches with a newcomer at each point: how far any
newcomer distribution could take the static model's forecasts. Last, the matches with
one newcomer are split by how many training matches the seen player had, with each
model's Brier score in each group, and the matches between seen players likewise by
the less-seen side's training matches.

Run: python benchmarks/newcomer_calibration.py [--cache DIR] [--draws 1000]
     [--out benchmarks/results/newcomer_calibration.json]
"""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from default_rule import DEBUT, DEFAULT_DATA, HERE, STATIC_NAME, models, newcomer_sides, record
from forecast import STATIC, cached_forecasts
from scipy.special import expit, logit
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from skcodex import BayesianMatchupClassifier
from skcodex.metrics import brier_score, calibration_slope

SKILLS = "skcodex, every deck the same"
SKILLS_WALK = "skcodex walk, every deck the same"
AT_MEAN = "skcodex static at the newcomer's mean skill"
NAMES = (STATIC_NAME, DEBUT, "WHR", "players-only logistic", SKILLS, SKILLS_WALK)


def one_deck(X):
    """The table with every deck replaced by one deck: no deck effect can be learned."""
    out = X.copy()
    out["deck1"] = out["deck2"] = "[Demonology]/Anarchy/Law"
    return out


def skills_alone(draws: int, **params):
    same = FunctionTransformer(one_deck, check_inverse=False)
    bayes = BayesianMatchupClassifier(draws=draws, tune=draws, random_state=0, **params)
    return make_pipeline(same, bayes)


#: Groups of the seen player's training matches (from, to) for the newcomer matches.
EXPERIENCE_GROUPS = ((1, 10), (10, 25), (25, 60), (60, None))


def training_matches(forecasts, X, y, cv) -> np.ndarray:
    """Per forecast match, each side's number of matches in the fold's training matches."""
    counts = {}
    for split, (train, test) in enumerate(cv.split(X, y)):
        played = pd.concat([X["player1"].iloc[train], X["player2"].iloc[train]]).value_counts()
        for row in test:
            sides = (X["player1"].iloc[row], X["player2"].iloc[row])
            counts[(split, int(row))] = tuple(int(played.get(p, 0)) for p in sides)
    keys = zip(forecasts["split"], forecasts["row"])
    return np.array([counts[(int(s), int(r))] for s, r in keys]).reshape(-1, 2)


def newcomer_grid(p, outcome, new1, new2, sd_player) -> list[dict]:
    """Brier score of the newcomer matches were newcomers drawn from ``N(-mean, spread)``."""
    count = new1.astype(float) + new2
    at_mean = logit(p) * np.sqrt(1 + np.pi * count * sd_player**2 / 8)
    weaker = new2.astype(float) - new1  # player 1 gains when player 2 is the newcomer
    new = new1 | new2
    out = []
    for mean in (0.0, 0.2, 0.4, 0.6, 0.8):
        for spread in (0.0, 0.3, 0.6, sd_player, 1.3):
            q = expit((at_mean + mean * weaker) / np.sqrt(1 + np.pi * count * spread**2 / 8))
            brier = brier_score(outcome[new], q[new])
            out.append({"mean below": mean, "spread": spread, "brier": brier})
    return out


def calibration(y: np.ndarray, p: np.ndarray) -> dict:
    slope = calibration_slope(y, p)
    return {
        "matches": len(y),
        "brier": brier_score(y, p),
        "mean forecast": float(np.mean(p)),
        "observed": float(np.mean(y)),
        "slope": float(slope["slope"]),
        "slope interval": [float(slope["slope_lower"]), float(slope["slope_upper"])],
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "newcomer_calibration.json")
    args = parser.parse_args(argv)
    X, y, cv, catalogue = record("codex", args)
    chosen = {name: model for name, model in models(catalogue, args.draws).items() if name in NAMES}
    chosen[SKILLS] = skills_alone(args.draws, **STATIC)
    chosen[SKILLS_WALK] = skills_alone(args.draws, time_varying=True, debut=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        forecasts = cached_forecasts(chosen, X, y, cv, args.cache)
    new1, new2 = newcomer_sides(forecasts, X, y, cv)
    one, neither = new1 ^ new2, ~(new1 | new2)
    outcome = forecasts["y"].to_numpy()
    seen_won = np.where(new2, outcome, 1 - outcome)  # the seen player's side
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        every = BayesianMatchupClassifier(random_state=0, **STATIC).fit(X, y)
    sd_player = float(np.median(every.spread_draws_[:, every.options.spreads.index("player")]))
    widen = np.sqrt(1 + np.pi * (new1.astype(float) + new2) * sd_player**2 / 8)
    forecasts[AT_MEAN] = expit(logit(forecasts[STATIC_NAME].to_numpy()) * widen)
    result = {
        "sd_player": sd_player,
        "newcomer distribution grid": newcomer_grid(
            forecasts[STATIC_NAME].to_numpy(), forecasts["y"].to_numpy(), new1, new2, sd_player
        ),
    }
    print("| model | matches | Brier | mean forecast | observed | slope [95%] |")
    print("|---|---|---:|---:|---:|---|")
    for name in (*NAMES, AT_MEAN):
        p = forecasts[name].to_numpy()
        seen_p = np.where(new2, p, 1 - p)
        result[name] = {
            "one newcomer (seen player's side)": calibration(seen_won[one], seen_p[one]),
            "seen players": calibration(outcome[neither], p[neither]),
            "any newcomer: Brier": brier_score(outcome[~neither], p[~neither]),
            "every match: Brier": brier_score(outcome, p),
        }
        for kind, entry in result[name].items():
            if not isinstance(entry, dict):
                print(f"| {name} | {kind} {entry:.4f} | | | | |")
                continue
            low, high = entry["slope interval"]
            print(
                f"| {name} | {kind}: {entry['matches']} | {entry['brier']:.4f} "
                f"| {entry['mean forecast']:.3f} | {entry['observed']:.3f} "
                f"| {entry['slope']:.2f} [{low:.2f}, {high:.2f}] |"
            )
    played = training_matches(forecasts, X, y, cv)
    seen_played = np.where(new2, played[:, 0], played[:, 1])
    result["by the seen player's training matches"] = groups = []
    for low, high in EXPERIENCE_GROUPS:
        rows = one & (seen_played >= low) & (seen_played < (high or np.inf))
        brier = {n: brier_score(outcome[rows], forecasts[n].to_numpy()[rows]) for n in NAMES}
        groups.append({"from": low, "to": high, "matches": int(rows.sum()), "brier": brier})
        text = ", ".join(f"{n} {b:.4f}" for n, b in brier.items())
        print(f"seen player with {low} to {high or 'more'} training matches ({rows.sum()}): {text}")
    result["seen players, by the less-seen side's training matches"] = pairs = []
    for low, high in EXPERIENCE_GROUPS:
        rows = neither & (played.min(axis=1) >= low) & (played.min(axis=1) < (high or np.inf))
        brier = {n: brier_score(outcome[rows], forecasts[n].to_numpy()[rows]) for n in NAMES}
        pairs.append({"from": low, "to": high, "matches": int(rows.sum()), "brier": brier})
        text = ", ".join(f"{n} {b:.4f}" for n, b in brier.items())
        print(f"seen players, the less seen with {low} to {high or 'more'} ({rows.sum()}): {text}")
    best = min(result["newcomer distribution grid"], key=lambda g: g["brier"])
    print(
        f"best newcomer distribution: {best['mean below']} below, spread "
        f"{best['spread']:.2f}: Brier {best['brier']:.4f} on the matches with a newcomer"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
