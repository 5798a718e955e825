"""What ADVI loses on a metagame whose deck components co-occur: spreads and effect sds.

The data: `skcodex.datasets.make_matches` with 40 players and one deck each
(about 40 distinct decks of base Codex, so starters and specs appear together
in a few fixed combinations), 5,000 matches by default, the default true
spreads (player 0.8, stst 0.4, stsp 0.25, spsp 0.15). On the same data the
script fits

- ``nuts``: the reference (4 chains x 500 + 500 by default);
- ``advi``: ``method="advi"``, mean-field ADVI;
- ``fullrank_advi``: ADVI with a normal of full covariance (PyMC's
  ``FullRankADVI``, `skcodex._matchup.approximation.advi_posterior` with ``full_rank=True``;
  not a ``method`` of the estimator);
- ``pathfinder``: multi-path Pathfinder (pymc-extras' ``fit_pathfinder``, 4
  paths, PSIS importance resampling of their draws) on the model of
  `skcodex._matchup.graph.build_model` with one term per distinct match row; its
  approximation of each path is a normal whose covariance is diagonal plus
  low rank (from L-BFGS's history). Not a ``method`` of the estimator: it
  needs ``pymc-extras``, a benchmark extra (``pip install -e ".[bench]"``).

and reports, for each, the wall time of the fit (compilation included; the
median of ``--repeats`` fits for the approximations, which give the same draws
for the same seed each time), the posterior means of the four spreads, and the
posterior sds of the deck effects against NUTS's: per block (stst; stsp and
spst together; spsp), the median over the levels the matches read of the
ratio of the method's posterior sd to NUTS's, and the same for the deck part
``m`` of the log-odds of every distinct deck pair played. It also lists the
root mean square of the posterior sd of each block's standard normals ``z``
(what `skcodex._matchup.approximation.shrunk_blocks` reads) and the spreads the fit
warned about.

Run ``python benchmarks/advi_spreads.py`` (a few minutes on two cores;
``--matches``, ``--seed``, ``--repeats`` to vary). It prints a Markdown table
and writes ``benchmarks/results/advi_spreads.json`` (or ``--name``).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"
SPREADS = ("player", "stst", "stsp", "spsp")
# Effect blocks compared, by the spread they are drawn with.
BLOCKS = {"stst": ("stst",), "stsp": ("stsp", "spst"), "spsp": ("spsp",)}


def _fit(method: str, data, args):
    from sklearn.exceptions import ConvergenceWarning

    from skcodex import BayesianMatchupClassifier
    from skcodex._matchup import approximation as approximate
    from skcodex._matchup.approximation import ApproximationWarning

    settings = {"draws": args.draws, "tune": args.tune, "chains": args.chains}
    settings.update(time_varying=False, debut=False)  # the static model, ADVI's and NUTS's alike
    # Full-rank ADVI is not a `method` of the estimator: fit "advi" with full_rank=True.
    estimator_method = "advi" if method == "fullrank_advi" else method
    clf = BayesianMatchupClassifier(method=estimator_method, random_state=args.seed, **settings)
    mean_field = approximate.advi_posterior
    if method == "fullrank_advi":
        approximate.advi_posterior = functools.partial(mean_field, full_rank=True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            start = time.perf_counter()
            clf.fit(data.X, data.y)
            seconds = time.perf_counter() - start
    finally:
        approximate.advi_posterior = mean_field
    warned = [str(w.message) for w in caught if issubclass(w.category, ApproximationWarning)]
    unconverged = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
    return clf, seconds, warned, unconverged


class _Draws:
    """The parts of a fitted estimator `_summary` reads, from another fit's draws."""

    def __init__(self, layout, log_sd: np.ndarray, z: np.ndarray) -> None:
        self.layout_ = layout
        self.spread_draws_ = np.exp(log_sd)
        self.effect_draws_ = layout.theta(z, self.spread_draws_)


