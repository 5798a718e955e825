"""Centred or non-centred effects, chosen per level from the data.

Every effect is ``theta = sd * z_std`` with ``z_std ~ N(0, 1)`` in the model's
meaning. NUTS can sample it in two coordinates:

- **non-centred**: the sampler moves ``z_std`` itself. Good when the data say
  little about the level: its effect is then close to its prior, and
  ``z_std`` is nearly independent of the spread ``sd``.
- **centred**: the sampler moves ``z = theta``, with ``z ~ N(0, sd)``. Good
  when many matches pin the level down: its effect is then nearly fixed
  whatever the spread, while in non-centred coordinates ``z_std = theta / sd``
  follows every move of ``sd`` along a narrow ridge that NUTS crosses with
  tiny steps (the slow mixing of data-rich tables).

Both give the same posterior of ``theta`` and ``sd``: the change of
variables ``z = sd**c * z_std`` multiplies the density by its Jacobian
``sd**-c``, which is exactly what the centred prior ``N(0, sd**c)`` carries.
The model (`skcodex._model.build_model`) takes one weight ``c`` per entry
of its standard-normal vector ``z`` (the ``centring`` data: 0 non-centred,
1 centred; any value in between is the partial parameterisation
``z ~ N(0, sd**c)``, ``theta = sd**(1 - c) * z``), so one compiled model serves
every choice.

One direction of some blocks carries no information at all: where a block
enters every match as a difference (player 1's skill minus player 2's), adding
the same number to all its levels changes no match, so the levels' common mean
is set by the prior alone. Sampled level by level, that mean is a long
direction shared by every level, which a diagonal mass matrix cannot follow
(the slowest-mixing quantity of data-rich tables). `mean_rotations` turns the
levels the matches read by a reflection (orthogonal, so the prior
``N(0, 1)`` of the standard normals and the density are unchanged) that
makes their mean one coordinate of its own: the first level read becomes the
mean direction, sampled non-centred; the others stay nearly their levels.

`choose_centring` makes the choice from the data: a level is centred when
the information its matches carry about its effect, ``0.25 * n`` for ``n``
matches reading it (the Fisher information of a Bernoulli log-odds at even
odds), outweighs its prior's, ``1 / s**2`` for the spread's prior median
``s``; that is, when ``0.25 * n * s**2 > 1``. Effects with a prior of their
own (the first-move effect), steps of the skill walk and levels no match
reads (padding) stay non-centred.
"""

from __future__ import annotations

import numpy as np

from skcodex._design import SPREADS, Layout

__all__ = [
    "PARAMETERISATIONS",
    "balanced_prior_spreads",
    "centred_levels",
    "choose_centring",
    "declared_block_of",
    "differenced_blocks",
    "level_information",
    "mean_rotations",
    "rotate",
    "standard_normals",
    "typical_spreads",
]

#: How the effects are sampled: chosen from the data per level, or all one way.
PARAMETERISATIONS = ("auto", "noncentred", "centred")

#: Fisher information of one match about its log-odds at even odds, p (1 - p).
INFORMATION_PER_MATCH = 0.25


