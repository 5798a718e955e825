"""Parameter text documented identically in many places, written once.

A docstring names a shared entry by a line holding only ``{name}`` where the
entry goes, and the function is decorated with `shared_parameters`, which puts
the entry's text there at the line's indentation (the docstring check and the
API reference read the filled docstring). An entry is one or more parameters;
one named ``..._parameters`` is a whole Parameters section (its heading too),
for the functions that take exactly those parameters.

Import rule (checked by the tests):
May import: nothing
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

__all__ = ["PARAMETERS", "shared_parameters"]

F = TypeVar("F", bound=Callable)

#: Each shared entry: one or more parameters, each its name and type line, then its description.
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
    "forecast_table": (
        "X : pandas.DataFrame\n"
        "    The match table, with the columns of the one passed to `fit`; its\n"
        "    players, starters and specs may include ones never seen in fit."
    ),
    "time_order": (
        "time : TimeOrder or None, default None\n"
        "    The table's time order when the caller has it already (computed\n"
        "    here otherwise)."
    ),
    "brier_inputs": (
        "y_true : array-like of shape (n_matches,)\n"
        "    1 where player 1 won, 0 where player 2 won (values in between, such as\n"
        "    0.5 for a draw, are scored as they are).\n"
        "p_win : array-like of shape (n_matches,)\n"
        "    Forecast probability that player 1 wins.\n"
        "sample_weight : array-like of shape (n_matches,) or None, default None\n"
        "    Weights of the matches: finite, non-negative, not all zero, one per match."
    ),
    "estimator_forecasts": (
        "estimator : fitted classifier\n"
        "    Any estimator with ``classes_`` (holding 1) and ``predict_proba``.\n"
        "X : pandas.DataFrame or array-like\n"
        "    The matches to forecast, as the estimator reads them."
    ),
    "three_outcome_inputs": (
        "y_true : array-like of shape (n_matches,)\n"
        "    1 where player 1 won, 0.5 for a draw, 0 where player 2 won.\n"
        "proba : array-like of shape (n_matches, 3) or (n_matches, 2)\n"
        "    Columns P(player 2 wins), P(draw), P(player 1 wins): the\n"
        "    ``predict_proba`` of a model fitted with draws (``classes_`` ``[0,\n"
        "    0.5, 1]``). Two columns are a forecast without draws (P(draw) = 0).\n"
        "sample_weight : array-like of shape (n_matches,) or None, default None\n"
        "    Weights of the matches: finite, non-negative, not all zero."
    ),
    "three_outcome_scorer": (
        "estimator : fitted classifier\n"
        "    With ``classes_`` ``[0, 0.5, 1]`` or ``[0, 1]`` and ``predict_proba``.\n"
        "X : pandas.DataFrame or array-like\n"
        "    The matches to forecast.\n"
        "y : array-like of shape (n_matches,)\n"
        "    1, 0.5 (a draw) or 0.\n"
        "sample_weight : array-like of shape (n_matches,) or None, default None\n"
        "    Weights of the matches."
    ),
    "matchup_decks": (
        "clf : BayesianMatchupClassifier\n"
        "    A fitted classifier.\n"
        "decks1 : list of str or Deck, or a keyword, or None, default None\n"
        "    Player 1's (who moves first) decks; strings are labels of fitted decks\n"
        "    (as these tables print them) or notation read against the classifier's\n"
        '    catalogue. ``None`` or ``"most played"``: the `N_DEFAULT_DECKS` decks\n'
        '    played most in the fitted data (`default_decks`); ``"monocolour"``:\n'
        "    Codex's six monocolour decks.\n"
        "decks2 : list of str or Deck, or a keyword, or None, default None\n"
        "    Player 2's decks, read as ``decks1``; ``decks1`` by default.\n"
        "player1 : player id or None, default None\n"
        "    A named player 1. When both players are None the players are equally\n"
        "    skilled and the probability is ``expit(m)`` of the deck matchup ``m``\n"
        "    alone; when named, their skills enter too (a player not seen in fit\n"
        "    gets a fresh skill from the population for every draw).\n"
        "player2 : player id or None, default None\n"
        "    A named player 2, as ``player1``."
    ),
    "nash_decks": (
        "clf : BayesianMatchupClassifier\n"
        "    A fitted classifier.\n"
        "decks1 : list of str or Deck, or a keyword, or None, default None\n"
        "    The decks player 1 may choose; the most played decks of the fitted\n"
        "    data by default (keywords as in `matchup_draws`).\n"
        "decks2 : list of str or Deck, or a keyword, or None, default None\n"
        "    The decks player 2 may choose; ``decks1`` by default."
    ),
    "prior_draws_inputs": (
        "clf : BayesianMatchupClassifier\n"
        "    Fitted or not; its prior parameters and model options are read.\n"
        "n_draws : int, default 100000\n"
        "    How many draws from the prior.\n"
        "random_state : int or None, default 0\n"
        "    Seed of the simulation (None: fresh entropy)."
    ),
    "interval": "interval : float, default 0.9\n    Width of every equal-tailed credible interval.",
    "best_of": "best_of : int, default 1\n    Games in each set (odd; 1: single games).",
    "stage_entrants": "m : int\n    Entrants of the stage.",
    "ax": "ax : matplotlib Axes or None, default None\n    Where to draw; a new figure by default.",
    "words": (
        "words : mapping or None, default None\n"
        "    The game's words (`skcodex.report.game_words`): its noun for a deck and\n"
        "    how player 1 is described; Codex's by default."
    ),
    "dice_position": (
        "mover : int\n"
        "    Distance to home of the player about to roll, 1 to ``length``.\n"
        "opponent : int\n"
        "    Distance to home of the other player, 1 to ``length``."
    ),
    "dice_roll": "roll : (int, int)\n    The two dice, each from 1 to ``faces``.",
    "dice_evaluator": (
        'evaluator : {"exact", "biased"} or ndarray, default "exact"\n'
        "    The value table that judges positions (see `evaluator_values`)."
    ),
    "synthetic_field": (
        "n_players : int, default 40\n"
        "    Number of players.\n"
        "n_matches : int, default 1000\n"
        "    Number of matches, split evenly across tournaments.\n"
        "n_tournaments : int, default 10\n"
        "    Number of tournaments."
    ),
    "synthetic_skill_spreads": (
        "sd_player : float, default 0.8\n"
        "    True spread of the player skills (log-odds scale).\n"
        "sd_stst : float, default 0.4\n"
        "    True spread of the starter-vs-starter effects."
    ),
    "synthetic_X_y": (
        "(X, y) : tuple\n    Only the table and the outcomes, with ``return_X_y=True``."
    ),
    "deck_writing": (
        "deck : Deck\n"
        "    The deck to write.\n"
        "catalogue : Catalogue or PlainCatalogue or None, default None\n"
        "    The specs, starters and nicknames to write with (base Codex by default)."
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


def _parameters_section(*names: str) -> str:
    """A whole Parameters section made of the entries ``names``, for functions taking just them."""
    return "Parameters\n----------\n" + "\n".join(PARAMETERS[name] for name in names)


PARAMETERS["binned_forecasts"] = "\n".join(
    (
        PARAMETERS["y_true"],
        PARAMETERS["p_win"],
        "n_bins : int, default 10\n    Number of forecast bins.",
    )
)

# Whole sections, for functions that take exactly these parameters.
PARAMETERS.update(
    brier_parameters=_parameters_section("brier_inputs"),
    three_outcome_parameters=_parameters_section("three_outcome_inputs"),
    three_outcome_scorer_parameters=_parameters_section("three_outcome_scorer"),
    dice_move_parameters=_parameters_section("dice_position", "dice_roll", "dice_evaluator"),
    dice_evaluator_parameters=_parameters_section("dice_evaluator"),
    stage_parameters=_parameters_section("stage_entrants"),
    prior_draws_parameters=_parameters_section("prior_draws_inputs"),
    deck_writing_parameters=_parameters_section("deck_writing"),
    forecast_parameters=_parameters_section("forecast_table"),
)

_PLACE = re.compile(r"^(?P<indent>[ \t]*)\{(?P<name>\w+)\}[ \t]*$", re.M)


def fill(doc: str) -> str:
    """``doc`` with each line ``{name}`` replaced by the entry of `PARAMETERS`, indented alike."""

    def entry(found: re.Match) -> str:
        indent = found["indent"]
        lines = PARAMETERS[found["name"]].split("\n")
        return "\n".join(indent + line for line in lines)

    return _PLACE.sub(entry, doc)


def shared_parameters(func: F) -> F:
    """Fill the shared entries of ``func``'s docstring, a function's or a class's (see `fill`)."""
    if func.__doc__:
        func.__doc__ = fill(func.__doc__)
    return func
