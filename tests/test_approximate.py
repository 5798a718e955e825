"""Approximations that say what they lose: the mean-field shrinkage check and its warning."""

import warnings

import numpy as np
import pytest
import xarray as xr
from sklearn.exceptions import ConvergenceWarning

from skcodex import BayesianMatchupClassifier
from skcodex._matchup import approximation as approximate
from skcodex._matchup.approximation import SHRUNK_Z_SD, ApproximationWarning, shrunk_blocks
from skcodex._matchup.graph import Layout
from skcodex.data import Vocabulary, check_match_table, encode
from skcodex.datasets import make_matches

#: No skill walk, no debut option: the model ADVI and NUTS fit alike.
STATIC = {"time_varying": False, "debut": False}


def _setup(n_matches=300, decks_per_player=1, seed=0):
    data = make_matches(
        n_players=12,
        n_matches=n_matches,
        n_tournaments=4,
        decks_per_player=decks_per_player,
        random_state=seed,
    )
    table = check_match_table(data.X)
    vocab = Vocabulary.from_table(table)
    layout = Layout(*vocab.sizes, vocab.specs_per_deck)
    return data, layout, layout.index_matrix(encode(table, vocab))


def _posterior(z_sd: np.ndarray, n_draws=4000, seed=1) -> xr.Dataset:
    z = np.random.default_rng(seed).normal(size=(1, n_draws, len(z_sd))) * z_sd
    return xr.Dataset({"z": (("chain", "draw", "z_dim_0"), z)})


def _positions(layout: Layout, block: str) -> slice:
    start = layout.offsets[block]
    return slice(start, start + int(np.prod(layout.shapes[block])))


def test_blocks_whose_read_levels_keep_their_prior_spread_are_reported():
    _, layout, index = _setup()
    read = np.zeros(layout.size, dtype=bool)
    read[np.unique(index)] = True
    z_sd = np.full(layout.size, 0.2)
    assert shrunk_blocks(_posterior(z_sd), index, layout) == []
    # stsp and spst share the stsp spread: judged over the levels of both
    z_sd[_positions(layout, "spst")] = 1.0
    assert shrunk_blocks(_posterior(z_sd), index, layout) == []
    z_sd[_positions(layout, "stsp")] = 1.0
    assert shrunk_blocks(_posterior(z_sd), index, layout) == ["stsp"]
    z_sd[_positions(layout, "spsp")] = 1.0
    assert shrunk_blocks(_posterior(z_sd), index, layout) == ["stsp", "spsp"]


def test_levels_no_match_reads_do_not_count():
    _, layout, index = _setup()
    read = np.zeros(layout.size, dtype=bool)
    read[np.unique(index)] = True
    z_sd = np.full(layout.size, 0.2)
    block = _positions(layout, "spsp")
    unread = np.flatnonzero(~read[block]) + block.start
    assert unread.size  # some spec pairs never meet in these matches
    z_sd[unread] = 1.0
    assert shrunk_blocks(_posterior(z_sd), index, layout) == []
    # just above and just below the threshold on the read levels
    levels = np.flatnonzero(read[block]) + block.start
    z_sd[levels] = SHRUNK_Z_SD * 1.1
    assert shrunk_blocks(_posterior(z_sd), index, layout) == ["spsp"]
    z_sd[levels] = SHRUNK_Z_SD * 0.9
    assert shrunk_blocks(_posterior(z_sd), index, layout) == []


@pytest.mark.slow
def test_mean_field_fit_warns_naming_the_spreads_it_shrank(monkeypatch):
    """A co-occurring metagame (one deck per player): the named spreads are shrunk vs NUTS."""
    data = make_matches(
        n_players=16, n_matches=1500, n_tournaments=5, decks_per_player=1, random_state=0
    )
    monkeypatch.setattr(approximate, "STEPS", 2000)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # the static model on both sides: at "auto" NUTS alone would add the skill walk
        advi = BayesianMatchupClassifier(
            method="advi", draws=500, chains=2, random_state=0, **STATIC
        )
        advi.fit(data.X, data.y)
    found = [w for w in caught if issubclass(w.category, ApproximationWarning)]
    assert len(found) == 1, [str(w.message) for w in caught]
    message = str(found[0].message)
    assert "Use method='nuts'" in message
    named = [s for s in ("player", "stst", "stsp", "spsp") if f"sd_{s}" in message]
    assert named and "player" not in named, message
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        nuts = BayesianMatchupClassifier(draws=300, tune=300, chains=2, random_state=0, **STATIC)
        nuts.fit(data.X, data.y)
    spread = {
        name: dict(zip(clf.layout_.spreads, clf.spread_draws_.mean(axis=0)))
        for name, clf in (("advi", advi), ("nuts", nuts))
    }
    for name in named:  # each named spread is more than 25% below NUTS's
        assert spread["advi"][name] < 0.75 * spread["nuts"][name], (name, spread)
