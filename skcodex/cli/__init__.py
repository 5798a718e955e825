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

From Python, `main` runs the command (``main(["fit", ...])``), and `save_model`,
`load_model` and `MODEL_FILE` write and read the model file as the command does.

Import rule (checked by the tests):
May import: skcodex, skcodex.analysis, skcodex.codex, skcodex.data, skcodex.datasets, skcodex.exceptions, skcodex.metrics, skcodex.model_selection, skcodex.plotting, skcodex.report, skcodex.tournament, skcodex._matchup.debut, skcodex._matchup.diagnostics, skcodex._matchup.readers, skcodex._format.persistence, skcodex._compat.posterior, skcodex._compat.retired, skcodex._matchup.prediction
"""  # noqa: E501

from __future__ import annotations

import sys
import warnings
from typing import Any

from skcodex._compat.retired import retired_name
from skcodex.cli import _errors, _parser
from skcodex.cli._output import MODEL_FILE, load_model, save_model

__all__ = ["MODEL_FILE", "load_model", "main", "save_model"]

_WRITE = "main([...]), which replaces the files of its output folder as a whole"

#: Names this namespace no longer exports: where each is now, and what to use instead.
_RETIRED = {
    "DEMO_DIR": ("skcodex.cli._parser", "the folder name 'skcodex-demo'"),
    "CommandError": ("skcodex.cli._errors", "the exit status of main (2 for an error)"),
    "build_parser": ("skcodex.cli._parser", "main([...]) (main(['--help']) shows the options)"),
    "prepare_output": ("skcodex.cli._output", _WRITE),
    "publish_output": ("skcodex.cli._output", _WRITE),
    "read_matches": (
        "skcodex.cli._tables",
        "skcodex.datasets.load_codex_matches for a codexdata folder, or pandas.read_csv "
        "and skcodex.data.check_match_table for a CSV file",
    ),
}


def __getattr__(name: str) -> Any:
    """A retired name still imports, with a DeprecationWarning saying what to use instead."""
    return retired_name(__name__, _RETIRED, name)


def _fail(message: Any) -> int:
    text = _errors.shown(" ".join(str(message).split()) or "unknown error")
    print(f"skcodex: error: {text}", file=sys.stderr)
    return 2


def _escaping(show: Any) -> Any:
    """A warning display like ``show`` with the message's unprintable characters escaped."""

    def show_escaped(message, category, filename, lineno, file=None, line=None) -> None:
        show(_errors.shown(str(message)), category, filename, lineno, file, line)

    return show_escaped


def main(argv: list[str] | None = None) -> int:
    """Run the ``skcodex`` command; errors are one readable line and exit status 2.

    Parameters
    ----------
    argv : list of str or None, default None
        The command's words (``["fit", "matches.csv", "--out", "results"]``); the
        program's own arguments when None.

    Returns
    -------
    int
        The exit status: 0 on success, 2 for an error, 130 when interrupted.
    """
    parser = _parser.build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # named by the command given them, whose --help lists what it takes
        command = parser.commands.get(args.command, parser)
        command.error(f"unrecognized arguments: {' '.join(unknown)}")
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
    except (_errors.CommandError, ValueError, OSError, ImportError) as err:
        return _fail(err)
    except _errors.Terminated:
        print("skcodex: terminated; the output folder was left as it was", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("skcodex: interrupted", file=sys.stderr)
        return 130
