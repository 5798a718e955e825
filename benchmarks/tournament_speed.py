"""Speed of tournament simulation: 10,000 runs of a 32-entrant Swiss (5 rounds) and top-8 knockout.

Times, as the median of repeats, (a) the win probabilities of every pair of
entrants for every posterior draw from a fitted model (1,000 draws, one
``predict_proba_draws`` call), (b) the simulation itself from those
probabilities, and (c) both through `simulate_tournament` with the fitted
model. The model is fitted once on a synthetic 32-player series (not timed).

Run: python benchmarks/tournament_speed.py [--repeats 5] [--simulations 10000]
Writes benchmarks/results/tournament_speed.json.
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
import pandas as pd

from skcodex import BayesianMatchupClassifier
from skcodex.datasets import make_matches
from skcodex.tournament import simulate_tournament
from skcodex.tournament._probabilities import check_entrants, win_probability_draws

OUT = Path(__file__).resolve().parent / "results" / "tournament_speed.json"
FORMAT = "swiss:5+knockout:8"


def median_seconds(fn, repeats: int) -> tuple[float, list[float], float]:
    """Median wall time, every wall time, and the median CPU time of this process."""
    times, cpu = [], []
    for _ in range(repeats):
        tic, cpu_tic = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - tic)
        cpu.append(time.process_time() - cpu_tic)
    return float(np.median(times)), times, float(np.median(cpu))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--simulations", type=int, default=10_000)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    data = make_matches(n_players=32, n_matches=600, n_tournaments=6, random_state=0)
    clf = BayesianMatchupClassifier(draws=500, tune=500, chains=2, random_state=0)
    clf.fit(data.X, data.y)
    players = sorted(set(data.X["player1"]) | set(data.X["player2"]))[:32]
    first_deck = {}
    for row in data.X.itertuples(index=False):
        first_deck.setdefault(row.player1, row.deck1)
        first_deck.setdefault(row.player2, row.deck2)
    entrants = pd.DataFrame({"player": players, "deck": [first_deck[p] for p in players]})
    field = check_entrants(entrants)
    p, _, _ = win_probability_draws(clf, field)
    names = list(players)

    rows = {
        "pair probabilities (all draws)": median_seconds(
            lambda: win_probability_draws(clf, field), args.repeats
        ),
        "simulation from probabilities": median_seconds(
            lambda: simulate_tournament(
                FORMAT, names, probabilities=p, n_simulations=args.simulations, random_state=0
            ),
            args.repeats,
        ),
        "simulate_tournament with the model": median_seconds(
            lambda: simulate_tournament(
                FORMAT, entrants, clf, n_simulations=args.simulations, random_state=0
            ),
            args.repeats,
        ),
    }
    print(f"{args.simulations} simulations of {FORMAT}, 32 entrants, {len(p)} posterior draws")
    print("| step | median wall s | median CPU s |\n|---|---:|---:|")
    for name, (median, _, cpu) in rows.items():
        print(f"| {name} | {median:.3f} | {cpu:.3f} |")
    result = {
        "format": FORMAT,
        "entrants": 32,
        "simulations": args.simulations,
        "posterior_draws": len(p),
        "repeats": args.repeats,
        "median_seconds": {k: v[0] for k, v in rows.items()},
        "all_seconds": {k: v[1] for k, v in rows.items()},
        "median_cpu_seconds": {k: v[2] for k, v in rows.items()},
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "load_average_after": os.getloadavg(),
        },
    }
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