def level_information(index: np.ndarray, trials: np.ndarray | None, layout: Layout) -> np.ndarray:
    """The information the matches carry about each entry of ``z``, ``0.25 * matches``.

    Parameters
    ----------
    index : ndarray of int, shape (n_rows, n_columns)
        ``layout.index_matrix`` of the matches (or their distinct rows).
    trials : ndarray of float, shape (n_rows,), optional
        Matches behind each row (one each when None).
    layout : Layout

    Returns
    -------
    ndarray of float, shape (layout.n_free,)
        For each standard normal, ``0.25`` times the number of times a match
        reads its effect (a match reading a cell twice counts twice); 0 for
        the steps of the skill walk.
    """
    index = np.asarray(index, dtype=np.int64)
    n_rows = len(index)
    trials = np.ones(n_rows) if trials is None else np.asarray(trials, dtype=float)
    per_read = np.repeat(trials * INFORMATION_PER_MATCH, index.shape[1] if index.ndim == 2 else 0)
    per_cell = np.bincount(index.ravel(), weights=per_read, minlength=layout.size)
    n_walk = sum(layout.n_free_cells(b) for b in layout.declared if b.form == "walk")
    n_static = layout.n_free - n_walk
    out = np.zeros(layout.n_free)
    if layout.options.symmetric:
        # a free effect feeds its cell and its mirror images: their reads add up
        src, _ = layout._static_map()
        read = src >= 0
        weights = per_cell[: len(src)][read]
        out[:n_static] = np.bincount(src[read], weights=weights, minlength=n_static)
    else:
        out[:n_static] = per_cell[:n_static]
    return out


def differenced_blocks(index: np.ndarray, layout: Layout) -> list[str]:
    """The blocks every match reads as a difference: their signed reads sum to 0 in each row.

    Only blocks whose levels are each their own standard normal (not mirrored
    in a symmetric game, not a walk) are considered.
    """
    index = np.asarray(index, dtype=np.int64)
    signs = layout.signs
    out = []
    for block in layout.declared:
        if block.form != "independent" or layout.mirror_of(block) is not None:
            continue
        start = layout.offsets[block.name]
        size = int(np.prod(layout.shapes[block.name], dtype=np.int64))
        inside = (index >= start) & (index < start + size)
        if inside.any() and not np.any((inside * signs).sum(axis=1)):
            out.append(block.name)
    return out


def mean_rotations(index: np.ndarray, trials: np.ndarray | None, layout: Layout) -> np.ndarray:
    """The reflections that give each differenced block's mean a coordinate of its own.

    For a block the matches read only as differences (`differenced_blocks`),
    with ``m`` the unit vector along the levels the matches read and ``e`` the
    first of them, the reflection ``H = I - 2 v v' / (v' v)``, ``v = m - e``,
    swaps ``e`` and ``m``. It is returned scaled, ``w = v * sqrt(2 / (v' v))``,
    one row per declared block (zeros: no reflection), so that
    ``rotate(x, w) = x - (x w') w`` applies them all.

    Returns
    -------
    ndarray of float, shape (len(layout.declared), layout.n_free)
    """
    info = level_information(index, trials, layout)
    out = np.zeros((len(layout.declared), layout.n_free))
    flat = set(differenced_blocks(index, layout))
    for row, block in enumerate(layout.declared):
        if block.name not in flat:
            continue
        start = layout.free_offsets[block.name]
        read = np.flatnonzero(info[start : start + layout.n_free_cells(block)] > 0) + start
        if len(read) < 2:
            continue
        v = np.zeros(layout.n_free)
        v[read] = 1 / np.sqrt(len(read))
        v[read[0]] -= 1.0
        out[row] = v * np.sqrt(2 / (v @ v))
    return out


def rotate(x, rotations, xp=np, block_of=None):
    """``x`` (..., n_free) reflected by every row of ``rotations`` (`mean_rotations`).

    Each reflection is its own inverse, and the rows act on disjoint blocks,
    so ``rotate(rotate(x, w), w) == x``. ``block_of`` (`declared_block_of`),
    for PyTensor: row ``b`` of ``rotations`` is zero outside block ``b``, so
    each coefficient ``x w_b'`` is a sum over that block alone, taken by one
    segment sum rather than two dense products (a fifth of a real-data
    gradient evaluation before).
    """
    if xp is np:
        return x - (x @ rotations.T) @ rotations
    if block_of is None:
        return x - xp.dot(xp.dot(rotations, x), rotations)
    w = rotations.sum(axis=0)
    coef = xp.inc_subtensor(xp.zeros(rotations.shape[0])[block_of], x * w)
    return x - coef[block_of] * w


