"""A kind of level added by one record: a per-map effect is that record, its block and its column.

The way `tests/test_blocks.py` adds a block, this adds a kind of level (the map a match
is played on, read from a ``map`` column) and a block over it (a starter's strength on a
map), through the two tables alone, and follows it through the table check, the
encoding, the layout, prediction (never-seen maps included), sampling, the posterior's
names and a saved file.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning

from skcodex import BayesianMatchupClassifier, load
from skcodex._compat import posterior
from skcodex._matchup import blocks, fitting
from skcodex._matchup.blocks import BLOCK_TABLE, EffectBlock
from skcodex._matchup.layout import Layout, ModelOptions
from skcodex._matchup.padding import embedding, padded_layout
from skcodex.data import Vocabulary, check_match_table, encode
from skcodex.data import _kinds as kinds
from skcodex.datasets import make_game_matches
from skcodex.exceptions import ApproximationWarning

MAPS = ("desert", "forest", "tundra")

MAP = kinds.LevelKind("map", column="map")


def _read_map_strength(codes, layout):
    m = codes.column_codes("map")[:, None]
    return [((m, codes.starter1[:, None]), 1.0), ((m, codes.starter2[:, None]), -1.0)]


MAP_STRENGTH = EffectBlock(
    "map_strength",
    ("map", "starter1"),
    "syn",
    _read_map_strength,
    option="synergy",
    label="a starter's strength on a map",
)


@pytest.fixture
def with_maps(monkeypatch):
    """The kind table with a ``map`` kind, and the block table with a block over it."""
    from skcodex._matchup import compile_cache

    compile_cache.clear_compiled()
    monkeypatch.setattr(kinds, "KIND_TABLE", (*kinds.KIND_TABLE, MAP))
    monkeypatch.setattr(blocks, "BLOCK_TABLE", (*BLOCK_TABLE, MAP_STRENGTH))
    yield
    compile_cache.clear_compiled()


def _matches(seed=0, n_matches=80):
    data = make_game_matches(
        n_players=8, n_matches=n_matches, n_tournaments=2, starters=4, random_state=seed
    )
    rng = np.random.default_rng(seed)
    X = data.X.assign(map=rng.choice(MAPS, size=len(data.X)))
    return data, X


def test_the_column_is_kept_and_encoded(with_maps):
    data, X = _matches()
    table = check_match_table(X, data.catalogue)
    assert list(table["map"]) == list(X["map"])
    vocab = Vocabulary.from_table(table)
    assert dict(vocab.column_levels) == {"map": MAPS}
    codes = encode(table, vocab)
    np.testing.assert_array_equal(codes.column_codes("map"), [MAPS.index(m) for m in X["map"]])
    # A map never seen is numbered on from the seen ones, the same code in every row.
    later = check_match_table(X.assign(map=["moon", "desert"] * (len(X) // 2)), data.catalogue)
    grown = encode(later, vocab).columns["map"]
    assert grown.n_levels == 4 and grown.unseen == ("moon",)
    assert set(grown.codes[::2]) == {3}
    # A missing map is refused, naming the column and the row.
    with pytest.raises(ValueError, match="column 'map' is missing a value at row 2"):
        check_match_table(X.assign(map=X["map"].where(X.index != 2)), data.catalogue)


def test_without_the_kind_the_column_is_dropped_as_before():
    data, X = _matches()
    assert "map" not in check_match_table(X, data.catalogue).columns


def _fitted(data, X, strength):
    """A classifier fitted by hand: every effect 0 but the map strengths, tiny spreads."""
    table = check_match_table(X, data.catalogue)
    vocab = Vocabulary.from_table(table)
    codes = encode(table, vocab)
    layout = Layout(
        *vocab.sizes, 0, ModelOptions(synergy=True), column_counts=(("map", len(MAPS)),)
    )
    theta = np.zeros((1, layout.size))
    at = layout.offsets["map_strength"]
    theta[0, at : at + strength.size] = strength.ravel()
    clf = BayesianMatchupClassifier(synergy=True, catalogue=data.catalogue)
    sd = np.full((1, len(layout.spreads)), 1e-9)
    names = fitting.level_names(vocab, layout, [])
    clf.idata_ = fitting.from_effect_draws(theta, sd, layout, coords=names)
    clf.vocabulary_, clf.layout_, clf._unseen_seed = vocab, layout, 0
    clf.classes_ = np.array([0, 1])
    return clf, codes


def test_a_declared_kind_is_laid_out_and_predicted(with_maps):
    data, X = _matches()
    n_starters = len(Vocabulary.from_table(check_match_table(X, data.catalogue)).starters)
    # draws are kept in single precision: values it holds exactly
    strength = np.random.default_rng(5).normal(0, 1, (len(MAPS), n_starters)).astype(np.float32)
    strength = strength.astype(float)
    clf, codes = _fitted(data, X, strength)
    assert clf.layout_.level_counts["map"] == len(MAPS)
    assert clf.layout_.shapes["map_strength"] == (len(MAPS), n_starters)
    m = codes.column_codes("map")
    want = expit(strength[m, codes.starter1] - strength[m, codes.starter2])
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], want, rtol=0, atol=1e-12)
    # A never-seen map grows the layout by one level, of spread ~0 here: an even match.
    moon = X.assign(map="moon")
    grown = clf._grown_layout(encode(check_match_table(moon, data.catalogue), clf.vocabulary_))
    assert grown.level_counts["map"] == len(MAPS) + 1
    np.testing.assert_allclose(clf.predict_proba(moon)[:, 1], 0.5, atol=1e-6)
    # The never-seen map is named, so its draws are keyed to its name.
    names = clf._levels(encode(check_match_table(moon, data.catalogue), clf.vocabulary_))
    assert names["map"] == [*MAPS, "moon"]
    # A table without the column cannot be forecast by a model that reads it.
    with pytest.raises(ValueError, match="needs a column 'map'"):
        clf.predict_proba(data.X)


def test_the_kind_is_padded_for_the_compile_cache(with_maps):
    layout = Layout(9, 3, 0, 0, ModelOptions(synergy=True), column_counts=(("map", 3),))
    padded = padded_layout(layout)
    assert padded.level_counts["map"] == 4  # a multiple of four, by default
    theta_pos, _ = embedding(layout, padded)
    assert len(theta_pos) == layout.size and len(set(theta_pos)) == layout.size


@pytest.mark.slow
def test_a_declared_kind_is_sampled_named_and_saved(with_maps, tmp_path):
    data, X = _matches(seed=1, n_matches=150)
    clf = BayesianMatchupClassifier(
        synergy=True, method="advi", draws=50, chains=1, random_state=0, catalogue=data.catalogue
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        # 50 ADVI draws on 150 matches: whether mean-field shrinks a spread is not the point
        warnings.simplefilter("ignore", ApproximationWarning)
        clf.fit(X, data.y)
    post = posterior.group(clf.idata_, "posterior")
    assert post["map_strength"].dims == ("chain", "draw", "map", "starter1")
    assert list(post["map_strength"].coords["map"].values) == list(MAPS)
    p = clf.predict_proba(X)
    assert np.all(np.isfinite(p))
    back = load(clf.save(tmp_path / "maps.skcodex"))
    assert back.layout_ == clf.layout_ and back.vocabulary_ == clf.vocabulary_
    np.testing.assert_array_equal(back.predict_proba(X), p)
