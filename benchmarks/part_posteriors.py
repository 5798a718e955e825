"""Does the forum data move each optional part away from its prior?

Fits every match of the shared data with the walk and the debut option, under the walk's
two step priors (the log-normal N(-2, 0.25) and the exponential of mean 0.15 whose mode
is no drift), and compares each part's posterior with its prior: median, 90% interval,
and the ratio of posterior to prior standard deviation (near 1: the data say little;
near 0: the data decide). The priors are drawn by simulation from their definitions.
Also reports each fit's convergence checks.

Writes benchmarks/results/part_posteriors.json and prints a table.

Run: python benchmarks/part_posteriors.py [DATA_FOLDER] [--seeds 2]
"""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path

import numpy as np
from scipy.special import expit

from skcodex import BayesianMatchupClassifier
from skcodex._compat import posterior
from skcodex._matchup.debut import FACTOR, FACTOR_PRIOR
from skcodex.datasets import load_codex_matches

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parents[1] / "shared" / "data" / "codexdata"
PRIORS = {
    "step N(-2, 0.25)": {"step_prior": "lognormal"},
    "step Exponential(0.15)": {"step_prior": "exponential"},
}


def prior_draws(params: dict, n: int, rng) -> dict[str, np.ndarray]:
    if params["step_prior"] == "lognormal":
        step = np.exp(rng.normal(-2.0, 0.25, n))
    else:
        step = rng.exponential(0.15, n)
    return {
        "sd_step": step,
        "debut offset": rng.normal(0.0, 0.5, n),
        "debut deck factor": 2 * expit(rng.normal(*FACTOR_PRIOR, n)),
    }


def summary(draws: np.ndarray) -> dict:
    lower, median, upper = np.quantile(draws, [0.05, 0.5, 0.95])
    return {"median": float(median), "lower": float(lower), "upper": float(upper),
            "sd": float(np.std(draws))}  # fmt: skip


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "part_posteriors.json")
    args = parser.parse_args(argv)
    data = load_codex_matches(args.data)
    rng = np.random.default_rng(0)
    result = {}
    for label, params in PRIORS.items():
        prior = {k: summary(v) for k, v in prior_draws(params, 200_000, rng).items()}
        fits = []
        for seed in range(args.seeds):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                clf = BayesianMatchupClassifier(
                    time_varying=True, debut=True, random_state=seed, **params
                ).fit(data.X, data.y)
            sd = clf.spread_draws_
            post = {
                "sd_step": sd[:, clf.layout_.spreads.index("step")],
                # the debut block: the seasoned baseline (0), then the debut offset
                "debut offset": clf.effect_draws_[:, clf.layout_.static().offsets["debut"] + 1],
                "debut deck factor": posterior.draws(clf.idata_, FACTOR).reshape(-1),
            }
            fits.append(
                {
                    "parts": {k: summary(v) for k, v in post.items()},
                    "convergence problems": list(clf.convergence_problems_),
                }
            )
        result[label] = {"prior": prior, "fits": fits}
        print(f"\n{label}")
        print("| part | prior median [90%] | posterior median [90%] | posterior sd / prior sd |")
        print("|---|---|---|---:|")
        for part, p in prior.items():
            for fit in fits:
                q = fit["parts"][part]
                print(
                    f"| {part} | {p['median']:.3f} [{p['lower']:.3f}, {p['upper']:.3f}] | "
                    f"{q['median']:.3f} [{q['lower']:.3f}, {q['upper']:.3f}] | "
                    f"{q['sd'] / p['sd']:.2f} |"
                )
        for fit in fits:
            print("convergence:", fit["convergence problems"] or "every check passes")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
