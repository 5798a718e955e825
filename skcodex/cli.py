"""The ``skcodex`` command line.

``skcodex fit MATCHES --out DIR [--catalogue FILE | --specs-per-deck K]``
    Fit the matchup model to a codexdata folder or a match-table CSV, and
    write the fitted model, ``report.html`` and the report's tables as CSV.
    Decks of other games are read in plain notation, ``starter/component/...``:
    against a catalogue file, or with every name seen in the data a level.
``skcodex predict MODEL --p1 NAME --deck1 DECK --p2 NAME --deck2 DECK``
    The probability that the first player wins, with its 90% interval.
``skcodex demo [--out DIR]``
    Fit a synthetic tournament series the package generates, print how the
    estimates compare with the truth, and write the same report.

Errors are one readable line on standard error and exit status 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import pandas as pd

#: The fitted model's file name inside an output folder.
MODEL_FILE = "model.skcodex"

#: Where ``skcodex demo`` writes its report unless told otherwise.
DEMO_DIR = "skcodex-demo"


class CommandError(Exception):
    """A problem the user can fix; printed as one line."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# -- saving and loading the model (one place, easy to switch format) --------------------


def save_model(clf: Any, folder: str | os.PathLike) -> Path:
    """Write a fitted classifier into a folder (`skcodex.persistence`); return the file."""
    return clf.save(Path(folder) / MODEL_FILE)


def load_model(path: str | os.PathLike) -> Any:
    """Read a classifier written by `save_model`, from its file or its folder."""
    from skcodex.persistence import load

    p = Path(path)
    if p.is_dir():
        p = p / MODEL_FILE
    if not p.exists():
        raise FileNotFoundError(f"no fitted model at {p} (write one with 'skcodex fit')")
    try:
        clf = load(p)
    except ValueError as err:
        raise CommandError(f"cannot read a fitted model: {err}") from None
    if not hasattr(clf, "idata_"):
        raise CommandError(f"{p} does not hold a fitted BayesianMatchupClassifier")
    return clf


# -- reading matches -------------------------------------------------------------------


def read_matches(
    path: str | os.PathLike,
    catalogue_file: str | os.PathLike | None = None,
    specs_per_deck: int | None = None,
) -> tuple[pd.DataFrame, np.ndarray, Any]:
    """Read matches from a codexdata folder (or its matches.csv) or a match-table CSV.

    A match-table CSV has the columns ``player1`` (who moved first),
    ``player2``, ``deck1``, ``deck2``, optionally ``period`` (tournament)
    and ``date``, and the result as ``y`` (1 where player 1 won, 0 where
    player 2 won) or ``winner`` (the winner's name).

    Its decks are read as Codex decks (forum notation) when they all are;
    otherwise, or when a catalogue file or ``specs_per_deck`` is given, in
    plain notation ``starter/component/...`` (`skcodex.codex.PlainCatalogue`):
    against the catalogue file's names, or with every name seen a level.

    Returns
    -------
    X, y, catalogue
        The match table, outcomes, and the catalogue its decks are read
        against (None for base Codex).
    """
    from skcodex.data import check_outcome
    from skcodex.datasets import load_codex_matches

    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"no such file or folder: {path}")
    plain_asked = catalogue_file is not None or specs_per_deck is not None
    if plain_asked and (p.is_dir() or _is_codexdata(p)):
        raise CommandError(
            "--catalogue and --specs-per-deck are for match-table CSVs of other games; "
            f"{path} is codexdata, which carries its own Codex catalogue"
        )
    if p.is_dir():
        X, y = load_codex_matches(p, return_X_y=True)
        return X, y, X.attrs.get("catalogue")
    try:
        header = pd.read_csv(p, nrows=0).columns
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as err:
        raise CommandError(f"cannot read {path} as CSV: {err}") from None
    if "victor" in header:
        X, y = load_codex_matches(p, return_X_y=True)
        return X, y, X.attrs.get("catalogue")
    table = pd.read_csv(p, dtype={"player1": str, "player2": str, "winner": str})
    if "y" in table.columns:
        y = check_outcome(table.pop("y").to_numpy(), len(table))
    elif "winner" in table.columns:
        winner = table.pop("winner").astype(object)
        p1, p2 = table["player1"].astype(object), table["player2"].astype(object)
        bad = ~(winner.eq(p1) | winner.eq(p2))
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise CommandError(
                f"{path}: row {row + 2} names the winner {winner.iloc[row]!r}, "
                f"who is neither player1 {p1.iloc[row]!r} nor player2 {p2.iloc[row]!r}"
            )
        y = winner.eq(p1).to_numpy().astype(np.int64)
    else:
        raise CommandError(
            f"{path} has no result column: add 'y' (1 where player1 won, 0 where player2 "
            "won) or 'winner' (the winner's name)"
        )
    return table, y, _deck_catalogue(table, path, catalogue_file, specs_per_deck)


