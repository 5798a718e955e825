"""The commands ``skcodex fit``, ``skcodex predict``, ``skcodex demo`` and ``skcodex simulate``."""

from __future__ import annotations

import argparse
import os
import shutil
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from skcodex.cli.errors import CommandError, shown
from skcodex.cli.output import (
    MODEL_FILE,
    load_model,
    prepare_output,
    publish_output,
    save_model,
    sigterm_unwinds,
    simulate_outputs,
)
from skcodex.cli.tables import read_matches


def _part(args: argparse.Namespace, name: str) -> bool | str:
    """An optional part's flag: on, off, or ``"auto"`` when neither was given."""
    value = getattr(args, name, None)
    return "auto" if value is None else bool(value)


def _fit(X: pd.DataFrame, y: np.ndarray, catalogue: Any, args: argparse.Namespace, what: str):
    from skcodex import BayesianMatchupClassifier

    clf = BayesianMatchupClassifier(
        draws=args.draws,
        tune=args.tune,
        chains=args.chains,
        random_state=args.seed,
        progressbar=not args.no_progress,
        catalogue=catalogue,
        first_move=bool(getattr(args, "first_move", False)),
        symmetric=bool(getattr(args, "symmetric", False)),
        debut=_part(args, "debut"),
        time_varying=_part(args, "time_varying"),
        part_selection=getattr(args, "part_selection", "none"),
        prior=args.prior,
        target_accept=args.target_accept,
    )
    print(
        f"Fitting {what}: {len(X):,} matches, {_count(args.chains, 'chain')} of "
        f"{args.draws:,} draws, {args.prior} prior ..."
    )
    start = time.perf_counter()
    with warnings.catch_warnings(record=True):
        # the failed convergence checks are printed below, grouped, in a few lines
        warnings.simplefilter("always")
        clf.fit(X, y)
    print(f"  done in {time.perf_counter() - start:.1f} s.")
    _print_convergence(clf, X)
    _print_evidence(clf)
    return clf


def _count(n: int, noun: str) -> str:
    """``1 chain``, ``4 chains``."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _print_convergence(clf: Any, X: pd.DataFrame) -> None:
    """A fit's failed convergence checks in a few short lines, and whether forecasts suffer."""
    from skcodex._diagnostics import forecast_convergence, grouped_problems

    problems = list(getattr(clf, "convergence_problems_", []))
    if not problems:
        return
    groups = grouped_problems(problems)
    print(f"  Convergence checks failed ({len(problems)}), by parameter family:")
    for line in groups:
        print(f"    {shown(line)}")
    print(f"  {shown(forecast_convergence(clf, X)['sentence'])}")
    print(
        "  More draws and tuning steps (--draws, --tune) raise ESS and bring R-hat down; "
        "the report lists every failed check."
    )


def _print_evidence(clf: Any) -> None:
    """The forward evidence that decided the parts left to the data, when there was any."""
    evidence = getattr(clf, "part_evidence_", None)
    if evidence is None:
        return
    note = evidence.attrs.get("note", "")
    if note:
        print(f"  Parts left to the data: {note}.")
        return
    print(
        f"  Parts left to the data, each forecasting the last periods "
        f"({int(evidence['matches'].iloc[0]):,} matches) from the ones before:"
    )
    for i, row in evidence.reset_index(drop=True).iterrows():
        gain = ""
        if i:
            diff, se = row["log score - simplest"], row["se"]
            gain = f", log score {diff:+.2f} (se {se:.2f}) against static"
        chosen = "  <- chosen" if row["chosen"] else ""
        print(f"    {row['candidate']:<13} Brier {row['brier']:.4f}{gain}{chosen}")


