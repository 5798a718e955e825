"""A user's first ``skcodex demo``: wall time (first compile included) and convergence.

Each repeat runs the README's ``skcodex demo`` (which also writes the HTML
report, Nash weights and figures included, into a scratch folder; pass
``-- --no-report`` to leave it out) in a fresh subprocess with empty
PyTensor and numba caches, as on a new machine, and records its wall time,
the convergence checks of both fits it makes (the held-out fit and the fit on
every match: largest R-hat, smallest bulk and tail ESS, divergences, failed
checks) and whether any warning was printed. The machine's load average is
recorded before and after each run, since timings on a shared machine vary.

Usage::

    python benchmarks/demo_first_run.py                   # the demo's defaults, 5 runs
    python benchmarks/demo_first_run.py --vary-seed --name demo_first_run_seeds
    python benchmarks/demo_first_run.py --repeats 3 -- --draws 1000 --chains 4

With the demo's default seed every run samples the same chains, so the
convergence figures repeat exactly and only the time varies; ``--vary-seed``
checks that the settings converge for other data and chains too.

CPU time (user + system, all threads of the subprocess) is recorded beside the
wall time: on a machine shared with other work the wall time stretches with the
load, while the CPU time shows the work itself.

Writes ``benchmarks/results/demo_first_run.json`` (or ``--name``) and prints a
Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"

# Runs inside the subprocess: the demo, with every fitted classifier's convergence kept.
DRIVER = r"""
import json, sys, warnings
import skcodex.cli as cli
import skcodex.cli._commands as commands
from skcodex.analysis import convergence_summary
fits = []
original = commands._fit
def recording(*args, **kwargs):
    clf = original(*args, **kwargs)
    s = convergence_summary(clf)
    fits.append({k: s[k] for k in ("chains", "draws", "max_rhat", "min_ess_bulk",
                                   "min_ess_tail", "divergences", "problems")})
    return clf
commands._fit = recording
code = cli.main(["demo", "--no-progress", *sys.argv[1:]])
print("@@" + json.dumps({"exit": code, "fits": fits}))
"""


def one_run(extra: list[str]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(
            os.environ,
            PYTENSOR_FLAGS=f"base_compiledir={tmp}/pytensor",
            NUMBA_CACHE_DIR=f"{tmp}/numba",
            PYTHONWARNINGS="default",
        )
        load_before = os.getloadavg()[0]
        cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", DRIVER, *extra],
            env=env,
            cwd=tmp,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - cpu_before.ru_utime) + (after.ru_stime - cpu_before.ru_stime)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-3000:])
    lines = out.stdout.splitlines()
    record = json.loads(next(line for line in lines if line.startswith("@@"))[2:])
    shown = [line for line in lines if not line.startswith("@@")]
    warned = [line.strip() for line in shown if "warning" in line.lower()]
    warned += [line.strip() for line in out.stderr.splitlines() if "R-hat" in line or "ESS" in line]
    return {
        "wall_s": wall,
        "cpu_s": cpu,
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
        "warnings": warned,
        "fits": record["fits"],
        "output": shown,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--name", default="demo_first_run")
    parser.add_argument(
        "--vary-seed",
        action="store_true",
        help="run i uses --seed i (other data and chains) instead of the demo's default seed",
    )
    parser.add_argument("demo_args", nargs="*", help="extra arguments for skcodex demo")
    args = parser.parse_args()
    runs = []
    print(
        "| run | wall s | CPU s | max R-hat | min bulk ESS | min tail ESS | divergences "
        "| warnings | load |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for i in range(args.repeats):
        extra = [*args.demo_args, "--seed", str(i)] if args.vary_seed else args.demo_args
        run = one_run(extra)
        runs.append(run)
        rhat = max(f["max_rhat"] or 0 for f in run["fits"])
        ess = min(f["min_ess_bulk"] for f in run["fits"])
        tail = min(f["min_ess_tail"] for f in run["fits"])
        div = sum(f["divergences"] for f in run["fits"])
        print(
            f"| {i + 1} | {run['wall_s']:.1f} | {run['cpu_s']:.0f} | {rhat:.4f} | {ess:.0f} "
            f"| {tail:.0f} | {div} "
            f"| {len(run['warnings'])} | {run['load_before']:.1f}-{run['load_after']:.1f} |",
            flush=True,
        )
    walls = [r["wall_s"] for r in runs]
    rhats = [max(f["max_rhat"] or 0 for f in r["fits"]) for r in runs]
    summary = {
        "demo_args": args.demo_args,
        "vary_seed": args.vary_seed,
        "repeats": args.repeats,
        "cores": os.cpu_count(),
        "median_wall_s": statistics.median(walls),
        "max_wall_s": max(walls),
        "median_cpu_s": statistics.median(r["cpu_s"] for r in runs),
        "median_max_rhat": statistics.median(rhats),
        "worst_max_rhat": max(rhats),
        "median_min_ess_bulk": statistics.median(
            min(f["min_ess_bulk"] for f in r["fits"]) for r in runs
        ),
        "runs_with_warnings": sum(bool(r["warnings"]) for r in runs),
        "median_load_before": statistics.median(r["load_before"] for r in runs),
        "runs": runs,
    }
    print(
        f"\nmedian wall {summary['median_wall_s']:.1f} s (max {summary['max_wall_s']:.1f}), "
        f"median CPU {summary['median_cpu_s']:.0f} s; "
        f"median largest R-hat {summary['median_max_rhat']:.4f} (worst "
        f"{summary['worst_max_rhat']:.4f}); runs with warnings "
        f"{summary['runs_with_warnings']}/{args.repeats}; median load "
        f"{summary['median_load_before']:.1f} on {summary['cores']} cores"
    )
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{args.name}.json"
    path.write_text(json.dumps(summary, indent=2))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