def _pathfinder(data, args):
    """Multi-path Pathfinder on the estimator's layout: (draws, seconds, encoded index)."""
    import pymc_extras as pmx

    from skcodex._matchup.graph import build_model, default_priors
    from skcodex._matchup.layout import Layout, collapse_matches
    from skcodex.data import Vocabulary, check_match_table, encode

    start = time.perf_counter()
    table = check_match_table(data.X)
    vocab = Vocabulary.from_table(table)
    layout = Layout(*vocab.sizes, vocab.specs_per_deck)
    index = layout.index_matrix(encode(table, vocab))
    rows, trials, totals = collapse_matches(index, np.asarray(data.y, dtype=float))
    model = build_model(rows, totals, layout, default_priors(layout.options), trials=trials)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        idata = pmx.fit(
            method="pathfinder",
            model=model,
            num_paths=4,
            num_draws=args.draws * args.chains,
            random_seed=args.seed,
            progressbar=False,
            concurrent=None,
            display_summary=False,
        )
    seconds = time.perf_counter() - start
    post = idata.posterior
    log_sd = post["log_sd"].to_numpy().reshape(-1, len(layout.spreads))
    z = post["z"].to_numpy().reshape(-1, layout.n_free)
    return _Draws(layout, log_sd, z), seconds, index


def _read_levels(clf, X) -> np.ndarray:
    from skcodex.data import check_match_table, encode

    table = check_match_table(X, clf.catalogue_)
    return clf.layout_.index_matrix(encode(table, clf.vocabulary_))


def _summary(clf, index: np.ndarray) -> dict:
    """Spread means, per-level effect sds, deck-pair matchup sds and z sds of one fit."""
    layout = clf.layout_
    effects = clf.effect_draws_
    spreads = clf.spread_draws_
    names = list(layout.spreads)
    out = {"spread_mean": {s: float(spreads[:, names.index(s)].mean()) for s in SPREADS}}
    read = np.unique(index)
    z = effects / spreads[:, np.where(layout.group < 0, 0, layout.group)]
    out["effect_sd"], out["z_rms_sd"] = {}, {}
    for spread, blocks in BLOCKS.items():
        levels = []
        for block in blocks:
            start = layout.offsets[block]
            stop = start + int(np.prod(layout.shapes[block]))
            levels.extend(int(i) for i in read if start <= i < stop)
        out["effect_sd"][spread] = effects[:, levels].std(axis=0).tolist()
        out["z_rms_sd"][spread] = float(np.sqrt(np.mean(z[:, levels].std(axis=0) ** 2)))
    player = np.unique(index[:, :2])
    out["z_rms_sd"]["player"] = float(np.sqrt(np.mean(z[:, player].std(axis=0) ** 2)))
    deck_columns = index[:, 2 : 2 + layout.n_deck_effects]
    pairs = np.unique(deck_columns, axis=0)
    out["n_deck_pairs"] = len(pairs)
    out["matchup_sd"] = effects[:, pairs].sum(axis=-1).std(axis=0).tolist()
    return out


