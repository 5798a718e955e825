"""How the skill walk (``time_varying=True``) scales: fit time, convergence and held-out Brier.

`skcodex.datasets.make_matches` draws a series whose skills take a Gaussian
random-walk step between tournaments (``sd_step``); the latest tournaments
holding at least 15% of the matches are held out. For each size three models
are fitted with the same NUTS settings: the static model, the skill walk as
it was before (``every period``: one step per player and period, played or
not) and the skill walk as fitted now (``played periods``: one step per
player into each period played, of spread ``sd_step * sqrt(gap)``). The
table gives the fit time (compilation included), the walk's steps and the
number of free parameters (``Layout.n_free``), the share of (player, period)
cells in which the player played no match, the mean tree depth and gradient
evaluations per draw, the largest R-hat, the smallest bulk ESS, the bulk ESS
of the log step spread, and the held-out Brier score with its number of
matches beside the Brier of the true probabilities.

Run: python benchmarks/time_varying.py [--sizes 2000,5000] [--players 200]
     [--tournaments 40] [--draws 300] [--tune 300] [--chains 2]
     [--models static,every-period,walk] [--seed 0]
Writes benchmarks/results/time_varying.json (time_varying_seed<seed>.json for another seed).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import platform
import time
import warnings
from pathlib import Path

import numpy as np

from skcodex import BayesianMatchupClassifier, brier_score
from skcodex._compat import posterior
from skcodex._matchup.convergence_stats import convergence_statistics
from skcodex.analysis import convergence_summary
from skcodex.datasets import make_matches
from skcodex.model_selection import latest_share_split

RESULTS = Path(__file__).resolve().parent / "results" / "time_varying.json"


def training_layout(clf, X):
    """The layout the model was fitted with (``layout_`` is the one prediction uses)."""
    from skcodex.data import check_match_table, encode

    codes = encode(check_match_table(X, clf.catalogue_), clf.vocabulary_)
    return clf._training_layout(clf.vocabulary_, codes), codes


class EveryPeriodWalk(BayesianMatchupClassifier):
    """The skill walk as fitted before: one step per player and period, played or not."""

    def _training_layout(self, vocab, codes):
        layout = super()._training_layout(vocab, codes)
        return dataclasses.replace(layout, walk_steps=None)


MODELS = {
    "static": ("static", BayesianMatchupClassifier, False),
    "every-period": ("walk, every period (before)", EveryPeriodWalk, True),
    "walk": ("walk, played periods (now)", BayesianMatchupClassifier, True),
}


def walk_steps(layout) -> int:
    """Standard normals behind the walk: its steps."""
    if not layout.options.time_varying:
        return 0
    return (
        layout.n_players * (layout.n_epochs - 1) if layout.walk_steps is None else layout.walk_steps
    )


def step_spread_ess(clf) -> float:
    """Bulk ESS of the log step spread (nan without a walk)."""
    post = posterior.group(clf.idata_, "posterior")
    if "step" not in list(post["sd"].coords["spread"].values):
        return float("nan")
    values = np.log(post["sd"].sel(spread="step").transpose("chain", "draw").to_numpy())
    return float(convergence_statistics(values[..., None].astype(float))["ess_bulk"][0])


def untouched_walk_share(layout, codes) -> float:
    """Share of the walk's (player, period) cells in which the player played no match."""
    if not layout.options.time_varying:
        return 0.0
    played = np.zeros((layout.n_players, layout.n_epochs), dtype=bool)
    played[codes.player1, codes.epoch] = True
    played[codes.player2, codes.epoch] = True
    return float(1 - played.mean())


def fit_one(X, y, test, model: str, args) -> dict:
    label, estimator, time_varying = MODELS[model]
    train = np.setdiff1d(np.arange(len(y)), test)
    clf = estimator(
        time_varying=time_varying,
        draws=args.draws,
        tune=args.tune,
        chains=args.chains,
        random_state=args.seed,
    )
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X.iloc[train], y[train])
    seconds = time.perf_counter() - start
    p = clf.predict_proba(X.iloc[test])[:, 1]
    layout, codes = training_layout(clf, X.iloc[train])
    layout = clf.layout_  # as sampled (the every-period walk keeps walk_steps None)
    conv = convergence_summary(clf)
    stats = posterior.group(clf.idata_, "sample_stats")
    depth = steps = float("nan")
    for name in ("depth", "tree_depth"):
        if stats is not None and name in stats:
            depth = float(np.asarray(stats[name]).mean())
    for name in ("n_steps",):
        if stats is not None and name in stats:
            steps = float(np.asarray(stats[name]).mean())
    return {
        "model": label,
        "seconds": round(seconds, 1),
        "walk_steps": walk_steps(layout),
        "free_parameters": int(layout.n_free),
        "periods": int(layout.n_epochs),
        "untouched_walk_cells": round(untouched_walk_share(layout, codes), 3),
        "mean_tree_depth": round(depth, 2),
        "gradients_per_draw": round(steps, 1),
        "max_rhat": None if conv["max_rhat"] is None else round(conv["max_rhat"], 3),
        "min_ess_bulk": round(conv["min_ess_bulk"], 0),
        "divergences": conv["divergences"],
        "ess_log_sd_step": round(step_spread_ess(clf), 0),
        "held_out_brier": round(float(brier_score(y[test], p)), 4),
        "held_out_matches": len(test),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,5000")
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--tournaments", type=int, default=40)
    parser.add_argument("--sd-step", type=float, default=0.15)
    parser.add_argument("--draws", type=int, default=300)
    parser.add_argument("--tune", type=int, default=300)
    parser.add_argument("--chains", type=int, default=2)
    parser.add_argument("--models", default="static,every-period,walk")
    parser.add_argument("--seed", type=int, default=0, help="the estimators' random_state")
    args = parser.parse_args()
    rows = []
    for n in [int(s) for s in args.sizes.split(",")]:
        data = make_matches(
            n_players=args.players,
            n_matches=n,
            n_tournaments=args.tournaments,
            sd_step=args.sd_step,
            deck_kind="monocolour",
            random_state=1,
        )
        X, y = data.X, data.y
        _, test = latest_share_split(X, share=0.15)
        truth = round(float(brier_score(y[test], data.p_win[test])), 4)
        for model in args.models.split(","):
            row = {"matches": n, **fit_one(X, y, test, model, args)}
            row["true_brier"] = truth
            rows.append(row)
            print(json.dumps(row), flush=True)
    header = list(rows[0])
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(str(row[h]) for h in header) + " |")
    out = RESULTS if args.seed == 0 else RESULTS.with_name(f"time_varying_seed{args.seed}.json")
    out.write_text(
        json.dumps(
            {
                "settings": vars(args),
                "python": platform.python_version(),
                "rows": rows,
            },
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
