"""The deck-matchup product of `skcodex._matchup.layout` against the index-matrix route."""

import numpy as np
import pytest

from skcodex._matchup.deck_pairs import deck_logits
from skcodex._matchup.layout import Layout, ModelOptions
from skcodex.data import MatchCodes

OPTIONS = [
    {},
    {"first_move": True},
    {"synergy": True},
    {"familiarity": True},
    {"time_varying": True},
    {"synergy": True, "familiarity": True, "first_move": True, "time_varying": True},
]


def _decks(rng, n, n_starters, n_specs, k):
    starters = rng.integers(0, n_starters, n)
    specs = np.array([rng.choice(n_specs, k, replace=False) for _ in range(n)], dtype=np.int64)
    return starters, specs.reshape(n, k)


def _index_route(layout, theta, decks1, decks2):
    """Every pair as a match of one player against themself, read through the index matrix.

    The same player on both sides cancels the skill (and the walk's) columns; the
    familiarity blocks are zeroed (an average player). What is left is the deck part.
    """
    (g, h), (t, u) = decks1, decks2
    n1, n2 = len(g), len(t)
    rows, cols = np.repeat(np.arange(n1), n2), np.tile(np.arange(n2), n1)
    zero = np.zeros(n1 * n2, dtype=np.int64)
    codes = MatchCodes(
        player1=zero,
        player2=zero,
        starter1=g[rows],
        starter2=t[cols],
        specs1=h[rows],
        specs2=u[cols],
        n_players=layout.n_players,
        n_starters=layout.n_starters,
        n_specs=layout.n_specs,
        epoch=zero,
        n_epochs=layout.n_epochs,
    )
    index = layout.index_matrix(codes)
    theta = theta.copy()
    blocks = layout.unflatten(theta)  # views into the copy
    for name in ("fam_st", "fam_sp"):
        if name in blocks:
            blocks[name][...] = 0.0
    q = (theta[:, index] * layout.signs).sum(axis=-1)
    return q.reshape(len(theta), n1, n2)


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("k", [3, 2, 1])
def test_deck_logits_equal_the_index_matrix_for_every_pair(options, k):
    rng = np.random.default_rng(len(options) + 10 * k)
    epochs = 3 if options.get("time_varying") else 1
    layout = Layout(4, 5, 7, k, ModelOptions(**options), n_epochs=epochs)
    theta = rng.standard_normal((6, layout.size))
    decks1 = _decks(rng, 5, layout.n_starters, layout.n_specs, k)
    decks2 = _decks(rng, 4, layout.n_starters, layout.n_specs, k)
    ours = deck_logits(layout, theta, *decks1, *decks2)
    assert ours.shape == (6, 5, 4)
    np.testing.assert_allclose(ours, _index_route(layout, theta, decks1, decks2), atol=1e-12)


def test_deck_logits_of_decks_without_specs():
    """A game of characters alone: m is the starter-vs-starter effect."""
    rng = np.random.default_rng(0)
    layout = Layout(2, 4, 0, 0)
    theta = rng.standard_normal((3, layout.size))
    starters = np.array([0, 3, 1])
    none = np.zeros((3, 0), dtype=np.int64)
    ours = deck_logits(layout, theta, starters, none, starters[:2], none[:2])
    a = layout.unflatten(theta)["stst"]
    np.testing.assert_array_equal(ours, a[:, starters][:, :, starters[:2]])


def test_deck_logits_refuse_codes_outside_the_layout():
    layout = Layout(2, 3, 4, 2)
    theta = np.zeros((1, layout.size))
    specs = np.array([[0, 1]])
    with pytest.raises(ValueError, match="outside the layout"):
        deck_logits(layout, theta, np.array([3]), specs, np.array([0]), specs)
    with pytest.raises(ValueError, match="outside the layout"):
        deck_logits(layout, theta, np.array([0]), specs, np.array([0]), np.array([[0, 4]]))
