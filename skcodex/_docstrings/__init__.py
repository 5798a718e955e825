"""Parameter text documented identically in many places, written once.

A docstring names a shared entry by a line holding only ``{name}`` where the
entry goes, and the function is decorated with `shared_parameters`, which puts
the entry's text there at the line's indentation (the docstring check and the
API reference read the filled docstring).

Import rule (checked by the tests):
May import: nothing
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

__all__ = ["PARAMETERS", "shared_parameters"]

F = TypeVar("F", bound=Callable)

#: Each shared parameter's entry: its name and type line, then its description.
PARAMETERS = {
    "match_table": (
        "X : pandas.DataFrame\n"
        "    The match table, one row a match: ``player1`` (who moves first), ``player2``,\n"
        "    ``deck1``, ``deck2``, and optionally ``period`` and ``date``."
    ),
    "outcomes": (
        "y : array-like of shape (n_matches,)\n    1 where player 1 won, 0 where player 2 won."
    ),
    "y_true": (
        "y_true : array-like of shape (n_matches,)\n    1 where player 1 won, 0 where player 2 won."
    ),
    "p_win": "p_win : array-like of shape (n_matches,)\n    Forecast P(player 1 wins).",
    "interval": "interval : float, default 0.9\n    Width of every equal-tailed credible interval.",
    "stage_entrants": "m : int\n    Entrants of the stage.",
    "ax": "ax : matplotlib Axes or None, default None\n    Where to draw; a new figure by default.",
    "words": (
        "words : mapping or None, default None\n"
        "    The game's words (`skcodex.report.game_words`): its noun for a deck and\n"
        "    how player 1 is described; Codex's by default."
    ),
    "figure": "matplotlib.figure.Figure\n    The figure drawn on.",
    "forecast": "forecast : TournamentForecast\n    From `skcodex.tournament.simulate_tournament`.",
    "tournament_page": (
        "estimator : fitted classifier or None, default None\n"
        "    The estimator the forecast was made with: its game's words (a deck's\n"
        "    noun; no first-move wording in a game where no side moves first).\n"
        "title : str or None, default None\n"
        '    "Tournament forecast" by default.\n'
        "source : str or None, default None\n"
        "    Where the model and the entrants come from, named under the figure\n"
        "    and the tables.\n"
        "top : int, default 16\n"
        "    Entrants the figure shows (the table shows all)."
    ),
}

_PLACE = re.compile(r"^(?P<indent>[ \t]*)\{(?P<name>\w+)\}[ \t]*$", re.M)


def fill(doc: str) -> str:
    """``doc`` with each line ``{name}`` replaced by the entry of `PARAMETERS`, indented alike."""

    def entry(found: re.Match) -> str:
        indent = found["indent"]
        lines = PARAMETERS[found["name"]].split("\n")
        return "\n".join(indent + line for line in lines)

    return _PLACE.sub(entry, doc)


def shared_parameters(func: F) -> F:
    """Fill the shared parameter entries of ``func``'s docstring (see `fill`)."""
    if func.__doc__:
        func.__doc__ = fill(func.__doc__)
    return func
