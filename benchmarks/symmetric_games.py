"""A simulated symmetric game: the symmetric model against the ordered one.

`skcodex.datasets.make_game_matches(symmetric=True)` draws a tournament series
of a game where no side moves first (m(a, b) = -m(b, a)), for decks of
characters alone (k = 0) and of a hero with two of five colours (k = 2). The
last two tournaments are held out; the models are fitted on every earlier
match, and on only the first `SMALL` of them (small data). For each fit:
held-out Brier against the outcomes and against the true probabilities
(the part a model can reduce), the largest gap ``|p(row) + p(swapped row) - 1|``
on the held-out rows, and recovery of the deck matchup: the RMSE between the
posterior mean deck-vs-deck log-odds and the true ones over the most played
decks. Prints a table; writes benchmarks/results/symmetric_games.json.

Run: python benchmarks/symmetric_games.py [--matches 6000] [--draws 300] [--chains 2]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.special import logit
from sklearn.exceptions import ConvergenceWarning

from skcodex import BayesianMatchupClassifier, brier_score
from skcodex.analysis import default_decks, matchup_draws
from skcodex.datasets import make_game_matches

HERE = Path(__file__).resolve().parent
#: Training matches of the small-data fits.
SMALL = 600

GAMES = {
    "8 races (k = 0)": {"starters": 8, "sd_stst": 0.5},
    "5 heroes + 2 of 5 colours (k = 2)": {
        "starters": ["Tala", "Zane", "Oku", "Mira", "Vex"],
        "components": ["Red", "Blue", "Green", "Black", "White"],
        "specs_per_deck": 2,
        "decks_per_player": 3,
    },
}


def true_logits(params: dict, decks: list) -> np.ndarray:
    """The true deck-vs-deck log-odds for equally skilled players."""
    out = np.empty((len(decks), len(decks)))
    for i, a in enumerate(decks):
        for j, b in enumerate(decks):
            h, u = list(a.specs), list(b.specs)
            m = params["stst"].loc[a.starter, b.starter]
            if h:
                m += params["stsp"].loc[a.starter, u].sum() + params["spst"].loc[h, b.starter].sum()
                m += params["spsp"].loc[h, u].to_numpy().sum()
            out[i, j] = m
    return out


def swapped(X):
    names = {"player1": "player2", "player2": "player1", "deck1": "deck2", "deck2": "deck1"}
    return X.rename(columns=names)[X.columns]


def score(clf, data, test, decks) -> dict:
    X, y, p_true = data.X.loc[test], data.y[test], data.p_win[test]
    p = clf.predict_proba(X)[:, 1]
    p_swap = clf.predict_proba(swapped(X))[:, 1]
    est = logit(matchup_draws(clf, decks, n_draws=200)).mean(axis=0)
    truth = true_logits(data.params, decks)
    return {
        "brier": float(brier_score(y, p)),
        "brier_vs_truth": float(np.mean((p - p_true) ** 2)),
        "max_swap_gap": float(np.max(np.abs(p + p_swap - 1.0))),
        "matchup_rmse": float(np.sqrt(np.mean((est - truth) ** 2))),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=6000)
    parser.add_argument("--draws", type=int, default=300)
    parser.add_argument("--chains", type=int, default=2)
    args = parser.parse_args()
    rows = []
    for game, spec in GAMES.items():
        data = make_game_matches(
            n_players=60,
            n_matches=args.matches,
            n_tournaments=10,
            symmetric=True,
            random_state=0,
            **spec,
        )
        periods = data.X["period"].unique()
        test = data.X["period"].isin(periods[-2:]).to_numpy()
        train = np.flatnonzero(~test)
        test = np.flatnonzero(test)
        for rows_used in (train, train[:SMALL]):
            for symmetric in (True, False):
                clf = BayesianMatchupClassifier(
                    draws=args.draws,
                    tune=args.draws,
                    chains=args.chains,
                    random_state=0,
                    catalogue=data.catalogue,
                    symmetric=symmetric,
                )
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    clf.fit(data.X.iloc[rows_used], data.y[rows_used])
                seconds = time.perf_counter() - start
                played = default_decks(clf)
                row = {
                    "game": game,
                    "training": len(rows_used),
                    "held_out": len(test),
                    "model": "symmetric" if symmetric else "ordered",
                    "fit_seconds": round(seconds, 1),
                    **score(clf, data, test, played),
                }
                rows.append(row)
                print(
                    f"{game:<34} {row['training']:>5} {row['model']:<9} "
                    f"Brier {row['brier']:.4f}  vs truth {row['brier_vs_truth']:.4f}  "
                    f"swap gap {row['max_swap_gap']:.1e}  matchup RMSE {row['matchup_rmse']:.3f}  "
                    f"({row['fit_seconds']} s)",
                    flush=True,
                )
    out = {
        "settings": {**vars(args), "small": SMALL, "n_players": 60, "n_tournaments": 10},
        "rows": rows,
    }
    path = HERE / "results" / "symmetric_games.json"
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
