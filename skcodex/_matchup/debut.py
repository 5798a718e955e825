"""The debut deck factor: how much of the deck matchup shows in a debut match.

With ``debut=True`` the model learns, besides the debut offset on skill, one
factor ``kappa`` on the deck effects of every match in which a side's player
is in their first rating period:

    q_i = skill part_i + kappa^[debut match i] * deck part_i

The deck part is the sum of the effects of the blocks whose levels are all
deck components (starters and specs: the matchup and synergy blocks,
`DECK_KINDS`). ``kappa = 2 sigmoid(k)`` with ``k ~ N(0, 1)``: a factor
between 0 and 2, centred a priori on 1 (the deck effects of everyone else).
On the forum tournaments it is learned well below 1 (docs/real-data.md):
a player new to the events does not yet turn a deck's matchup into wins.
A player never seen in fit is a debutant in every forecast, so their
matches get the factor too, and so do the never-seen deck cells integrated
out for them (their spread is scaled by ``kappa``).

Every computation with the factor goes through one rewrite of
``(theta, index)``: the entries that the deck columns of debut rows read are
appended once more, multiplied by ``kappa``, and those rows read the copies.
Forecasts and the pointwise log-likelihood append per draw only the entries
read (`with_factor`); the model appends every effect once and reads them
through an index moved once, when its data are set (`moved_index`,
`graph_theta`). The signs, kernels and prediction functions stay as they are.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from skcodex._compat import posterior

__all__ = [
    "DECK_KINDS",
    "FACTOR",
    "FACTOR_LOGIT",
    "FACTOR_PRIOR",
    "by_rows",
    "debut_rows",
    "deck_columns",
    "deck_spreads",
    "factor_draws",
    "graph_theta",
    "has_factor",
    "moved_index",
    "with_factor",
]

#: Name of the factor in the posterior, and of the parameter the sampler moves.
FACTOR = "debut_deck_factor"
FACTOR_LOGIT = f"{FACTOR}_logit"
#: Prior of ``k`` in ``kappa = 2 sigmoid(k)``: N(loc, scale).
FACTOR_PRIOR = (0.0, 1.0)
#: Level kinds of the blocks the factor scales: blocks of deck components alone.
DECK_KINDS = frozenset({"starter", "spec"})


def _is_deck_block(block) -> bool:
    return bool(block.dims) and set(block.kinds) <= DECK_KINDS


def has_factor(layout) -> bool:
    """Whether ``layout``'s model learns the factor (the debut option)."""
    return bool(layout.options.debut)


@lru_cache(maxsize=32)
def _deck_columns(layout) -> tuple[bool, ...]:
    return tuple(_is_deck_block(b) for b in layout.column_blocks)


def deck_columns(layout) -> np.ndarray:
    """Which columns of ``layout``'s index matrix read a deck block (bool, per column)."""
    return np.array(_deck_columns(layout), dtype=bool)


def deck_spreads(layout) -> np.ndarray:
    """Which of ``layout``'s spreads only deck blocks are drawn with (bool, per spread)."""
    deck = {b.spread for b in layout.declared if _is_deck_block(b)}
    other = {b.spread for b in layout.declared if not _is_deck_block(b)}
    return np.array([s in deck and s not in other for s in layout.spreads])


def debut_rows(layout, index: np.ndarray) -> np.ndarray:
    """Rows of ``index`` (positions of ``layout``) in which a side is in their debut period."""
    index = np.asarray(index)
    if not has_factor(layout) or index.size == 0:
        return np.zeros(len(index), dtype=bool)
    at = layout.offsets["debut"] + 1  # the "debut" level of the stage
    return (index == at).any(axis=1)


def factor_draws(idata) -> np.ndarray | None:
    """The factor per draw (chain-major, like the effect draws), or None if not sampled."""
    post = posterior.group(idata, "posterior")
    if post is None or FACTOR not in post:
        return None
    return post[FACTOR].transpose("chain", "draw").to_numpy().reshape(-1).astype(np.float64)


def with_factor(theta, index, rows, columns, factor, *, zero=None):
    """``(theta, index)`` rewritten so that ``rows`` read their ``columns`` times ``factor``.

    Parameters
    ----------
    theta : ndarray of shape (n_draws, n_effects)
    index : ndarray of int, shape (n_rows, n_columns)
    rows : ndarray of bool, shape (n_rows,)
        The debut rows.
    columns : ndarray of bool, shape (n_columns,)
        The deck columns.
    factor : ndarray of shape (n_draws,)
    zero : int, optional
        An index entry that stands for an effect of 0 (``n_effects``, a
        never-seen cell integrated out); it stays one, at the new width.

    Returns
    -------
    theta, index
        ``theta`` with the scaled copies appended (unchanged when no debut
        row reads a deck column), and a new index.
    """
    index = np.asarray(index, dtype=np.int64)
    chosen = np.zeros(index.shape, dtype=bool)
    chosen[np.ix_(np.asarray(rows, dtype=bool), np.asarray(columns, dtype=bool))] = True
    is_zero = index == zero if zero is not None else np.zeros(index.shape, dtype=bool)
    chosen &= ~is_zero
    read = np.unique(index[chosen])
    if not len(read):
        return theta, index
    width = theta.shape[1]
    scaled = theta[:, read] * np.asarray(factor, dtype=float)[:, None]
    out = index.copy()
    out[chosen] = width + np.searchsorted(read, index[chosen])
    out[is_zero] = width + len(read)
    return np.concatenate([theta, scaled], axis=1), out


def moved_index(layout, index: np.ndarray) -> np.ndarray:
    """The model's index: each debut row's deck columns moved by ``layout.size``.

    The model reads ``[theta, kappa * theta]`` through it (`graph_theta`): the
    PyTensor form of `with_factor`, with every effect copied once and the index
    moved once when the data are set (``pm.Data("index")`` holds it), not at
    every evaluation. Unchanged without the factor.
    """
    index = np.asarray(index, dtype=np.int64)
    out = index.copy()
    if has_factor(layout) and index.size:
        rows = debut_rows(layout, index)
        out[np.ix_(rows, deck_columns(layout))] += layout.size
    return out


def graph_theta(theta, factor, pt):
    """What `moved_index` reads: the effects, then the effects times the factor."""
    return pt.concatenate([theta, factor * theta])


def by_rows(compute, theta, index, rows, columns, factor, *, zero=None) -> np.ndarray:
    """``compute(theta, index, scaled)`` for the rows without and with the factor, by row.

    ``compute`` returns an array whose last axis is the rows it was given;
    it is called at most twice: for the rows outside ``rows`` with
    ``(theta, index)`` as they are (``scaled`` False), and for ``rows`` with
    the factor applied (`with_factor`; ``scaled`` True). With no factor
    (``factor`` None) every row is computed as it is.
    """
    index = np.asarray(index)
    rows = np.zeros(len(index), dtype=bool) if factor is None else np.asarray(rows, dtype=bool)
    out = None
    for which, scaled in ((~rows, False), (rows, True)):
        if not which.any():
            continue
        part = index[which]
        if scaled:
            every = np.ones(len(part), dtype=bool)
            value = compute(*with_factor(theta, part, every, columns, factor, zero=zero), True)
        else:
            value = compute(theta, part, False)
        if out is None:
            out = np.empty((*np.shape(value)[:-1], len(index)))
        out[..., which] = value
    if out is None:
        out = compute(theta, index, False)
    return out
