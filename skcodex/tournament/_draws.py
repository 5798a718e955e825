"""Draws in simulated tournaments: the chance of a draw of every pairing, from a draw model.

A model fitted with draws (`skcodex._matchup.draws`, ``classes_`` ``[0, 0.5, 1]``) gives
for each posterior draw P(u beats v when u moves first) (its
``predict_proba_draws``) and P(draw); `Matches.play` then draws one of the
three outcomes. In Swiss and round-robin standings a draw is worth half a win
(`DRAW_POINTS`, as in chess); a drawn knockout match goes to the side that
wins the decider, played with the draw left out (P(u wins) / (P(u wins) +
P(v wins))).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from skcodex.tournament._formats import TournamentError

__all__ = [
    "DRAW_POINTS",
    "check_draw_probabilities",
    "draw_probability_draws",
    "fits_draws",
]

#: What a draw is worth in Swiss and round-robin standings, in wins.
DRAW_POINTS = 0.5


def fits_draws(estimator: Any) -> bool:
    """Whether ``estimator`` was fitted with draws (its ``classes_`` hold 0.5)."""
    return 0.5 in np.asarray(getattr(estimator, "classes_", [])).tolist()


def draw_probability_draws(estimator: Any, field, rule: str, n_draws: int | None) -> np.ndarray:
    """P(draw when slot u moves first against slot v), per posterior draw, like the wins'.

    The same slots and the same evenly spaced draws as
    `skcodex.tournament._probabilities.win_probability_draws` with ``"fixed order"``.
    """
    from skcodex.tournament._probabilities import _slot_table

    if rule != "fixed order" and field.decks is not None and max(map(len, field.decks)) > 1:
        raise TournamentError(
            f"a model with draws plays each entrant's decks in a fixed order; deck_rule={rule!r} "
            "mixes win probabilities over deck choices and has no draws yet: use "
            "deck_rule='fixed order'"
        )
    table, owner, u, v = _slot_table(field)
    p = estimator.predict_outcome_draws(table)[..., 1]
    if n_draws is not None and len(p) > n_draws:
        p = p[np.unique(np.linspace(0, len(p) - 1, n_draws).round().astype(np.int64))]
    out = np.zeros((len(p), len(owner), len(owner)))
    out[:, u, v] = p
    return out


def check_draw_probabilities(draws: Any, wins: np.ndarray) -> np.ndarray:
    """``draw_probabilities`` of `simulate_tournament`, checked against the win probabilities."""
    d = np.asarray(draws, dtype=float)
    if d.ndim == 2:
        d = d[None]
    if d.shape[1:] != wins.shape[1:] or d.shape[0] not in (1, wins.shape[0]):
        raise TournamentError(
            f"draw_probabilities must have the shape of probabilities {wins.shape[1:]} "
            f"(or one per draw), got {np.shape(draws)}"
        )
    d = np.broadcast_to(d, wins.shape).copy()
    n = wins.shape[1]
    off = ~np.eye(n, dtype=bool)
    if not np.all(np.isfinite(d)) or d[:, off].min() < 0:
        raise TournamentError("draw_probabilities must be probabilities (between 0 and 1)")
    if (wins + d)[:, off].max() > 1 + 1e-12:
        raise TournamentError(
            "a pairing's win and draw probabilities add up to more than 1: probabilities[i, j] "
            "is P(i wins when i moves first), draw_probabilities[i, j] P(a draw)"
        )
    d[:, ~off] = 0.0
    return d
