"""Other games with known truth: a fighting game (characters alone) and a hero-plus-colours game.

For each game, `skcodex.datasets.make_game_matches` draws a tournament series
with a first-move effect; the models are fitted on all but the last two
tournaments and forecast those. Scored by Brier against the true
probabilities (the best any model can do), the Bayesian matchup model, a
one-hot logistic regression on the same design (`MatchupEncoder`), Elo (with
its first-mover advantage estimated) and Glicko-2. Recovery of the truth by
the Bayesian model: correlation of posterior mean skills and of the
deck-vs-deck log-odds cells (the most played decks) with the true ones, and
the first-move effect's posterior against its true value. Prints a table;
writes benchmarks/results/other_games.json.

Run: python benchmarks/other_games.py [--matches 3000] [--draws 500] [--chains 4]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from skcodex import (
    BayesianMatchupClassifier,
    EloClassifier,
    Glicko2Classifier,
    MatchupEncoder,
    brier_score,
)
from skcodex.analysis import default_decks, matchup_draws
from skcodex.datasets import make_game_matches

HERE = Path(__file__).resolve().parent

GAMES = {
    "fighting game (k = 0)": {"starters": 12, "first_move": 0.3, "sd_stst": 0.5},
    "hero + 2 of 5 colours (k = 2)": {
        "starters": ["Tala", "Zane", "Oku", "Mira", "Vex", "Rook"],
        "components": ["Red", "Blue", "Green", "Black", "White"],
        "specs_per_deck": 2,
        "first_move": 0.2,
        "decks_per_player": 3,
    },
}


def true_cells(params: dict, decks: list) -> np.ndarray:
    """The true deck-vs-deck log-odds (first-move effect included) for equal players."""
    out = np.empty((len(decks), len(decks)))
    for i, a in enumerate(decks):
        for j, b in enumerate(decks):
            h, u = list(a.specs), list(b.specs)
            m = params["stst"].loc[a.starter, b.starter] + params["first_move"]
            if h:
                m += params["stsp"].loc[a.starter, u].sum() + params["spst"].loc[h, b.starter].sum()
                m += params["spsp"].loc[h, u].to_numpy().sum()
            out[i, j] = m
    return out


def run_game(name: str, spec: dict, args: argparse.Namespace) -> dict:
    data = make_game_matches(
        n_players=args.players, n_matches=args.matches, n_tournaments=10, random_state=7, **spec
    )
    X, y, cat = data.X, data.y, data.catalogue
    test = X["period"].isin(X["period"].unique()[-2:]).to_numpy()
    Xtr, ytr, Xte, yte = X[~test], y[~test], X[test], y[test]
    models = {
        "Bayesian matchup": BayesianMatchupClassifier(
            draws=args.draws,
            tune=args.draws,
            chains=args.chains,
            cores=args.cores,
            first_move=True,
            catalogue=cat,
            random_state=0,
        ),
        "one-hot logistic": make_pipeline(MatchupEncoder(cat), LogisticRegression(C=1.0)),
        "Elo": EloClassifier(first_mover_advantage="auto"),
        "Glicko-2": Glicko2Classifier(),
    }
    brier, seconds = {"truth": brier_score(yte, data.p_win[test])}, {}
    for label, model in models.items():
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(Xtr, ytr)
        seconds[label] = time.perf_counter() - start
        brier[label] = brier_score(yte, model.predict_proba(Xte)[:, 1])
    clf = models["Bayesian matchup"]
    post = clf.idata_.posterior
    skill = post["skill"].mean(("chain", "draw")).to_series()
    r_skill = float(np.corrcoef(skill, data.params["skill"][skill.index])[0, 1])
    decks = default_decks(clf, 12)
    p = matchup_draws(clf, decks)
    fitted = np.log(p / (1 - p)).mean(axis=0)
    r_cells = float(np.corrcoef(fitted.ravel(), true_cells(data.params, decks).ravel())[0, 1])
    effect = np.asarray(post["first_move"]).ravel()
    lo, hi = np.quantile(effect, [0.05, 0.95])
    return {
        "matches": len(X),
        "train": int((~test).sum()),
        "test": int(test.sum()),
        "players": args.players,
        "specs_per_deck": clf.layout_.specs_per_deck,
        "brier_held_out": brier,
        "fit_seconds": seconds,
        "recovery": {
            "skill_r": r_skill,
            "deck_cells_r": r_cells,
            "deck_cells": len(decks) ** 2,
            "first_move_true": spec["first_move"],
            "first_move_mean": float(effect.mean()),
            "first_move_q05": float(lo),
            "first_move_q95": float(hi),
        },
        "convergence_problems": list(clf.convergence_problems_),
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3000)
    parser.add_argument("--players", type=int, default=60)
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--out", default=str(HERE / "results" / "other_games.json"))
    args = parser.parse_args(argv)

    results = {name: run_game(name, spec, args) for name, spec in GAMES.items()}
    for name, r in results.items():
        rec = r["recovery"]
        print(f"\n{name}: {r['train']} training and {r['test']} held-out matches")
        print("  held-out Brier (lower is better):")
        for model, score in r["brier_held_out"].items():
            print(f"    {model:>18}  {score:.4f}")
        print(
            f"  recovery: skills r = {rec['skill_r']:.3f}; deck cells r = "
            f"{rec['deck_cells_r']:.3f} ({rec['deck_cells']} cells); first-move effect "
            f"{rec['first_move_mean']:+.3f} [{rec['first_move_q05']:+.3f}, "
            f"{rec['first_move_q95']:+.3f}] (true {rec['first_move_true']:+.2f})"
        )
        if r["convergence_problems"]:
            print(f"  convergence: {'; '.join(r['convergence_problems'])}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    result = {"settings": vars(args), "games": results}
    out.write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