def _held_out(X: pd.DataFrame, y: np.ndarray, catalogue: Any, args: argparse.Namespace):
    """Refit without the latest tournaments and forecast them (None if impossible).

    ``skcodex fit`` holds out the latest tournaments that make up at least
    ``--holdout-share`` of the matches, or those starting on or after
    ``--holdout-since``; ``skcodex demo`` (no such options) the last tournament.
    """
    from skcodex.model_selection import latest_share_split
    from skcodex.report import HeldOut

    if "period" not in X.columns:
        print("No tournament column: skipping the held-out forecast.")
        return None
    share = getattr(args, "holdout_share", None)
    since = getattr(args, "holdout_since", None)
    try:
        if share is None and since is None:  # the demo: its last tournament
            from skcodex.model_selection import TournamentSplit

            train, test = next(TournamentSplit(n_splits=1).split(X))
        else:
            train, test = latest_share_split(X, share=share or 0.15, since=since)
    except ValueError as err:
        print(f"Skipping the held-out forecast: {shown(err)}")
        return None
    label = _tournaments_label(X["period"].iloc[test])
    them = "it" if label.startswith("tournament ") else "them"
    print(
        f"Holding out {label}: {len(test):,} of {len(X):,} matches "
        f"({100 * len(test) / len(X):.1f}%), forecast by a model fitted on the "
        f"{len(train):,} matches that ended before {them}."
    )
    Xtr, Xte = X.iloc[train], X.iloc[test]
    clf = _fit(Xtr, y[train], catalogue, args, f"without {label} (to forecast {them})")
    return HeldOut(
        label=label,
        y=y[test],
        p_win=clf.predict_proba(Xte)[:, 1],
        n_train=len(train),
        problems=list(clf.convergence_problems_),
    )


def _tournaments_label(periods: pd.Series) -> str:
    """``tournament T08``, or ``the latest 3 tournaments (T08 to T10)``."""
    names = [shown(p) for p in pd.unique(periods)]
    if len(names) == 1:
        return f"tournament {names[0]}"
    return f"the latest {len(names)} tournaments ({names[0]} to {names[-1]})"


def _fit_and_report(
    X: pd.DataFrame,
    y: np.ndarray,
    catalogue: Any,
    args: argparse.Namespace,
    out: Path | None,
    *,
    title: str,
    true_skills: Any = None,
    source: str | None = None,
    inputs: tuple[str, ...] = (),
):
    """Fit (and the held-out refit), then write the model and report into ``out`` as a whole."""
    with sigterm_unwinds():  # a stopped run removes its staging folder too
        return _fit_and_write(
            X,
            y,
            catalogue,
            args,
            out,
            title=title,
            true_skills=true_skills,
            source=source,
            inputs=inputs,
        )


def _fit_and_write(
    X: pd.DataFrame,
    y: np.ndarray,
    catalogue: Any,
    args: argparse.Namespace,
    out: Path | None,
    *,
    title: str,
    true_skills: Any,
    source: str | None,
    inputs: tuple[str, ...],
):
    from skcodex.report import write_report

    keep_model = not getattr(args, "replace", True)  # fit keeps a model unless --replace
    # checked before the fit
    staging = None if out is None else prepare_output(out, inputs, keep_model=keep_model)
    try:
        held_out = None if args.no_holdout else _held_out(X, y, catalogue, args)
        clf = _fit(X, y, catalogue, args, "on every match")
        if staging is not None:
            save_model(clf, staging)
            print("Writing the report (Nash weights take a few seconds) ...")
            write_report(
                clf,
                X,
                y,
                staging,
                title=title,
                held_out=held_out,
                nash_draws=args.nash_draws,
                true_skills=true_skills,
                decks=getattr(args, "decks", None),
                source=source,
            )
            publish_output(staging, out)
            print(
                f"Wrote {shown(out / MODEL_FILE)}\nWrote {shown(out / 'report.html')} and the "
                "tables as CSV beside it."
            )
    finally:
        if staging is not None and staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return clf, held_out


