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
``skcodex simulate MODEL --entrants CSV --format FORMAT [--results CSV] [--out DIR]``
    Play a tournament many times on the posterior and print each entrant's
    chances; with ``--out``, write the tournament's ``report.html`` and its
    tables as CSV.
``skcodex advise MODEL --player NAME --candidates DECKS --field CSV [--format FORMAT]``
    Rank a player's candidate decks by win rate against a field and, with a
    format, by the chance to win the event.

Errors are one readable line on standard error and exit status 2.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

from skcodex.cli.errors import CommandError, Terminated, shown
from skcodex.cli.output import MODEL_FILE, load_model, prepare_output, publish_output, save_model
from skcodex.cli.parser import DEMO_DIR, build_parser
from skcodex.cli.tables import read_matches

__all__ = [
    "DEMO_DIR",
    "MODEL_FILE",
    "CommandError",
    "build_parser",
    "load_model",
    "main",
    "prepare_output",
    "publish_output",
    "read_matches",
    "save_model",
]


def _fail(message: Any) -> int:
    text = shown(" ".join(str(message).split()) or "unknown error")
    print(f"skcodex: error: {text}", file=sys.stderr)
    return 2


def _escaping(show: Any) -> Any:
    """A warning display like ``show`` with the message's unprintable characters escaped."""

    def show_escaped(message, category, filename, lineno, file=None, line=None) -> None:
        show(shown(str(message)), category, filename, lineno, file, line)

    return show_escaped


def main(argv: list[str] | None = None) -> int:
    """Run the command; errors are one readable line and exit status 2."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "tune", None) is None and hasattr(args, "draws"):
        args.tune = args.draws
    with warnings.catch_warnings():
        # names in warnings reach the terminal too
        warnings.showwarning = _escaping(warnings.showwarning)
        return _run(args)


def _run(args: Any) -> int:
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
    except Terminated:
        print("skcodex: terminated; the output folder was left as it was", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("skcodex: interrupted", file=sys.stderr)
        return 130
