"""The exact value function of the dice race (see `skcodex.datasets._dice`), by dynamic programming.

Each player has a counter ``length`` steps from home; a turn is a roll of two
dice and a move home-ward by one die, the other die, or their sum, without
overshooting home (if nothing fits, the turn passes); the first home exactly wins.
In the middle of the race the sum is usually best, but near home a player wants
to stop at a distance that many rolls can finish, and a poor choice leaves a
counter stuck waiting for one number.

Positions and values
--------------------
A position is ``(mover, opponent)``: the distances to home of the player about
to roll and of the other player. Every value here is the probability that
**the player to move** wins, with optimal play by both from then on;
``values[a, b]`` is that value at ``(a, b)``. The opponent's value is one minus
the mover's. Row 0 and column 0 hold finished games (the player who is home has
won): ``values[a, 0] = 0`` and ``values[0, b] = 1``.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

#: Values closer than this are ties (the shortest move among tied best moves is taken).
TIE = 1e-12


@lru_cache(maxsize=16)
def rules(faces: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ordered rolls (R, 2), their probabilities (R,) and the distinct moves of each (R, 3).

    A move slot holding 0 is unused (a double has two distinct moves, not three).
    """
    d1, d2 = np.meshgrid(np.arange(1, faces + 1), np.arange(1, faces + 1), indexing="ij")
    rolls = np.stack([d1.ravel(), d2.ravel()], axis=1)
    probs = np.full(len(rolls), 1.0 / len(rolls))
    options = np.stack([rolls[:, 0], rolls[:, 1], rolls.sum(axis=1)], axis=1)
    options[rolls[:, 0] == rolls[:, 1], 1] = 0
    for arr in (rolls, probs, options):
        arr.setflags(write=False)
    return rolls, probs, options


def move_values(table: np.ndarray, options: np.ndarray) -> np.ndarray:
    """Value to the roller of each move, ``out[a, b, r, k]``; NaN where the move is not legal.

    After moving ``m`` from ``(a, b)`` the opponent is to move at ``(b, a - m)``, so
    the roller's value is ``1 - table[b, a - m]`` (1 when ``a - m == 0``).
    """
    size = table.shape[0]
    a = np.arange(size)[:, None, None, None]
    b = np.arange(size)[None, :, None, None]
    m = options[None, None, :, :]
    legal = (m >= 1) & (m <= a) & (a >= 1) & (b >= 1)
    rest = np.clip(a - m, 0, size - 1)
    values = 1.0 - table[b, rest]
    return np.where(legal, values, np.nan)


def roll_values(table: np.ndarray, options: np.ndarray) -> np.ndarray:
    """Value to the roller after each roll with the table's best move, ``out[a, b, r]``.

    Where no move fits the turn passes and the value is ``1 - table[b, a]``.
    """
    moves = move_values(table, options)
    any_legal = np.isfinite(moves).any(axis=3)
    best = np.max(np.where(np.isfinite(moves), moves, -np.inf), axis=3)
    passed = 1.0 - table.T[:, :, None]
    out = np.where(any_legal, best, passed)
    out[0, :, :] = np.nan
    out[:, 0, :] = np.nan
    return out


@lru_cache(maxsize=16)
def solve(length: int, faces: int) -> np.ndarray:
    """The exact value table by dynamic programming over the total distance ``a + b``.

    Every move lowers the total, so positions with a smaller total are solved
    first. A pass keeps the total and swaps the players, so ``(a, b)`` and
    ``(b, a)`` are solved together: with ``c`` the value from rolls that allow a
    move and ``q`` the chance of a pass, ``V1 = c1 + q1 (1 - V2)`` and
    ``V2 = c2 + q2 (1 - V1)``, a 2-by-2 linear system solved in closed form.
    """
    rolls, probs, options = rules(faces)
    size = length + 1
    V = np.zeros((size, size))
    V[0, 1:] = 1.0
    low = rolls.min(axis=1)
    q_pass = np.array([probs[low > a].sum() for a in range(size)])
    for total in range(2, 2 * length + 1):
        a = np.arange(max(1, total - length), min(length, total - 1) + 1)
        b = total - a
        best = np.full((len(a), len(probs)), -np.inf)
        for k in range(options.shape[1]):
            m = options[:, k][None, :]
            legal = (m >= 1) & (m <= a[:, None])
            rest = np.clip(a[:, None] - m, 0, length)
            best = np.where(legal, np.maximum(best, 1.0 - V[b[:, None], rest]), best)
        c = (np.where(np.isfinite(best), best, 0.0) * probs).sum(axis=1)
        q = q_pass[a]
        # (b, a) sits at the mirrored place on the same diagonal
        c_sw, q_sw = c[::-1], q[::-1]
        V[a, b] = (c + q - q * c_sw - q * q_sw) / (1.0 - q * q_sw)
    V.setflags(write=False)
    return V
