"""The integrated skill walk's path: which steps a player's skill takes between periods.

A player's skill walks one step into each period after the first in which the
player played; the periods in between are integrated out (`Layout.walk_path`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class WalkPath:
    """Where the integrated skill walk's steps go (see `Layout.walk_path`).

    With ``total = [0, cumsum(steps)]`` (each step ``z * sd_step * sqrt(gap)``),
    the walk of cell ``c`` of the flat ``(n_players, n_epochs)`` block is
    ``total[upto[c]] - total[base[c]]``: the player's steps up to that period.

    Attributes
    ----------
    gap : array of float, shape (walk_steps,)
        Periods each step spans.
    upto : array of int, shape (n_players * n_epochs,)
        For each cell, the number of steps (in player, then period order) up
        to and including the cell's last step.
    base : array of int, shape (n_players * n_epochs,)
        For each cell, the number of steps of the players before its player.
    """

    gap: object
    upto: object
    base: object


def _walk_path(played: np.ndarray, walk_steps: int) -> WalkPath:
    """The `WalkPath` of a (players, periods) mask of periods played, in ``walk_steps`` slots."""
    P, E = played.shape
    anchor = played.copy()
    anchor[:, 0] = True  # every walk starts at 0 in the first period
    step = anchor.copy()
    step[:, 0] = False  # a step ends in each later anchor
    n_steps = int(step.sum())
    if n_steps > walk_steps:
        raise ValueError(
            f"the matches take {n_steps} walk steps, more than the layout's {walk_steps}"
        )
    periods = np.broadcast_to(np.arange(E), (P, E))
    latest = np.maximum.accumulate(np.where(anchor, periods, 0), axis=1)
    previous = np.concatenate([np.zeros((P, 1), dtype=np.int64), latest[:, :-1]], axis=1)
    gap = np.ones(walk_steps)
    gap[:n_steps] = (periods - previous)[step]
    upto = np.cumsum(step.ravel()).astype(np.int64)
    base = np.repeat(upto.reshape(P, E)[:, 0], E)
    return WalkPath(gap, upto, base)


def walk_steps_played(played: np.ndarray) -> int:
    """Steps of the integrated walk for a (players, periods) mask of periods played."""
    return int(np.asarray(played, dtype=bool)[:, 1:].sum())
