"""A never-seen player's skill, centred on the table's late arrivals.

A player never seen in fit is forecast with a skill drawn around the mean skill of
the training table's *late arrivals*: the players who did not play in its first
period (that of its earliest match), each of whom joined a table that already
existed, as a never-seen player does. Per posterior draw ``d`` their mean is
estimated by a normal-normal update, each late arrival's skill draw one
observation of ``N(m, sd_d^2)`` and ``m ~ N(0, PRIOR_SD^2)`` a priori:

    m_d = (sum of their skills / sd_d^2) / (n / sd_d^2 + 1 / PRIOR_SD^2)

and the never-seen player's skill is ``N(m_d, sd_d^2)``: the population's
spread, moved to the late arrivals' mean. The fit is untouched; only
forecasts that meet a never-seen player move, and a table without a period,
or whose players all played its first period, forecasts as before. With the
debut option the model learns a newcomer's level itself (the debut offset),
and this is not applied. docs/model-choice.md ("Newcomers drawn around the
late arrivals") has the evidence that made it the default.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from skcodex.data._codes import period_labels

#: What a never-seen player's skill is drawn around (``newcomer_skill``).
NEWCOMER_SKILLS = ("late arrivals", "population")
#: The prior sd of the late arrivals' mean: the debut offset's prior sd (its default).
PRIOR_SD = 0.5


def late_arrivals(table: pd.DataFrame, players, periods: list | None = None) -> np.ndarray:
    """Codes (positions in ``players``) of the players who missed the table's first period.

    The first period is the one that begins first in time: ``periods[0]``, the
    table's `period_labels` (computed here when not given); a table without a
    ``period`` column has no late arrivals.
    """
    if "period" not in table.columns or not len(table):
        return np.zeros(0, dtype=np.int64)
    first = (periods or period_labels(table))[0]
    opening = table.loc[table["period"].to_numpy() == first]
    there = set(opening["player1"]) | set(opening["player2"])
    return np.array([i for i, p in enumerate(players) if p not in there], dtype=np.int64)


def skill_mean(effects: np.ndarray, player_sd: np.ndarray, skill_start: int, late) -> np.ndarray:
    """The late arrivals' mean skill ``m_d`` per draw (the update of the module's docstring).

    Parameters
    ----------
    effects : ndarray of shape (n_draws, n_effects)
    player_sd : ndarray of shape (n_draws,)
        The player-skill spread per draw.
    skill_start : int
        Where the skill block starts in ``effects``.
    late : array of int
        The late arrivals' player codes.
    """
    late = np.asarray(late, dtype=np.int64)
    variance = np.square(np.asarray(player_sd, dtype=float))
    total = effects[:, skill_start + late].sum(axis=1)
    return (total / variance) / (len(late) / variance + 1.0 / PRIOR_SD**2)
