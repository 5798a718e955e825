"""Where the Bayesian model's player part loses to Whole-History Rating on the forward folds.

Same folds as benchmarks/forecast.py (the last 8 tournaments, each trained on every match
that ended before it started). For each variant of the estimator's parameters it prints
the pooled Brier, the forecast spread (sd), the calibration slope, and the Brier split
into matches between players seen in training and matches with a newcomer (a player
never seen in training). It then asks how much a newcomer handicap would help: each
fold's forecasts with the newcomer's log-odds lowered by the offset that scored best on
the earlier folds' newcomer matches (no look at the fold itself), beside the offset
chosen on all folds (tuned on the scored matches: an upper bound, not a result).

Writes benchmarks/results/forecast_player_part.json. Each variant's forecasts are cached
in --cache (default: no cache).

Run: python benchmarks/forecast_player_part.py [--draws 500] [--cache DIR] [VARIANT ...]
"""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from forecast import DEFAULT_DATA, HERE, STATIC, cached_forecasts, calibration_slope
from rating_systems import TTTClassifier, WHRClassifier
from scipy.special import expit, logit

from skcodex import BayesianMatchupClassifier, TournamentSplit
from skcodex.datasets import load_codex_matches

#: Deck spreads forced to (nearly) zero: the players-only model.
NO_DECKS = {
    f"log_sd_{block}_{part}": value
    for block in ("stst", "stsp", "spsp")
    for part, value in (("loc", -8.0), ("scale", 0.01))
}

#: The estimator's defaults when these figures were measured: static skills, no debut
#: option, and the walk's step prior N(-2, 0.5) when it is asked for.
EARLIER_DEFAULTS = {**STATIC, "log_sd_step_scale": 0.5}

#: Estimator parameters tried, by name, on top of `EARLIER_DEFAULTS`.
VARIANTS = {
    name: {**EARLIER_DEFAULTS, **params}
    for name, params in {
        "default": {},
        "decks forced to zero": NO_DECKS,
        "player spread prior loc 0.5": {"log_sd_player_loc": 0.5},
        "player spread prior scale 1": {"log_sd_player_scale": 1.0},
        "time varying (tournament steps)": {"time_varying": True},
        "first move": {"first_move": True},
    }.items()
}

OFFSETS = np.linspace(0.0, 2.0, 41)


def newcomers(X: pd.DataFrame, y, cv) -> np.ndarray:
    """Per forecast match (in fold order), whether player 1 and player 2 are new to training."""
    flags = []
    for train, test in cv.split(X, y):
        seen = set(X["player1"].iloc[train]) | set(X["player2"].iloc[train])
        part = X.iloc[test]
        flags.append(np.column_stack([~part["player1"].isin(seen), ~part["player2"].isin(seen)]))
    return np.vstack(flags)


def handicap(p: np.ndarray, new: np.ndarray, offset: float) -> np.ndarray:
    """Forecasts with each newcomer's log-odds lowered by ``offset``."""
    z = logit(np.clip(p, 1e-9, 1 - 1e-9)) - offset * new[:, 0] + offset * new[:, 1]
    return expit(z)


def brier(y, p) -> float:
    return float(np.mean((np.asarray(y) - np.asarray(p)) ** 2))


def offset_from_earlier_folds(y, p, new, split) -> tuple[np.ndarray, list[float]]:
    """Each fold's forecasts handicapped by the offset best on the folds before it."""
    out, chosen = p.copy(), []
    for fold in np.unique(split):
        earlier = split < fold
        offset = 0.0
        if new[earlier].any():
            losses = [brier(y[earlier], handicap(p, new, d)[earlier]) for d in OFFSETS]
            offset = float(OFFSETS[int(np.argmin(losses))])
        chosen.append(offset)
        here = split == fold
        out[here] = handicap(p, new, offset)[here]
    return out, chosen


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="*", default=list(VARIANTS))
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--cache", default=None)
    parser.add_argument("--out", default=str(HERE / "results" / "forecast_player_part.json"))
    args = parser.parse_args(argv)
    unknown = sorted(set(args.variants) - set(VARIANTS))
    if unknown:
        parser.error(f"unknown variant(s) {unknown}; known: {sorted(VARIANTS)}")

    X, y = load_codex_matches(args.data, return_X_y=True)
    cv = TournamentSplit(n_splits=8)
    models = {
        "WHR": WHRClassifier(w2=14.0),
        "TrueSkill Through Time": TTTClassifier(gamma=0.01),
    }
    for name in args.variants:
        models[name] = BayesianMatchupClassifier(
            catalogue=X.attrs["catalogue"],
            draws=args.draws,
            tune=args.draws,
            random_state=0,
            **VARIANTS[name],
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        forecasts = cached_forecasts(models, X, y, cv, Path(args.cache) if args.cache else None)
    outcome = forecasts["y"].to_numpy()
    split = forecasts["split"].to_numpy()
    new = newcomers(X, y, cv)
    with_new = new.any(axis=1)

    one_new = new[:, 0] ^ new[:, 1]
    newcomer_won = np.where(new[one_new, 0], outcome[one_new], 1 - outcome[one_new])
    rows = {}
    for name in models:
        p = forecasts[name].to_numpy()
        p_newcomer = np.where(new[one_new, 0], p[one_new], 1 - p[one_new])
        handicapped, chosen = offset_from_earlier_folds(outcome, p, new, split)
        rows[name] = {
            "pooled Brier": brier(outcome, p),
            "forecast sd": float(p.std()),
            "calibration slope": calibration_slope(outcome, p),
            "Brier, seen players": brier(outcome[~with_new], p[~with_new]),
            "Brier, with a newcomer": brier(outcome[with_new], p[with_new]),
            "newcomer against seen: mean P(newcomer wins)": float(p_newcomer.mean()),
            "newcomer against seen: sd of P(newcomer wins)": float(p_newcomer.std()),
            "newcomer offset (earlier folds): Brier": brier(outcome, handicapped),
            "newcomer offset (all folds, tuned): Brier": min(
                brier(outcome, handicap(p, new, d)) for d in OFFSETS
            ),
            "offsets chosen per fold": chosen,
        }
    table = pd.DataFrame(rows).T
    print(f"{with_new.sum()} of {len(outcome)} forecast matches have a newcomer")
    print(
        f"newcomers against seen players: {one_new.sum()} matches, "
        f"newcomer won {newcomer_won.mean():.3f}"
    )
    print(table.drop(columns="offsets chosen per fold").astype(float).round(4).to_string())
    result = {
        "draws": args.draws,
        "matches": len(outcome),
        "matches with a newcomer": int(with_new.sum()),
        "newcomer against seen: matches": int(one_new.sum()),
        "newcomer against seen: newcomer won": float(newcomer_won.mean()),
        "variants": {name: VARIANTS.get(name, "rating system") for name in models},
        "table": json.loads(table.to_json(orient="index")),
    }
    Path(args.out).write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