def _check_report_decks(decks: Any, X: pd.DataFrame, catalogue: Any) -> None:
    """Refuse ``--decks`` the report could not read, before any fitting."""
    from skcodex.codex import CODEX, Catalogue, parse_decks
    from skcodex.data import MatchTableError, Vocabulary, check_match_table

    if decks is None or decks == "most played":
        return
    try:
        table = check_match_table(X, catalogue)
    except MatchTableError:
        return  # the fit reports the table's own problem
    cat = catalogue if catalogue is not None else CODEX
    if decks == "monocolour":
        if not isinstance(cat, Catalogue) or len(table["deck1"].iloc[0].specs) != 3:
            raise CommandError(
                "--decks monocolour names Codex's monocolour decks, but these decks are not "
                "Codex decks; give decks separated by commas, or 'most played'"
            )
        return
    try:
        parse_decks(decks, cat, Vocabulary.from_table(table).decks, "--decks")
    except ValueError as err:
        raise CommandError(f"--decks: {err}") from None


def _cmd_fit(args: argparse.Namespace) -> int:
    X, y, catalogue = read_matches(args.matches, args.catalogue, args.specs_per_deck)
    _check_report_decks(getattr(args, "decks", None), X, catalogue)
    summary = X.attrs.get("summary")
    if summary is not None:
        print("\n".join(shown(line) for line in str(summary).splitlines()))
    out = Path(args.out)
    clf, held_out = _fit_and_report(
        X,
        y,
        catalogue,
        args,
        out,
        title=args.title,
        source=str(args.matches),
        inputs=tuple(str(p) for p in (args.matches, args.catalogue) if _is_path(p)),
    )
    print_results(clf, X, y, held_out, top=args.top, prior=args.prior)
    print(f"\nOpen {out / 'report.html'} in a browser to read the report.")
    return 0


def _is_path(value: Any) -> bool:
    """Whether an argument names a file or folder that exists (not a built-in name)."""
    return isinstance(value, str | os.PathLike) and os.path.exists(value)


def _player_id(name: str, players: tuple) -> Any:
    if players and isinstance(players[0], (int, np.integer)) and name.lstrip("-").isdigit():
        return int(name)
    return name


def _did_you_mean(name: Any, players: tuple) -> str:
    """`` (did you mean 'x'?)`` for a name close to a fitted player's, else nothing."""
    import difflib

    names = [str(p) for p in players]
    close = difflib.get_close_matches(str(name), names, n=1, cutoff=0.8)
    return f" (did you mean {shown(repr(close[0]))}?)" if close else ""


def _note_unseen(names: list, players: tuple) -> None:
    """A note for each entrant the model never saw, naming a fitted player spelt alike."""
    known = set(players)
    unseen = [name for name in names if isinstance(name, (str, int)) and name not in known]
    for name in unseen[:20]:
        print(
            f"note: {shown(repr(name))} was not in the fitted matches"
            f"{_did_you_mean(name, players)}; their skill is drawn from the population of "
            "players in every simulated tournament."
        )
    if len(unseen) > 20:
        print(f"note: and {len(unseen) - 20} more entrants not in the fitted matches.")


