"""Do the forum data move the spec blocks' spreads away from their prior, and do they mix?

Fits every match of the shared data with the default model under the spec blocks' two
prior families (``spec_prior``: the log-normal and the exponential whose mode is no spec
effect), at the default draws (4 chains of 1,000 after 1,000 tuning steps) and two
random seeds, at the default target acceptance (0.8) and at 0.95. For each spec spread
(starter v spec, spec v spec) it reports the prior's and the posterior's median, 90%
interval and the ratio of their standard deviations (near 1: the data say little), and
the bulk ESS and R-hat of the spread's log, with the fit's wall time.

Writes benchmarks/results/spec_prior.json and prints a table.

Run: python benchmarks/spec_prior.py [DATA_FOLDER] [--seeds 2]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import arviz as az
import numpy as np

from skcodex import BayesianMatchupClassifier
from skcodex.analysis import prior_spread_draws
from skcodex.datasets import load_codex_matches

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parents[1] / "shared" / "data" / "codexdata"
SPECS = ("stsp", "spsp")


def summary(draws: np.ndarray) -> dict:
    lower, median, upper = np.quantile(draws, [0.05, 0.5, 0.95])
    return {"median": median, "lower": lower, "upper": upper, "sd": float(np.std(draws))}


def fit(X, y, family: str, seed: int, target_accept: float) -> dict:
    clf = BayesianMatchupClassifier(
        spec_prior=family, random_state=seed, target_accept=target_accept
    )
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)
    seconds = time.perf_counter() - started
    log_sd = clf.idata_.posterior[["log_sd"]]
    ess, rhat = az.ess(log_sd)["log_sd"], az.rhat(log_sd)["log_sd"]
    names = clf.options.spreads
    out = {"seconds": round(seconds, 1), "spreads": {}}
    for name in SPECS:
        at = names.index(name)
        out["spreads"][name] = {
            **summary(clf.spread_draws_[:, at]),
            "bulk ESS": float(ess.sel(spread=name)),
            "R-hat": float(rhat.sel(spread=name)),
        }
    return out


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "spec_prior.json")
    args = parser.parse_args(argv)
    X, y = load_codex_matches(args.data, return_X_y=True)
    result = {"matches": len(y), "families": {}}
    rows = []
    for family in ("lognormal", "exponential"):
        clf = BayesianMatchupClassifier(spec_prior=family)
        prior = prior_spread_draws(clf, n_draws=100_000, random_state=0)
        names = clf.options.spreads
        entry = {"prior": {n: summary(prior[:, names.index(n)]) for n in SPECS}, "fits": []}
        for target_accept in (0.8, 0.95):
            for seed in range(args.seeds):
                run = fit(X, y, family, seed, target_accept)
                run.update(seed=seed, target_accept=target_accept)
                entry["fits"].append(run)
                for name in SPECS:
                    post, pri = run["spreads"][name], entry["prior"][name]
                    rows.append(
                        f"| {family} | {name} | {target_accept} | {seed} "
                        f"| {pri['median']:.3f} [{pri['lower']:.3f}, {pri['upper']:.3f}] "
                        f"| {post['median']:.3f} [{post['lower']:.3f}, {post['upper']:.3f}] "
                        f"| {post['sd'] / pri['sd']:.2f} | {post['bulk ESS']:.0f} "
                        f"| {post['R-hat']:.3f} | {run['seconds']:.1f} |"
                    )
                print(rows[-1], flush=True)
        result["families"][family] = entry
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    print(
        "| spec prior | spread | target accept | seed | prior median [90%] "
        "| posterior median [90%] | sd ratio | bulk ESS | R-hat | fit s |"
    )
    print("|---|---|---:|---:|---|---|---:|---:|---:|---:|")
    print("\n".join(rows))
    return result


if __name__ == "__main__":
    main()
