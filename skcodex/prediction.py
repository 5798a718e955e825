"""Win probabilities from posterior effect draws, in NumPy.

Predictions never go through PyMC: a fitted model keeps every effect for
every draw as one (n_draws, n_effects) array, ``theta`` of `skcodex.model.Layout`,
and a match's log-odds are a signed sum of the entries its index-matrix row
names.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from skcodex.model import BLOCKS, Layout

# Bytes of working memory one prediction chunk may use.
_CHUNK_BYTES = 64 * 2**20


def win_probability_draws(theta: np.ndarray, index: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """P(player 1 wins) per draw: an (n_draws, n_matches) array."""
    out = np.empty((theta.shape[0], len(index)))
    step = max(1, _CHUNK_BYTES // (8 * theta.shape[0] * index.shape[1]))
    for start in range(0, len(index), step):
        block = index[start : start + step]
        out[:, start : start + step] = expit(theta[:, block] @ signs)
    return out


def mean_win_probability(theta: np.ndarray, index: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """Mean over draws of expit(q), chunked over matches to bound memory."""
    theta_t = np.ascontiguousarray(theta.T)  # (n_effects, n_draws): rows are gathered
    n_draws, width = theta.shape[0], index.shape[1]
    step = max(1, _CHUNK_BYTES // (8 * n_draws * width))
    out = np.empty(len(index))
    for start in range(0, len(index), step):
        q = np.einsum("mjs,j->ms", theta_t[index[start : start + step]], signs)
        out[start : start + step] = expit(q).mean(axis=1)
    return out


def extend_effects(
    theta: np.ndarray, sd: np.ndarray, old: Layout, new: Layout, seed: int
) -> np.ndarray:
    """Effects in a larger layout: fitted values where known, fresh N(0, sd) draws elsewhere."""
    rng = np.random.default_rng(seed)
    blocks = old.unflatten(theta)
    grown = {}
    for name, group in BLOCKS:
        shape = (theta.shape[0], *new.shapes[name])
        fresh = rng.standard_normal(shape) * sd[:, group].reshape(-1, *[1] * (len(shape) - 1))
        region = tuple(slice(0, n) for n in blocks[name].shape)
        fresh[region] = blocks[name]
        grown[name] = fresh
    return new.flatten(grown)