def _ratios(summary: dict, reference: dict) -> dict:
    """Median (and 10th percentile) of each per-level sd over NUTS's."""
    out = {}
    for key in (*BLOCKS, "matchup"):
        mine = summary["matchup_sd"] if key == "matchup" else summary["effect_sd"][key]
        ref = reference["matchup_sd"] if key == "matchup" else reference["effect_sd"][key]
        ratio = np.asarray(mine) / np.asarray(ref)
        out[key] = {"median": float(np.median(ratio)), "p10": float(np.quantile(ratio, 0.1))}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=5000)
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--decks-per-player", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--tune", type=int, default=500)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=1, help="fits per approximation")
    parser.add_argument("--methods", default="nuts,advi,fullrank_advi")
    parser.add_argument(
        "--steps",
        type=int,
        default=None,
        help="ADVI steps (default: skcodex._matchup.approximation.STEPS)",
    )
    parser.add_argument("--name", default="advi_spreads")
    parser.add_argument(
        "--reference",
        default=None,
        help="an earlier result (JSON) on the same data whose runs are kept, e.g. its NUTS",
    )
    args = parser.parse_args()

    import pandas as pd

    from skcodex._compat import posterior
    from skcodex._matchup import approximation as approximate
    from skcodex.datasets import make_matches

    if args.steps is not None:
        approximate.STEPS = args.steps

    data = make_matches(
        n_players=args.players,
        n_matches=args.matches,
        n_tournaments=10,
        decks_per_player=args.decks_per_player,
        random_state=args.seed,
    )
    n_decks = int(pd.concat([data.X["deck1"], data.X["deck2"]]).nunique())
    truth = {s: float(data.params["sd"][s]) for s in SPREADS}
    runs = {}
    if args.reference:
        earlier = json.loads(Path(args.reference).read_text())
        if earlier["data"]["matches"] != args.matches or earlier["data"]["seed"] != args.seed:
            raise SystemExit("--reference was run on other data")
        runs = {m: r for m, r in earlier["runs"].items() if m not in args.methods.split(",")}
        for method, run in runs.items():
            if method != "nuts":
                run.setdefault("steps", earlier["settings"].get("steps") or approximate.STEPS)
    for method in args.methods.split(","):
        repeats = 1 if method == "nuts" else args.repeats
        times, load = [], os.getloadavg()[0]
        for _ in range(repeats):
            if method == "pathfinder":
                clf, seconds, index = _pathfinder(data, args)
                warned, unconverged = [], []
            else:
                clf, seconds, warned, unconverged = _fit(method, data, args)
            times.append(seconds)
        if method == "pathfinder":
            attrs = {}
        else:
            index = _read_levels(clf, data.X)
            attrs = posterior.group(clf.idata_, "posterior").attrs
        runs[method] = {
            **({"steps": attrs["advi_steps"]} if "advi_steps" in attrs else {}),
            "seconds": times,
            "median_seconds": statistics.median(times),
            "load_before": load,
            "warned": warned,
            "convergence_warnings": unconverged,
            **_summary(clf, index),
        }
        print(f"{method}: {statistics.median(times):.1f} s", file=sys.stderr, flush=True)
    if "nuts" in runs:
        for run in runs.values():
            run["sd_ratio_to_nuts"] = _ratios(run, runs["nuts"])
    result = {
        "data": {
            "matches": args.matches,
            "players": args.players,
            "distinct_decks": n_decks,
            "distinct_deck_pairs": runs[next(iter(runs))]["n_deck_pairs"],
            "seed": args.seed,
        },
        "truth": truth,
        "settings": vars(args),
        "python": platform.python_version(),
        "machine": {"cpus": os.cpu_count()},
        "runs": runs,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.name}.json").write_text(json.dumps(result, indent=1) + "\n")
    print(table(result))


def table(result: dict) -> str:
    """The Markdown table of one run."""
    head = (
        "| method | fit (s) | sd player | sd stst | sd stsp | sd spsp "
        "| effect sd / NUTS: stst | stsp | spsp | deck-pair matchup | warns about |"
    )
    lines = [head, "|" + "---|" * 11]
    truth = result["truth"]
    lines.append("| truth | | " + " | ".join(f"{truth[s]:.3f}" for s in SPREADS) + " | | | | | |")
    for method, run in result["runs"].items():
        ratio = run.get("sd_ratio_to_nuts", {})
        cells = [
            f"{ratio[k]['median']:.2f} ({ratio[k]['p10']:.2f})" if k in ratio else ""
            for k in (*BLOCKS, "matchup")
        ]
        warned = ", ".join(s for s in SPREADS if any(f"sd_{s}" in m for m in run["warned"]))
        lines.append(
            f"| {method} | {run['median_seconds']:.1f} | "
            + " | ".join(f"{run['spread_mean'][s]:.3f}" for s in SPREADS)
            + " | "
            + " | ".join(cells)
            + f" | {warned} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
