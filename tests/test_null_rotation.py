"""Directions no match reads, turned into sampler coordinates of their own.

Where every deck holds ``k`` specs, trading ``d`` on a starter's row of
starter-vs-starter effects against ``d / k`` on its row of starter-vs-spec
effects changes no match (and likewise for columns and for specs). The
directions `null_rotation` finds must be exactly these (checked against the
trades written out by hand, and against an independent rank count of the
reads); its change of coordinates must be orthogonal and leave every other
entry alone; the model built with it must have the same density at the same
effects; and a fit with it must give the posterior a fit without it gives.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from skcodex import BayesianMatchupClassifier
from skcodex._matchup.convergence_stats import ess_bulk
from skcodex._matchup.geometry import (
    apply_null_rotation,
    choose_centring,
    null_rotation,
    read_matrix,
)
from skcodex._matchup.graph import ROTATED_Z, build_model
from skcodex._matchup.layout import Layout, ModelOptions
from skcodex.datasets import make_matches

from random_matches import random_index  # isort: skip

S, K, SPECS = 3, 5, 2  # starters, specs, specs per deck


def _dense_q(found, n_free):
    q = np.eye(n_free)
    return apply_null_rotation(q, found)  # row i: Q e_i (Q applied to each axis)


def _trades(layout: Layout) -> np.ndarray:
    """The row and column trades written out by hand, one column each, in ``z`` order."""
    k = layout.specs_per_deck

    def cells(block):
        size = int(np.prod(layout.shapes[block]))
        return layout.free_offsets[block] + np.arange(size).reshape(layout.shapes[block])

    # player 1's starter: its stst row against its stsp row; player 2's starter: its stst
    # column against its spst column; player 1's spec: its spst row against its spsp row;
    # player 2's spec: its stsp column against its spsp column
    families = [("stst", "stsp", 0), ("stst", "spst", 1), ("spst", "spsp", 0), ("stsp", "spsp", 1)]
    cols = []
    for plus, minus, axis in families:
        for level in range(layout.shapes[plus][axis]):
            v = np.zeros(layout.n_free)
            v[np.take(cells(plus), level, axis=axis)] = 1.0
            v[np.take(cells(minus), level, axis=axis)] = -1.0 / k
            cols.append(v)
    return np.array(cols).T


def _rich(layout: Layout, seed: int = 0):
    index = random_index(layout, 4000, np.random.default_rng(seed))
    centring = choose_centring(index, None, layout, np.zeros(len(layout.spreads)), "centred")
    return index, centring


def test_the_null_directions_of_a_deck_game_are_its_row_and_column_trades():
    layout = Layout(6, S, K, SPECS)
    index, centring = _rich(layout)
    found = null_rotation(index, None, layout, centring, min_richness=0)
    trades = _trades(layout)
    # the hand-written trades change no match
    assert np.abs(read_matrix(index, None, layout) @ trades).max() < 1e-12
    expected = np.linalg.matrix_rank(trades)
    assert expected == 2 * (S + K) - 1  # the four families share one combination
    assert found.directions == expected
    q = _dense_q(found, layout.n_free)
    np.testing.assert_allclose(q @ q.T, np.eye(layout.n_free), atol=1e-12)  # orthogonal
    # the turned axes span exactly the trades
    reads = read_matrix(index, None, layout)
    null_axes = np.abs(reads @ q.T).max(axis=0) < 1e-9
    assert null_axes.sum() == expected
    turned = q[null_axes].T
    residual = trades - turned @ (turned.T @ trades)
    assert np.abs(residual).max() < 1e-10
    # skills (read as differences, their mean turned elsewhere) are left alone
    skill = slice(layout.free_offsets["skill"], layout.free_offsets["skill"] + 6)
    np.testing.assert_array_equal(q[skill, skill], np.eye(6))
    assert not np.isin(np.arange(skill.start, skill.stop), found.positions).any()


@pytest.mark.parametrize(
    "options", [ModelOptions(symmetric=True), ModelOptions(first_move=True, synergy=True)]
)
def test_null_space_size_equals_an_independent_rank_count(options):
    layout = Layout(6, S, K, SPECS, options)
    index, centring = _rich(layout, seed=1)
    found = null_rotation(index, None, layout, centring, min_richness=0)
    reads = read_matrix(index, None, layout).toarray()
    cand = found.positions
    expected = len(cand) - np.linalg.matrix_rank(reads[:, cand])
    assert found.directions == expected > 0
    q = _dense_q(found, layout.n_free)
    np.testing.assert_allclose(q @ q.T, np.eye(layout.n_free), atol=1e-12)
    null_axes = np.abs(reads @ q.T).max(axis=0) < 1e-9
    # the turned axes carry the null directions; unread entries were axes already
    unread = np.abs(reads).max(axis=0) == 0
    assert null_axes.sum() == expected + unread.sum()
    x = np.random.default_rng(2).normal(size=(3, layout.n_free))
    back = apply_null_rotation(apply_null_rotation(x, found), found, inverse=True)
    np.testing.assert_allclose(back, x, atol=1e-12)


def test_no_turn_without_centred_levels_or_without_rich_data():
    layout = Layout(6, S, K, SPECS)
    index, centring = _rich(layout)
    assert null_rotation(index, None, layout, np.zeros(layout.n_free), min_richness=0) is None
    # 60 matches: every level read, but the prior still counts; 50 times as many do not
    few = index[:60]
    centring = choose_centring(few, None, layout, np.zeros(len(layout.spreads)), "centred")
    assert null_rotation(few, None, layout, centring) is None
    assert null_rotation(few, np.full(len(few), 50.0), layout, centring) is not None


def test_the_turned_model_has_the_same_density_at_the_same_effects():
    layout = Layout(6, S, K, SPECS, ModelOptions(first_move=True))
    index, centring = _rich(layout, seed=3)
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, len(index)).astype(float)
    found = null_rotation(index, None, layout, centring, min_richness=0)
    plain = build_model(index, y, layout, centring=centring)
    turned = build_model(index, y, layout, centring=centring, null_rotation=found)
    assert ROTATED_Z in [v.name for v in turned.free_RVs]
    logp_plain, logp_turned = plain.compile_logp(), turned.compile_logp()
    z_of = turned.compile_fn(turned["z"], inputs=[turned[ROTATED_Z]])
    for _ in range(3):
        log_sd = rng.normal(-0.5, 0.5, len(layout.spreads))
        x = rng.normal(0, 0.8, layout.n_free)
        z = apply_null_rotation(x, found)
        np.testing.assert_allclose(z_of({ROTATED_Z: x}), z, atol=1e-12)
        expected = logp_plain({"log_sd": log_sd, "z": z})
        got = logp_turned({"log_sd": log_sd, ROTATED_Z: x})
        assert got == pytest.approx(expected, abs=1e-8, rel=0)


def _flat_draws(values) -> np.ndarray:
    """(chain, draw, parameter) draws of a posterior variable."""
    x = np.asarray(values, dtype=float)
    return x.reshape(x.shape[0], x.shape[1], -1)


@pytest.mark.slow
def test_a_fit_with_the_turn_gives_the_posterior_of_a_fit_without(monkeypatch):
    import skcodex._matchup.sampling as inference

    data = make_matches(n_players=12, n_matches=3000, n_tournaments=4, random_state=11)
    # every level centred in both fits, so that the turn is the only difference
    monkeypatch.setattr(
        inference,
        "choose_centring",
        lambda index, trials, layout, loc, *_: choose_centring(
            index, trials, layout, loc, "centred"
        ),
    )

    def fit(seed):
        clf = BayesianMatchupClassifier(draws=300, tune=300, chains=2, random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return clf.fit(data.X, data.y)

    plain = fit(0)
    assert plain.idata_.posterior.attrs["null_directions"] == 0  # not rich enough by default
    monkeypatch.setattr(
        inference, "null_rotation", functools.partial(null_rotation, min_richness=0)
    )
    turned = fit(1)
    post = turned.idata_.posterior
    assert post.attrs["null_directions"] > 0
    assert ROTATED_Z not in post and "z" not in post
    for name in ("sd", "skill", "stst"):
        # two independent fits of one posterior: means agree within their Monte Carlo
        # errors (each parameter's variance over its own bulk ESS)
        a, b = (_flat_draws(fit.idata_.posterior[name]) for fit in (turned, plain))
        se = np.sqrt(sum(x.var(axis=(0, 1)) / ess_bulk(x) for x in (a, b)))
        diff = np.abs(a.mean(axis=(0, 1)) - b.mean(axis=(0, 1)))
        assert float((diff / (se + 1e-9)).max()) < 5, name
    X = data.X.iloc[:200]
    assert np.abs(turned.predict_proba(X) - plain.predict_proba(X)).max() < 0.03