def _cmd_predict(args: argparse.Namespace) -> int:
    from skcodex.cli.quick import quick_forecast, read_quick_model
    from skcodex.codex import parse_deck
    from skcodex.data import normalise_name
    from skcodex.data._catalogues import close_name

    if getattr(args, "best_of", 1) > 1 or ";" in args.deck1 + args.deck2:
        return _predict_series(args)
    path = Path(args.model)
    quick = read_quick_model(path / MODEL_FILE if path.is_dir() else path)
    model = quick if quick is not None else load_model(args.model)
    catalogue = model.catalogue or getattr(model, "catalogue_", None)
    decks = []
    for flag, text in (("--deck1", args.deck1), ("--deck2", args.deck2)):
        try:
            decks.append(parse_deck(text, catalogue))
        except ValueError as err:
            raise CommandError(f"{flag}: {err}") from None
    players = model.vocabulary_.players
    names = []
    for flag, given in (("--p1", args.p1), ("--p2", args.p2)):
        name = normalise_name(given)  # as the match table reads names
        if not name:
            raise CommandError(f"{flag} {given!r} names no player (it has nothing visible)")
        names.append(name)
    p1, p2 = _player_id(names[0], players), _player_id(names[1], players)
    if p1 == p2:
        raise CommandError("--p1 and --p2 name the same player")
    table = pd.DataFrame(
        {
            "player1": [p1],
            "player2": [p2],
            "deck1": pd.Series(decks[:1], dtype=object),
            "deck2": pd.Series(decks[1:], dtype=object),
        }
    )
    forecast = None if quick is None else quick_forecast(quick, table, args.interval)
    if forecast is None:  # a never-seen name: the estimator draws its effects
        model = model if quick is None else load_model(args.model)
        forecast = _full_forecast(model, table, args.interval)
    for name in (p1, p2):
        if name not in players:
            hint = close_name(name, players)
            also = f" (did you mean {hint!r}?)" if hint is not None else ""
            print(
                f"note: player {name!r} was not in the fitted matches{also}; their skill is "
                "drawn from the population of players, so the interval is wide."
            )
    for message in forecast[3:]:
        print(f"note: {message}")
    from skcodex.codex import deck_label

    d1, d2 = (deck_label(d, catalogue) for d in decks)
    side = _player1_words(model)
    p1, p2, d1, d2 = (shown(text) for text in (p1, p2, d1, d2))
    print(f"P({p1} with {d1}{side} beats {p2} with {d2}) = {forecast[0]:.3f}")
    print(f"{round(100 * args.interval)}% interval: {forecast[1]:.3f} to {forecast[2]:.3f}")
    return 0


def _full_forecast(clf: Any, table: pd.DataFrame, interval: float) -> tuple:
    """``(mean, lower, upper, *notes)`` from the loaded estimator; its warnings become notes."""
    from skcodex.analysis import match_forecast

    with warnings.catch_warnings(record=True) as caught:
        # never-seen names are said as notes, not as Python warnings
        warnings.simplefilter("always", UserWarning)
        row = match_forecast(clf, table, interval).iloc[0]
    notes = []
    for w in caught:
        if issubclass(w.category, UserWarning):
            notes.append(" ".join(str(w.message).split()))
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return (float(row["mean"]), float(row["lower"]), float(row["upper"]), *notes)


def _player1_words(model: Any) -> str:
    """``, moving first,`` where a side moves first; ``, listed first,``; or nothing (symmetric)."""
    from skcodex.cli.quick import player1_words

    catalogue = getattr(model, "catalogue", None) or getattr(model, "catalogue_", None)
    symmetric = getattr(model, "symmetric", False)
    return player1_words(catalogue, model.layout_, bool(symmetric))


