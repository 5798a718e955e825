"""What the default's debut option and skill walk cost on the forum tournaments.

Fits every match of the shared data (4 chains x 1,000 draws) with the estimator's
defaults (on these dated tournaments: the debut option and the skill walk, step prior
N(-2, 0.25)), the same with the walk's earlier step prior N(-2, 0.5), and the static model
without debut (``time_varying=False, debut=False``), once per seed, the three taken in
turn within each seed so that the machine's load falls on all of them alike. Records each
fit's wall time, the convergence checks that failed, and the R-hat, bulk ESS and
posterior mean of the walk's step spread; prints the median times and the ratio to the
static model's, and writes benchmarks/results/default_cost.json.

Run: python benchmarks/default_cost.py [DATA_FOLDER] [--seeds 4]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np

from skcodex import BayesianMatchupClassifier
from skcodex._compat import posterior
from skcodex._matchup.convergence_stats import convergence_statistics
from skcodex.datasets import load_codex_matches

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent.parent / "shared" / "data" / "codexdata"

MODELS = {
    "default": {},
    "default, step prior scale 0.5": {"log_sd_step_scale": 0.5},
    "static, no debut": {"time_varying": False, "debut": False},
}


def step_diagnostics(clf: BayesianMatchupClassifier) -> dict:
    """R-hat, bulk ESS and mean of the step spread (empty without the walk)."""
    if "step" not in clf.layout_.spreads:
        return {}
    post = posterior.group(clf.idata_, "posterior")
    column = clf.layout_.spreads.index("step")
    log_sd = np.asarray(post["log_sd"])[..., column]
    stats = convergence_statistics(log_sd)
    return {
        "rhat": float(stats["rhat"][0]),
        "ess_bulk": float(stats["ess_bulk"][0]),
        "sd_step_mean": float(np.exp(log_sd).mean()),
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", default=str(DEFAULT_DATA))
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--out", default=str(HERE / "results" / "default_cost.json"))
    args = parser.parse_args(argv)
    X, y = load_codex_matches(args.data, return_X_y=True)
    # one fit of each first, so that no timed fit compiles its model
    for params in MODELS.values():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            BayesianMatchupClassifier(draws=50, tune=50, random_state=0, **params).fit(X, y)
    runs = []
    for seed in range(args.seeds):
        for name, params in MODELS.items():
            clf = BayesianMatchupClassifier(random_state=seed, **params)
            tic = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                clf.fit(X, y)
            seconds = time.perf_counter() - tic
            row = {
                "model": name,
                "seed": seed,
                "seconds": seconds,
                "walk": clf.layout_.options.time_varying,
                "debut": clf.layout_.options.debut,
                "problems": list(clf.convergence_problems_),
                **step_diagnostics(clf),
            }
            runs.append(row)
            print(
                f"{name:32s} seed {seed}  {seconds:5.1f} s  "
                f"{'; '.join(row['problems']) or 'converged'}",
                flush=True,
            )
    median = {m: float(np.median([r["seconds"] for r in runs if r["model"] == m])) for m in MODELS}
    static = median["static, no debut"]
    print("\n| model | median fit | times the static model's | fits that warned |")
    print("|---|---:|---:|---:|")
    for m in MODELS:
        warned = sum(bool(r["problems"]) for r in runs if r["model"] == m)
        print(f"| {m} | {median[m]:.1f} s | {median[m] / static:.2f} | {warned} of {args.seeds} |")
    result = {
        "data": str(args.data),
        "matches": len(X),
        "seeds": args.seeds,
        "runs": runs,
        "median seconds": median,
        "ratio to static": {m: median[m] / static for m in MODELS},
    }
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    return result


if __name__ == "__main__":
    main()
