"""The scaling series: NUTS on 1,000 to 50,000 synthetic matches among 40 players.

For each table size (``make_matches`` with its defaults: 40 players, the base
catalogue, 10 tournaments), one fit the way ``BayesianMatchupClassifier.fit``
samples it (the matches collapsed to distinct rows, `skcodex._matchup.sampling.sample_posterior`
with nutpie, 4 chains x 1,000 + 1,000 draws by default) is timed from the
encoded table to the posterior, and judged by the minimum bulk ESS and the
maximum R-hat over every standardised effect (each effect over its spread) and
every log-spread (`skcodex._matchup.diagnostics.monitored_draws`), with the divergences,
the leapfrog steps per draw and the posterior means of the spreads beside the
truth the matches were drawn with. The compiled model is built (or read from
the disk cache) before the first timed fit, so the times are sampling times.

``--geometry`` picks how the effects are sampled (`skcodex._matchup.geometry`): ``auto``
(the default of a fit), ``noncentred`` or ``centred``; ``--low-rank`` turns on
nutpie's low-rank modified mass-matrix adaptation. Run with
``PYTHONPATH=<an older checkout>`` and ``--geometry none`` it measures that
checkout (which has no choice of geometry) the same way.

Usage::

    python benchmarks/scaling_series.py --label after [--sizes 1000 5000 20000 50000]

Appends its rows to ``benchmarks/results/scaling_series.json`` (keyed by label
and size) and prints the Markdown table of every row stored there; the load
average of the machine before and after each fit is recorded beside it.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

RESULTS = Path(__file__).resolve().parent / "results" / "scaling_series.json"


def table(n_matches: int, seed: int = 0):
    """Index rows, trials, outcome sums, layout and true spreads of a ``make_matches`` table."""
    from skcodex._matchup.layout import Layout, collapse_matches
    from skcodex.data import Vocabulary, check_match_table, encode
    from skcodex.datasets import make_matches

    data = make_matches(n_matches=n_matches, random_state=seed)
    frame = check_match_table(data.X)
    vocab = Vocabulary.from_table(frame)
    layout = Layout(*vocab.sizes, vocab.specs_per_deck)
    index = layout.index_matrix(encode(frame, vocab))
    rows, trials, totals = collapse_matches(index, np.asarray(data.y, dtype=float))
    return rows, trials, totals, layout, _true_spreads(data)


def _true_spreads(data) -> dict[str, float]:
    """The spreads ``make_matches`` drew its effects with, where it reports them."""
    truth = getattr(data, "truth", None) or getattr(data, "params", None)
    if truth is None:
        return {}
    spreads = truth.get("sd") if isinstance(truth, dict) else getattr(truth, "sd", None)
    if isinstance(spreads, dict):
        return {k: float(v) for k, v in spreads.items()}
    return {}


def fit_once(n_matches: int, args) -> dict:
    """One timed fit of the ``n_matches`` table and its convergence figures."""
    from skcodex._compat.posterior import from_groups
    from skcodex._matchup import sampling as inference
    from skcodex._matchup.compile_cache import precompile
    from skcodex._matchup.convergence_stats import convergence_statistics
    from skcodex._matchup.diagnostics import monitored_draws
    from skcodex._matchup.geometry import null_rotation
    from skcodex._matchup.graph import default_priors
    from skcodex._matchup.sampling import FitProblem, SamplingOptions, sample_posterior

    rows, trials, totals, layout, truth = table(n_matches)
    precompile(layout)
    precompile(layout, rotated=True)  # the variant data-rich tables take
    if args.null_rotation == "off":
        inference.null_rotation = lambda *a, **k: None
    elif args.null_rotation == "always":
        inference.null_rotation = functools.partial(null_rotation, min_richness=0.0)
    settings = dict(draws=args.draws, tune=args.tune, chains=args.chains, seed=args.seed)
    if args.geometry != "none":
        settings["parameterisation"] = args.geometry
    if args.low_rank:
        settings["low_rank_mass_matrix"] = True
    load_before = os.getloadavg()
    start = time.perf_counter()
    groups = sample_posterior(
        FitProblem(
            index=rows,
            outcome=totals,
            layout=layout,
            priors=default_priors(layout.options),
            sampling=SamplingOptions(**settings),
            trials=trials,
        )
    )
    seconds = time.perf_counter() - start
    load_after = os.getloadavg()
    post, stats = groups["posterior"], groups["sample_stats"]
    monitored = monitored_draws(from_groups({"posterior": post}), layout)
    ess, rhat = {}, {}
    for name, values in monitored.items():
        found = convergence_statistics(values.reshape(values.shape[0], values.shape[1], -1))
        ess[name] = float(np.nanmin(found["ess_bulk"]))
        rhat[name] = float(np.nanmax(found["rhat"]))
    sd = post["sd"].mean(("chain", "draw"))
    return {
        "matches": n_matches,
        "distinct_rows": len(rows),
        "seconds": seconds,
        "min_ess_bulk": min(ess.values()),
        "max_rhat": max(rhat.values()),
        "min_ess_bulk_by_block": ess,
        "max_rhat_by_block": rhat,
        "divergences": int(np.asarray(stats["diverging"]).sum()),
        "steps_per_draw": float(np.asarray(stats["n_steps"]).mean()),
        "spread_means": {str(k): float(v) for k, v in zip(post["spread"].values, sd.values)},
        "true_spreads": truth,
        "null_directions": int(post.attrs.get("null_directions", 0)),
        "centred_levels": {
            k.removeprefix("centred_"): v for k, v in post.attrs.items() if k.startswith("centred_")
        },
        "load_average_before": list(load_before),
        "load_average_after": list(load_after),
        "seed": args.seed,
        "chains": args.chains,
        "draws": args.draws,
        "tune": args.tune,
        "geometry": args.geometry,
        "low_rank": bool(args.low_rank),
        "null_rotation": args.null_rotation,
    }


def load_results(path: Path = RESULTS) -> dict:
    return json.loads(path.read_text()) if path.exists() else {"rows": []}


def render(results: dict) -> str:
    head = (
        "| code | matches | distinct rows | wall s | min bulk ESS | max R-hat | divergences "
        "| steps/draw | levels centred | null directions turned "
        "| load average (1 min, before / after) |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|"
    )
    lines = [head]
    for r in results["rows"]:
        centred = ", ".join(f"{k} {v}" for k, v in r["centred_levels"].items() if v) or "none"
        lines.append(
            f"| {r['label']} | {r['matches']:,} | {r['distinct_rows']:,} | {r['seconds']:.1f} "
            f"| {r['min_ess_bulk']:.0f} | {r['max_rhat']:.3f} | {r['divergences']} "
            f"| {r['steps_per_draw']:.1f} | {centred} | {r.get('null_directions', 0)} "
            f"| {r['load_average_before'][0]:.1f} / {r['load_average_after'][0]:.1f} |"
        )
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", required=True, help="name of this code/settings in the table")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 5_000, 20_000, 50_000])
    parser.add_argument("--draws", type=int, default=1_000)
    parser.add_argument("--tune", type=int, default=1_000)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--geometry", choices=["auto", "noncentred", "centred", "none"], default="auto"
    )
    parser.add_argument("--low-rank", action="store_true")
    parser.add_argument(
        "--null-rotation",
        choices=["auto", "off", "always"],
        default="auto",
        help="turn the directions no match reads apart as the estimator does (auto), never, "
        "or whatever the table's richness (skcodex._matchup.geometry.null_rotation)",
    )
    parser.add_argument("--results", type=Path, default=RESULTS, help="JSON file to add rows to")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    for n in args.sizes:
        row = {"label": args.label, **fit_once(n, args)}
        results = load_results(args.results)
        results["rows"] = [
            r for r in results["rows"] if (r["label"], r["matches"]) != (args.label, n)
        ] + [row]
        args.results.parent.mkdir(exist_ok=True)
        args.results.write_text(json.dumps(results, indent=1))
        print(render({"rows": [row]}).splitlines()[-1], flush=True)
    print(render(load_results(args.results)))


if __name__ == "__main__":
    main()
