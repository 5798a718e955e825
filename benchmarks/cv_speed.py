"""Cross-validation speed: refits swap data and priors into one compiled model.

On the 771 real matches, with the default sampler settings (4 chains x 1,000
tuning + 1,000 draws):

1. one fit's sampling time (the model already compiled; the time inside the
   sampler, median of repeats) and its whole ``fit`` time (sampling plus
   encoding, convergence checks and bookkeeping);
2. a 5-fold ``TimeSeriesSplit`` ``cross_val_score``, twice: the first pass
   meets the folds' smaller vocabularies (their padded layouts may need a
   compile, from the disk cache or fresh), the second finds every compiled
   model in memory;
3. a ``GridSearchCV`` over 3 prior settings x 3 ``TimeSeriesSplit`` folds
   (plus the refit on all data), with ``n_jobs=1`` and ``n_jobs=2`` (loky
   worker processes, each with its own in-memory cache).

Each is reported as wall time, as a multiple of one fit's sampling time (the
targets: 5.5x and 10x), as a multiple of one whole fit, and with the number
of compilations it caused in this process.

Usage::

    python benchmarks/cv_speed.py [--repeats 2] [--draws 1000]

Writes ``benchmarks/results/cv_speed.json`` and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fit_speed import STATIC, Timer, encoded, load_real, machine, markdown, median, write_results


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--tune", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import GridSearchCV, TimeSeriesSplit, cross_val_score

    from skcodex import BayesianMatchupClassifier, brier_scorer
    from skcodex._matchup import sampling as inference
    from skcodex._matchup.compile_cache import compile_count, precompile
    from skcodex._matchup.padding import padded_layout

    warnings.simplefilter("ignore", ConvergenceWarning)
    X, y, catalogue = load_real()
    _, _, layout = encoded(X, y, catalogue)
    clf = BayesianMatchupClassifier(  # the static model: the layout precompiled above
        draws=args.draws, tune=args.tune, random_state=args.seed, catalogue=catalogue, **STATIC
    )
    results: dict = {"machine": machine(), "settings": vars(args), "n_matches": len(y)}

    with Timer() as t:
        precompile(layout)
    results["compile_s"] = t.seconds
    sampling: list[float] = []
    sampler = inference._sample_nutpie

    def timed_sampler(*a, **k):
        with Timer() as t:
            out = sampler(*a, **k)
        sampling.append(t.seconds)
        return out

    fits = []
    inference._sample_nutpie = timed_sampler
    try:
        for _ in range(args.repeats):
            with Timer() as t:
                clf.fit(X, y)
            fits.append(t.seconds)
    finally:
        inference._sample_nutpie = sampler
    one_fit, one_sampling = median(fits), median(sampling)
    results["fit_s"], results["sampling_s"] = fits, sampling
    print(f"one fit (compiled): {fits} s, of which sampling {sampling} s", flush=True)

    folds = []
    for train, _ in TimeSeriesSplit(5).split(X):
        _, _, fold_layout = encoded(X.iloc[train], y[train], catalogue)
        folds.append(
            {
                "n_train": len(train),
                "n_players": fold_layout.n_players,
                "bucket_players": padded_layout(fold_layout).n_players,
            }
        )
    results["folds"] = folds

    rows = []

    def measure(name, run, ratio_limit=None):
        before = compile_count()
        with Timer() as t:
            out = run()
        row = {
            "task": name,
            "wall_s": t.seconds,
            "ratio": t.seconds / one_sampling,
            "ratio_fit": t.seconds / one_fit,
            "compiles": compile_count() - before,
            "limit": ratio_limit,
        }
        rows.append(row)
        print(row, flush=True)
        return out

    for attempt in ("first pass", "second pass"):
        scores = measure(
            f"cross_val_score, TimeSeriesSplit(5), {attempt}",
            lambda: cross_val_score(clf, X, y, cv=TimeSeriesSplit(5), scoring=brier_scorer),
            5.5,
        )
        results.setdefault("cv_scores", []).append(np.asarray(scores).tolist())

    grid = [{"log_sd_player_scale": [0.25, 0.5, 1.0]}]
    for n_jobs in (1, 2):
        search = GridSearchCV(
            clf, grid, cv=TimeSeriesSplit(3), scoring=brier_scorer, n_jobs=n_jobs, refit=True
        )
        name = f"GridSearchCV 3 priors x 3 folds + refit, n_jobs={n_jobs}"
        measure(name, lambda search=search: search.fit(X, y), 10)
        results.setdefault("grid_scores", []).append(
            np.asarray(search.cv_results_["mean_test_score"]).tolist()
        )

    results["one_fit_s"], results["one_sampling_s"] = one_fit, one_sampling
    results["table"] = rows
    cols = [
        ("task", "task", ""),
        ("wall_s", "wall s", ".1f"),
        ("ratio", "x one fit's sampling", ".2f"),
        ("limit", "target", ".1f"),
        ("ratio_fit", "x one whole fit", ".2f"),
        ("compiles", "compiles here", "d"),
    ]
    print(
        f"\none fit: {one_fit:.1f} s, its sampling {one_sampling:.1f} s (medians of {len(fits)})\n"
    )
    print(markdown(rows, cols))
    print("\nfolds:", folds)
    print("\nwrote", write_results("cv_speed", results))


if __name__ == "__main__":
    main()