def print_results(
    clf: Any,
    X: pd.DataFrame,
    y: np.ndarray,
    held_out: Any,
    *,
    top: int,
    prior: str,
    true_skills: Any = None,
    true_spreads: dict | None = None,
    oracle_brier: float | None = None,
) -> None:
    """What a fit found, as ``skcodex fit`` and ``skcodex demo`` print it.

    The top players with their intervals, the skill and deck spreads, and the
    in-sample and held-out Brier scores; with the truth of synthetic data
    (``true_skills``, ``true_spreads``, ``oracle_brier``) beside the estimates.
    """
    from skcodex import brier_score
    from skcodex.analysis import skill_table, skill_versus_decks

    skills = skill_table(clf, X)
    shown = skills.head(top)
    truth = "; true skill" if true_skills is not None else ""
    print(f"\nTop {len(shown)} players (posterior mean skill, 90% interval{truth}):")
    width = max(10, *(len(str(p)) for p in shown.index))
    for player, row in shown.iterrows():
        line = (
            f"  {player!s:>{width}}  {row['mean']:+.2f}  [{row['lower']:+.2f}, "
            f"{row['upper']:+.2f}]  P(best) {row['p_best']:.2f}"
        )
        if true_skills is not None:
            line += f"   true {true_skills[player]:+.2f}"
        print(line)
    spreads = skill_versus_decks(clf)
    truth = "; true value" if true_spreads else ""
    print(f"\nSkill versus decks (posterior mean, 90% interval{truth}):")
    for name in ("sd_player", "sd_deck"):
        row = spreads.loc[name]
        line = f"  {name:>10}  {row['mean']:.2f}  [{row['lower']:.2f}, {row['upper']:.2f}]"
        if true_spreads:
            line += f"   true {true_spreads[name]:.2f}"
        print(line)
    print(
        f"  P(skill matters more than decks) = {spreads.attrs['p_skill_matters_more']:.2f}"
        f" (prior alone: {spreads.attrs['prior_p_skill_matters_more']:.2f}, {prior} prior)"
    )
    in_sample = brier_score(y, clf.predict_proba(X)[:, 1])
    print("\nBrier score (lower is better; a coin flip scores 0.250):")
    line = f"  in-sample ({len(y)} matches) {in_sample:.3f}"
    if held_out is not None:
        held = brier_score(held_out.y, held_out.p_win)
        line += f"   held-out ({held_out.label}, {len(held_out.y)} matches) {held:.3f}"
        if oracle_brier is not None:
            line += f"   true probabilities on the held-out matches {oracle_brier:.3f}"
    print(line)


def _cmd_demo(args: argparse.Namespace) -> int:
    from skcodex import brier_score
    from skcodex.datasets import make_matches

    n_tournaments = 8
    data = make_matches(
        n_players=args.players,
        n_matches=args.matches,
        n_tournaments=n_tournaments,
        random_state=args.seed,
    )
    print(
        f"Synthetic tournament series: {args.players} players, {args.matches} matches in "
        f"{n_tournaments} tournaments. The model is fitted on every match for the estimates"
        + ("." if args.no_holdout else ", and on the first 7 to forecast the last.")
    )
    out = None if args.no_report else Path(args.out)
    clf, held_out = _fit_and_report(
        data.X,
        data.y,
        None,
        args,
        out,
        title="Synthetic Codex tournaments: skills and matchups",
        true_skills=data.params["skill"],
        source=(
            f"synthetic tournaments drawn from the model ({args.players} players, "
            f"{args.matches} matches, seed {args.seed})"
        ),
    )

    sd = data.params["sd"]
    test = (data.X["period"] == data.X["period"].iloc[-1]).to_numpy()
    print_results(
        clf,
        data.X,
        data.y,
        held_out,
        top=args.top,
        prior=args.prior,
        true_skills=data.params["skill"],
        true_spreads={
            "sd_player": sd["player"],
            "sd_deck": (sd["stst"] ** 2 + 6 * sd["stsp"] ** 2 + 9 * sd["spsp"] ** 2) ** 0.5,
        },
        oracle_brier=brier_score(data.y[test], data.p_win[test]),
    )
    if out is not None:
        print(f"\nOpen {shown(out / 'report.html')} in a browser to read the report.")
    return 0


# -- skcodex simulate -----------------------------------------------------------------


def _read_csv(path: str, what: str) -> pd.DataFrame:
    import io

    from skcodex.cli.tables import _csv_source

    # a device (/dev/zero) is refused before any read, a pipe read once and bounded
    source = _csv_source(Path(path), path)
    if isinstance(source, Path) and source.is_dir():
        raise CommandError(f"the {what} file {path} is a folder; give a CSV file")
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


