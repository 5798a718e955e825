"""Random encoded matches for tests of the model's density and geometry."""

from __future__ import annotations

import numpy as np

from skcodex.data import MatchCodes


def random_index(layout, n: int, rng: np.random.Generator) -> np.ndarray:
    """The index matrix of ``n`` matches with players, starters and specs drawn uniformly."""
    k = layout.specs_per_deck
    codes = MatchCodes(
        rng.integers(0, layout.n_players, n),
        rng.integers(0, layout.n_players, n),
        rng.integers(0, layout.n_starters, n),
        rng.integers(0, layout.n_starters, n),
        rng.integers(0, layout.n_specs, (n, k)),
        rng.integers(0, layout.n_specs, (n, k)),
        layout.n_players,
        layout.n_starters,
        layout.n_specs,
    )
    return layout.index_matrix(codes)
