"""Matches as binomial counts: distinct index rows per table, and what they save.

Matches that read the same effects (same players, decks, first-move and
period cells: the same row of the index matrix) enter the model as one
binomial term (`skcodex._matchup.layout.collapse_matches`). For each benchmark table
this script reports the number of matches and of distinct rows, and times

- one log-density-and-gradient evaluation of the model (PyTensor's compiled
  function of `skcodex._matchup.graph.build_model`, median of many calls) with one term
  per match and with one per distinct row;
- a NUTS fit (`skcodex._matchup.sampling.sample_posterior`, nutpie, the same compiled
  model for both) on the same two data, median of repeats, with the number
  of draws given on the command line (fewer than the estimator's defaults,
  to keep the run short on a shared machine).

Tables: the default-filtered codexdata matches; the scaling series of
docs/speed.md (``make_matches``: 40 players, base catalogue, 1,000, 5,000,
20,000 and 50,000 matches); the series of benchmarks/large_data.py (200,000
matches among 5,000 players, its training matches and its 10,000-match
subsample).

Usage::

    python benchmarks/distinct_rows.py [--fit-tables 5000 20000] [--repeats 2]

Writes ``benchmarks/results/distinct_rows.json`` and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fit_speed import CODEXDATA, machine, markdown, median, write_results


def encoded(X):
    """The index matrix and layout the estimator's default fit builds for ``X``."""
    from skcodex._matchup.layout import Layout
    from skcodex.data import Vocabulary, check_match_table, encode

    table = check_match_table(X)
    vocab = Vocabulary.from_table(table)
    codes = encode(table, vocab)
    layout = Layout(*vocab.sizes, vocab.specs_per_deck)
    return layout.index_matrix(codes), layout


def tables(args):
    """(name, X, y) of every benchmark table."""
    from skcodex.datasets import load_codex_matches, make_matches

    out = []
    codex = load_codex_matches(args.codexdata)
    out.append(("codexdata (default filter)", codex.X, codex.y))
    for n in (1_000, 5_000, 20_000, 50_000):
        data = make_matches(n_matches=n, random_state=0)
        out.append((f"scaling, {n:,} matches", data.X, data.y))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from large_data import benchmark_data

    large = argparse.Namespace(
        n_players=5_000, n_matches=200_000, n_tournaments=20, seed=0, subsample=10_000
    )
    data, _, train, sub, _, _ = benchmark_data(large)
    out.append(("large_data, training (5,000 players)", data.X.iloc[train], data.y[train]))
    out.append(("large_data, NUTS subsample", data.X.iloc[sub], data.y[sub]))
    return out


def gradient_seconds(index, y, layout, trials, n_calls):
    """Median seconds of one log density and gradient of the model, and its value."""
    import pytensor
    import pytensor.tensor as pt

    from skcodex._matchup.graph import build_model
    from skcodex._matchup.padding import embedding, padded_layout

    padded = padded_layout(layout)
    theta_pos, _ = embedding(layout, padded)
    model = build_model(theta_pos[index], y, padded, trials=trials)
    logp = model.logp()
    inputs = model.value_vars
    fn = pytensor.function(inputs, [logp, *pt.grad(logp, inputs)])
    rng = np.random.default_rng(0)
    start = model.initial_point()
    point = [start[v.name] + rng.normal(0, 0.3, np.shape(start[v.name])) for v in inputs]
    fn(*point)
    times = []
    for _ in range(n_calls):
        start = time.perf_counter()
        value = fn(*point)
        times.append(time.perf_counter() - start)
    return median(times), float(value[0])


def fit_seconds(index, y, layout, trials, args, seed):
    from skcodex._matchup.graph import default_priors
    from skcodex._matchup.sampling import FitProblem, SamplingOptions, sample_posterior

    options = SamplingOptions(
        draws=args.draws, tune=args.tune, chains=args.chains, seed=seed, cores=args.cores
    )
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        priors = default_priors(layout.options)
        sample_posterior(FitProblem(index, y, layout, priors, options, trials=trials))
    return time.perf_counter() - start


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--codexdata", type=Path, default=CODEXDATA)
    parser.add_argument("--calls", type=int, default=50, help="gradient calls per median")
    parser.add_argument("--fit-tables", type=int, nargs="*", default=[5_000, 20_000])
    parser.add_argument("--repeats", type=int, default=2, help="fits per median")
    parser.add_argument("--draws", type=int, default=300)
    parser.add_argument("--tune", type=int, default=300)
    parser.add_argument("--chains", type=int, default=2)
    parser.add_argument("--cores", type=int, default=2)
    args = parser.parse_args(argv)

    from skcodex._matchup.compile_cache import precompile
    from skcodex._matchup.layout import collapse_matches

    results = {"machine": machine(), "settings": {k: str(v) for k, v in vars(args).items()}}
    rows = []
    for name, X, y in tables(args):
        index, layout = encoded(X)
        y = np.asarray(y, dtype=float)
        start = time.perf_counter()
        distinct, trials, totals = collapse_matches(index, y)
        collapse = time.perf_counter() - start
        row = {
            "table": name,
            "matches": len(index),
            "distinct_rows": len(distinct),
            "share": len(distinct) / len(index),
            "collapse_seconds": collapse,
        }
        per_match, value_a = gradient_seconds(index, y, layout, None, args.calls)
        counted, value_b = gradient_seconds(distinct, totals, layout, trials, args.calls)
        row.update(
            gradient_ms_per_match=1e3 * per_match,
            gradient_ms_counts=1e3 * counted,
            gradient_speedup=per_match / counted,
            log_density_difference=abs(value_a - value_b),
        )
        n = len(index)
        if n in args.fit_tables and name.startswith("scaling"):
            precompile(layout)
            plain = [fit_seconds(index, y, layout, None, args, s) for s in range(args.repeats)]
            fast = [
                fit_seconds(distinct, totals, layout, trials, args, s) for s in range(args.repeats)
            ]
            row.update(
                fit_seconds_per_match=median(plain),
                fit_seconds_counts=median(fast),
                fit_speedup=median(plain) / median(fast),
                fit_runs=args.repeats,
            )
        rows.append(row)
        print(row, flush=True)
        results["table"] = rows
        write_results("distinct_rows", results)  # after every table: a partial run is kept
    results["table"] = rows
    cols = [
        ("table", "table", ""),
        ("matches", "matches", ",d"),
        ("distinct_rows", "distinct rows", ",d"),
        ("share", "share", ".2f"),
        ("gradient_ms_per_match", "log density + gradient, per match (ms)", ".3f"),
        ("gradient_ms_counts", "as counts (ms)", ".3f"),
        ("gradient_speedup", "speed-up", ".2f"),
        ("fit_seconds_per_match", "fit, per match (s)", ".1f"),
        ("fit_seconds_counts", "fit, as counts (s)", ".1f"),
        ("fit_speedup", "fit speed-up", ".2f"),
    ]
    print("\n" + markdown(rows, cols))
    print("\nwrote", write_results("distinct_rows", results))


if __name__ == "__main__":
    main()