def _is_codexdata(p: Path) -> bool:
    try:
        return "victor" in pd.read_csv(p, nrows=0).columns
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError, OSError):
        return False


def _deck_catalogue(
    table: pd.DataFrame, path: Any, catalogue_file: Any, specs_per_deck: int | None
) -> Any:
    """The catalogue a match-table CSV's decks are read against (None for Codex)."""
    from skcodex.codex import DeckParseError, PlainCatalogue, parse_deck
    from skcodex.data import MatchTableError, check_match_table

    if catalogue_file is not None:
        catalogue = PlainCatalogue.from_file(catalogue_file, specs_per_deck)
    elif specs_per_deck is not None:
        catalogue = PlainCatalogue(specs_per_deck=specs_per_deck)
    else:
        try:
            check_match_table(table)
            return None
        except MatchTableError as err:
            codex_error = err
        texts = pd.unique(table[["deck1", "deck2"]].astype(str).to_numpy().ravel())
        codex_ok = 0
        for text in texts:
            try:
                parse_deck(text)
                codex_ok += 1
            except DeckParseError:
                pass
        if codex_ok * 2 > len(texts):  # mostly Codex decks: the Codex error is the useful one
            raise CommandError(f"{path}: {codex_error}")
        catalogue = PlainCatalogue()  # open: every name seen becomes a level
        counts = {text: len(text.strip().split("/")) - 1 for text in texts}
        if len(set(counts.values())) > 1:
            by_count = {}
            for text, n in counts.items():
                by_count.setdefault(n, text)
            examples = "; ".join(f"{text!r} has {n}" for n, text in sorted(by_count.items()))
            raise CommandError(
                f"{path}: the decks are not Codex decks, and read as starter/component/... "
                f"they hold different numbers of components after the starter ({examples}); "
                "give every deck the same number, or name the parts with --catalogue FILE"
            )
        k = next(iter(counts.values()))
        print(
            f"The decks of {path} are not Codex decks; reading each as a starter followed "
            f"by {k} component(s), every name seen a level (give --catalogue FILE to check "
            "the names)."
        )
    try:
        checked = check_match_table(table, catalogue)
    except MatchTableError as err:
        raise CommandError(f"{path}: {err}") from None
    if catalogue.specs_per_deck is None and len(checked):
        # Fix the number of components seen, so later decks (predict) are checked against it.
        k = len(checked["deck1"].iloc[0].specs)
        catalogue = dataclasses.replace(catalogue, specs_per_deck=k)
    return catalogue


# -- the output folder -----------------------------------------------------------------

#: What one run writes into its output folder (besides the report's CSV tables).
_OUTPUTS = (MODEL_FILE, "report.html")


def prepare_output(out: Path) -> Path:
    """Check ``out`` before any fitting and create the staging folder beside it.

    One run's outputs are written into a hidden sibling folder and swapped in
    by `publish_output` only when all are written, so an interrupted or
    failed run leaves the previous outputs as they were. ``out`` must be a
    folder (or not exist yet) in a writable parent, holding nothing but the
    outputs of an earlier run (they are replaced as a whole).

    Returns
    -------
    pathlib.Path
        The staging folder.
    """
    out = Path(os.path.abspath(out))
    if out.exists() and not out.is_dir():
        raise CommandError(f"--out {out} is a file, not a folder")
    if out.is_dir():
        foreign = sorted(
            p.name for p in out.iterdir() if p.name not in _OUTPUTS and p.suffix != ".csv"
        )
        if foreign:
            raise CommandError(
                f"--out {out} holds files skcodex did not write ({', '.join(foreign[:3])}); "
                "a run replaces the whole folder: choose a new or empty folder"
            )
    parent = out.parent
    if not parent.is_dir():
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise CommandError(f"--out {out}: cannot create {parent}: {err.strerror}") from None
    try:
        return Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=parent))
    except OSError as err:
        raise CommandError(f"--out {out}: cannot write in {parent}: {err.strerror}") from None


