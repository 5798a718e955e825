"""Data sets: synthetic tournaments with known truth, the dice game, and the codexdata loader.

Names are imported lazily, so loading one does not import the others.
"""

from skcodex._lazy import lazy_exports

_EXPORTS = {
    "make_matches": "skcodex.datasets.synthetic",
    "make_game_matches": "skcodex.datasets.synthetic",
    "load_codex_matches": "skcodex.datasets.codexdata",
    "load_codex_catalogue": "skcodex.datasets.codexdata_catalogue",
    "LoadSummary": "skcodex.datasets.codexdata",
    "make_dice_matches": "skcodex.datasets.dice",
    "DiceGame": "skcodex.datasets.dice",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
