"""``skcodex predict`` for one match: CPU time of the whole command, start to answer.

Fits a small model once (the synthetic series of the tests, 2 chains of 200
draws, written as ``skcodex fit`` writes it), then runs ``skcodex predict`` in a
fresh subprocess per repeat and records its CPU time (user + system, all
threads) and wall time: a forecast between players and decks the model has
seen (the quick path, which reads the model file without building the
estimator) and one with a never-seen player (the estimator's own path, which
imports scikit-learn and, with ArviZ 0.x, ArviZ). The numba and PyTensor
caches are the user's own, warm after the first run, as on a machine that has
run skcodex before. Medians of ``--repeats`` runs; the machine's load average
is recorded, since a shared machine stretches the wall time more than the CPU
time.

Usage::

    python benchmarks/predict_cli_speed.py               # 7 repeats of each

Writes ``benchmarks/results/predict_cli_speed.json`` and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def fit_model(folder: Path) -> dict:
    """A small fitted model saved into ``folder``; returns a seen and a new match."""
    from skcodex import BayesianMatchupClassifier
    from skcodex.cli import save_model
    from skcodex.datasets import make_matches

    data = make_matches(n_players=30, n_matches=400, n_tournaments=5, random_state=0)
    clf = BayesianMatchupClassifier(draws=200, chains=2, progressbar=False, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(data.X, data.y)
    save_model(clf, folder)
    row = data.X.iloc[-1]
    seen = ["--p1", row["player1"], "--deck1", row["deck1"]]
    seen += ["--p2", row["player2"], "--deck2", row["deck2"]]
    new = ["--p1", "newcomer", *seen[2:]]
    return {"seen players and decks": seen, "a never-seen player": new}


def one_run(folder: Path, match: list[str]) -> dict:
    load_before = os.getloadavg()[0]
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "skcodex.cli", "predict", str(folder), *match],
        capture_output=True,
        text=True,
        timeout=600,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    cpu = (after.ru_utime - cpu_before.ru_utime) + (after.ru_stime - cpu_before.ru_stime)
    return {"cpu_s": cpu, "wall_s": wall, "load": load_before, "output": out.stdout}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        matches = fit_model(folder)
        for match in matches.values():  # warm the caches once, as after a first run
            one_run(folder, match)
        results = {}
        for what, match in matches.items():
            runs = [one_run(folder, match) for _ in range(args.repeats)]
            results[what] = {
                "median_cpu_s": statistics.median(r["cpu_s"] for r in runs),
                "min_cpu_s": min(r["cpu_s"] for r in runs),
                "max_cpu_s": max(r["cpu_s"] for r in runs),
                "median_wall_s": statistics.median(r["wall_s"] for r in runs),
                "median_load": statistics.median(r["load"] for r in runs),
                "runs": runs,
            }
    print("| match | median CPU s | CPU s range | median wall s | median load |")
    print("|---|---|---|---|---|")
    for what, r in results.items():
        print(
            f"| {what} | {r['median_cpu_s']:.2f} | {r['min_cpu_s']:.2f}-{r['max_cpu_s']:.2f} "
            f"| {r['median_wall_s']:.2f} | {r['median_load']:.1f} |"
        )
    summary = {
        "repeats": args.repeats,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "results": results,
    }
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "predict_cli_speed.json"
    path.write_text(json.dumps(summary, indent=2))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
