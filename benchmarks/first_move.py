"""Should the Codex model carry a first-move effect? Forward-chained evidence on the real data.

Fits `BayesianMatchupClassifier` with and without ``first_move=True`` (all
else at the defaults) on each training split of `skcodex.TournamentSplit`
over the last tournaments, forecasts the next tournament, and pools the
Brier scores with a paired bootstrap interval. One fit on all matches with
the effect switched on reports its posterior, and PSIS-LOO compares the two
full fits. Prints tables; writes benchmarks/results/first_move.json.

Run: python benchmarks/first_move.py [DATA_FOLDER] [--splits 4] [--draws 500] [--chains 4]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from skcodex import BayesianMatchupClassifier, TournamentSplit
from skcodex.datasets import load_codex_matches
from skcodex.evaluation import forward_forecasts, paired_bootstrap, score_table

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parents[1] / "shared" / "data" / "codexdata"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", default=str(DEFAULT_DATA))
    parser.add_argument("--splits", type=int, default=4)
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--out", default=str(HERE / "results" / "first_move.json"))
    args = parser.parse_args(argv)

    X, y = load_codex_matches(args.data, return_X_y=True)
    common = {
        "draws": args.draws,
        "tune": args.draws,
        "chains": args.chains,
        "cores": args.cores,
        "random_state": 0,
        "catalogue": X.attrs["catalogue"],
    }
    models = {
        "default": BayesianMatchupClassifier(**common),
        "first_move": BayesianMatchupClassifier(**common, first_move=True),
    }
    start = time.perf_counter()
    forecasts = forward_forecasts(models, X, y, TournamentSplit(n_splits=args.splits), verbose=True)
    cv_seconds = time.perf_counter() - start
    table = score_table(forecasts)
    boot = paired_bootstrap(forecasts, "first_move", "default")

    import arviz as az

    fits, loo = {}, {}
    for name, model in models.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fits[name] = model.fit(X, y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loo[name] = az.loo(fits[name].idata_, pointwise=True)
    diff = np.asarray(loo["first_move"].loo_i) - np.asarray(loo["default"].loo_i)
    effect = np.asarray(fits["first_move"].idata_.posterior["first_move"]).ravel()
    lo, hi = np.quantile(effect, [0.05, 0.95])
    # The share of player 1 wins, for comparison with the effect's scale.
    p1_share = float(np.mean(y))

    print("\nForward-chained Brier by tournament (lower is better)")
    print(table.round(4).to_string())
    print(
        f"\nPooled Brier, first_move - default: {boot['difference']:+.4f} "
        f"[{boot['lower']:+.4f}, {boot['upper']:+.4f}] (95% paired bootstrap)"
    )
    print(
        f"PSIS-LOO elpd: default {float(loo['default'].elpd_loo):.1f}, first_move "
        f"{float(loo['first_move'].elpd_loo):.1f}; difference {diff.sum():+.1f} "
        f"(se {np.sqrt(len(diff)) * diff.std(ddof=1):.1f})"
    )
    print(
        f"First-move effect on all matches: mean {effect.mean():+.3f} log-odds, "
        f"90% interval [{lo:+.3f}, {hi:+.3f}]; player 1 won {p1_share:.3f} of matches"
    )
    print(f"({cv_seconds:.0f} s of forward-chained fits)")

    result = {
        "data": str(args.data),
        "matches": len(X),
        "splits": args.splits,
        "draws": args.draws,
        "chains": args.chains,
        "scores": json.loads(table.to_json(orient="index")),
        "bootstrap_first_move_minus_default": boot,
        "loo": {
            name: {"elpd_loo": float(v.elpd_loo), "se": float(v.se)} for name, v in loo.items()
        },
        "loo_difference": float(diff.sum()),
        "loo_difference_se": float(np.sqrt(len(diff)) * diff.std(ddof=1)),
        "first_move_effect": {
            "mean": float(effect.mean()),
            "q05": float(lo),
            "q95": float(hi),
        },
        "player1_win_share": p1_share,
        "convergence_warnings": forecasts.attrs["convergence"],
        "cv_seconds": cv_seconds,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
