"""Data sets: synthetic tournaments with known truth, the dice game, and the codexdata loader.

Names are imported lazily, so loading one does not import the others.
"""

from skcodex._compat.lazy import lazy_exports

_EXPORTS = {
    "make_matches": "skcodex.datasets._synthetic",
    "make_game_matches": "skcodex.datasets._synthetic",
    "load_codex_matches": "skcodex.datasets._codexdata",
    "load_codex_catalogue": "skcodex.datasets._codexdata_catalogue",
    "LoadSummary": "skcodex.datasets._codexdata",
    "make_dice_matches": "skcodex.datasets._dice_matches",
    "DiceGame": "skcodex.datasets._dice",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
