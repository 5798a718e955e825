"""The large-data path: ADVI on 200,000 matches among 5,000 players, against NUTS on a subsample.

The script draws a synthetic tournament series from the model
(`skcodex.datasets.make_matches`, 200,000 matches, 5,000 players, 20
tournaments), holds out the last tournament, and fits, each in a fresh
process so that its peak memory can be read:

- ``nuts, subsample``: `BayesianMatchupClassifier` with NUTS on a random
  subsample of the training matches (10,000 by default);
- ``advi, subsample``: ``method="advi"`` on the same subsample;
- ``advi, full``: ``method="advi"`` on every training match;
- ``nuts, full``: NUTS on every training match, sampled as the estimator's
  defaults (4 chains x 1,000 draws after 1,000 tuning steps; ``--full-nuts``),
  with the minimum bulk ESS and maximum R-hat over every standardised effect
  and log-spread (`skcodex.analysis.convergence_summary`);
- ``elo, full``: `EloClassifier` on every training match, a deck-blind yardstick.

For each it reports the wall-clock fit time (compilation included), the peak
resident memory of the process and how much of it the fit added, the Brier
score on the held-out tournament, and the fitted spreads; for the subsample it
also reports how far the ADVI probabilities lie from the NUTS ones. The Brier
score of the true probabilities is the floor no model can beat on average.

Run ``python benchmarks/large_data.py`` (``--quick`` for a small smoke run). It
prints a table and writes ``benchmarks/results/large_data.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

RESULTS = Path(__file__).resolve().parent / "results" / "large_data.json"

# Run in a child process: fit one model, predict the held-out matches, report.
_CHILD = r"""
import json, resource, sys, time, warnings
import numpy as np, pandas as pd

def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

folder, kind, method, draws, tune, chains, seed = sys.argv[1:8]
X = pd.read_pickle(f"{folder}/X.pkl")
y = np.load(f"{folder}/y.npy")
test = np.load(f"{folder}/test.npy")
rows = np.load(f"{folder}/{kind}.npy")
from skcodex import BayesianMatchupClassifier, EloClassifier
import arviz, pymc, pytensor  # imported before the baseline, so "fit MB" is the fit's own
try:
    import nutpie
except ImportError:
    pass
Xtr, ytr = X.iloc[rows], y[rows]
if method == "elo":
    model = EloClassifier(first_mover_advantage="auto")
else:
    model = BayesianMatchupClassifier(  # the static model, ADVI's and NUTS's alike
        method=method, draws=int(draws), tune=int(tune), chains=int(chains),
        random_state=int(seed), time_varying=False, debut=False,
    )
before = rss_mb()
start = time.perf_counter()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model.fit(Xtr, ytr)
fit_seconds = time.perf_counter() - start
peak = rss_mb()
p = model.predict_proba(X.iloc[test])[:, 1]
np.save(f"{folder}/p_{kind}_{method}.npy", p)
out = {"fit_seconds": fit_seconds, "rss_before_mb": before, "peak_rss_mb": peak,
       "warnings": sorted({str(w.message)[:160] for w in caught
                           if w.category.__name__ == "ConvergenceWarning"})}
if hasattr(model, "spread_draws_"):
    out["spread_mean"] = model.spread_draws_.mean(axis=0).tolist()
    out["spread_sd"] = model.spread_draws_.std(axis=0).tolist()
    out["n_draws"] = int(model.spread_draws_.shape[0])