def publish_output(staging: Path, out: Path) -> None:
    """Swap a complete staging folder in as ``out``; the old outputs go only once it is in."""
    out = Path(os.path.abspath(out))
    old = None
    if out.exists():
        old = staging.with_name(staging.name.replace(".partial", ".old"))
        os.replace(out, old)
    try:
        os.replace(staging, out)
    except BaseException:
        if old is not None and not out.exists():
            os.replace(old, out)  # put the previous outputs back
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


# -- fitting and reporting -------------------------------------------------------------


def _fit(X: pd.DataFrame, y: np.ndarray, catalogue: Any, args: argparse.Namespace, what: str):
    from sklearn.exceptions import ConvergenceWarning

    from skcodex import BayesianMatchupClassifier

    clf = BayesianMatchupClassifier(
        draws=args.draws,
        tune=args.tune,
        chains=args.chains,
        random_state=args.seed,
        progressbar=not args.no_progress,
        catalogue=catalogue,
        first_move=bool(getattr(args, "first_move", False)),
        prior=args.prior,
        target_accept=args.target_accept,
    )
    print(
        f"Fitting {what}: {len(X)} matches, {args.chains} chains of {args.draws} draws, "
        f"{args.prior} prior ..."
    )
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf.fit(X, y)
    print(f"  done in {time.perf_counter() - start:.1f} s.")
    for w in caught:
        if issubclass(w.category, ConvergenceWarning):
            print(f"  warning: {w.message}")
    return clf


def _held_out(X: pd.DataFrame, y: np.ndarray, catalogue: Any, args: argparse.Namespace):
    """Refit without the tournament that started last and forecast it (None if impossible)."""
    from skcodex.model_selection import TournamentSplit
    from skcodex.report import HeldOut

    if "period" not in X.columns:
        print("No tournament column: skipping the held-out forecast.")
        return None
    try:
        train, test = next(TournamentSplit(n_splits=1).split(X))
        label = TournamentSplit(n_splits=1).describe(X)["tournament"].iloc[0]
    except ValueError as err:
        print(f"Skipping the held-out forecast: {err}")
        return None
    Xtr, Xte = X.iloc[train], X.iloc[test]
    clf = _fit(Xtr, y[train], catalogue, args, f"without tournament {label} (to forecast it)")
    return HeldOut(
        label=f"tournament {label}",
        y=y[test],
        p_win=clf.predict_proba(Xte)[:, 1],
        n_train=len(train),
        problems=list(clf.convergence_problems_),
    )


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
):
    from skcodex.report import write_report

    staging = None if out is None else prepare_output(out)  # checked before the fit
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
                f"Wrote {out / MODEL_FILE}\nWrote {out / 'report.html'} and the tables as CSV "
                "beside it."
            )
    finally:
        if staging is not None and staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return clf, held_out


def _cmd_fit(args: argparse.Namespace) -> int:
    X, y, catalogue = read_matches(args.matches, args.catalogue, args.specs_per_deck)
    summary = X.attrs.get("summary")
    if summary is not None:
        print(summary)
    _fit_and_report(
        X, y, catalogue, args, Path(args.out), title=args.title, source=str(args.matches)
    )
    return 0


def _player_id(name: str, players: tuple) -> Any:
    if players and isinstance(players[0], (int, np.integer)) and name.lstrip("-").isdigit():
        return int(name)
    return name


