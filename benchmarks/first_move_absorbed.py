"""Where a first mover's advantage goes when the model has no first-move effect.

A game of characters alone (k = 0) is drawn with `make_game_matches` and a true
first-move effect w; the starter-vs-starter cells ``stst[a, b]`` are ordered
(player 1's character first), so every cell can take up w. The model is fitted
with ``first_move`` off and on. The table gives, for each fit, the posterior
mean of the average cell and of the mirror cells ``stst[a, a]`` against their
true averages (the truth plus w where the fit has no w), the first-move effect
itself, the posterior mean of sd_stst, and the held-out Brier score of the last
tournament (with its number of matches) beside that of the true probabilities.

Run: python benchmarks/first_move_absorbed.py [--matches 2000] [--first-move 0.4]
Writes benchmarks/results/first_move_absorbed.json.
"""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path

import numpy as np

from skcodex import BayesianMatchupClassifier, brier_score
from skcodex._compat import posterior
from skcodex.datasets import make_game_matches

RESULTS = Path(__file__).resolve().parent / "results" / "first_move_absorbed.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--starters", type=int, default=6)
    parser.add_argument("--first-move", type=float, default=0.4)
    parser.add_argument("--draws", type=int, default=400)
    parser.add_argument("--chains", type=int, default=2)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    data = make_game_matches(
        n_players=args.players,
        n_matches=args.matches,
        n_tournaments=6,
        starters=args.starters,
        first_move=args.first_move,
        random_state=args.seed,
    )
    X, y = data.X, data.y
    test = (X["period"] == X["period"].iloc[-1]).to_numpy()
    true_stst = data.params["stst"].to_numpy()
    rows = []
    for first_move in (False, True):
        clf = BayesianMatchupClassifier(
            first_move=first_move,
            catalogue=data.catalogue,
            draws=args.draws,
            tune=args.draws,
            chains=args.chains,
            random_state=0,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf.fit(X[~test], y[~test])
        post = posterior.group(clf.idata_, "posterior")
        stst = np.asarray(post["stst"]).mean(axis=(0, 1))
        order = [clf.vocabulary_.starters.index(s) for s in data.params["stst"].index]
        stst = stst[np.ix_(order, order)]
        w = float(np.asarray(post["first_move"]).mean()) if first_move else 0.0
        absorbed = 0.0 if first_move else args.first_move
        p = clf.predict_proba(X[test])[:, 1]
        rows.append(
            {
                "first_move option": "on" if first_move else "off",
                "mean cell": round(float(stst.mean()), 3),
                "true mean cell (+ w if off)": round(float(true_stst.mean() + absorbed), 3),
                "mean mirror cell": round(float(np.diag(stst).mean()), 3),
                "true mean mirror cell (+ w if off)": round(
                    float(np.diag(true_stst).mean() + absorbed), 3
                ),
                "first-move effect": round(w, 3),
                "true first-move effect": args.first_move,
                "sd_stst": round(float(np.asarray(post["sd"]).mean(axis=(0, 1))[1]), 3),
                "held-out Brier": round(float(brier_score(y[test], p)), 4),
                "held-out matches": int(test.sum()),
                "true-probability Brier": round(float(brier_score(y[test], data.p_win[test])), 4),
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    header = list(rows[0])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(r[h]) for h in header) + " |" for r in rows]
    print("\n".join(lines))
    RESULTS.write_text(json.dumps({"settings": vars(args), "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
