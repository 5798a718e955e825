"""Tournament forecasts: a tournament played many times on the posterior.

`simulate_tournament` plays a format (`Format`: round robins, groups, Swiss,
Swiss elimination, single and double elimination) among entrants with their
decks, each simulated tournament on one posterior draw, optionally after the
results already played, and answers with a `TournamentForecast`. A stage may
play best-of-N sets (``knockout:8:bo3``); `predict_series` gives the chance of one
set on the posterior, with the rules by which decks change between its games.

A stage of one's own is one class: a frozen dataclass deriving from `Stage`,
decorated with `register_stage`; its words then read in format text and the
command line's ``--format`` help.

Import rule (checked by the tests):
May import: skcodex._docstrings, skcodex._pages, skcodex.analysis, skcodex.data, skcodex.plotting
"""

from skcodex.tournament._forecast import TournamentForecast
from skcodex.tournament._formats import (
    FIRST_MOVE_RULES,
    Format,
    Groups,
    Knockout,
    LossElimination,
    RoundRobin,
    Stage,
    StageResult,
    Swiss,
    TournamentError,
    parse_format,
    register_stage,
)
from skcodex.tournament._plot import plot_tournament
from skcodex.tournament._probabilities import DECK_RULES
from skcodex.tournament._report import (
    render_tournament_html,
    tournament_tables,
    write_tournament_report,
)
from skcodex.tournament._series import (
    SERIES_DRAW_RULES,
    SERIES_FIRST_MOVES,
    SERIES_PICKS,
    SERIES_RULES,
    predict_series,
    series_win_probability,
)
from skcodex.tournament._set_words import series_table
from skcodex.tournament._simulate import simulate_tournament

__all__ = [
    "DECK_RULES",
    "FIRST_MOVE_RULES",
    "SERIES_DRAW_RULES",
    "SERIES_FIRST_MOVES",
    "SERIES_PICKS",
    "SERIES_RULES",
    "Format",
    "Groups",
    "Knockout",
    "LossElimination",
    "RoundRobin",
    "Stage",
    "StageResult",
    "Swiss",
    "TournamentError",
    "TournamentForecast",
    "parse_format",
    "plot_tournament",
    "predict_series",
    "register_stage",
    "render_tournament_html",
    "series_table",
    "series_win_probability",
    "simulate_tournament",
    "tournament_tables",
    "write_tournament_report",
]
