"""Data sets: synthetic tournaments with known truth, the dice game, and the codexdata loader.

Names are imported lazily, so loading one does not import the others.
"""

from importlib import import_module
from typing import Any

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


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'skcodex.datasets' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