def _cmd_predict(args: argparse.Namespace) -> int:
    from skcodex.analysis import deck_label, match_forecast
    from skcodex.codex import parse_deck

    clf = load_model(args.model)
    catalogue = clf.catalogue or getattr(clf, "catalogue_", None)
    decks = []
    for flag, text in (("--deck1", args.deck1), ("--deck2", args.deck2)):
        try:
            decks.append(parse_deck(text, catalogue))
        except ValueError as err:
            raise CommandError(f"{flag}: {err}") from None
    players = clf.vocabulary_.players
    p1, p2 = _player_id(args.p1, players), _player_id(args.p2, players)
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
    forecast = match_forecast(clf, table, args.interval).iloc[0]
    for name in (p1, p2):
        if name not in players:
            print(
                f"note: {name} was not in the fitted matches; their skill is drawn from the "
                "population of players, so the interval is wide."
            )
    d1, d2 = (deck_label(d, catalogue) for d in decks)
    print(f"P({p1} with {d1}, moving first, beats {p2} with {d2}) = {forecast['mean']:.3f}")
    print(
        f"{round(100 * args.interval)}% interval: "
        f"{forecast['lower']:.3f} to {forecast['upper']:.3f}"
    )
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from skcodex import brier_score
    from skcodex.analysis import skill_table, skill_versus_decks
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

    skills = skill_table(clf, data.X)
    truth = data.params["skill"]
    top = skills.head(args.top)
    print(f"\nTop {len(top)} players (posterior mean skill, 90% interval; true skill):")
    for player, row in top.iterrows():
        print(
            f"  {player:>10}  {row['mean']:+.2f}  [{row['lower']:+.2f}, {row['upper']:+.2f}]"
            f"  P(best) {row['p_best']:.2f}   true {truth[player]:+.2f}"
        )
    spreads = skill_versus_decks(clf)
    print("\nSkill versus decks (posterior mean, 90% interval; true value):")
    sd = data.params["sd"]
    true_deck = (sd["stst"] ** 2 + 6 * sd["stsp"] ** 2 + 9 * sd["spsp"] ** 2) ** 0.5
    for name, true in (("sd_player", sd["player"]), ("sd_deck", true_deck)):
        row = spreads.loc[name]
        print(
            f"  {name:>10}  {row['mean']:.2f}  [{row['lower']:.2f}, {row['upper']:.2f}]"
            f"   true {true:.2f}"
        )
    print(
        f"  P(skill matters more than decks) = {spreads.attrs['p_skill_matters_more']:.2f}"
        f" (prior alone: {spreads.attrs['prior_p_skill_matters_more']:.2f}, {args.prior} prior)"
    )

    in_sample = brier_score(data.y, clf.predict_proba(data.X)[:, 1])
    print("\nBrier score (lower is better; a coin flip scores 0.250):")
    line = f"  in-sample {in_sample:.3f}"
    if held_out is not None:
        test = (data.X["period"] == data.X["period"].iloc[-1]).to_numpy()
        held = brier_score(held_out.y, held_out.p_win)
        oracle = brier_score(data.y[test], data.p_win[test])
        line += (
            f"   held-out ({held_out.label}) {held:.3f}   "
            f"true probabilities on the held-out matches {oracle:.3f}"
        )
    print(line)
    if out is not None:
        print(f"\nOpen {out / 'report.html'} in a browser to read the report.")
    return 0


# -- the parser ------------------------------------------------------------------------


def _whole_number(value: str, least: int) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
    if n < least:
        raise argparse.ArgumentTypeError(f"expected a number of at least {least}, got {value!r}")
    return n


def _positive(value: str) -> int:
    return _whole_number(value, 1)


def _non_negative(value: str) -> int:
    return _whole_number(value, 0)


def _deck_list(value: str) -> str | list[str]:
    if value.strip().lower() in ("most played", "monocolour"):
        return value.strip().lower()
    decks = [part.strip() for part in value.split(",") if part.strip()]
    if not decks:
        raise argparse.ArgumentTypeError("expected decks separated by commas")
    return decks


def _probability(value: str) -> float:
    try:
        x = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {value!r}") from None
    if not 0 < x < 1:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {value!r}")
    return x


