"""Every error and warning skcodex raises of its own, importable from one place.

Each is also importable from where it is raised (a match table's error from
`skcodex.data`, say). Catch `ValueError` to catch every error of a bad input:
each error below is one.
"""

from skcodex._compat.lazy import lazy_exports

_EXPORTS = {
    "ApproximationWarning": "skcodex._matchup.approximation",
    "CatalogueFileError": "skcodex.codex._plain",
    "CodexDataError": "skcodex.datasets._codexdata_catalogue",
    "DeckParseError": "skcodex.codex._notation",
    "LuckWarning": "skcodex.data._table",
    "MatchTableError": "skcodex.data._table",
    "PersistenceError": "skcodex._format.safe_files",
    "TournamentError": "skcodex.tournament._formats",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
