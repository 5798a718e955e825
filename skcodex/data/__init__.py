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

import importlib
import warnings

from skcodex.data._codes import MatchCodes, Vocabulary, encode
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


def __getattr__(name: str):
    """A retired name still imports, with a DeprecationWarning saying what to use instead."""
    if name not in _RETIRED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, instead = _RETIRED[name]
    warnings.warn(
        f"skcodex.data.{name} is no longer public and will be removed; use {instead}",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(module), name)
