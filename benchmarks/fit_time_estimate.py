"""The fit-time estimate the command line prints before a fit, against measured fits.

``skcodex fit`` says before each fit how long it is expected to take
(`skcodex.cli._progress.expected_fit_seconds`): a fixed part (building the
model, reading the compiled model from the disk cache, the diagnostics) plus
a part proportional to the work of the sampler, the number of distinct match
rows (the likelihood's cost per gradient) times the sampling steps
(``draws + tune``) times the chains, over the chains run at once
(``min(chains, cores)``). This script measures fits of synthetic tables of
several sizes (`skcodex.datasets.make_matches`) at given settings, each fit in
this one process after a warm-up fit (so the compiled kernels are in the disk
cache, as on a user's second fit), fits the two constants by least squares on
the short fits (2 chains of 250 + 250 steps), and prints each fit's time against
the estimate of the constants fitted and of the constants the package holds:
the fits at the default settings (4 chains of 1,000 + 1,000) are out of sample.

The time compared is the fit's CPU time over the chains run at once, the wall
time of an otherwise idle machine: the machine this was measured on is shared,
and its wall times grow with the load. The last column compares the wall time
with the estimate the command line prints, the idle estimate times the slowdown
the one-minute load average before the fit implies (`skcodex.cli._progress.slowdown`).

Run ``nice -n 10 python benchmarks/fit_time_estimate.py`` (``--quick`` for a
smoke run). It prints a Markdown table and writes
``benchmarks/results/fit_time_estimate.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
import warnings
from pathlib import Path

import numpy as np

from skcodex import BayesianMatchupClassifier
from skcodex.cli._progress import expected_fit_seconds, fit_work, slowdown
from skcodex.datasets import make_matches

RESULTS = Path(__file__).resolve().parent / "results" / "fit_time_estimate.json"

#: (players, matches, tournaments) of each table, and the sampler settings of each fit.
SIZES = [(40, 300, 4), (80, 1200, 6), (200, 4000, 10)]
SETTINGS = [(250, 250, 2), (1000, 1000, 4)]


def measure(n_players, n_matches, n_tournaments, draws, tune, chains, repeats):
    data = make_matches(
        n_players=n_players, n_matches=n_matches, n_tournaments=n_tournaments, random_state=0
    )
    times, cpu, at_load = [], [], []
    for r in range(repeats):
        at_load.append(expected_fit_seconds(data.X, draws, tune, chains) * slowdown(chains))
        clf = BayesianMatchupClassifier(draws=draws, tune=tune, chains=chains, random_state=r)
        start, start_cpu = time.perf_counter(), time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence of the short fits is beside the point
            clf.fit(data.X, data.y)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    work = fit_work(data.X, draws, tune, chains)
    parallel = min(chains, os.cpu_count() or 1)
    return {
        "players": n_players,
        "matches": n_matches,
        "draws": draws,
        "tune": tune,
        "chains": chains,
        "work": work,
        "seconds": times,
        "cpu_seconds": cpu,
        "median_wall": float(np.median(times)),
        # the wall time of an idle machine: the CPU time over the chains run at once
        "median": float(np.median(cpu)) / parallel,
        "load_average": os.getloadavg(),
        # the estimate the command line prints: the idle estimate times the load's slowdown
        "estimates_at_load": at_load,
        "wall_over_estimate_at_load": float(np.median(np.array(times) / np.array(at_load))),
        "package_estimate": expected_fit_seconds(data.X, draws, tune, chains),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    sizes = SIZES[:2] if args.quick else SIZES
    settings = [(100, 100, 2)] if args.quick else SETTINGS
    measure(30, 200, 2, 50, 50, 1, 1)  # warm-up: the compiled kernels into the disk cache
    runs = []
    for size in sizes:
        for setting in settings:
            if size[1] > 2000 and setting[2] > 2 and not args.quick:
                continue  # the default settings on the largest table: minutes, not needed
            runs.append(measure(*size, *setting, repeats=args.repeats))
            print(runs[-1], flush=True)
    short = [r for r in runs if r["chains"] == settings[0][2]]
    work = np.array([r["work"] for r in short])
    seconds = np.array([r["median"] for r in short])
    design = np.column_stack([np.ones_like(work), work])
    (c0, c1), *_ = np.linalg.lstsq(design, seconds, rcond=None)
    for r in runs:
        r["fitted_estimate"] = float(c0 + c1 * r["work"])
    lines = [
        "| matches | draws+tune | chains | work (rows x steps x chains / parallel) | measured (s) "
        "| estimate, fitted here (s) | estimate, package (s) | measured / package | wall (s) "
        "| wall / estimate at the load |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in runs:
        lines.append(
            f"| {r['matches']:,} | {r['draws'] + r['tune']:,} | {r['chains']} | {r['work']:,.0f} "
            f"| {r['median']:.1f} | {r['fitted_estimate']:.1f} | {r['package_estimate']:.1f} "
            f"| {r['median'] / r['package_estimate']:.2f} | {r['median_wall']:.1f} "
            f"| {r['wall_over_estimate_at_load']:.2f} |"
        )
    table = "\n".join(lines)
    print(table)
    print(f"fitted constants: fixed {c0:.2f} s, {c1 * 1e9:.2f} s per 10^9 units of work")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "python": platform.python_version(),
                "machine": platform.machine(),
                "cpus": os.cpu_count(),
                "load_average_after": os.getloadavg(),
                "quick": args.quick,
                "repeats": args.repeats,
                "fixed_seconds": float(c0),
                "seconds_per_unit_of_work": float(c1),
                "runs": runs,
                "table": table,
            },
            indent=1,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
