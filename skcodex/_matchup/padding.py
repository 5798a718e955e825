"""The layout a model is compiled for (sizes rounded up to buckets) and where a fit sits in it.

A cross-validation fold usually sees fewer players than the whole table, which
would change the shape of the effect vector and force a new compile. The model
is therefore built for a padded `Layout` (`padded_layout`: players and rating
periods rounded up to a power of two, starters and specs to a multiple of
four). The extra effects are standard normals that no match reads: they leave
the posterior of the real effects unchanged and are dropped from the returned
draws (`embedding` says where the real ones sit), so every fit with sizes in
the same bucket shares one compiled model (`skcodex._matchup.compile_cache`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from skcodex._matchup.layout import Layout
from skcodex.data import _kinds as kinds

__all__ = ["embedding", "padded_layout"]


def padded_layout(layout: Layout) -> Layout:
    """The layout the model is compiled for: ``layout`` with its sizes rounded up to buckets.

    Each kind of level is rounded up as its record says
    (`skcodex.data._kinds.KIND_TABLE`: players and rating periods to a power of
    two, at least 32 players and 2 periods; starters and specs to a multiple of
    four), the steps of an integrated skill walk to 4, 5, 6 or 7 times a power of two (at most
    25% more; which cells the steps feed and the gaps they span are data of
    the compiled model, `skcodex._matchup.graph.walk_data`). Layouts in the same
    bucket share one compiled model.

    Parameters
    ----------
    layout : Layout
        The layout of the data being fitted.

    Returns
    -------
    Layout
        A layout at least as large as ``layout`` in every size (a kind with
        no levels stays without), with the same options, specs per deck and
        spreads.
    """
    # each kind of level padded as its record says (a kind with no levels stays without)
    sizes = {k.size: kinds.padded_count(k, layout) for k in kinds.KIND_TABLE if k.size}
    columns = tuple(
        (k.name, kinds.padded_count(k, layout))
        for k in kinds.KIND_TABLE
        if k.column is not None and kinds.count(k, layout)
    )
    walk_steps = layout.walk_steps
    if layout.integrated_walk:
        walk_steps = _quarter_power_of_two(walk_steps, 8)
    padded = replace(layout, **sizes, walk_steps=walk_steps, column_counts=columns)
    if padded.spreads != layout.spreads:  # the compiled model samples the layout's spreads
        raise ValueError(
            f"the padded layout has the spreads {padded.spreads}, the layout {layout.spreads}"
        )
    return padded


def _quarter_power_of_two(n: int, minimum: int) -> int:
    """The smallest of 4, 5, 6 or 7 times a power of two that is >= n (at most 25% more)."""
    n = max(int(n), int(minimum))
    power = 1 << max(0, (n - 1).bit_length() - 3)
    return min(m * power for m in (4, 5, 6, 7, 8) if m * power >= n)


def embedding(layout: Layout, padded: Layout) -> tuple[np.ndarray, np.ndarray]:
    """Where ``layout``'s effects and standard normals sit in a larger ``padded`` layout.

    Each block of ``layout`` occupies the leading corner of the same block of
    ``padded`` (level codes are kept; the extra levels come after them).

    Parameters
    ----------
    layout, padded : Layout
        ``padded`` must be at least as large as ``layout`` in every size.

    Returns
    -------
    theta_pos : ndarray of int, shape (layout.size,)
        ``theta_pos[i]`` is the position in the padded ``theta`` of entry ``i``
        of ``layout``'s ``theta``; so ``theta_pos[index]`` is the padded index matrix.
    z_pos : ndarray of int, shape (layout.n_free,)
        The same for the standard normals ``z``; ``z_padded[..., z_pos]`` are
        ``layout``'s ``z``.
    """
    counts, padded_counts = layout.level_counts, padded.level_counts
    if (
        any(padded_counts[kind] < n for kind, n in counts.items())
        or padded.options != layout.options
        or padded.specs_per_deck != layout.specs_per_deck
        or padded.integrated_walk != layout.integrated_walk
        or (layout.integrated_walk and padded.walk_steps < layout.walk_steps)
    ):
        raise ValueError(f"{padded} does not contain {layout}")
    where = padded.unflatten(np.arange(padded.size))
    theta_pos = layout.flatten(
        {
            name: where[name][tuple(slice(0, n) for n in layout.shapes[name])]
            for name, _ in layout.blocks
        }
    )
    z_parts = []
    for block in layout.declared:
        if block.form == "walk" and layout.integrated_walk:  # its steps come first in padded
            start = padded.free_offsets[block.name]
            z_parts.append(start + np.arange(layout.walk_steps))
            continue
        owner = np.full(padded.shapes[block.name], -1, dtype=np.int64)
        cells = padded.free_cells(block)
        start = padded.free_offsets[block.name]
        owner[cells] = (start + np.arange(padded.n_free_cells(block))).reshape(owner[cells].shape)
        z_parts.append(np.atleast_1d(owner[layout.free_cells(block)]))
    return theta_pos, np.concatenate(z_parts).astype(np.int64)