if method == "nuts":
    from skcodex.analysis import convergence_summary
    summary = convergence_summary(model)
    for key in ("min_ess_bulk", "min_ess_tail", "max_rhat", "divergences"):
        out[key] = summary[key]
    from skcodex._matchup.diagnostics import monitored_draws
    from skcodex._matchup.convergence_stats import convergence_statistics
    by_block = {}
    for name, values in monitored_draws(model.idata_, model.layout_).items():
        found = convergence_statistics(values.reshape(values.shape[0], values.shape[1], -1))
        by_block[name] = [float(np.nanmin(found["ess_bulk"])), float(np.nanmax(found["rhat"]))]
    out["min_ess_bulk_and_max_rhat_by_block"] = by_block
    out["null_directions"] = int(model.idata_.posterior.attrs.get("null_directions", 0))
    stats = model.idata_.sample_stats
    if "n_steps" in stats:
        out["steps_per_draw"] = float(np.asarray(stats["n_steps"]).mean())
print("RESULT " + json.dumps(out))
"""


def _run(folder: str, kind: str, method: str, sampling: tuple, seed: int) -> dict:
    """Fit ``method`` on the ``kind`` rows in a fresh process; ``sampling`` is
    ``(draws, tune, chains)``."""
    cmd = [sys.executable, "-c", _CHILD, folder, kind, method, *map(str, sampling), str(seed)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{method} on {kind} failed:\n{proc.stderr[-3000:]}")
    line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT "))
    out = json.loads(line[len("RESULT ") :])
    out["process_seconds"] = time.perf_counter() - start
    return out


def benchmark_data(args: argparse.Namespace):
    """The synthetic series, its held-out last tournament, the training rows and a subsample.

    Returns ``(data, test, train, sub, oracle_brier, generate_seconds)``; shared with
    ``benchmarks/advi_compare.py`` so both measure on the same matches.
    """
    from skcodex.datasets import make_matches
    from skcodex.metrics import brier_score

    start = time.perf_counter()
    data = make_matches(
        n_players=args.n_players,
        n_matches=args.n_matches,
        n_tournaments=args.n_tournaments,
        random_state=args.seed,
    )
    generate_seconds = time.perf_counter() - start
    X, y = data.X, data.y
    test = np.flatnonzero((X["period"] == X["period"].iloc[-1]).to_numpy())
    train = np.setdiff1d(np.arange(len(X)), test)
    rng = np.random.default_rng(args.seed)
    sub = np.sort(rng.choice(train, size=min(args.subsample, len(train)), replace=False))
    oracle = brier_score(y[test], data.p_win[test])
    return data, test, train, sub, oracle, generate_seconds


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-matches", type=int, default=200_000)
    parser.add_argument("--n-players", type=int, default=5_000)
    parser.add_argument("--n-tournaments", type=int, default=20)
    parser.add_argument("--subsample", type=int, default=10_000, help="matches NUTS is fitted on")
    parser.add_argument("--draws", type=int, default=500, help="draws per chain (NUTS and ADVI)")
    parser.add_argument("--tune", type=int, default=500, help="NUTS tuning steps per chain")
    parser.add_argument("--chains", type=int, default=2)
    parser.add_argument(
        "--full-nuts",
        type=int,
        nargs=3,
        default=(1000, 1000, 4),
        metavar=("DRAWS", "TUNE", "CHAINS"),
        help="NUTS on every training match, sampled as the estimator's defaults "
        "(draws, tune and chains; 0 draws skips it)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="20,000 matches, 500 players")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if args.quick:
        args.n_matches, args.n_players, args.n_tournaments = 20_000, 500, 10
        args.subsample, args.draws, args.tune = 4_000, 200, 200
        args.full_nuts = (200, 200, 2)

    from skcodex.metrics import brier_score

    data, test, train, sub, oracle, generate_seconds = benchmark_data(args)
    X, y = data.X, data.y
    print(
        f"{len(X):,} matches among {args.n_players:,} players in {args.n_tournaments} "
        f"tournaments (generated in {generate_seconds:.0f} s); held out: the last tournament, "
        f"{len(test):,} matches; subsample: {len(sub):,} matches.",
        flush=True,
    )

    small = (args.draws, args.tune, args.chains)
    runs = [
        ("nuts", "subsample", small),
        ("advi", "subsample", small),
        ("advi", "full", small),
        ("elo", "full", small),
    ]
    if args.full_nuts[0] > 0:
        runs.insert(3, ("nuts", "full", tuple(args.full_nuts)))
    results = []
    with tempfile.TemporaryDirectory(prefix="skcodex-bench-") as folder:
        X.to_pickle(os.path.join(folder, "X.pkl"))
        np.save(os.path.join(folder, "y.npy"), y)
        np.save(os.path.join(folder, "test.npy"), test)
        np.save(os.path.join(folder, "full.npy"), train)
        np.save(os.path.join(folder, "subsample.npy"), sub)
        for method, kind, sampling in runs:
            print(f"fitting {method} on the {kind} ...", flush=True)
            out = _run(folder, kind, method, sampling, args.seed)
            p = np.load(os.path.join(folder, f"p_{kind}_{method}.npy"))
            out.update(
                sampling=dict(zip(("draws", "tune", "chains"), sampling)),
                method=method,
                data=kind,
                n_train=int(len(sub) if kind == "subsample" else len(train)),
                brier=brier_score(y[test], p),
            )
            results.append(out)
        p_nuts = np.load(os.path.join(folder, "p_subsample_nuts.npy"))
        p_advi = np.load(os.path.join(folder, "p_subsample_advi.npy"))
    gap = np.abs(p_advi - p_nuts)

    width = 82
    print()
    print(
        f"{'run':<18}{'matches':>9}{'fit (s)':>9}{'peak MB':>9}{'fit MB':>8}{'Brier':>9}"
        f"{'min ESS':>10}{'R-hat':>10}"
    )
    print("-" * width)
    for r in results:
        added = r["peak_rss_mb"] - r["rss_before_mb"]
        ess = f"{r['min_ess_bulk']:>10.0f}{r['max_rhat']:>10.3f}" if "max_rhat" in r else ""
        print(
            f"{r['method'] + ', ' + r['data']:<18}{r['n_train']:>9,}{r['fit_seconds']:>9.0f}"
            f"{r['peak_rss_mb']:>9.0f}{added:>8.0f}{r['brier']:>9.4f}{ess}"
        )
    print(f"{'true probabilities':<18}{'':>9}{'':>9}{'':>9}{'':>8}{oracle:>9.4f}")
    print("-" * width)
    print(
        f"ADVI vs NUTS on the subsample: |P(win) difference| mean {gap.mean():.4f}, "
        f"90th percentile {np.quantile(gap, 0.9):.4f}, max {gap.max():.4f}"
    )
    from skcodex._matchup.graph import SPREADS

    truth = {k: float(data.params["sd"][k]) for k in SPREADS}
    print("spreads (posterior mean):" + "".join(f"{k:>8}" for k in SPREADS))
    print(f"  {'truth':<18}" + "".join(f"{truth[k]:>8.3f}" for k in SPREADS))
    for r in results:
        if "spread_mean" in r:
            name = f"{r['method']}, {r['data']}"
            print(f"  {name:<18}" + "".join(f"{v:>8.3f}" for v in r["spread_mean"][:4]))

    import skcodex

    report = {
        "benchmark": "large_data",
        "skcodex_version": skcodex.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "n_matches": args.n_matches,
        "n_players": args.n_players,
        "n_tournaments": args.n_tournaments,
        "n_test": len(test),
        "subsample": len(sub),
        "draws": args.draws,
        "tune": args.tune,
        "chains": args.chains,
        "generate_seconds": generate_seconds,
        "oracle_brier": oracle,
        "true_spreads": dict(truth),
        "advi_vs_nuts_abs_diff": {
            "mean": float(gap.mean()),
            "q90": float(np.quantile(gap, 0.9)),
            "max": float(gap.max()),
        },
        "runs": results,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwrote {args.output}")
    return report


if __name__ == "__main__":
    pd.set_option("display.width", 120)
    main()
