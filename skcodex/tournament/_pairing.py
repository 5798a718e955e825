"""Who meets whom: Swiss pairings, bracket seeding and round-robin schedules."""

from __future__ import annotations

import numpy as np

__all__ = ["bracket_order", "rank", "round_robin_rounds", "swiss_pairs"]


def rank(keys: list[np.ndarray], tiebreak: np.ndarray) -> np.ndarray:
    """Positions sorted best first by ``keys`` (each higher is better), then ``tiebreak``.

    Parameters
    ----------
    keys : list of ndarray of shape (n_simulations, m), most important first
    tiebreak : ndarray of shape (n_simulations, m), values in [0, 1)

    Returns
    -------
    ndarray of shape (n_simulations, m)
        For each simulation, the column indices from best to worst.
    """
    order = np.argsort(-tiebreak, axis=1, kind="stable")
    for key in reversed(keys):
        along = np.take_along_axis(key, order, axis=1)
        order = np.take_along_axis(order, np.argsort(-along, axis=1, kind="stable"), axis=1)
    return order


def swiss_pairs(
    order: np.ndarray, active: np.ndarray, byes: np.ndarray, met: np.ndarray, entrants: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pair entrants by standing: each highest unpaired meets the next one not met yet.

    Parameters
    ----------
    order : ndarray of shape (n_simulations, m)
        Positions best first (`rank`).
    active : ndarray of bool, shape (n_simulations, m)
        Who is still playing.
    byes : ndarray of shape (n_simulations, m)
        Byes so far: with an odd number active, the lowest active position
        with the fewest byes sits out.
    met : ndarray of shape (n_simulations, n_entrants, n_entrants)
        Meetings so far between entrants.
    entrants : ndarray of shape (n_simulations, m)
        The entrant at each position.

    Returns
    -------
    a, b : ndarray of shape (n_simulations, m // 2)
        Paired positions (-1 where fewer pairs are needed).
    bye : ndarray of shape (n_simulations,)
        The position with a bye, -1 if none.
    """
    n_sims, m = order.shape
    sims = np.arange(n_sims)
    free = np.take_along_axis(active, order, axis=1)
    bye = np.full(n_sims, -1)
    odd = free.sum(axis=1) % 2 == 1
    if odd.any():
        fewest = np.where(free, np.take_along_axis(byes, order, axis=1), np.iinfo(np.int32).max)
        candidates = fewest == fewest.min(axis=1, keepdims=True)
        last = m - 1 - np.argmax(candidates[:, ::-1], axis=1)
        bye = np.where(odd, order[sims, last], -1)
        free[odd, last[odd]] = False
    ranked = np.take_along_axis(entrants, order, axis=1)
    a, b = _neighbours(order, free)
    # Neighbours in the standings meet unless two of them have met already: then (and
    # only then) pair greedily, which gives the same pairs wherever neighbours would do.
    entrant_a = np.take_along_axis(entrants, np.maximum(a, 0), axis=1)
    entrant_b = np.take_along_axis(entrants, np.maximum(b, 0), axis=1)
    rematch = (a >= 0) & met[sims[:, None], entrant_a, entrant_b]
    redo = np.flatnonzero(rematch.any(axis=1))
    if len(redo):
        a[redo], b[redo] = _greedy(order[redo], free[redo], met[redo], ranked[redo], m)
    return a, b, bye


def bracket_order(size: int) -> np.ndarray:
    """Seeds (0 = best) in bracket positions, for a bracket of ``size``, a power of two.

    Neighbouring positions meet in the first round; the best seeds meet last.

    >>> bracket_order(8).tolist()
    [0, 7, 3, 4, 1, 6, 2, 5]
    """
    order = [0]
    while len(order) < size:
        order = [x for s in order for x in (s, 2 * len(order) - 1 - s)]
    return np.array(order)


def round_robin_rounds(m: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The circle method's rounds for ``m`` entrants: every pair meets once.

    Returns
    -------
    list of (a, b)
        Per round, positions meeting; with ``m`` odd, one position per round
        has no match (it is left out).
    """
    ring = list(range(m)) + ([-1] if m % 2 else [])
    n = len(ring)
    rounds = []
    for _ in range(n - 1):
        pairs = [(ring[k], ring[n - 1 - k]) for k in range(n // 2)]
        pairs = [(x, y) for x, y in pairs if x >= 0 and y >= 0]
        rounds.append((np.array([x for x, _ in pairs]), np.array([y for _, y in pairs])))
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


def _neighbours(order: np.ndarray, free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The free positions in standing order, paired first with second, third with fourth, ..."""
    m = order.shape[1]
    rank_of_free = np.argsort(~free, axis=1, kind="stable")  # free ones first, in order
    listed = np.take_along_axis(order, rank_of_free, axis=1)
    n_free = free.sum(axis=1, keepdims=True)
    slot = np.arange(m)[None, :]
    listed = np.where(slot < n_free, listed, -1)
    a, b = listed[:, 0 : m - 1 : 2], listed[:, 1:m:2]
    both = (a >= 0) & (b >= 0)
    return np.where(both, a, -1), np.where(both, b, -1)


def _greedy(order, free, met, ranked, m) -> tuple[np.ndarray, np.ndarray]:
    """Each highest unpaired position meets the next one it has not met (a rematch if none)."""
    n_sims = len(order)
    sims = np.arange(n_sims)
    free = free.copy()
    a = np.full((n_sims, m // 2), -1)
    b = np.full((n_sims, m // 2), -1)
    for k in range(m // 2):
        has = free.any(axis=1)
        if not has.any():
            break
        top = np.argmax(free, axis=1)
        player = order[sims, top]
        free[sims, top] &= ~has
        met_row = met[sims, ranked[sims, top]]
        unmet = free & ~np.take_along_axis(met_row, ranked, axis=1)
        opponent = np.where(unmet.any(axis=1), np.argmax(unmet, axis=1), np.argmax(free, axis=1))
        pair = has & free[sims, opponent]
        free[sims, opponent] &= ~pair
        a[:, k] = np.where(pair, player, -1)
        b[:, k] = np.where(pair, order[sims, opponent], -1)
    return a, b
