"""Prediction speed: ``predict_proba`` on 100,000 matches with 4,000 posterior draws.

A model is fitted (4 chains x 1,000 draws = 4,000 draws) to 2,000 synthetic
matches; ``predict_proba`` then scores 100,000 new matches of the same
synthetic league (``make_matches`` defaults: 40 players, 3 decks each). Reported:

- ``predict_proba`` end to end (median of repeats), split into reading and
  encoding the match table and computing the probabilities;
- the probability part with numba kernels and with the NumPy fallback;
- the probability part for the worst case, 100,000 matches that share no
  index row and no deck pair (nothing to de-duplicate);
- the implementation this replaced (one ``(chunk, 18, n_draws)`` gather,
  ``einsum``, ``scipy.special.expit``), timed once on the same matches;
- the extra memory at peak (``tracemalloc``, which sees NumPy's buffers), and
  the largest difference from ``expit(theta[:, index] @ signs).mean(0)`` on a
  sample of matches.

Usage::

    python benchmarks/predict_speed.py [--repeats 3] [--matches 100000]

Writes ``benchmarks/results/predict_speed.json`` and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import sys
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fit_speed import STATIC, Timer, machine, markdown, median, write_results

MiB = 2**20


def previous_mean_win_probability(theta, index, signs):
    """The implementation this replaced, kept here as the baseline."""
    from scipy.special import expit

    theta_t = np.ascontiguousarray(theta.T)
    n_draws, width = theta.shape[0], index.shape[1]
    step = max(1, 64 * MiB // (8 * n_draws * width))
    out = np.empty(len(index))
    for start in range(0, len(index), step):
        q = np.einsum("mjs,j->ms", theta_t[index[start : start + step]], signs)
        out[start : start + step] = expit(q).mean(axis=1)
    return out


def timed(fn, repeats):
    """Median seconds over ``repeats`` calls, the last result, and the peak extra memory."""
    seconds = []
    for _ in range(repeats):
        with Timer() as t:
            out = fn()
        seconds.append(t.seconds)
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return median(seconds), seconds, out, peak / MiB


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--train", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-previous", action="store_true")
    args = parser.parse_args(argv)

    from scipy.special import expit
    from sklearn.exceptions import ConvergenceWarning

    from skcodex import BayesianMatchupClassifier
    from skcodex._matchup.graph import Layout
    from skcodex._matchup.prediction import mean_win_probability, unique_rows
    from skcodex.data import check_match_table, encode
    from skcodex.datasets import make_matches

    warnings.simplefilter("ignore", ConvergenceWarning)
    train = make_matches(n_matches=args.train, random_state=0)
    # the static model, as measured in docs/speed.md (Layout below is built without a walk)
    clf = BayesianMatchupClassifier(random_state=0, **STATIC).fit(train.X, train.y)
    X = make_matches(n_matches=args.matches, random_state=1).X
    theta = clf.effect_draws_
    results: dict = {"machine": machine(), "settings": vars(args), "n_draws": theta.shape[0]}
    print(f"draws: {theta.shape[0]}, effects: {theta.shape[1]}, matches: {len(X)}", flush=True)

    def encode_only():
        table = check_match_table(X, clf.catalogue)
        codes = encode(table, clf.vocabulary_)
        layout = Layout(
            codes.n_players,
            codes.n_starters,
            codes.n_specs,
            clf.layout_.specs_per_deck,
            clf.layout_.options,
        )
        return layout.index_matrix(codes), layout

    index, layout = encode_only()
    assert layout == clf.layout_, "the new matches should use only fitted levels"
    signs = layout.signs
    rows_distinct = len(unique_rows(index)[0])
    pairs_distinct = len(unique_rows(index[:, 2:])[0])
    results.update(distinct_rows=rows_distinct, distinct_deck_pairs=pairs_distinct)
    print(f"distinct index rows {rows_distinct}, distinct deck pairs {pairs_distinct}", flush=True)

    mean_win_probability(theta[:8], index[:50], signs)  # load or compile the kernels
    table_rows = []

    def add(name, fn, repeats=args.repeats):
        sec, runs, out, peak = timed(fn, repeats)
        row = {"task": name, "seconds": sec, "runs": len(runs), "peak_mib": peak}
        table_rows.append(row)
        print(row, flush=True)
        return out

    add("predict_proba, end to end", lambda: clf.predict_proba(X))
    add("  reading and encoding the table", encode_only)
    add("  probabilities (numba)", lambda: mean_win_probability(theta, index, signs))
    add(
        "  probabilities (NumPy fallback)",
        lambda: mean_win_probability(theta, index, signs, engine="numpy"),
    )

    # The worst case: every match reads its own index row and deck pair.
    rng = np.random.default_rng(3)
    n = len(index)
    worst = np.column_stack(
        [
            rng.integers(0, layout.n_players, size=(n, 2)),
            rng.integers(layout.n_players, layout.size, size=(n, index.shape[1] - 2)),
        ]
    )
    results["worst_case_distinct_rows"] = len(unique_rows(worst)[0])
    add(
        "probabilities, worst case: no repeated rows or deck pairs (numba)",
        lambda: mean_win_probability(theta, worst, signs),
        repeats=1,
    )
    if not args.skip_previous:
        add(
            "probabilities, previous implementation (einsum + scipy expit)",
            lambda: previous_mean_win_probability(theta, index, signs),
            repeats=1,
        )

    sample = np.random.default_rng(0).choice(n, size=2000, replace=False)
    reference = expit(theta[:, index[sample]] @ signs).mean(axis=0)
    fast = clf.predict_proba(X)[sample, 1]
    numpy = mean_win_probability(theta, index[sample], signs, engine="numpy")
    results["max_abs_difference_from_reference"] = {
        "numba": float(np.abs(fast - reference).max()),
        "numpy": float(np.abs(numpy - reference).max()),
    }
    results["table"] = table_rows
    cols = [
        ("task", "task", ""),
        ("seconds", "seconds (median)", ".2f"),
        ("runs", "runs", "d"),
        ("peak_mib", "peak extra memory MiB", ".0f"),
    ]
    print("\n" + markdown(table_rows, cols))
    print("\nmax |difference| from the reference:", results["max_abs_difference_from_reference"])
    print("\nwrote", write_results("predict_speed", results))


if __name__ == "__main__":
    main()
