"""Exponential-prior spreads sampled through zero against sampled on log sd, side by side.

Fits every match of the shared data with each exponential-prior option twice per repeat,
in turn: as the estimator now samples it (``ModelOptions.signed_spreads``: a signed spread
with a Laplace prior, ``sd = |v|``) and as it sampled it before (``log sd`` with the
exponential's density added; the option switched off for the fit). One fit of each
compiles first and is not counted. Reports the median wall time, its ratio, and the bulk
ESS and R-hat of the exponential spreads' ``log_sd``.

Writes benchmarks/results/signed_spreads.json and prints a table.

Run: python benchmarks/signed_spreads.py [DATA_FOLDER] [--repeats 5]
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
OPTIONS = {
    "spec_prior": ({"spec_prior": "exponential"}, ("stsp", "spsp")),
    "step_prior (walk + debut)": (
        {"step_prior": "exponential", "time_varying": True, "debut": True},
        ("step",),
    ),
}


class OnLogSd(BayesianMatchupClassifier):
    """The estimator as it sampled exponential spreads before: on ``log sd``."""

    def _declared_options(self, fitted):
        return dataclasses.replace(super()._declared_options(fitted), signed_spreads=False)


def fit(cls, params: dict, seed: int, X, y, spreads) -> dict:
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = cls(random_state=seed, **params).fit(X, y)
    seconds = time.perf_counter() - started
    log_sd = clf.idata_.posterior["log_sd"]
    at = [clf.layout_.spreads.index(s) for s in spreads]
    ess = az.ess(clf.idata_.posterior, var_names=["log_sd"], method="bulk")["log_sd"].values
    rhat = az.rhat(clf.idata_.posterior, var_names=["log_sd"])["log_sd"].values
    assert log_sd.sizes["spread"] == len(clf.layout_.spreads)
    return {
        "seconds": seconds,
        "signed": bool(clf.layout_.options.signed_spreads),
        "ess": {s: float(ess[i]) for s, i in zip(spreads, at)},
        "rhat": {s: float(rhat[i]) for s, i in zip(spreads, at)},
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "signed_spreads.json")
    args = parser.parse_args(argv)
    data = load_codex_matches(args.data)
    ways = {"through zero": BayesianMatchupClassifier, "on log sd": OnLogSd}
    result = {}
    for option, (params, spreads) in OPTIONS.items():
        runs = {way: [] for way in ways}
        for repeat in range(-1, args.repeats):  # repeat -1 compiles, and is not counted
            for way, cls in ways.items():
                run = fit(cls, params, repeat + 1, data.X, data.y, spreads)
                assert run["signed"] == (way == "through zero")
                if repeat >= 0:
                    runs[way].append(run)
        result[option] = runs
    args.out.write_text(json.dumps(result, indent=1))
    print(markdown(result))
    return result


def markdown(result: dict) -> str:
    lines = [
        "| option | sampled | median fit s | times through zero | spread | bulk ESS (min-max) |"
        " largest R-hat |",
        "|---|---|---:|---:|---|---|---:|",
    ]
    for option, runs in result.items():
        base = np.median([r["seconds"] for r in runs["through zero"]])
        for way, found in runs.items():
            median = np.median([r["seconds"] for r in found])
            for spread in found[0]["ess"]:
                ess = [r["ess"][spread] for r in found]
                rhat = max(r["rhat"][spread] for r in found)
                lines.append(
                    f"| {option} | {way} | {median:.1f} | {median / base:.2f} | {spread} | "
                    f"{min(ess):.0f}-{max(ess):.0f} | {rhat:.3f} |"
                )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
