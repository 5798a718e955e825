"""The ``skcodex`` command's argument parser: its commands, options and their checks."""

from __future__ import annotations

import argparse
import copy
from typing import NoReturn

from skcodex import __version__
from skcodex.cli._advise import run_advise
from skcodex.cli._checks import at_least, non_negative, positive, whole_number
from skcodex.cli._commands import _cmd_demo, _cmd_fit
from skcodex.cli._errors import shown
from skcodex.cli._model_options import model_options
from skcodex.cli._series import run_predict
from skcodex.cli._simulate import _cmd_simulate

#: Where ``skcodex demo`` writes its report unless told otherwise.
DEMO_DIR = "skcodex-demo"


class _Formatter(argparse.HelpFormatter):
    """Help whose text may be a function, called only when the help is shown."""

    def _format_action(self, action: argparse.Action) -> str:
        if callable(action.help):
            action = copy.copy(action)
            action.help = action.help()
        return super()._format_action(action)


def _format_help() -> str:
    """The ``--format`` help: every stage the tournament format reads (imported when shown)."""
    from skcodex.tournament._stage import format_help

    return (
        f"{format_help()}. A stage played in best-of-K sets ends in :boK, a knockout's "
        "final of its own length in :final-boK: swiss:5:bo3+knockout:8:bo3:final-bo5"
    )


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {shown(message)} (see {self.prog} --help)\n")


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
        "--draws", type=positive, default=draws, help=f"posterior draws per chain ({draws})"
    )
    p.add_argument(
        "--tune",
        type=positive,
        default=tune,
        help=f"tuning steps per chain ({tune if tune else '= draws'})",
    )
    p.add_argument("--chains", type=positive, default=4, help="chains (4)")
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
    p.add_argument("--seed", type=non_negative, default=0, help="random seed (0)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument(
        "--no-holdout",
        action="store_true",
        help="skip the second fit without the latest matches (and the held-out calibration)",
    )
    p.add_argument(
        "--nash-draws",
        type=positive,
        default=nash_draws,
        help=f"posterior draws the Nash games are solved for ({nash_draws})",
    )


def _share(value: str) -> float:
    return _probability(value)


def _date(value: str) -> str:
    import pandas as pd

    try:
        when = pd.Timestamp(value)
    except (ValueError, TypeError):
        raise argparse.ArgumentTypeError(
            f"expected a date such as 2024-06-01, got {value!r}"
        ) from None
    if when is pd.NaT:
        raise argparse.ArgumentTypeError(f"expected a date such as 2024-06-01, got {value!r}")
    return value


def _holdout_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--holdout-share",
        type=_share,
        default=0.15,
        metavar="SHARE",
        help="hold out the latest tournaments that make up at least this share of the "
        "matches (0.15)",
    )
    p.add_argument(
        "--holdout-since",
        type=_date,
        default=None,
        metavar="DATE",
        help="hold out the tournaments starting on or after DATE instead (needs a date column)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``skcodex`` command."""
    parser = _Parser(
        prog="skcodex",
        description="Predict who wins a two-player match (Codex, or any game whose decks are a "
        "starter plus side components) from the players and their decks.",
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}", help="print the version"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (_fit_parser, _predict_parser, _demo_parser, _simulate_parser, _advise_parser):
        add(sub)
    parser.commands = dict(sub.choices)  # each command's parser, to name its own errors
    return parser


def _fit_parser(sub) -> None:
    """``skcodex fit``: a model and its report from a match table."""
    fit = sub.add_parser(
        "fit",
        help="fit matches and write the model, report.html and CSV tables",
        description="Fit the matchup model to MATCHES (a codexdata folder, its matches.csv, "
        "or a CSV with columns player1, player2, deck1, deck2, y or winner, and optionally "
        "period and date) and write the fitted model, report.html and the tables as CSV "
        "into DIR. Unless --no-holdout, the model is also refitted without the latest "
        "tournaments that make up at least --holdout-share of the matches (or those "
        "starting on or after --holdout-since), to score forecasts for them out of sample; "
        "the command prints how many matches are held out.",
    )
    fit.add_argument("matches", metavar="MATCHES", help="codexdata folder or match CSV")
    fit.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help="output folder: new, empty, or an earlier run's (a run replaces it whole; a "
        "folder with any other file, or with the input, or a symbolic link, is refused)",
    )
    fit.add_argument(
        "--replace",
        action="store_true",
        help="replace the model an earlier fit wrote into DIR (without it, a DIR holding a "
        "model is refused)",
    )
    fit.add_argument(
        "--title",
        default=None,
        help="report title ('Codex skills and matchups' for Codex data, else "
        "'Skills and matchups')",
    )
    model_options(fit)
    fit.add_argument(
        "--decks",
        type=_deck_list,
        default=None,
        metavar="DECKS",
        help="decks of the report's matchup table and Nash weights: 'most played' "
        "(the default), 'monocolour' (Codex), or decks separated by commas",
    )
    fit.add_argument("--top", type=positive, default=10, help="players to list (10)")
    fit.add_argument(
        "--advise",
        metavar="PLAYER",
        help="add 'What to bring' to the report: the decks PLAYER played (their 8 most "
        "played) ranked against the latest tournament's decks in the shares they were played",
    )
    _sampling_options(fit, 1000)
    _holdout_options(fit)
    fit.set_defaults(run=_cmd_fit)


