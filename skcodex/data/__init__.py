"""The match table: validation at the boundary and encoding to integer codes.

A match table is a pandas DataFrame, one row a match, rows in time order, with
columns ``player1``, ``player2`` (``player1`` moved first), ``deck1``, ``deck2``
and optionally ``period`` (rating period or tournament label), ``date`` and
``series`` (a label shared by the games of one series between the same two players;
empty for a game outside any series; the fit reads the games as games).
Decks are forum-notation strings (read against a `Catalogue`) or `Deck` values.
``y`` is 1 where ``player1`` won and 0 where ``player2`` won.

`check_match_table` (with `check_outcome` and `check_luck`) checks a table once,
at the boundary (`skcodex.data._table`); `encode` turns a checked table into the
integer `MatchCodes` everything past the boundary works on, against the
`Vocabulary` of levels seen in training (`skcodex.data._codes`).
"""

from skcodex.data._codes import MatchCodes, Vocabulary, encode, epochs, period_labels
from skcodex.data._table import (
    OPTIONAL_COLUMNS,
    REQUIRED_COLUMNS,
    LuckWarning,
    MatchTableError,
    adjust_for_luck,
    check_luck,
    check_match_table,
    check_outcome,
    normalise_name,
    period_times,
    table_catalogue,
    time_order,
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
    "encode",
    "epochs",
    "normalise_name",
    "period_labels",
    "period_times",
    "table_catalogue",
    "time_order",
]
