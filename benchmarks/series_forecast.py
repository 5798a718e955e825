"""Series-level forecasts on simulated tournaments with known truth.

Synthetic tournaments are drawn from the model (`skcodex.datasets.make_matches`), the
classifier and Elo are fitted on them, and then best-of-3 and best-of-5 sets are played
between random pairs of the same players, each with one deck of their pool, game by
game with the true probabilities (the first move alternating, player 1 first in game 1).
Each set is forecast five ways:

- ``posterior``: `skcodex.tournament.predict_series`, the set's chance per posterior
  draw (one draw for all its games), averaged;
- ``plug-in``: the set's chance from the posterior mean game probabilities;
- ``single game``: the posterior mean chance of game 1 read as the set's chance (what a
  forecast of single games says about a set);
- ``Elo``: the set's chance from Elo's game probabilities;
- ``truth``: the set's chance from the true game probabilities (the best possible).

Scores: Brier and log loss of each forecast against the sets' outcomes, the root mean
square distance to the true set chance (known here: a far less noisy measure), each
forecast's Brier minus the posterior's over the same sets with its standard error, and
how often the posterior's 90% interval of the set chance holds the true chance.
The shared forum data's one series event (MMM1: sets of up to ten games between the
same two players, played in full, not best-of) is too small and not best-of; see
docs/tournaments.md.

Run: python benchmarks/series_forecast.py [--seeds 2] [--sets 600] [--draws 500]
Writes benchmarks/results/series_forecast.json.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit

from skcodex import BayesianMatchupClassifier, EloClassifier
from skcodex.codex import format_deck, parse_deck
from skcodex.datasets import make_matches
from skcodex.tournament import predict_series, series_win_probability

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "series_forecast.json"
FORECASTS = ("posterior", "plug-in", "single game", "Elo", "truth")


def true_game(params, p1, p2, deck1, deck2) -> float:
    """P(p1 with deck1, moving first, beats p2 with deck2) from the truth."""
    d1, d2 = parse_deck(deck1), parse_deck(deck2)
    q = params["skill"][p1] - params["skill"][p2]
    q += params["stst"].loc[d1.starter, d2.starter]
    q += sum(params["stsp"].loc[d1.starter, s] for s in d2.specs)
    q += sum(params["spst"].loc[s, d2.starter] for s in d1.specs)
    q += sum(params["spsp"].loc[s, t] for s in d1.specs for t in d2.specs)
    return float(expit(q))


def play_set(rng, p_first, p_second, best_of) -> int:
    """1 if player 1 wins the set played game by game, the first move alternating."""
    need, wins = (best_of + 1) // 2, [0, 0]
    game = 0
    while max(wins) < need:
        p = p_first if game % 2 == 0 else p_second
        wins[0 if rng.random() < p else 1] += 1
        game += 1
    return int(wins[0] == need)


def one_seed(seed: int, n_sets: int, draws: int, coverage: list, paired: dict) -> list[dict]:
    data = make_matches(n_players=40, n_matches=1200, n_tournaments=8, random_state=seed)
    X, y, params = data.X, data.y, data.params
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # short chains: convergence warnings are expected
        clf = BayesianMatchupClassifier(
            draws=draws, tune=draws, chains=2, random_state=seed, progressbar=False
        ).fit(X, y)
    fit_seconds = time.perf_counter() - start
    elo = EloClassifier().fit(X, y)
    rng = np.random.default_rng(1000 + seed)
    players = list(params["skill"].index)
    rows = []
    for k in range(n_sets):
        a, b = rng.choice(len(players), 2, replace=False)
        p1, p2 = players[a], players[b]
        deck1 = params["decks"][p1][rng.integers(len(params["decks"][p1]))]
        deck2 = params["decks"][p2][rng.integers(len(params["decks"][p2]))]
        rows.append((p1, p2, format_deck(deck1), format_deck(deck2), 3 if k % 2 == 0 else 5))
    sets = pd.DataFrame(rows, columns=["player1", "player2", "deck1", "deck2", "best_of"])
    out = []
    for best_of in (3, 5):
        part = sets[sets["best_of"] == best_of].reset_index(drop=True)
        games = part[["player1", "player2", "deck1", "deck2"]]
        swapped = games.rename(
            columns={"player1": "player2", "player2": "player1", "deck1": "deck2", "deck2": "deck1"}
        )[games.columns]
        posterior = predict_series(clf, games, best_of)
        p_first = clf.predict_proba(games)[:, 1]
        p_second = 1 - clf.predict_proba(swapped)[:, 1]
        e_first = elo.predict_proba(games)[:, 1]
        e_second = 1 - elo.predict_proba(swapped)[:, 1]
        t_first = np.array([true_game(params, *r) for r in games.itertuples(index=False)])
        t_second = 1 - np.array([true_game(params, *r) for r in swapped.itertuples(index=False)])

        def sets_of(first, second, n=best_of):
            return series_win_probability(first[:, None, None], second[:, None, None], n)

        forecasts = {
            "posterior": posterior["mean"].to_numpy(),
            "plug-in": sets_of(p_first, p_second),
            "single game": p_first,
            "Elo": sets_of(e_first, e_second),
            "truth": sets_of(t_first, t_second),
        }
        outcome = np.array(
            [play_set(rng, f, s, best_of) for f, s in zip(t_first, t_second)], dtype=float
        )
        truth = forecasts["truth"]
        inside = (posterior["lower"] <= truth) & (truth <= posterior["upper"])
        coverage.append(
            {
                "seed": seed,
                "best_of": best_of,
                "covered": int(inside.sum()),
                "sets": len(part),
                "mean_width": float((posterior["upper"] - posterior["lower"]).mean()),
            }
        )
        for name, f in forecasts.items():
            paired[(best_of, name)].append(
                (f - outcome) ** 2 - (forecasts["posterior"] - outcome) ** 2
            )
            clipped = np.clip(f, 1e-6, 1 - 1e-6)
            out.append(
                {
                    "seed": seed,
                    "best_of": best_of,
                    "forecast": name,
                    "sets": len(part),
                    "brier": float(np.mean((f - outcome) ** 2)),
                    "log_loss": float(
                        -np.mean(outcome * np.log(clipped) + (1 - outcome) * np.log(1 - clipped))
                    ),
                    "rmse_to_truth": float(np.sqrt(np.mean((f - truth) ** 2))),
                    "fit_seconds": fit_seconds,
                }
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--sets", type=int, default=600)
    parser.add_argument("--draws", type=int, default=500)
    args = parser.parse_args()
    rows, coverage = [], []
    paired: dict = {(n, name): [] for n in (3, 5) for name in FORECASTS}
    for seed in range(args.seeds):
        rows += one_seed(seed, args.sets, args.draws, coverage, paired)
    table = pd.DataFrame(rows)
    summary = (
        table.groupby(["best_of", "forecast"], sort=False)[["brier", "log_loss", "rmse_to_truth"]]
        .mean()
        .reset_index()
    )
    print(f"{args.seeds} seeds x {args.sets} sets (half best-of-3, half best-of-5):")
    print("| best of | forecast | Brier | log loss | RMSE to the true set chance |")
    print("|---:|---|---:|---:|---:|")
    for r in summary.itertuples(index=False):
        print(
            f"| {r.best_of} | {r.forecast} | {r.brier:.4f} | {r.log_loss:.4f} | "
            f"{r.rmse_to_truth:.4f} |"
        )
    print("\nBrier of each forecast minus the posterior's, over every set (mean and its standard")
    print("error; above zero: the posterior forecast is better):")
    differences = []
    for (best_of, name), parts in paired.items():
        if name == "posterior":
            continue
        d = np.concatenate(parts)
        se = d.std(ddof=1) / np.sqrt(len(d))
        differences.append({"best_of": best_of, "forecast": name, "difference": d.mean(), "se": se})
        print(f"| {best_of} | {name} | {d.mean():+.4f} | {se:.4f} |")
    cover = (
        pd.DataFrame(coverage)
        .groupby("best_of")[["covered", "sets", "mean_width"]]
        .agg({"covered": "sum", "sets": "sum", "mean_width": "mean"})
    )
    print("\nThe posterior's 90% interval of the set chance against the true set chance:")
    for best_of, r in cover.iterrows():
        print(
            f"| {best_of} | {r.covered} of {r.sets} ({r.covered / r.sets:.3f}) | "
            f"{r.mean_width:.3f} |"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "settings": vars(args),
                "rows": rows,
                "summary": summary.to_dict("records"),
                "paired_brier_differences": differences,
                "coverage": coverage,
            },
            indent=1,
        )
    )
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
