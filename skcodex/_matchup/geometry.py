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
The model (`skcodex._matchup.graph.build_model`) takes one weight ``c`` per entry
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

Across blocks, some directions carry no information either, and no block's
mean shows them: where every deck holds the same number ``k`` of specs,
adding ``d`` to a starter's row of starter-vs-starter effects and taking
``d / k`` from its row of starter-vs-spec effects changes no match (likewise
for columns, and for specs against spec-vs-spec effects). Among centred levels
(the data-rich ones) such a direction is a fixed vector of effects that the
prior alone holds while the matches pin every other direction down: a long,
narrow valley across many coordinates, the slowest-mixing quantity of large
tables. `null_rotation` finds these directions from the index (the null space
of the matches' reads over the centred levels) and gives an orthogonal change
of coordinates that makes each of them a sampler coordinate of its own, while
moving every other coordinate as little as possible; the model applies it as a
transform of ``z`` (Jacobian 1: the density is unchanged).

`choose_centring` makes the choice from the data: a level is centred when
the information its matches carry about its effect, ``0.25 * n`` for ``n``
matches reading it (the Fisher information of a Bernoulli log-odds at even
odds), outweighs its prior's, ``1 / s**2`` for the spread's prior median
``s``; that is, when ``0.25 * n * s**2 > 1``. Effects with a prior of their
own (the first-move effect), steps of the skill walk and levels no match
reads (padding) stay non-centred.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from skcodex._matchup.layout import Layout
from skcodex._matchup.options import SPREADS
from skcodex._matchup.priors import balanced_spreads

__all__ = [
    "PARAMETERISATIONS",
    "NullRotation",
    "apply_null_rotation",
    "balanced_prior_spreads",
    "centred_levels",
    "centred_scale",
    "choose_centring",
    "declared_block_of",
    "differenced_blocks",
    "level_information",
    "mean_rotations",
    "null_rotation",
    "read_matrix",
    "rotate",
    "signed_spreads",
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


#: Largest number of centred levels whose null directions `null_rotation` looks for
#: (an eigendecomposition of that size; larger tables are left as they are).
NULL_SEARCH_LIMIT = 3000
#: Median information against prior (``0.25 * n * s**2``) of the centred candidates
#: from which `null_rotation` turns the null directions apart: below it the turn costs
#: more per gradient than it saves in steps (measured in docs/speed.md).
NULL_ROTATION_RICHNESS = 5.0
#: Eigenvalues below this fraction of the largest count as exactly zero.
NULL_TOLERANCE = 1e-9


def read_matrix(index: np.ndarray, trials: np.ndarray | None, layout: Layout, columns=None):
    """The signed reads of each entry of ``z``'s static part by each row, as a sparse matrix.

    Entry ``(i, j)`` is how many times row ``i`` reads the standard normal
    ``j`` (signed: player 2's reads count -1, a mirrored cell its sign), times
    the square root of the row's matches, so that ``A' A`` sums the matches'
    reads. ``columns`` (boolean, ``layout.n_free``) keeps only those entries.

    Returns
    -------
    scipy.sparse.csr_matrix, shape (n_rows, columns.sum())
    """
    from scipy import sparse

    index = np.asarray(index, dtype=np.int64)
    n_rows = len(index)
    trials = np.ones(n_rows) if trials is None else np.asarray(trials, dtype=float)
    n_walk = sum(layout.n_free_cells(b) for b in layout.declared if b.form == "walk")
    n_static = layout.n_free - n_walk
    if layout.options.symmetric or layout._has_fixed_cells:
        src, cell_sign = layout._static_map()
    else:
        src, cell_sign = np.arange(n_static), np.ones(n_static)
    keep = np.zeros(layout.n_free, dtype=bool) if columns is None else np.asarray(columns, bool)
    if columns is None:
        keep[:n_static] = True
    keep[n_static:] = False
    position = np.full(layout.n_free, -1, dtype=np.int64)
    position[keep] = np.arange(keep.sum())
    cells = index.ravel()
    static = cells < len(src)
    free = np.where(static, src[np.where(static, cells, 0)], -1)
    col = np.where(free >= 0, position[np.maximum(free, 0)], -1)
    sign = (
        np.broadcast_to(layout.signs, index.shape).ravel() * cell_sign[np.where(static, cells, 0)]
    )
    row = np.repeat(np.arange(n_rows), index.shape[1] if index.ndim == 2 else 0)
    ok = col >= 0
    weight = np.sqrt(trials)[row[ok]] * sign[ok]
    out = sparse.coo_matrix((weight, (row[ok], col[ok])), shape=(n_rows, int(keep.sum())))
    return out.tocsr()


class NullRotation(NamedTuple):
    """``Q = I + B C B'`` of `null_rotation`, ``B`` given by its rows at ``positions``."""

    positions: np.ndarray
    basis: np.ndarray
    core: np.ndarray
    directions: int


def null_rotation(
    index: np.ndarray,
    trials: np.ndarray | None,
    layout: Layout,
    centring: np.ndarray,
    prior_loc=None,
    min_richness: float = NULL_ROTATION_RICHNESS,
) -> NullRotation | None:
    """An orthogonal change of ``z`` that gives each direction no match reads a coordinate.

    Looks among the centred entries of ``z`` (``centring == 1``) outside the
    differenced blocks (whose means `mean_rotations` handles) for the
    directions ``v`` that no row reads, ``A v = 0`` (`read_matrix`): the
    eigenvectors of ``A' A`` with eigenvalue zero. For ``d`` of them it picks
    ``d`` entries ``J`` (pivoted QR: the entries the directions weigh most) and
    builds the orthogonal ``Q`` closest to the identity with ``Q e_J`` an
    orthonormal basis of the directions: ``z = Q x`` then moves along a null
    direction exactly when the sampler moves ``x_J``.

    ``Q = I + B C B'`` with ``B`` (n_free, m) orthonormal and ``C`` (m, m);
    ``B`` is zero outside the candidate entries, so it is returned as those
    rows only, with their positions: applying ``Q`` costs ``2 m`` products per
    candidate entry (`apply_null_rotation`).

    Returns
    -------
    NullRotation or None
        ``positions`` (int, n_c) the candidate entries, ``basis`` (n_c, m)
        their rows of ``B``, ``core`` ``C`` and the number of ``directions``.
        None when there is no such direction, when there are more than
        ``NULL_SEARCH_LIMIT`` candidate entries, or when the data are not rich
        enough.
    """
    from scipy import linalg

    centring = np.asarray(centring, dtype=float)
    candidate = centring >= 1.0
    differenced = set(differenced_blocks(index, layout))
    for block in layout.declared:
        if block.name in differenced or block.form != "independent":
            start = layout.free_offsets[block.name]
            candidate[start : start + layout.n_free_cells(block)] = False
    n_c = int(candidate.sum())
    if n_c < 2 or n_c > NULL_SEARCH_LIMIT:
        return None
    if min_richness > 0:
        loc = np.zeros(len(layout.spreads)) if prior_loc is None else prior_loc
        spread = typical_spreads(layout, loc)[np.maximum(layout.free_group, 0)]
        richness = level_information(index, trials, layout) * spread**2
        if np.median(richness[candidate]) < min_richness:
            return None
    A = read_matrix(index, trials, layout, columns=candidate)
    gram = (A.T @ A).toarray()
    values, vectors = linalg.eigh(gram)
    null = vectors[:, values <= NULL_TOLERANCE * max(values[-1], 1.0)]
    d = null.shape[1]
    if d == 0:
        return None
    pivots = linalg.qr(null.T, pivoting=True, mode="r")[1][:d]
    # the basis of the null space nearest the chosen axes (orthogonal Procrustes)
    u, _, vt = linalg.svd(null[pivots])
    null = null @ (vt.T @ u.T)
    axes = np.zeros((n_c, d))
    axes[pivots, np.arange(d)] = 1.0
    basis = linalg.orth(np.hstack([axes, null]))
    a, b = basis.T @ axes, basis.T @ null
    rest_a, rest_b = linalg.null_space(a.T), linalg.null_space(b.T)
    u, _, vt = linalg.svd(rest_a.T @ rest_b)
    q_small = b @ a.T + rest_b @ (vt.T @ u.T) @ rest_a.T
    core = q_small - np.eye(len(q_small))
    return NullRotation(np.flatnonzero(candidate), basis, core, d)


def apply_null_rotation(x, rotation, xp=np, inverse: bool = False):
    """``Q x`` (or ``Q' x`` with ``inverse``) for ``rotation``, a `NullRotation`.

    ``Q = I + B C B'`` of `null_rotation`, ``B`` given by its rows at
    ``positions``. ``x`` is ``(..., n_free)`` in NumPy, one point in PyTensor.
    """
    at, basis, core = rotation[:3]
    c = core.T if inverse else core
    if xp is np:
        out = np.array(x, dtype=float, copy=True)
        out[..., at] += ((out[..., at] @ basis) @ c.T) @ basis.T
        return out
    return xp.inc_subtensor(x[at], xp.dot(basis, xp.dot(c, xp.dot(basis.T, x[at]))))


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
    split = np.full(3, 1 / 3) if layout.deck_split else None
    base = balanced_spreads(np.float64(loc[0]), np.float64(0.5), split, layout.specs_per_deck)
    n_extra = len(layout.spreads) - len(base)
    return np.concatenate([base, np.exp(np.asarray(loc[1 : 1 + n_extra], dtype=float))])


def typical_spreads(layout: Layout, prior_loc) -> np.ndarray:
    """The prior median of each spread of ``layout``, ``exp(loc)``, given the priors' locations."""
    loc = np.asarray(prior_loc, dtype=float)
    if layout.options.prior == "balanced":
        return balanced_prior_spreads(loc, layout)
    return np.exp(loc[: len(layout.spreads)])


def signed_spreads(layout: Layout, prior_family) -> np.ndarray:
    """Which spreads of ``layout`` are sampled through zero (`ModelOptions.signed_spreads`).

    ``prior_family`` holds 1.0 per prior entry whose family is exponential
    (`skcodex._matchup.graph.SpreadPriors.exponential`). Under the balanced prior
    only the optional blocks' spreads (the entries after the total) can be.
    """
    n_sd = len(layout.spreads)
    flags = np.zeros(n_sd, dtype=bool)
    if not layout.options.signed_spreads:
        return flags
    family = np.asarray(prior_family, dtype=float) > 0
    if layout.options.prior == "balanced":
        n_seed = sum(name in SPREADS for name in layout.spreads)
        flags[n_seed:] = family[1 : 1 + n_sd - n_seed]
    else:
        flags[:] = family[:n_sd]
    return flags


def choose_centring(
    index: np.ndarray,
    trials: np.ndarray | None,
    layout: Layout,
    prior_loc,
    parameterisation: str = "auto",
    signed: np.ndarray | None = None,
) -> np.ndarray:
    """The centring flag of each entry of ``z``: 1 centred, 0 non-centred.

    Parameters
    ----------
    index, trials, layout
        As for `level_information`.
    prior_loc : sequence of float
        The priors' locations (`skcodex._matchup.graph.SpreadPriors.loc`).
    parameterisation : {"auto", "noncentred", "centred"}
        ``"auto"``: a level is centred when ``0.25 * n * s**2 > 1`` (its
        matches' information against its prior's, see the module docstring).
        ``"noncentred"``: none is. ``"centred"``: every level some match
        reads. Effects with a prior of their own, steps of the skill walk and
        levels no match reads stay non-centred in every case.
    signed : array of bool, optional
        Per spread, True where it is sampled through zero (`signed_spreads`):
        its levels stay non-centred in every case (a centred level cannot
        follow its spread to zero).

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
    if signed is not None:
        centred &= ~np.asarray(signed, dtype=bool)[np.maximum(group, 0)]
    # the mean direction of a differenced block (see `mean_rotations`) has no data
    rotations = mean_rotations(index, trials, layout)
    for w in rotations[rotations.any(axis=1)]:
        centred[np.flatnonzero(w)[0]] = False
    return centred.astype(float)


def standard_normals(z, sd, centring, layout: Layout, rotations=None, xp=np):
    """The standard normals ``z_std`` behind sampled ``z`` (NumPy draws or a PyTensor point).

    ``z / sd**c``, reflected by ``rotations`` (`mean_rotations`; None: none).
    ``sd`` is ``(..., n_spreads)``; ``centring`` one flag (0 or 1) per entry of ``z``.
    ``layout.theta(z_std, sd)`` is then the effects, whatever the geometry.
    """
    z_std = z / centred_scale(layout._scale(sd, layout.free_group), centring)
    return z_std if rotations is None else rotate(z_std, rotations, xp)


def centred_scale(scale, centring):
    """``scale**c`` for centring flags ``c`` in {0, 1}, without a logarithm or exponential."""
    return 1.0 + centring * (scale - 1.0)


def centred_levels(centring: np.ndarray, layout: Layout) -> dict[str, int]:
    """How many levels of each block are sampled centred."""
    offsets = layout.free_offsets
    return {
        b.name: int(np.sum(centring[offsets[b.name] : offsets[b.name] + layout.n_free_cells(b)]))
        for b in layout.declared
    }
