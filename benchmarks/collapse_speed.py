"""Collapsing matches into binomial rows, with and without ``sample_weight``, side by side.

`skcodex._matchup.layout.collapse_matches` turns a fit's index matrix into one row
per distinct index row before NUTS runs. It now sums per-match weights (ones when no
``sample_weight`` is given) where it counted matches before. This script times, in one
process and alternating within each repeat:

- ``counts``: the earlier computation (`counts_only`, kept here as the reference);
- ``weights of one``: the package's, without weights;
- ``given weights``: the package's, with random weights;

on index matrices of the shape the Codex model reads (16 columns) drawn with many
repeated rows, and checks that the first two give identical rows, trials and totals.
Prints a table and writes ``benchmarks/results/collapse_speed.json``.

Run: python benchmarks/collapse_speed.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from skcodex._matchup.layout import collapse_matches

HERE = Path(__file__).resolve().parent
SIZES = (1_000, 20_000, 200_000)


def counts_only(index: np.ndarray, y: np.ndarray):
    """The computation before weights: trials counted, outcomes summed."""
    rows, inverse = np.unique(index, axis=0, return_inverse=True)
    inverse = np.ravel(inverse)
    trials = np.bincount(inverse, minlength=len(rows)).astype(float)
    totals = np.bincount(inverse, weights=y, minlength=len(rows))
    return rows, trials, totals


def _seconds(function, *arguments) -> float:
    start = time.perf_counter()
    function(*arguments)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    out = {"repeats": args.repeats, "tables": []}
    print("| matches | counts (ms) | weights of one (ms) | ratio | given weights (ms) | ratio |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n in SIZES:
        distinct = rng.integers(0, 60, size=(max(n // 4, 1), 16))
        index = distinct[rng.integers(0, len(distinct), n)]
        y = rng.integers(0, 2, n).astype(float)
        w = rng.uniform(0, 2, n)
        for a, b in zip(counts_only(index, y), collapse_matches(index, y), strict=True):
            assert np.array_equal(a, b)
        timed = {"counts": [], "weights of one": [], "given weights": []}
        for _ in range(args.repeats):  # alternating, so that load falls on all alike
            timed["counts"].append(_seconds(counts_only, index, y))
            timed["weights of one"].append(_seconds(collapse_matches, index, y))
            timed["given weights"].append(_seconds(collapse_matches, index, y, w))
        ms = {k: 1000 * float(np.median(v)) for k, v in timed.items()}
        row = {
            "matches": n,
            "milliseconds": ms,
            "ratio, weights of one / counts": ms["weights of one"] / ms["counts"],
            "ratio, given weights / counts": ms["given weights"] / ms["counts"],
        }
        out["tables"].append(row)
        print(
            f"| {n:,} | {ms['counts']:.2f} | {ms['weights of one']:.2f} | "
            f"{row['ratio, weights of one / counts']:.2f} | {ms['given weights']:.2f} | "
            f"{row['ratio, given weights / counts']:.2f} |"
        )
    (HERE / "results" / "collapse_speed.json").write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
