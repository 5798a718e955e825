"""The commands ``skcodex fit``, ``skcodex predict`` and ``skcodex demo``."""

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

from skcodex.cli._draws import draw_line, expected_score, print_fit_draws
from skcodex.cli._errors import CommandError, shown
from skcodex.cli._model_options import NEWCOMER_SKILLS
from skcodex.cli._output import (
    MODEL_FILE,
    load_model,
    prepare_output,
    publish_output,
    save_model,
    sigterm_unwinds,
)
from skcodex.cli._progress import evidence_estimate, fit_estimate
from skcodex.cli._tables import read_matches


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
        half_life=getattr(args, "half_life", None),
        newcomer_skill=NEWCOMER_SKILLS[getattr(args, "newcomer_skill", "late-arrivals")],
        prior=args.prior,
        target_accept=args.target_accept,
    )
    print(
        f"Fitting {what}: {_matches(len(X))}, {_count(args.chains, 'chain')} of "
        f"{args.draws:,} draws, {args.prior} prior ..."
    )
    print(fit_estimate(X, args.draws, args.tune, args.chains, catalogue=catalogue))
    if evidence := evidence_estimate(clf, X, y):
        print(evidence)
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


def _matches(n: int) -> str:
    """``1 match``, ``2,000 matches``."""
    return f"{n:,} match" + ("" if n == 1 else "es")


def _print_convergence(clf: Any, X: pd.DataFrame) -> None:
    """A fit's failed convergence checks in a few short lines, and whether forecasts suffer."""
    from skcodex._matchup.diagnostics import forecast_convergence, grouped_problems

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
    """The forward evidence that decided the parts and the half-life left to the data."""
    for what, evidence in (
        ("Parts", getattr(clf, "part_evidence_", None)),
        ("Half-life", getattr(clf, "half_life_evidence_", None)),
    ):
        if evidence is None:
            continue
        note = evidence.attrs.get("note", "")
        if note:
            print(f"  {what} left to the data: {note}.")
            continue
        print(
            f"  {what} left to the data, each forecasting the last periods "
            f"({_matches(int(evidence['matches'].iloc[0]))}) from the ones before:"
        )
        simplest = evidence["candidate"].iloc[0]
        for i, row in evidence.reset_index(drop=True).iterrows():
            gain = ""
            if i:
                diff, se = row["log score - simplest"], row["se"]
                gain = f", log score {diff:+.2f} (se {se:.2f}) against {simplest}"
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
        f"Holding out {label}: {len(test):,} of {_matches(len(X))} "
        f"({100 * len(test) / len(X):.1f}%), forecast by a model fitted on the "
        f"{_matches(len(train))} that ended before {them}."
    )
    Xtr, Xte = X.iloc[train], X.iloc[test]
    clf = _fit(Xtr, y[train], catalogue, args, f"without {label} (to forecast {them})")
    return HeldOut(
        label=label,
        y=y[test],
        p_win=expected_score(clf, Xte),  # P(player 1 wins), plus half P(draw) with draws
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
    **options: Any,
):
    """Fit (and the held-out refit), then write the model and report into ``out`` as a whole.

    ``options`` are `_fit_and_write`'s (``title``, ``true_skills``, ``source``, ``inputs``).
    """
    with sigterm_unwinds():  # a stopped run removes its staging folder too
        return _fit_and_write(X, y, catalogue, args, out, **options)


def _fit_and_write(
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
    from skcodex.report import write_report

    keep_model = not getattr(args, "replace", True)  # fit keeps a model unless --replace
    # checked before the fit
    staging = None if out is None else prepare_output(out, inputs, keep_model=keep_model)
    try:
        held_out = None if args.no_holdout else _held_out(X, y, catalogue, args)
        clf = _fit(X, y, catalogue, args, "on every match")
        if staging is not None:
            save_model(clf, staging)
            from skcodex.cli._report_advice import report_advice

            advice = report_advice(clf, getattr(args, "advice_inputs", None), args.seed)
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
                advice=advice,
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
    if args.half_life == "auto" and args.part_selection != "forward":
        raise CommandError(
            "--half-life auto is decided by the matches' own forward evidence: add "
            "--part-selection forward, or give a half-life in rating periods"
        )
    X, y, catalogue = read_matches(
        args.matches, args.catalogue, args.specs_per_deck, args.tie_components
    )
    _check_report_decks(getattr(args, "decks", None), X, catalogue)
    if getattr(args, "advise", None) is not None:  # checked before the fit
        from skcodex.cli._report_advice import report_advice_inputs

        args.advice_inputs = report_advice_inputs(X, catalogue, args.advise)
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


def newcomer_words(model: Any) -> str:
    """How a fitted model draws the skill of a player it never saw, as the notes say it."""
    if model.layout_.options.debut:
        return "drawn around the level the model learned for players in their first period"
    if model._late_arrivals_apply():
        n = len(model.late_arrivals_)
        who = "the 1 player" if n == 1 else f"the {n:,} players"
        return f"drawn around {who} who joined after the matches' first period"
    return "drawn from the population of players"


def _note_unseen(names: list, model: Any) -> None:
    """A note for each entrant the model never saw, naming a fitted player spelt alike."""
    players = model.vocabulary_.players
    known = set(players)
    unseen = [name for name in names if isinstance(name, (str, int)) and name not in known]
    for name in unseen[:20]:
        print(
            f"note: {shown(repr(name))} was not in the fitted matches"
            f"{_did_you_mean(name, players)}; their skill is {newcomer_words(model)} in every "
            "simulated tournament."
        )
    if len(unseen) > 20:
        print(f"note: and {len(unseen) - 20} more entrants not in the fitted matches.")


def _cmd_predict(args: argparse.Namespace) -> int:
    from skcodex.cli._quick import quick_forecast, read_quick_model
    from skcodex.codex import parse_deck
    from skcodex.data import normalise_name
    from skcodex.data._catalogues import close_name, spelled_alike

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
    table = spelled_alike(table, catalogue, model.vocabulary_)  # as the fitted model spells
    decks = [table["deck1"].iloc[0], table["deck2"].iloc[0]]
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
                f"{newcomer_words(model)}, so the interval is wide."
            )
    for message in forecast[3:]:
        print(f"note: {message}")
    from skcodex.codex import deck_label

    d1, d2 = (deck_label(d, catalogue) for d in decks)
    side = _player1_words(model)
    p1, p2, d1, d2 = (shown(text) for text in (p1, p2, d1, d2))
    print(f"P({p1} with {d1}{side} beats {p2} with {d2}) = {forecast[0]:.3f}")
    print(f"{round(100 * args.interval)}% interval: {forecast[1]:.3f} to {forecast[2]:.3f}")
    drawn = draw_line(model, table, args.interval)  # a model with draws: P(draw) beside it
    if drawn is not None:
        print(drawn)
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
    from skcodex.cli._quick import player1_words

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
    in_sample = brier_score(y, expected_score(clf, X))
    print("\nBrier score (lower is better; a coin flip scores 0.250):")
    line = f"  in-sample ({_matches(len(y))}) {in_sample:.3f}"
    if held_out is not None:
        held = brier_score(held_out.y, held_out.p_win)
        line += f"   held-out ({held_out.label}, {_matches(len(held_out.y))}) {held:.3f}"
        if oracle_brier is not None:
            line += f"   true probabilities on the held-out matches {oracle_brier:.3f}"
    print(line)
    print_fit_draws(clf, y, X)


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
