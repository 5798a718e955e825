"""Random encoded matches for tests of the model's density and geometry, and small tables."""

from __future__ import annotations

import numpy as np
import pandas as pd

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


def period_table(players1, players2, periods, deck="Law/Peace/Truth/Red"):
    """A match table of one deck throughout, with a ``period`` column."""
    n = len(players1)
    return pd.DataFrame(
        {
            "player1": players1,
            "player2": players2,
            "deck1": [deck] * n,
            "deck2": [deck] * n,
            "period": periods,
        }
    )