def _predict_parser(sub) -> None:
    """``skcodex predict``: one match's forecast from a model file."""
    predict = sub.add_parser(
        "predict",
        help="probability that player 1 wins, with its interval",
        description="P(player 1 wins) for one match, from a model written by 'skcodex fit'.",
    )
    predict.add_argument("model", metavar="MODEL", help="fitted model file, or its folder")
    predict.add_argument("--p1", required=True, metavar="NAME", help="player 1 (listed first)")
    predict.add_argument("--deck1", required=True, metavar="DECK", help="player 1's deck")
    predict.add_argument("--p2", required=True, metavar="NAME", help="player 2")
    predict.add_argument("--deck2", required=True, metavar="DECK", help="player 2's deck")
    predict.add_argument("--interval", type=_probability, default=0.9, help="interval width (0.9)")
    _series_options(predict)
    predict.set_defaults(run=run_predict)


def _demo_parser(sub) -> None:
    """``skcodex demo``: a synthetic tournament series fitted and reported."""
    demo = sub.add_parser(
        "demo",
        help="fit a synthetic tournament series, show the results and write the report",
        description="Fit a synthetic tournament series drawn from the model, print the "
        f"estimates against the truth, and write the report into DIR ({DEMO_DIR}/ by "
        "default).",
    )
    demo.add_argument("--players", type=at_least(2), default=32, help="number of players (32)")
    demo.add_argument("--matches", type=at_least(8), default=800, help="matches, 8 or more (800)")
    demo.add_argument("--top", type=positive, default=10, help="players to list (10)")
    demo.add_argument("--out", default=DEMO_DIR, metavar="DIR", help=f"output ({DEMO_DIR})")
    demo.add_argument("--no-report", action="store_true", help="print only; write nothing")
    # 4 chains x 1000 draws after 500 tuning steps: every R-hat <= 1.01 and ESS >= 400 over
    # the ~800 free parameters (4 x 500 left some R-hat near 1.02); see
    # benchmarks/demo_first_run.py for the wall time and convergence of a first run.
    _sampling_options(demo, 1000, nash_draws=100, tune=500)
    demo.set_defaults(run=_cmd_demo)


def _odd_games(value: str) -> int:
    n = whole_number(value, 1)
    if n % 2 == 0:
        raise argparse.ArgumentTypeError(
            f"expected an odd number of games (1, 3, 5, ...: an even number can end level), "
            f"got {value!r}"
        )
    return n


def _series_options(predict) -> None:
    """``skcodex predict --best-of N``: the chance of a set, and how its games are played.

    The choices are `skcodex.tournament`'s `SERIES_RULES`, `SERIES_PICKS` and
    `SERIES_FIRST_MOVES`, written out: importing the tournament package here would
    load scikit-learn for every forecast (a test keeps them equal).
    """
    predict.add_argument(
        "--best-of",
        type=_odd_games,
        default=1,
        metavar="N",
        help="P(player 1 wins a best-of-N set) on the posterior (1: one game); --deck1 and "
        "--deck2 may then list several decks separated by ';' for the rules that pick",
    )
    predict.add_argument(
        "--series-rule",
        choices=SERIES_RULES,
        default="fixed",
        help="how decks change between the games of a set (fixed)",
    )
    predict.add_argument(
        "--pick",
        choices=SERIES_PICKS,
        default="best",
        help="how a side picks a deck: best (its highest posterior mean chance of the set) "
        "or uniform; best by default",
    )
    predict.add_argument(
        "--set-order",
        choices=SERIES_FIRST_MOVES,
        default="alternating",
        help="who is player 1 in each game after game 1 (--p1 is in game 1): alternating, "
        "the loser of the last game, or at random in every game (alternating)",
    )
    predict.add_argument("--draw-rule", **_DRAW_RULE)


#: The set options' choices (`skcodex.tournament`'s, without importing it); ``--draw-rule``.
SERIES_RULES = ("fixed", "loser may switch", "winner may not repeat", "each picks")
SERIES_PICKS = ("best", "uniform")
SERIES_FIRST_MOVES = ("alternating", "loser", "random")
SERIES_DRAW_RULES = ("replay", "points")
_DRAW_RULE = {
    "choices": SERIES_DRAW_RULES,
    "default": "replay",
    "help": "with a model fitted with draws, what a drawn game of a set counts for: replay "
    "(played again with the same decks, as in card games) or points (half a point each, a "
    "level set decided by one more game, as in chess) (replay)",
}


