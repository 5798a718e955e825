"""Memory and time of `simulate_tournament` as entrants and posterior draws grow.

The win probabilities take 16 bytes per ordered pair of entrants per posterior draw
(the estimator's draws, then the square table of the draws used); a forecast that
would take more than `MAX_PROBABILITY_BYTES` (2 GiB) is refused before anything is
predicted, with the estimate and the number of draws that fit. The simulation itself
works in batches whose meeting table stays within 64 MB.

An estimator stands in for a fitted model: it has ``effect_draws_`` and answers
``predict_proba_draws`` with made-up probabilities (skill differences per draw), so
no model is fitted and only the tournament code is measured. Peak memory is traced
with tracemalloc (NumPy's arrays included).

Run: python benchmarks/simulate_memory.py [--simulations 2000]
Writes benchmarks/results/simulate_memory.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
import tracemalloc
from pathlib import Path

import numpy as np

from skcodex.tournament import TournamentError, simulate_tournament
from skcodex.tournament._probabilities import MAX_PROBABILITY_BYTES

OUT = Path(__file__).resolve().parent / "results" / "simulate_memory.json"


class Drawn:
    """A stand-in fitted model: ``n_draws`` posterior draws of one skill per player."""

    def __init__(self, n_draws: int, seed: int = 0):
        self.effect_draws_ = np.zeros((n_draws, 1))
        self.rng = np.random.default_rng(seed)

    def predict_proba(self, X):
        p = self.predict_proba_draws(X).mean(axis=0)
        return np.column_stack([1 - p, p])

    def predict_proba_draws(self, X):
        players = sorted(set(X["player1"]) | set(X["player2"]))
        skill = self.rng.normal(0, 1, (len(self.effect_draws_), len(players)))
        code = {p: k for k, p in enumerate(players)}
        a = np.array([code[p] for p in X["player1"]])
        b = np.array([code[p] for p in X["player2"]])
        return 1 / (1 + np.exp(-(skill[:, a] - skill[:, b])))


def measure(n_entrants: int, n_draws: int, n_simulations: int) -> dict:
    entrants = {f"p{k:03d}": "MonoRed" for k in range(n_entrants)}
    estimate = 16 * n_entrants * (n_entrants - 1) * n_draws
    tracemalloc.start()
    tic = time.perf_counter()
    try:
        simulate_tournament(
            "swiss:5", entrants, Drawn(n_draws), n_simulations=n_simulations, random_state=0
        )
        outcome = "simulated"
    except TournamentError as err:
        outcome = f"refused: {str(err)[:90]}..."
    seconds = time.perf_counter() - tic
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "entrants": n_entrants,
        "draws": n_draws,
        "estimate_mb": estimate / 1e6,
        "peak_mb": peak / 1e6,
        "seconds": seconds,
        "outcome": outcome,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--simulations", type=int, default=2000)
    args = ap.parse_args()
    rows = [
        measure(n, d, args.simulations)
        for n, d in [(16, 1000), (16, 4000), (64, 1000), (64, 4000), (128, 4000), (200, 2000)]
    ]
    rows += [measure(n, d, args.simulations) for n, d in [(400, 4000), (1000, 4000)]]
    print(f"simulate_tournament, swiss:5, {args.simulations:,} simulations")
    print(f"  {'entrants':>8} {'draws':>6} {'estimate MB':>12} {'peak MB':>9} {'s':>7}  outcome")
    for r in rows:
        print(
            f"  {r['entrants']:>8} {r['draws']:>6} {r['estimate_mb']:>12,.0f} "
            f"{r['peak_mb']:>9,.0f} {r['seconds']:>7.2f}  {r['outcome']}"
        )
    result = {
        "simulations": args.simulations,
        "budget_bytes": MAX_PROBABILITY_BYTES,
        "rows": rows,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg()[0],
    }
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    print(f"Wrote {OUT}")


if __name__ == "__main__":
    main()
