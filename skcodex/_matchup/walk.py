"""The integrated skill walk's path: which steps a player's skill takes between periods.

A player's skill is their own from the first period they played and walks one step
into each later period they played; the periods in between are integrated out
(`Layout.walk_path`). Files written before this walk hold one that starts in the
table's first period (`WALK_ANCHORS`).
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


#: Where each player's walk is 0 (`Layout.walk_anchor`): the first period the
#: player played (the walk a fit builds), or the table's first period (files written
#: before it).
WALK_ANCHORS = ("first played", "first period")


def _walk_path(played: np.ndarray, walk_steps: int, anchor: str = "first period") -> WalkPath:
    """The `WalkPath` of a (players, periods) mask of periods played, in ``walk_steps`` slots.

    With ``anchor="first played"`` each player's walk is 0 in the first period
    they played and steps into each later one; with ``"first period"`` it is 0
    in the table's first period and steps into every period played after it.
    """
    P, E = played.shape
    start = np.asarray(played, dtype=bool).copy()
    if anchor == "first period":
        start[:, 0] = True  # every walk starts at 0 in the table's first period
    first = start.argmax(axis=1)  # a player who never played: 0, and no step
    step = start.copy()
    step[np.arange(P), first] = False  # a step ends in each later period played
    n_steps = int(step.sum())
    if n_steps > walk_steps:
        raise ValueError(
            f"the matches take {n_steps} walk steps, more than the layout's {walk_steps}"
        )
    periods = np.broadcast_to(np.arange(E), (P, E))
    latest = np.maximum.accumulate(np.where(start, periods, 0), axis=1)
    previous = np.concatenate([np.zeros((P, 1), dtype=np.int64), latest[:, :-1]], axis=1)
    gap = np.ones(walk_steps)
    gap[:n_steps] = (periods - previous)[step]
    upto = np.cumsum(step.ravel()).astype(np.int64)
    base = np.repeat(upto.reshape(P, E)[:, 0], E)
    return WalkPath(gap, upto, base)