def _simulate_parser(sub) -> None:
    """``skcodex simulate``: a tournament forecast from a fitted model."""
    simulate = sub.add_parser(
        "simulate",
        help="forecast a tournament: each entrant's chance to win, reach the final, top 4, top 8",
        description="Play a tournament many times on the posterior of a model written by "
        "'skcodex fit' (one posterior draw per simulated tournament) and print each "
        "entrant's chances, expected wins and the most likely final; with --out, also "
        "write report.html and the tables as CSV into DIR.",
        formatter_class=_Formatter,
    )
    simulate.add_argument("model", metavar="MODEL", help="fitted model file, or its folder")
    simulate.add_argument(
        "--entrants",
        required=True,
        metavar="CSV",
        help="entrants in seeding order, columns player and deck (several decks separated by ';')",
    )
    simulate.add_argument(
        "--format",
        required=True,
        metavar="FORMAT",
        help=_format_help,
    )
    simulate.add_argument(
        "--results",
        metavar="CSV",
        default=None,
        help="matches already played: round, player1, player2, winner (empty for a pairing "
        "not yet played)",
    )
    simulate.add_argument(
        "--deck-rule",
        choices=["fixed order", "uniform", "nash"],
        default="fixed order",
        help="how an entrant with several decks picks one per match (fixed order)",
    )
    simulate.add_argument(
        "--first-move",
        choices=["random", "alternating"],
        default="random",
        help="which entrant is player 1 in a match: random, or alternating (random)",
    )
    simulate.add_argument(
        "--simulations", type=positive, default=10_000, help="simulated tournaments (10000)"
    )
    simulate.add_argument(
        "--top", type=positive, default=16, help="entrants to print and plot (16)"
    )
    simulate.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="write report.html (the forecast, the likely final, the figure, the format, "
        "entrants and results) and its tables as CSV into DIR: new, empty, or an earlier "
        "run's (a run replaces it whole; a folder with any other file, with an input, or a "
        "symbolic link, is refused)",
    )
    simulate.add_argument(
        "--title", default=None, help="report title with --out ('Tournament forecast')"
    )
    simulate.add_argument(
        "--posterior-draws",
        type=positive,
        default=None,
        metavar="N",
        help="use N evenly spaced posterior draws (all by default): fewer for a large field or "
        "the nash deck rule",
    )
    simulate.add_argument("--table", metavar="FILE", default=None, help="write the table as CSV")
    simulate.add_argument("--plot", metavar="FILE", help="write the figure (.png, .svg, .pdf)")
    simulate.add_argument("--seed", type=non_negative, default=0, help="random seed (0)")
    simulate.add_argument("--draw-rule", **_DRAW_RULE)
    simulate.set_defaults(run=_cmd_simulate)


def _advise_parser(sub) -> None:
    """Register ``skcodex advise`` with the command's subparsers."""
    advise = sub.add_parser(
        "advise",
        help="which of a player's decks to bring: win rate against a field, chance to win",
        description="Rank a player's candidate decks by their expected win rate against a "
        "field and, with --format, by the chance of winning the event, from a model written "
        "by 'skcodex fit'. Every figure is computed per posterior draw, with its interval "
        "and the probability that each deck is the best.",
    )
    advise.add_argument("model", metavar="MODEL", help="fitted model file, or its folder")
    advise.add_argument("--player", required=True, metavar="NAME", help="the player to advise")
    advise.add_argument(
        "--candidates",
        required=True,
        metavar="DECKS",
        help="the decks to choose among, separated by commas",
    )
    advise.add_argument(
        "--field",
        required=True,
        metavar="CSV",
        help="the opponents: columns player and deck (entrants, one deck each, in seeding "
        "order), deck alone (unnamed entrants), or deck and share (shares summing to 1)",
    )
    advise.add_argument(
        "--format",
        default=None,
        metavar="FORMAT",
        help="the event's format, as for 'skcodex simulate' (e.g. swiss:5+knockout:8): adds "
        "each deck's chance to win the event",
    )
    advise.add_argument(
        "--entrants",
        type=positive,
        default=None,
        metavar="N",
        help="with a field of shares and --format: how many enter, the player included",
    )
    advise.add_argument(
        "--player-seed",
        type=positive,
        default=1,
        metavar="K",
        help="the player's seed in the event (1, the top seed)",
    )
    advise.add_argument(
        "--simulations",
        type=positive,
        default=10_000,
        help="simulated events per deck, spread over the posterior draws (10000)",
    )
    advise.add_argument(
        "--posterior-draws",
        type=positive,
        default=200,
        metavar="N",
        help="evenly spaced posterior draws to use (200)",
    )
    advise.add_argument("--interval", type=_probability, default=0.9, help="interval width (0.9)")
    advise.add_argument("--table", metavar="FILE", default=None, help="write the table as CSV")
    advise.add_argument(
        "--html", metavar="FILE", default=None, help="write the advice as an HTML page"
    )
    advise.add_argument(
        "--title", default=None, help="the page's title with --html ('What to bring')"
    )
    advise.add_argument("--seed", type=non_negative, default=0, help="random seed (0)")
    advise.set_defaults(run=run_advise)
