"""Speed of skcodex's Elo and Glicko-2 against the skelo package, side by side in one process.

Both libraries fit and predict the same synthetic matches (100,000 among 1,000
players by default). Timings are medians of repeats, each library's runs
interleaved with the other's, so that a noisy machine slows both alike; the
ratio skcodex / skelo is what to read.

skelo orders matches by its timestamp column; the script gives it the row
number, so both replay the matches in the same order, and predicts with a
timestamp after the last match, so both predict from the ratings at the end of
fit. The Elo probabilities are then the same: the script checks it.

Run ``python benchmarks/ratings_speed.py`` (``--quick`` for a small smoke
run). It prints a table and writes ``benchmarks/results/ratings_speed.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd
import sklearn

import skcodex
from skcodex.data import check_match_table
from skcodex.datasets import make_matches
from skcodex.ratings import EloClassifier, Glicko2Classifier

RESULTS = Path(__file__).resolve().parent / "results" / "ratings_speed.json"


def _time(fn, *args) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - start, out


def _median(xs: list[float]) -> float:
    return float(statistics.median(xs))


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-matches", type=int, default=100_000)
    parser.add_argument("--n-players", type=int, default=1_000)
    parser.add_argument("--n-tournaments", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each library")
    parser.add_argument("--quick", action="store_true", help="5,000 matches, 100 players")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if args.quick:
        args.n_matches, args.n_players, args.n_tournaments = 5_000, 100, 10

    from skelo.model.elo import EloEstimator
    from skelo.model.glicko2 import Glicko2Estimator

    data = make_matches(
        n_players=args.n_players,
        n_matches=args.n_matches,
        n_tournaments=args.n_tournaments,
        random_state=0,
    )
    X, y = data.X, data.y
    X_one = X.drop(columns="period")  # every match its own rating period, as in skelo
    X_skelo = X.assign(t=np.arange(len(X)))
    X_skelo_pred = X.assign(t=len(X))
    cols = {"key1_field": "player1", "key2_field": "player2", "timestamp_field": "t"}

    cases = {
        "Elo": (
            lambda: EloClassifier(k_factor=20),
            X,
            lambda: EloEstimator(default_k=20, **cols),
        ),
        "Glicko-2, one match per period": (
            lambda: Glicko2Classifier(),
            X_one,
            lambda: Glicko2Estimator(**cols),
        ),
        "Glicko-2, tournaments as periods": (
            lambda: Glicko2Classifier(),
            X,
            lambda: Glicko2Estimator(**cols),
        ),
    }
    skelo_cache: dict[str, dict] = {}
    rows = []
    for name, (ours, X_ours, theirs) in cases.items():
        reuse = "Glicko-2" in name and "Glicko-2" in skelo_cache  # skelo has no periods
        t = {"fit": [], "predict": [], "skelo_fit": [], "skelo_predict": []}
        for _ in range(args.repeats):
            dt, model = _time(ours().fit, X_ours, y)
            t["fit"].append(dt)
            dt, proba = _time(model.predict_proba, X_ours)
            t["predict"].append(dt)
            if not reuse:
                dt, sk = _time(theirs().fit, X_skelo, y)
                t["skelo_fit"].append(dt)
                dt, sk_proba = _time(sk.predict_proba, X_skelo_pred)
                t["skelo_predict"].append(dt)
                sk_proba = np.asarray(sk_proba)
        if reuse:
            t["skelo_fit"] = skelo_cache["Glicko-2"]["fit"]
            t["skelo_predict"] = skelo_cache["Glicko-2"]["predict"]
            sk_proba = skelo_cache["Glicko-2"]["proba"]
        elif "Glicko-2" in name:
            skelo_cache["Glicko-2"] = {
                "fit": t["skelo_fit"],
                "predict": t["skelo_predict"],
                "proba": sk_proba,
            }
        row = {
            "model": name,
            "fit_s": _median(t["fit"]),
            "skelo_fit_s": _median(t["skelo_fit"]),
            "predict_s": _median(t["predict"]),
            "skelo_predict_s": _median(t["skelo_predict"]),
            "brier_in_sample": float(np.mean((proba[:, 1] - y) ** 2)),
            "skelo_brier_in_sample": float(np.mean((sk_proba[:, 0] - y) ** 2)),
            "timings": t,
        }
        row["fit_speedup"] = row["skelo_fit_s"] / row["fit_s"]
        row["predict_speedup"] = row["skelo_predict_s"] / row["predict_s"]
        if name == "Elo":
            # skelo's column 0 is P(player 1 wins); ours is column 1, as classes_ says
            row["max_abs_diff_p_win_vs_skelo"] = float(np.max(np.abs(proba[:, 1] - sk_proba[:, 0])))
        rows.append(row)

    # what the match-table check (inside every skcodex fit and predict_proba) costs here
    checks = [_time(check_match_table, X)[0] for _ in range(args.repeats)]
    validation = {"check_match_table_s": _median(checks)}

    result = {
        "n_matches": args.n_matches,
        "n_players": args.n_players,
        "n_tournaments": args.n_tournaments,
        "repeats": args.repeats,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pandas": pd.__version__,
        "sklearn": sklearn.__version__,
        "skcodex": skcodex.__version__,
        "machine": platform.machine(),
        "rows": rows,
        "validation": validation,
    }

    header = (
        f"{'model':34s} {'fit':>8s} {'skelo':>8s} {'speed-up':>8s}  "
        f"{'predict':>8s} {'skelo':>8s} {'speed-up':>8s}"
    )
    print(f"{args.n_matches:,} matches, {args.n_players:,} players, median of {args.repeats}")
    print(header)
    print("-" * len(header))
    for r in rows:
        print(
            f"{r['model']:34s} {r['fit_s']:7.3f}s {r['skelo_fit_s']:7.3f}s "
            f"{r['fit_speedup']:7.1f}x  {r['predict_s']:7.3f}s {r['skelo_predict_s']:7.3f}s "
            f"{r['predict_speedup']:7.1f}x"
        )
    print(
        f"of which check_match_table (run by every skcodex fit and predict_proba): "
        f"{validation['check_match_table_s']:.3f}s"
    )
    print(
        "Elo P(player 1 wins), skcodex column 1 vs skelo column 0: max |difference| "
        f"{rows[0]['max_abs_diff_p_win_vs_skelo']:.2e}"
    )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2))
    print(f"wrote {args.output}")
    return result


if __name__ == "__main__":
    main()
