"""The match table: validation at the boundary and encoding to integer codes.

A match table is a pandas DataFrame, one row a match, rows in time order, with
columns ``player1``, ``player2`` (``player1`` moved first), ``deck1``, ``deck2``
and optionally ``period`` (rating period or tournament label), ``date`` and
``series`` (a label shared by the games of one series between the same two players;
empty for a game outside any series; the fit reads the games as games).
Decks are forum-notation strings (read against a `Catalogue`) or `Deck` values.
``y`` is 1 where ``player1`` won and 0 where ``player2`` won.

`check_match_table` (with `check_outcome` and `check_luck`) checks a table once,
at the boundary, and puts its matches in the order they were played; `encode`
turns a checked table into the integer `MatchCodes` everything past the boundary
works on, against the `Vocabulary` of levels seen in training.
"""

from skcodex._compat.retired import retired_name
from skcodex.data._codes import MatchCodes, Vocabulary, encode
from skcodex.data._outcomes import (
    adjust_for_luck,
    check_luck,
    check_outcome,
    check_sample_weight,
)
from skcodex.data._table import (
    OPTIONAL_COLUMNS,
    REQUIRED_COLUMNS,
    LuckWarning,
    MatchTableError,
    check_match_table,
    normalise_name,
    table_catalogue,
)

__all__ = [
    "OPTIONAL_COLUMNS",
    "REQUIRED_COLUMNS",
    "LuckWarning",
    "MatchCodes",
    "MatchTableError",
    "Vocabulary",
    "adjust_for_luck",
    "check_luck",
    "check_match_table",
    "check_outcome",
    "check_sample_weight",
    "encode",
    "normalise_name",
    "table_catalogue",
]

_IN_ORDER = "the order check_match_table puts the matches in"

#: Names this namespace no longer exports: where each is now, and what to use instead.
_RETIRED = {
    "epochs": ("skcodex.data._codes", "the rating periods encode numbers (MatchCodes.epoch)"),
    "period_labels": (
        "skcodex.data._codes",
        "pandas.unique(table['period']) of a table check_match_table returned",
    ),
    "period_times": ("skcodex.data._table", _IN_ORDER),
    "time_order": ("skcodex.data._table", _IN_ORDER),
}


def __getattr__(name: str) -> object:
    """A retired name still imports, with a DeprecationWarning saying what to use instead."""
    return retired_name(__name__, _RETIRED, name)
