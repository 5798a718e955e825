"""Recent matches counted more: the weights of the classifier's ``half_life``.

A match played ``age`` rating periods before the training table's latest period
weighs ``0.5 ** (age / half_life)`` in the likelihood (the recency weighting Dixon and
Coles gave football results, in periods rather than days): with a half-life of 4, a
match four periods old counts half as much as one from the latest period. A match's
age is counted in the table's epochs (`skcodex.data._codes.epochs`: how many periods
have begun by the time it was played), so a match's age follows time even when a
long-running period overlaps the next.

``half_life="auto"`` leaves the choice to the table's forward evidence (the rule of
`skcodex._matchup.part_choice`): no weighting, or one of `HALF_LIVES`.
"""

from __future__ import annotations

import numpy as np

from skcodex.data import MatchCodes

__all__ = ["HALF_LIVES", "candidates", "recency_weights", "weighted"]

#: The half-lives, in rating periods, ``half_life="auto"`` tries against no weighting.
HALF_LIVES = (8.0, 4.0, 2.0)


def recency_weights(codes: MatchCodes, half_life: float | None) -> np.ndarray | None:
    """Each match's ``0.5 ** (age / half_life)``; None for no weighting.

    ``age`` is the number of epochs between the match's and the latest. A table
    without a ``period`` column has no age to weigh by: the caller refuses a
    numeric ``half_life`` on it first.
    """
    if half_life is None or codes.epoch is None:
        return None
    age = (codes.n_epochs - 1) - np.asarray(codes.epoch, dtype=float)
    return 0.5 ** (age / float(half_life))


def weighted(weights: np.ndarray | None, recency: np.ndarray | None) -> np.ndarray | None:
    """The user's ``sample_weight`` times the recency weights (either may be None)."""
    if recency is None:
        return weights
    return recency if weights is None else weights * recency


def candidates(parts: dict[str, bool]) -> list[dict]:
    """No weighting, then each of `HALF_LIVES`, each with the model's ``parts``."""
    return [{**parts, "half_life": h} for h in (None, *HALF_LIVES)]
