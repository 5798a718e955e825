"""The command ``skcodex simulate``: a tournament forecast from a fitted model."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from skcodex.cli._commands import _is_path, _note_unseen, _player_id
from skcodex.cli._draws import simulate_note
from skcodex.cli._errors import CommandError, shown
from skcodex.cli._output import (
    MODEL_FILE,
    load_model,
    prepare_output,
    publish_output,
    sigterm_unwinds,
    simulate_outputs,
)
from skcodex.cli._progress import duration


def _read_csv(path: str, what: str) -> pd.DataFrame:
    import io

    from skcodex.cli._tables import _csv_source, check_header

    # a device (/dev/zero) is refused before any read, a pipe read once and bounded
    source = _csv_source(Path(path), path)
    if isinstance(source, Path) and source.is_dir():
        raise CommandError(f"the {what} file {path} is a folder; give a CSV file")
    check_header(source, f"the {what} file {path}")
    try:
        return pd.read_csv(
            io.BytesIO(source) if isinstance(source, bytes) else source,
            dtype=object,
            keep_default_na=False,
            na_values=[""],
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise CommandError(f"cannot read the {what} file {path}: {err}") from None


def _cmd_simulate(args: argparse.Namespace) -> int:
    from skcodex.tournament._formats import parse_format

    fmt = parse_format(args.format, first_move=args.first_move)
    out = None if args.out is None else Path(args.out)
    inputs = tuple(str(p) for p in (args.model, args.entrants, args.results) if _is_path(p))
    _check_files_outside(out, {"--table": args.table, "--plot": args.plot}, inputs)
    outputs = simulate_outputs()
    with sigterm_unwinds():  # a stopped run removes its staging folder too
        # checked before simulating
        staging = None if out is None else prepare_output(out, inputs, outputs)
        try:
            forecast, clf = _simulate(args, fmt)
            _print_forecast(forecast, args.top)
            note = simulate_note(clf, args.draw_rule)  # a model with draws: what a draw is worth
            if note is not None:
                print(note)
            _write_forecast_files(forecast, clf, args, staging)
            if staging is not None:
                publish_output(staging, out, outputs)
                print(f"Wrote {shown(out / 'report.html')} and the tables as CSV beside it.")
        finally:
            if staging is not None and staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
    return 0


def _input_files(inputs: tuple[str, ...]) -> list[Path]:
    """The files a run reads: each input, and the model file of a model folder."""
    files = []
    for given in inputs:
        path = Path(os.path.abspath(given))
        files.append(path / MODEL_FILE if path.is_dir() else path)
    return files


def _same_file(a: Path, b: Path) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


#: The figure formats ``--plot`` writes (matplotlib's, without extra back ends).
PLOT_SUFFIXES = (".png", ".svg", ".pdf", ".jpg", ".jpeg", ".eps", ".ps", ".tif", ".tiff", ".webp")


def _check_files_outside(
    out: Path | None, files: dict[str, str | None], inputs: tuple[str, ...] = ()
) -> None:
    """Refuse ``--table``, ``--plot`` or ``--html`` where they cannot be written, before any work.

    In a folder that does not exist; ``--plot`` in a format it is not written in;
    inside ``--out`` (at any depth), which the run replaces as a whole; on an
    input of the run (the model, the entrants or results file, also through a
    link); on each other; or on a folder.
    """
    folder = None if out is None else Path(os.path.abspath(out))
    given = {flag: Path(os.path.abspath(path)) for flag, path in files.items() if path}
    for flag, path in given.items():
        if folder is not None and (folder == path or folder in path.parents):
            raise CommandError(
                f"{flag} {files[flag]} is inside --out {out}, which the run replaces as a whole; "
                "write it elsewhere (the report's tables are written into --out already)"
            )
        if path.is_dir():
            raise CommandError(f"{flag} {files[flag]} is a folder; give a file name")
        for source in _input_files(inputs):
            if _same_file(path, source):
                raise CommandError(
                    f"{flag} {files[flag]} is the input {source}, which the run reads; "
                    "write it to a file of its own"
                )
    if len(given) == 2 and _same_file(*given.values()):
        raise CommandError("--table and --plot name the same file; give each its own")
    for flag, path in given.items():
        if not path.parent.is_dir():
            raise CommandError(
                f"{flag} {files[flag]}: the folder {path.parent} does not exist; create it "
                "or write the file elsewhere"
            )
        if flag == "--plot" and path.suffix.lower() not in PLOT_SUFFIXES:
            raise CommandError(
                f"--plot {files[flag]}: give a file name ending in one of "
                f"{', '.join(PLOT_SUFFIXES)} (the figure's format)"
            )


def _simulate(args: argparse.Namespace, fmt: Any):
    """The fitted model and its forecast of the tournament the options describe."""
    from skcodex.tournament import simulate_tournament

    clf = load_model(args.model)
    players = clf.vocabulary_.players
    entrants = _read_csv(args.entrants, "entrants")
    if "player" not in entrants.columns or "deck" not in entrants.columns:
        raise CommandError(f"{args.entrants}: the entrants file needs columns player and deck")
    # an empty cell stays missing (refused by name), never the entrant "nan"
    entrants = entrants.assign(
        player=[_player_id(p, players) if isinstance(p, str) else None for p in entrants["player"]]
    )
    _note_unseen(list(entrants["player"]), clf)
    results = None
    if args.results:
        results = _read_csv(args.results, "results")
        for column in ("player1", "player2", "winner"):
            if column in results.columns:
                results[column] = [
                    p if p is None or p != p else _player_id(str(p), players)
                    for p in results[column]
                ]
        if "round" in results.columns:
            rounds = pd.to_numeric(results["round"], errors="coerce")
            if rounds.isna().any():
                k = int(np.flatnonzero(rounds.isna().to_numpy())[0])
                value = results["round"].iloc[k]
                raise CommandError(
                    f"{args.results}: results row {k + 1} (line {k + 2} of the file): round "
                    f"{shown(repr(value)[:40])} is not a number; every round must be a number"
                )
            results["round"] = rounds
    from skcodex.tournament import _probabilities as probabilities

    probabilities.NASH_PROGRESS[0] = Progress("Solving the deck-choice games")
    try:
        forecast = simulate_tournament(
            fmt,
            entrants,
            clf,
            deck_rule=args.deck_rule,
            results=results,
            n_simulations=args.simulations,
            n_draws=getattr(args, "posterior_draws", None),
            random_state=args.seed,
            draw_rule=getattr(args, "draw_rule", "replay"),
        )
    finally:
        probabilities.NASH_PROGRESS[0] = None
    return forecast, clf


class Progress:
    """``progress(done, total)``: a line on standard error with the share done and the time left.

    On a terminal the line is rewritten in place at most twice a second; otherwise a
    line is written at each tenth of the work. The time left is the time so far times
    the work left over the work done.
    """

    def __init__(self, what: str, stream: Any = None) -> None:

        self.what, self.stream = what, stream if stream is not None else sys.stderr
        self.start = time.perf_counter()
        self.shown, self.tenth = 0.0, 0

    def __call__(self, done: int, total: int) -> None:
        if total <= 0:
            return
        now = time.perf_counter()
        elapsed = now - self.start
        left = elapsed * (total - done) / max(done, 1)
        line = (
            f"{self.what}: {done:,} of {total:,} ({100 * done / total:.0f}%), "
            f"{duration(elapsed)} so far, about {duration(left)} left"
        )
        finished = done >= total
        if self.stream.isatty():
            if finished or now - self.shown >= 0.5:
                self.shown = now
                self.stream.write("\r" + line + ("\n" if finished else ""))
                self.stream.flush()
        elif finished or 10 * done // total > self.tenth:
            self.tenth = 10 * done // total
            self.stream.write(line + "\n")
            self.stream.flush()


def _print_forecast(forecast: Any, top: int) -> None:
    table = forecast.table()
    from skcodex.tournament._formats import describe_stage

    stages = " + ".join(describe_stage(s) for s in forecast.format.stages)
    played = "" if forecast.results is None else f", after {len(forecast.results)} recorded matches"
    print(f"{stages}, {len(table)} entrants: {forecast.n_simulations:,} simulations{played}.")
    head = table.head(top)
    columns = [c for c in ("p_win", "p_top2", "p_top4", "p_top8") if c in head.columns]
    header = f"  {'player':<20}" + "".join(f"{c:>9}" for c in columns) + f"{'wins':>7}"
    print(header)
    for player, row in head.iterrows():
        cells = "".join(f"{row[c]:>9.3f}" for c in columns)
        print(f"  {shown(player):<20}{cells}{row['expected_wins']:>7.2f}")
    finals = forecast.likely_final()
    if len(finals):
        top_final = finals.iloc[0]
        print(
            f"Most likely final: {shown(top_final['player_a'])} v "
            f"{shown(top_final['player_b'])} (P = {top_final['p_final']:.3f}); "
            f"{shown(top_final['player_a'])} wins it with "
            f"P = {top_final['p_a_wins']:.3f}"
        )


def _write_forecast_files(forecast: Any, clf: Any, args: argparse.Namespace, staging) -> None:
    """``--table`` and ``--plot`` where asked; the report and its tables into ``staging``."""
    if args.table:
        from skcodex.report import spreadsheet_safe

        spreadsheet_safe(forecast.table().reset_index()).to_csv(args.table, index=False)
        print(f"Wrote {shown(args.table)}")
    if args.plot:
        from skcodex.tournament._plot import plot_tournament

        plot_tournament(forecast, top=args.top).savefig(args.plot, dpi=120)
        print(f"Wrote {shown(args.plot)}")
    if staging is not None:
        from skcodex.tournament._report import write_tournament_report

        source = f"Model: {args.model}; entrants: {args.entrants}"
        if args.results:
            source += f"; results: {args.results}"
        write_tournament_report(
            forecast, staging, estimator=clf, title=args.title, source=source, top=args.top
        )
