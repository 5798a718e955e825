"""Forecasts for never-seen players: ``predict_proba`` on 25,000 rows with 4,000 draws.

An estimator is given 4,000 posterior draws (`skcodex._matchup.fitting.from_effect_draws`:
spreads log-normal around the synthetic league's, effects drawn from them) in
the layout of ``make_matches`` (40 players, base catalogue), so that no fit is
needed; ``predict_proba`` then forecasts 25,000 matches of ``make_matches``'s
decks between players never seen in fit:

- ``both new``: two newcomers in every row (each row its own two names);
- ``one new``: a newcomer against a fitted player.

Reported per case: the median wall and CPU seconds of ``predict_proba`` over
repeats (CPU time tells the cost on a shared machine, where wall time waits), the
extra memory at peak (``tracemalloc``, which sees NumPy's buffers; the flat
effect view is computed before), and the spread of forecasts between two
seeds of the never-seen levels' draws (0 when they are integrated out).

The script uses only the public estimator, so it also measures an older
checkout: ``PYTHONPATH=/path/to/old python benchmarks/newcomer_speed.py
--label before``.

With ``--late-arrivals K`` the first K players are the fit's late arrivals
(``late_arrivals_``), and each case is timed with ``newcomer_skill="population"``
and ``"late arrivals"`` side by side, in turn within each repeat: what centring a
never-seen player's skill on the late arrivals costs.

Usage::

    python benchmarks/newcomer_speed.py [--repeats 3] [--label after] [--late-arrivals K]

Writes ``benchmarks/results/newcomer_speed.json`` (one entry per label) and
prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fit_speed import RESULTS, machine, markdown, median

MiB = 2**20


def estimator(n_draws: int, seed: int):
    """A classifier holding ``n_draws`` synthetic posterior draws for make_matches' league."""
    from skcodex import BayesianMatchupClassifier
    from skcodex._matchup import fitting
    from skcodex._matchup.layout import Layout
    from skcodex.data import Vocabulary, check_match_table
    from skcodex.datasets import make_matches

    train = make_matches(n_matches=2000, random_state=0)
    vocab = Vocabulary.from_table(check_match_table(train.X))
    layout = Layout(*vocab.sizes, vocab.specs_per_deck)
    rng = np.random.default_rng(seed)
    sd = np.exp(np.log([0.8, 0.4, 0.25, 0.15]) + rng.normal(0, 0.15, (n_draws, 4)))
    theta = rng.standard_normal((n_draws, layout.size)) * sd[:, layout.group]
    clf = BayesianMatchupClassifier()
    clf.idata_ = fitting.from_effect_draws(theta, sd, layout, n_chains=4)
    clf.vocabulary_, clf.layout_, clf._unseen_seed = vocab, layout, seed
    clf.classes_ = np.array([0, 1])
    _ = clf.effect_draws_  # the flat view, computed once, is not part of a forecast's cost
    return clf, train.X


def newcomer_tables(n: int, train_X: pd.DataFrame) -> dict[str, pd.DataFrame]:
    from skcodex.datasets import make_matches

    X = make_matches(n_matches=n, random_state=1).X
    decks = {"deck1": X["deck1"].to_numpy(), "deck2": X["deck2"].to_numpy()}
    known = np.resize(train_X["player2"].to_numpy(), n)
    return {
        "both new": pd.DataFrame(
            {
                "player1": [f"new{2 * i}" for i in range(n)],
                "player2": [f"new{2 * i + 1}" for i in range(n)],
                **decks,
            }
        ),
        "one new": pd.DataFrame(
            {"player1": [f"new{i}" for i in range(n)], "player2": known, **decks}
        ),
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=25_000)
    parser.add_argument("--draws", type=int, default=4_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--label", default="after")
    parser.add_argument("--cases", nargs="*", default=["both new", "one new"])
    parser.add_argument("--late-arrivals", type=int, default=0)
    args = parser.parse_args(argv)

    clf, train_X = estimator(args.draws, seed=9)
    other, _ = estimator(args.draws, seed=9)
    other._unseen_seed = 10  # the same draws, another seed for the never-seen levels
    settings = [None]
    if args.late_arrivals:
        settings = ["population", "late arrivals"]
        clf.late_arrivals_ = other.late_arrivals_ = np.arange(args.late_arrivals)
    clf.predict_proba(train_X.iloc[:5])  # load or compile the kernels
    rows = []
    for case, X in newcomer_tables(args.rows, train_X).items():
        if case not in args.cases:
            continue
        seconds = {s: [] for s in settings}
        cpu = {s: [] for s in settings}
        for _ in range(args.repeats):
            for setting in settings:  # side by side, in turn
                if setting:
                    clf.set_params(newcomer_skill=setting)
                start, start_cpu = time.perf_counter(), time.process_time()
                clf.predict_proba(X)
                seconds[setting].append(time.perf_counter() - start)
                cpu[setting].append(time.process_time() - start_cpu)
        for setting in settings:
            if setting:
                clf.set_params(newcomer_skill=setting)
                other.set_params(newcomer_skill=setting)
            p = clf.predict_proba(X)[:, 1]
            tracemalloc.start()
            tracemalloc.reset_peak()
            clf.predict_proba(X)
            peak = tracemalloc.get_traced_memory()[1] / MiB
            tracemalloc.stop()
            q = other.predict_proba(X)[:, 1]
            row = {
                "label": args.label,
                "case": case if setting is None else f"{case}, {setting}",
                "rows": len(X),
                "draws": args.draws,
                "seconds": median(seconds[setting]),
                "cpu_seconds": median(cpu[setting]),
                "runs": len(seconds[setting]),
                "peak_mib": peak,
                "seed_difference_max": float(np.abs(p - q).max()),
                "seed_difference_sd": float(np.std(p - q)),
            }
            if setting == "late arrivals":
                row["ratio_to_population"] = row["seconds"] / rows[-1]["seconds"]
            rows.append(row)
            print(row, flush=True)
    path = RESULTS / "newcomer_speed.json"
    results = json.loads(path.read_text()) if path.exists() else {}
    results[args.label] = {"machine": machine(), "settings": vars(args), "table": rows}
    path.write_text(json.dumps(results, indent=2))
    cols = [
        ("label", "code", ""),
        ("case", "case", ""),
        ("seconds", "seconds (median)", ".2f"),
        ("cpu_seconds", "CPU seconds (median)", ".2f"),
        ("runs", "runs", "d"),
        ("peak_mib", "peak extra memory MiB", ".0f"),
        ("seed_difference_max", "max change with the unseen seed", ".4f"),
    ]
    print("\n" + markdown(rows, cols))
    print("\nwrote", path)


if __name__ == "__main__":
    main()