def declared_block_of(layout: Layout) -> np.ndarray:
    """For each entry of ``z``, the position of its block in ``layout.declared``."""
    sizes = [layout.n_free_cells(b) for b in layout.declared]
    return np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)


def balanced_prior_spreads(loc: np.ndarray, layout: Layout) -> np.ndarray:
    """Each spread at the balanced prior's centre: the total spread at its median, equal shares."""
    from skcodex._model import balanced_spreads

    base = balanced_spreads(
        np.float64(loc[0]), np.float64(0.5), np.full(3, 1 / 3), layout.specs_per_deck
    )
    n_extra = len(layout.spreads) - len(SPREADS)
    return np.concatenate([base, np.exp(np.asarray(loc[1 : 1 + n_extra], dtype=float))])


def typical_spreads(layout: Layout, prior_loc) -> np.ndarray:
    """The prior median of each spread of ``layout``, ``exp(loc)``, given the priors' locations."""
    loc = np.asarray(prior_loc, dtype=float)
    if layout.options.prior == "balanced":
        return balanced_prior_spreads(loc, layout)
    return np.exp(loc[: len(layout.spreads)])


def choose_centring(
    index: np.ndarray,
    trials: np.ndarray | None,
    layout: Layout,
    prior_loc,
    parameterisation: str = "auto",
) -> np.ndarray:
    """The centring weight of each entry of ``z``: 1 centred, 0 non-centred.

    Parameters
    ----------
    index, trials, layout
        As for `level_information`.
    prior_loc : sequence of float
        The priors' locations (`skcodex._model.SpreadPriors.loc`).
    parameterisation : {"auto", "noncentred", "centred"}
        ``"auto"``: a level is centred when ``0.25 * n * s**2 > 1`` (its
        matches' information against its prior's, see the module docstring).
        ``"noncentred"``: none is. ``"centred"``: every level some match
        reads. Effects with a prior of their own, steps of the skill walk and
        levels no match reads stay non-centred in every case.

    Returns
    -------
    ndarray of float, shape (layout.n_free,)
    """
    if parameterisation not in PARAMETERISATIONS:
        raise ValueError(
            f"parameterisation must be one of {PARAMETERISATIONS}, got {parameterisation!r}"
        )
    info = level_information(index, trials, layout)
    group = layout.free_group
    spread = np.where(group >= 0, typical_spreads(layout, prior_loc)[np.maximum(group, 0)], 0.0)
    if parameterisation == "noncentred":
        centred = np.zeros(layout.n_free, dtype=bool)
    elif parameterisation == "centred":
        centred = info > 0
    else:
        centred = info * spread**2 > 1.0
    centred &= group >= 0
    # the mean direction of a differenced block (see `mean_rotations`) has no data
    rotations = mean_rotations(index, trials, layout)
    for w in rotations[rotations.any(axis=1)]:
        centred[np.flatnonzero(w)[0]] = False
    return centred.astype(float)


def standard_normals(z, sd, centring, layout: Layout, rotations=None, xp=np):
    """The standard normals ``z_std`` behind sampled ``z`` (NumPy draws or a PyTensor point).

    ``z / sd**c``, reflected by ``rotations`` (`mean_rotations`; None: none).
    ``sd`` is ``(..., n_spreads)``; ``centring`` one weight per entry of ``z``.
    ``layout.theta(z_std, sd)`` is then the effects, whatever the geometry.
    """
    scale = layout._scale(sd, layout.free_group)
    z_std = z * xp.exp(-centring * xp.log(scale))
    return z_std if rotations is None else rotate(z_std, rotations, xp)


def centred_levels(centring: np.ndarray, layout: Layout) -> dict[str, int]:
    """How many levels of each block are sampled centred."""
    offsets = layout.free_offsets
    return {
        b.name: int(np.sum(centring[offsets[b.name] : offsets[b.name] + layout.n_free_cells(b)]))
        for b in layout.declared
    }
