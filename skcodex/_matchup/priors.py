"""The balanced prior's spreads: one total spread shared out between skill and the decks.

Read by the model (`graph.py`), by the geometry's choice of centring
(`geometry.py`) and by the analyses of spreads; it imports nothing of the model.
"""

from __future__ import annotations

import numpy as np

__all__ = ["balanced_spreads"]


def balanced_spreads(log_total, share, split, k: int, xp=np):
    """The seed model's four spreads from a total spread, a skill share and a deck split.

    With ``split`` None (decks without specs, `Layout.deck_split` False): the
    two spreads player and stst, the deck part all starter against starter.
    """
    # One vector expression rather than a stack of four scalars: PyTensor rewrites a
    # gather from a stack of scalars (theta = z * sd[group]) into a vector built from
    # one scalar per effect, which takes numba minutes to compile.
    total2 = xp.expand_dims(xp.exp(2 * log_total), -1)
    share = xp.expand_dims(share, -1)
    if split is None:  # decks without specs: the two spreads player and stst
        return xp.sqrt(xp.concatenate([share / 2, 1 - share], axis=-1) * total2)
    if k == 0:  # files of earlier versions: every deck spread the starter-vs-starter one
        deck = (1 - share) * xp.ones_like(split)
        return xp.sqrt(xp.concatenate([share / 2, deck], axis=-1) * total2)
    deck = (1 - share) * split * np.array([1.0, 1.0 / (2 * k), 1.0 / k**2])
    return xp.sqrt(xp.concatenate([share / 2, deck], axis=-1) * total2)
