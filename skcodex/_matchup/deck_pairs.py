"""The deck part of the log-odds for every pair of decks at once (`deck_logits`).

The matchup tables and Nash games of `skcodex.analysis` read every pair of decks
at once; this is the same sum as the deck columns of `Layout.index_matrix`,
tested against it for every pair.
"""

from __future__ import annotations

import numpy as np

from skcodex._matchup.blocks import EffectBlock
from skcodex._matchup.layout import Layout
from skcodex.data import MatchCodes


def deck_logits(layout: Layout, theta, starter1, specs1, starter2, specs2) -> np.ndarray:
    """The deck part of the log-odds, m(deck1, deck2), for every pair of decks and draw.

    The deck columns of `Layout.index_matrix`, read for every pair at once: with
    player 1's starter ``g`` and specs ``h``, player 2's ``t`` and ``u``,
    ``m = a[g, t] + sum_k b[g, u_k] + sum_j c[h_j, t] + sum_jk d[h_j, u_k]``, plus the
    first-move effect and ``syn(deck1) - syn(deck2)`` when the layout has them, and
    any other declared block of starters and specs alone, read as a match reads it.
    Skills and familiarity are left out (equal players of average familiarity).

    Parameters
    ----------
    layout : Layout
    theta : ndarray of shape (n_draws, layout.size)
    starter1, specs1 : ndarray of int, shapes (n1,) and (n1, k)
        Player 1's decks as codes of ``layout``'s levels.
    starter2, specs2 : ndarray of int, shapes (n2,) and (n2, k)
        Player 2's decks.

    Returns
    -------
    ndarray of shape (n_draws, n1, n2)
    """
    S, K = layout.n_starters, layout.n_specs
    g, t = np.asarray(starter1, dtype=np.int64), np.asarray(starter2, dtype=np.int64)
    h = np.asarray(specs1, dtype=np.int64).reshape(len(g), -1)
    u = np.asarray(specs2, dtype=np.int64).reshape(len(t), -1)
    if any(x.size and (x.min() < 0 or x.max() >= n) for x, n in ((g, S), (t, S), (h, K), (u, K))):
        raise ValueError("deck codes fall outside the layout; encode against its vocabulary")
    theta_flat = np.asarray(theta, dtype=float).reshape(-1, layout.size)
    blocks = layout.unflatten(theta_flat)
    a, b, c, d = (blocks[name] for name in ("stst", "stsp", "spst", "spsp"))
    H, U = _spec_counts(h, K), _spec_counts(u, K)  # H[i, x]: how often spec x is in deck i
    m = a[:, g][:, :, t]  # a[g, t]
    m += b[:, g] @ U.T  # sum_k b[g, u_k]
    m += H @ c[:, :, t]  # sum_j c[h_j, t]
    m += H @ d @ U.T  # sum_jk d[h_j, u_k]
    if "first_move" in blocks:  # the same in every pairing
        m += blocks["first_move"][:, None, None]
    if "syn_stsp" in blocks:  # syn(deck1) - syn(deck2)
        first, second = np.triu_indices(layout.specs_per_deck, 1)

        def syn(s, x):
            own = blocks["syn_stsp"][:, s[:, None], x].sum(axis=-1)
            return own + blocks["syn_spsp"][:, x[:, first], x[:, second]].sum(axis=-1)

        m += syn(g, h)[:, :, None] - syn(t, u)[:, None, :]
    for block in layout.declared:  # any other block of decks alone, read as a match reads it
        if block.name not in _SUMMED_BLOCKS and set(block.kinds) <= {"starter", "spec"}:
            m += _pair_sum(layout, block, theta_flat, (g, h), (t, u))
    return m


#: The blocks `deck_logits` sums in closed form (or leaves out: skills, familiarity, walk).
_SUMMED_BLOCKS = frozenset(
    {"skill", "stst", "stsp", "spst", "spsp", "first_move", "syn_stsp", "syn_spsp"}
    | {"fam_st", "fam_sp", "walk"}
)


def _pair_sum(layout: Layout, block: EffectBlock, theta, deck1, deck2) -> np.ndarray:
    """One block's part of m(deck1, deck2) for every pair of decks: (n_draws, n1, n2)."""
    (g, h), (t, u) = deck1, deck2
    n1, n2 = len(g), len(t)
    zeros = np.zeros(n1 * n2, dtype=np.int64)
    pairs = MatchCodes(
        zeros, zeros, np.repeat(g, n2), np.tile(t, n1), np.repeat(h, n2, axis=0),
        np.tile(u, (n1, 1)), layout.n_players, layout.n_starters, layout.n_specs,
    )  # fmt: skip
    out = np.zeros((theta.shape[0], n1 * n2))
    for cols, sign in layout._block_columns(block, pairs):
        out += sign * theta[:, cols].sum(axis=-1)
    return out.reshape(-1, n1, n2)


def _spec_counts(specs: np.ndarray, n_specs: int) -> np.ndarray:
    out = np.zeros((len(specs), n_specs))
    np.add.at(out, (np.repeat(np.arange(len(specs)), specs.shape[1]), specs.ravel()), 1.0)
    return out
