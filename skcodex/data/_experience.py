"""How many rating periods each side's player played before a match's period.

The ``experience`` effect block (`skcodex._matchup.blocks`, option ``experience``) moves a
player's skill by how many rating periods they played before the period of the match:
none or one (the baseline), two or three, four to seven, eight or more (the levels
`skcodex.data._kinds.EXPERIENCE_LEVELS`, doubling in width as a learning curve in the
log of experience would). A player never seen in training has played none before any
forecast. The periods each player played in training are kept in the vocabulary
(`Vocabulary.played_periods`, positions in `Vocabulary.periods`), so a forecast of a
later period counts every training period the player played.
"""

from __future__ import annotations

import numpy as np

__all__ = ["EDGES", "experience_codes", "level_of", "periods_before", "played_periods"]

#: The first number of earlier periods of each level after the baseline: 0-1, 2-3, 4-7, 8+.
EDGES = (2, 4, 8)


def level_of(n_before: np.ndarray) -> np.ndarray:
    """The experience level (0 to ``len(EDGES)``) of each number of earlier periods played."""
    return np.searchsorted(np.asarray(EDGES), np.asarray(n_before), side="right").astype(np.int64)


def played_periods(period_position: np.ndarray, player_code: np.ndarray, n_players: int) -> tuple:
    """The periods each player played, as sorted positions, one tuple per player.

    ``period_position`` and ``player_code`` hold one entry per side of each match
    (player 1's rows, then player 2's).
    """
    keys = np.unique(np.asarray(player_code, dtype=np.int64) * (1 << 32) + period_position)
    owner, position = keys >> 32, keys & ((1 << 32) - 1)
    bounds = np.searchsorted(owner, np.arange(n_players + 1))
    return tuple(
        tuple(int(p) for p in position[bounds[i] : bounds[i + 1]]) for i in range(n_players)
    )


def periods_before(played: tuple, player_code: np.ndarray, period_position: np.ndarray):
    """How many of its player's `played_periods` come before each row's period position.

    A code from ``len(played)`` up (a player never seen in training) has played none.
    """
    code = np.asarray(player_code, dtype=np.int64)
    position = np.asarray(period_position, dtype=np.int64)
    lengths = np.array([len(p) for p in played], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)])
    flat = np.array([p for per_player in played for p in per_player], dtype=np.int64)
    seen = code < len(played)
    out = np.zeros(len(code), dtype=np.int64)
    if not seen.any() or flat.size == 0:
        return out
    # the flat positions sorted within each player: offset each player's block by its key
    span = int(max(flat.max(), position.max())) + 2
    keyed = np.repeat(np.arange(len(played)), lengths) * span + flat
    c = code[seen]
    out[seen] = np.searchsorted(keyed, c * span + position[seen], side="left") - starts[c]
    return out


def experience_codes(
    played: tuple, periods: tuple, period_text: np.ndarray, player1: np.ndarray, player2: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each side's experience level in each match, against a vocabulary's periods.

    A period not among ``periods`` (the training periods) is taken to come after all
    of them: every training period a seen player played counts.
    """
    at = np.asarray(_positions(periods, period_text))
    return (
        level_of(periods_before(played, player1, at)),
        level_of(periods_before(played, player2, at)),
    )


def _positions(periods: tuple, period_text: np.ndarray) -> np.ndarray:
    import pandas as pd

    at = pd.Index(periods, dtype=object).get_indexer(period_text).astype(np.int64)
    at[at < 0] = len(periods)
    return at