def _check_files_outside(
    out: Path | None, files: dict[str, str | None], inputs: tuple[str, ...] = ()
) -> None:
    """Refuse ``--table`` or ``--plot`` where writing would lose something.

    Inside ``--out`` (at any depth), which the run replaces as a whole; on an
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
    _note_unseen(list(entrants["player"]), players)
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
        import sys

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
            f"{_duration(elapsed)} so far, about {_duration(left)} left"
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


def _duration(seconds: float) -> str:
    """``45 s``, ``3 min 20 s``, ``1 h 5 min``."""
    s = round(seconds)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60} min"


def _print_forecast(forecast: Any, top: int) -> None:
    from skcodex.tournament._formats import describe_stage

    table = forecast.table()
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


def _predict_series(args: argparse.Namespace) -> int:
    """``skcodex predict --best-of N``: P(player 1 wins the set), with its interval."""
    from skcodex.codex import deck_label, parse_deck
    from skcodex.data import normalise_name
    from skcodex.tournament import predict_series

    model = load_model(args.model)
    catalogue = getattr(model, "catalogue", None) or getattr(model, "catalogue_", None)
    decks = []
    for flag, text in (("--deck1", args.deck1), ("--deck2", args.deck2)):
        listed = [part.strip() for part in text.split(";") if part.strip()]
        if not listed:
            raise CommandError(f"{flag} names no deck")
        try:
            decks.append([parse_deck(part, catalogue) for part in listed])
        except ValueError as err:
            raise CommandError(f"{flag}: {err}") from None
    players = model.vocabulary_.players
    names = []
    for flag, given in (("--p1", args.p1), ("--p2", args.p2)):
        name = normalise_name(given)
        if not name:
            raise CommandError(f"{flag} {given!r} names no player (it has nothing visible)")
        names.append(_player_id(name, players))
    if names[0] == names[1]:
        raise CommandError("--p1 and --p2 name the same player")
    if args.best_of == 1 and max(len(d) for d in decks) > 1:
        raise CommandError(
            "several decks need a set to pick them in: give --best-of N (N = 3, 5, ...)"
        )
    table = pd.DataFrame(
        {
            "player1": [names[0]],
            "player2": [names[1]],
            "deck1": pd.Series([decks[0]], dtype=object),
            "deck2": pd.Series([decks[1]], dtype=object),
        }
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        row = predict_series(
            model,
            table,
            args.best_of,
            rule=args.series_rule,
            pick=args.pick,
            first_move=args.set_order,
            interval=args.interval,
        ).iloc[0]
    for w in caught:
        if issubclass(w.category, UserWarning):
            print(f"note: {' '.join(str(w.message).split())}")
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    for name in names:
        if name not in players:
            hint = _did_you_mean(name, players)
            print(
                f"note: player {shown(repr(name))} was not in the fitted matches{hint}; their "
                "skill is drawn from the population of players, so the interval is wide."
            )
    d1, d2 = ("; ".join(deck_label(d, catalogue) for d in side) for side in decks)
    p1, p2, d1, d2 = (shown(str(text)) for text in (names[0], names[1], d1, d2))
    print(
        f"P({p1} with {d1} beats {p2} with {d2} in a best-of-{args.best_of} set) = "
        f"{row['mean']:.3f}"
    )
    print(f"{round(100 * args.interval)}% interval: {row['lower']:.3f} to {row['upper']:.3f}")
    then = {
        "alternating": "the other player in turn",
        "loser": "the loser of the last game",
        "random": "either at random",
    }[args.set_order]
    # a symmetric game has no player 1 to speak of (`_player1_words` says nothing)
    order = f"; player 1 in game 1: {p1}, then {then}" if _player1_words(model) else ""
    one_each = len(decks[0]) == len(decks[1]) == 1
    rule = "fixed decks" if args.series_rule == "fixed" else args.series_rule
    picks = "" if one_each else f", decks picked: {args.pick}"
    alone = f"; one game alone: {row['p_game']:.3f}" if one_each else ""
    print(f"set: {rule}{picks}{order}{alone}")
    return 0