def _sampling_options(
    p: argparse.ArgumentParser,
    draws: int,
    nash_draws: int = 500,
    target_accept: float = 0.8,
    tune: int | None = None,
) -> None:
    p.add_argument(
        "--draws", type=_positive, default=draws, help=f"posterior draws per chain ({draws})"
    )
    p.add_argument(
        "--tune",
        type=_positive,
        default=tune,
        help=f"tuning steps per chain ({tune if tune else '= draws'})",
    )
    p.add_argument("--chains", type=_positive, default=4, help="chains (4)")
    p.add_argument(
        "--prior",
        choices=("lognormal", "balanced"),
        default="lognormal",
        help="spread prior: lognormal (the default log-normal spreads) or balanced (skill "
        "and decks equal a priori)",
    )
    p.add_argument(
        "--target-accept",
        type=_probability,
        default=target_accept,
        help=f"NUTS target acceptance rate ({target_accept})",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (0)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument(
        "--no-holdout",
        action="store_true",
        help="skip the second fit without the last tournament (and the held-out calibration)",
    )
    p.add_argument(
        "--nash-draws",
        type=_positive,
        default=nash_draws,
        help=f"posterior draws the Nash games are solved for ({nash_draws})",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``skcodex`` command."""
    parser = _Parser(
        prog="skcodex",
        description="Predict who wins a two-player match (Codex, or any game whose decks are a "
        "starter plus side components) from the players, their decks and turn order.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    fit = sub.add_parser(
        "fit",
        help="fit matches and write the model, report.html and CSV tables",
        description="Fit the matchup model to MATCHES (a codexdata folder, its matches.csv, "
        "or a CSV with columns player1, player2, deck1, deck2, y or winner, and optionally "
        "period and date) and write the fitted model, report.html and the tables as CSV "
        "into DIR. Unless --no-holdout, the model is also refitted without the tournament "
        "that started last, to score forecasts for it out of sample.",
    )
    fit.add_argument("matches", metavar="MATCHES", help="codexdata folder or match CSV")
    fit.add_argument("--out", required=True, metavar="DIR", help="output folder")
    fit.add_argument(
        "--title",
        default=None,
        help="report title ('Codex skills and matchups' for Codex data, else "
        "'Skills and matchups')",
    )
    fit.add_argument(
        "--catalogue",
        metavar="FILE",
        default=None,
        help="CSV of another game's names, header 'kind,name', rows 'starter,NAME' and "
        "'component,NAME' (optionally 'specs_per_deck,K'); decks are then read as "
        "starter/component/...",
    )
    fit.add_argument(
        "--specs-per-deck",
        type=_non_negative,
        metavar="K",
        default=None,
        help="read decks as starter/component/... with K components each (0: characters "
        "alone), every name seen a level",
    )
    fit.add_argument(
        "--first-move",
        action="store_true",
        help="add a first-move effect (player 1's advantage), for games whose deck "
        "effects do not already carry turn order",
    )
    fit.add_argument(
        "--decks",
        type=_deck_list,
        default=None,
        metavar="DECKS",
        help="decks of the report's matchup table and Nash weights: 'most played' "
        "(the default), 'monocolour' (Codex), or decks separated by commas",
    )
    _sampling_options(fit, 1000)
    fit.set_defaults(run=_cmd_fit)

    predict = sub.add_parser(
        "predict",
        help="probability that the first player wins, with its interval",
        description="P(player 1 wins) for one match, from a model written by 'skcodex fit'.",
    )
    predict.add_argument("model", metavar="MODEL", help="fitted model file, or its folder")
    predict.add_argument("--p1", required=True, metavar="NAME", help="player 1 (moves first)")
    predict.add_argument("--deck1", required=True, metavar="DECK", help="player 1's deck")
    predict.add_argument("--p2", required=True, metavar="NAME", help="player 2")
    predict.add_argument("--deck2", required=True, metavar="DECK", help="player 2's deck")
    predict.add_argument("--interval", type=_probability, default=0.9, help="interval width (0.9)")
    predict.set_defaults(run=_cmd_predict)

    demo = sub.add_parser(
        "demo",
        help="fit a synthetic tournament series, show the results and write the report",
        description="Fit a synthetic tournament series drawn from the model, print the "
        f"estimates against the truth, and write the report into DIR ({DEMO_DIR}/ by "
        "default).",
    )
    demo.add_argument("--players", type=_positive, default=32, help="number of players (32)")
    demo.add_argument("--matches", type=_positive, default=800, help="number of matches (800)")
    demo.add_argument("--top", type=_positive, default=10, help="players to list (10)")
    demo.add_argument("--out", default=DEMO_DIR, metavar="DIR", help=f"output ({DEMO_DIR})")
    demo.add_argument("--no-report", action="store_true", help="print only; write nothing")
    # 4 chains x 1000 draws after 500 tuning steps: every R-hat <= 1.01 and ESS >= 400 over
    # the ~800 free parameters (4 x 500 left some R-hat near 1.02); see
    # benchmarks/demo_first_run.py for the wall time and convergence of a first run.
    _sampling_options(demo, 1000, nash_draws=100, tune=500)
    demo.set_defaults(run=_cmd_demo)
    return parser


def _fail(message: Any) -> int:
    text = " ".join(str(message).split()) or "unknown error"
    print(f"skcodex: error: {text}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    """Run the command; errors are one readable line and exit status 2."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "tune", None) is None and hasattr(args, "draws"):
        args.tune = args.draws
    try:
        return args.run(args)
    except FileNotFoundError as err:
        if err.strerror and err.filename:
            return _fail(f"{err.strerror}: {err.filename}")
        return _fail(err)
    except KeyError as err:
        return _fail(err.args[0] if err.args else err)
    except (CommandError, ValueError, OSError, ImportError) as err:
        return _fail(err)
    except KeyboardInterrupt:
        print("skcodex: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
