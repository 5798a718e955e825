"""Speed of the Nash deck rule: 16 entrants with 3 decks each, at a default fit's draws.

``deck_rule="nash"`` solves each pairing's deck-choice game for every posterior draw.
It was one linear programme (HiGHS) per pair and draw; the games are now solved all
draws at once (`skcodex.tournament._probabilities.solve_games`: the square
submatrices of each game in turn, Shapley and Snow's theorem). This script times
both on the same win probabilities: the per-draw linear programmes on a sample of
draws (scaled to all draws: every draw is the same work), the batched solve on all
of them, and checks that both give each game the same value.

The probabilities are made up, not fitted (skill differences plus deck effects),
with the shapes of a default fit: 4 chains x 1,000 draws, 16 entrants x 3 decks,
120 pairings of 3 x 3 games. No model is fitted.

Run: python benchmarks/nash_rule_speed.py [--draws 4000] [--lp-draws 40] [--repeats 3]
Writes benchmarks/results/nash_rule_speed.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from skcodex.analysis import solve_matrix_game
from skcodex.tournament._probabilities import _nash

OUT = Path(__file__).resolve().parent / "results" / "nash_rule_speed.json"


def slots_probabilities(n_draws: int, n_entrants: int, n_decks: int, seed: int = 0):
    """P(slot u beats slot v moving first): skills, deck matchups and a first-move edge."""
    rng = np.random.default_rng(seed)
    n = n_entrants * n_decks
    owner = np.repeat(np.arange(n_entrants), n_decks)
    skill = rng.normal(0, 0.8, (n_draws, n_entrants))[:, owner]
    deck = rng.normal(0, 0.5, (n_draws, n, n))
    logit = skill[:, :, None] - skill[:, None, :] + deck - deck.transpose(0, 2, 1) + 0.2
    p = 1 / (1 + np.exp(-logit))
    p[:, owner[:, None] == owner[None, :]] = 0.5
    offsets = np.arange(n_entrants) * n_decks
    return p, offsets, np.full(n_entrants, n_decks)


def per_draw_lp(slots, offsets, n_decks) -> np.ndarray:
    """The earlier rule: one linear programme per pairing and draw (values only)."""
    n = len(offsets)
    values = np.zeros((len(slots), n, n))
    for i in range(n):
        a = slice(offsets[i], offsets[i] + n_decks[i])
        for j in range(i + 1, n):
            b = slice(offsets[j], offsets[j] + n_decks[j])
            payoff = 0.5 * (slots[:, a, b] + 1.0 - slots[:, b, a].transpose(0, 2, 1))
            for d in range(len(slots)):
                values[d, i, j] = solve_matrix_game(payoff[d])[2]
    return values


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=4000)
    ap.add_argument("--entrants", type=int, default=16)
    ap.add_argument("--decks", type=int, default=3)
    ap.add_argument("--lp-draws", type=int, default=40, help="draws the linear programmes time")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    slots, offsets, n_decks = slots_probabilities(args.draws, args.entrants, args.decks)
    n = args.entrants

    batched = []
    for _ in range(args.repeats):
        tic = time.perf_counter()
        out = _nash(slots, offsets, n_decks)
        batched.append(time.perf_counter() - tic)
    sample = slots[: args.lp_draws]
    tic = time.perf_counter()
    lp_values = per_draw_lp(sample, offsets, n_decks)
    lp_seconds = time.perf_counter() - tic
    lp_all = lp_seconds * args.draws / args.lp_draws

    # the value of each game from the batched solve: (P(i beats j) + 1 - P(j beats i)) / 2
    upper = np.triu_indices(n, 1)
    value = 0.5 * (out[: args.lp_draws] + 1 - out[: args.lp_draws].transpose(0, 2, 1))
    gap = float(np.abs(value[:, upper[0], upper[1]] - lp_values[:, upper[0], upper[1]]).max())

    result = {
        "entrants": n,
        "decks": args.decks,
        "draws": args.draws,
        "games": int(args.draws * n * (n - 1) // 2),
        "batched_seconds_median": float(np.median(batched)),
        "batched_seconds": batched,
        "lp_draws_timed": args.lp_draws,
        "lp_seconds_timed": lp_seconds,
        "lp_seconds_all_draws_scaled": lp_all,
        "speed_up": lp_all / float(np.median(batched)),
        "largest_value_difference": gap,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg()[0],
    }
    print(f"Nash deck rule, {n} entrants x {args.decks} decks, {args.draws:,} draws:")
    print(f"  {'method':<44}{'seconds':>10}")
    print(
        f"  {'one linear programme per pair and draw':<44}{lp_all:>10.1f}  (scaled from "
        f"{args.lp_draws} draws: {lp_seconds:.1f} s)"
    )
    print(f"  {'every draw at once (square submatrices)':<44}{np.median(batched):>10.2f}")
    print(f"  speed-up {result['speed_up']:,.0f}x; largest difference in a game's value {gap:.1e}")
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    print(f"Wrote {OUT}")


if __name__ == "__main__":
    main()
