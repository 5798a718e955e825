"""Where each player's skill walk starts: their first period played, or the table's first.

The walk a fit builds starts at 0 in the first period each player played, so a
newcomer's skill is drawn from the population however late they arrive. The walk of
earlier versions started every player at 0 in the table's first period and took a step
from there to the first period they played: a player who arrived in period 30 brought
30 periods of drift, so the step spread also had to explain how spread the late
arrivals' skills are. Both are fitted here side by side on every match of the shared
forum data, with the walk and the debut option, under both step priors (the log-normal
N(-2, 0.25) and the exponential of mean 0.15), at the default draws (4 x 1,000), each
seed both ways in turn after one compile of each.

Reports per fit: wall time, leapfrog steps per draw, the bulk ESS and R-hat of every
spread's log, the step spread's posterior median and 90% interval, and the fit's
convergence problems. Writes benchmarks/results/walk_anchor.json.

Run: python benchmarks/walk_anchor.py [DATA_FOLDER] [--seeds 3] [--draws 1000] [--tune 1000]
     [--priors lognormal,exponential] [--anchors "first period played,table's first period"]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
import warnings
from pathlib import Path

import arviz as az
import numpy as np

from skcodex import BayesianMatchupClassifier
from skcodex.datasets import load_codex_matches

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parents[1] / "shared" / "data" / "codexdata"
PRIORS = ("lognormal", "exponential")


class FromFirstPeriod(BayesianMatchupClassifier):
    """The walk of earlier versions: every player's walk is 0 in the table's first period."""

    def _training_layout(self, vocab, codes, model_options=None):
        layout = super()._training_layout(vocab, codes, model_options)
        if not layout.integrated_walk:
            return layout
        later = np.asarray(codes.epoch) >= 1
        cells = np.concatenate(
            [
                np.asarray(codes.player1)[later] * codes.n_epochs + np.asarray(codes.epoch)[later],
                np.asarray(codes.player2)[later] * codes.n_epochs + np.asarray(codes.epoch)[later],
            ]
        )
        steps = len(np.unique(cells))  # one step into each period played after the first
        return dataclasses.replace(layout, walk_anchor="first period", walk_steps=steps)


ANCHORS = {
    "first period played": BayesianMatchupClassifier,
    "table's first period": FromFirstPeriod,
}


def one_fit(estimator, data, prior: str, seed: int, draws: int, tune: int = 1000) -> dict:
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = estimator(
            time_varying=True,
            debut=True,
            step_prior=prior,
            random_state=seed,
            draws=draws,
            tune=tune,
        ).fit(data.X, data.y)
    seconds = time.perf_counter() - started
    log_sd = clf.idata_.posterior["log_sd"]
    ess = az.ess(log_sd.to_dataset(name="x"))["x"].to_numpy()
    rhat = az.rhat(log_sd.to_dataset(name="x"))["x"].to_numpy()
    step = clf.spread_draws_[:, clf.layout_.spreads.index("step")]
    return {
        "seed": seed,
        "seconds": round(seconds, 1),
        "walk steps": int(clf.layout_.walk_steps),
        "leapfrog steps per draw": float(clf.idata_.sample_stats["n_steps"].mean()),
        "bulk ESS": dict(zip(clf.layout_.spreads, (round(float(v)) for v in ess))),
        "R-hat": dict(zip(clf.layout_.spreads, (round(float(v), 3) for v in rhat))),
        "sd_step median": round(float(np.median(step)), 3),
        "sd_step 90%": [round(float(q), 3) for q in np.quantile(step, [0.05, 0.95])],
        "convergence problems": list(clf.convergence_problems_),
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument(
        "--draws", type=int, default=1000, help="draws a chain (1,000: the default)"
    )
    parser.add_argument(
        "--tune", type=int, default=1000, help="tuning steps a chain (1,000: the default)"
    )
    parser.add_argument("--priors", default=",".join(PRIORS))
    parser.add_argument("--anchors", default=",".join(ANCHORS))
    parser.add_argument("--out", type=Path, default=HERE / "results" / "walk_anchor.json")
    args = parser.parse_args(argv)
    data = load_codex_matches(args.data)
    result = {"matches": len(data.X), "draws": args.draws, "tune": args.tune, "fits": []}
    for prior in args.priors.split(","):
        for seed in range(args.seeds):
            for anchor in args.anchors.split(","):
                fit = one_fit(ANCHORS[anchor], data, prior, seed, args.draws, args.tune)
                fit = {"anchor": anchor, "step prior": prior, **fit}
                result["fits"].append(fit)
                print(json.dumps(fit), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    print(
        "\n| walk starts at | step prior | seed | fit s | bulk ESS of log sd: player, step "
        "| sd_step median [90%] | problems |"
    )
    print("|---|---|---:|---:|---|---|---|")
    for f in result["fits"]:
        print(
            f"| {f['anchor']} | {f['step prior']} | {f['seed']} | {f['seconds']} | "
            f"{f['bulk ESS']['player']}, {f['bulk ESS']['step']} | {f['sd_step median']} "
            f"[{f['sd_step 90%'][0]}, {f['sd_step 90%'][1]}] | {len(f['convergence problems'])} |"
        )
    return result


if __name__ == "__main__":
    main()
