"""The skill walk through played periods: the same walk as through every period, and fitted.

The integrated walk (`skcodex._matchup.layout.Layout.walk_path`) takes one step per
player into each period played, of spread ``sd_step * sqrt(gap)``; the walk
through every period (``walk_steps=None``, files written before it) takes one
step per player and period. Both are linear in their standard normals, so
their prior covariances are computed exactly here and compared.
"""

from __future__ import annotations

import dataclasses
import json
import warnings
import zipfile

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from skcodex import BayesianMatchupClassifier, load
from skcodex._compat import posterior
from skcodex._matchup import fitting
from skcodex._matchup import readers as fit_readers
from skcodex._matchup.compile_cache import compile_count
from skcodex._matchup.layout import Layout, ModelOptions
from skcodex._matchup.padding import embedding, padded_layout
from skcodex.codex import CODEX
from skcodex.data import Vocabulary, check_match_table, encode
from skcodex.datasets import make_matches

WALK = ModelOptions(time_varying=True)


@pytest.fixture(scope="module")
def data():
    return make_matches(n_players=14, n_matches=160, n_tournaments=6, random_state=4)


def _layouts(X):
    """The fitted (integrated) layout, its index matrix and codes for a table."""
    table = check_match_table(X)
    vocab = Vocabulary.from_table(table)
    codes = encode(table, vocab)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        layout = BayesianMatchupClassifier(time_varying=True)._training_layout(vocab, codes)
    return layout, layout.index_matrix(codes), codes


def _played(codes, layout) -> np.ndarray:
    played = np.zeros((layout.n_players, layout.n_epochs), dtype=bool)
    played[codes.player1, codes.epoch] = True
    played[codes.player2, codes.epoch] = True
    return played


def _walk_map(layout: Layout, path=None) -> np.ndarray:
    """The walk's cells as a linear map of its standard normals at sd_step = 1: (cells, z)."""
    sd = np.ones(len(layout.spreads))
    theta = layout.theta(np.eye(layout.n_free), sd, path=path)  # row j: theta of z = e_j
    return layout.unflatten(theta)["walk"].reshape(layout.n_free, -1).T


def _every_period_covariance(P: int, E: int, first: np.ndarray) -> np.ndarray:
    """The walk through every period from ``first[p]`` on: Cov(w[p, e], w[q, f]).

    ``[p == q] (min(e, f) - first[p])`` where both periods are at or after
    ``first[p]``, 0 before (the walk is 0 there).
    """
    e = np.arange(E)
    blocks = [np.maximum(np.minimum.outer(e, e) - f, 0) for f in first]
    out = np.zeros((P * E, P * E))
    for p, block in enumerate(blocks):
        out[p * E : (p + 1) * E, p * E : (p + 1) * E] = block
    return out


def test_the_fitted_walk_starts_in_each_players_first_period_played(data):
    layout, index, codes = _layouts(data.X)
    assert layout.walk_anchor == "first played"
    played = _played(codes, layout)
    assert not played.all()  # some players sit out some periods
    first = played.argmax(axis=1)
    assert (first > 0).any()  # and some arrive after the first period
    # one step into each period played after the player's first
    assert layout.walk_steps == played.sum() - len(played)
    A = _walk_map(layout, layout.walk_path(index))
    P, E = layout.n_players, layout.n_epochs
    # at every played cell: the covariance of a walk through every period begun at 0 in
    # the player's first period played (a newcomer's skill is drawn from the population)
    truth = _every_period_covariance(P, E, first)
    at = np.flatnonzero(played.ravel())
    np.testing.assert_allclose((A @ A.T)[np.ix_(at, at)], truth[np.ix_(at, at)], atol=1e-12)
    # between and after played periods it holds the last played value, 0 before the first
    e = np.arange(E)
    last = np.maximum.accumulate(np.where(played, e, 0), axis=1)
    held = (np.arange(P)[:, None] * E + last).ravel()
    np.testing.assert_array_equal(A, A[held])
    before = (e[None, :] <= first[:, None]).ravel()
    assert not A[before].any()


def test_the_walk_from_the_first_period_has_the_prior_covariance_of_the_every_period_walk(data):
    fitted, index, codes = _layouts(data.X)
    played = _played(codes, fitted)
    layout = dataclasses.replace(
        fitted, walk_anchor="first period", walk_steps=int(played[:, 1:].sum())
    )
    every = dataclasses.replace(layout, walk_steps=None)
    assert layout.walk_steps < every.n_players * (every.n_epochs - 1)
    A = _walk_map(layout, layout.walk_path(index))
    B = _walk_map(every)
    cov_integrated, cov_every = A @ A.T, B @ B.T
    P, E = layout.n_players, layout.n_epochs
    # the walk through every period: Cov(w[p, e], w[q, f]) = [p == q] min(e, f)
    truth = _every_period_covariance(P, E, np.zeros(P, dtype=int))
    np.testing.assert_allclose(cov_every, truth, atol=1e-12)
    # the integrated walk: the same covariance at every played cell (and the first period)
    kept = played.copy()
    kept[:, 0] = True
    at = np.flatnonzero(kept.ravel())
    np.testing.assert_allclose(cov_integrated[np.ix_(at, at)], truth[np.ix_(at, at)], atol=1e-12)
    e = np.arange(E)
    last = np.maximum.accumulate(np.where(kept, e, 0), axis=1)
    held = (np.arange(P)[:, None] * E + last).ravel()
    np.testing.assert_array_equal(A, A[held])


def test_the_forecast_walk_spans_the_periods_since_each_player_last_played():
    """Read from the matches: a player of one late period never moves from 0."""
    import pandas as pd

    rows = [
        ("a", "b", "T0"),
        ("a", "b", "T1"),
        ("a", "c", "T3"),  # c plays only T3; b last plays T1
        ("a", "b", "T4"),
        ("a", "d", "T2"),  # d plays only T2
    ]
    X = pd.DataFrame(rows, columns=["player1", "player2", "period"]).assign(
        deck1="MonoRed", deck2="MonoBlue"
    )
    X["period"] = X["period"].astype(str)
    X = X.sort_values("period", kind="stable").reset_index(drop=True)
    layout, index, _ = _layouts(X)
    names = list(Vocabulary.from_table(check_match_table(X)).players)
    walk = np.zeros((3, layout.n_players, layout.n_epochs))  # no player moved in any draw
    ahead = dict(zip(names, fit_readers.periods_ahead(layout, walk, index)))
    # five periods (T0-T4), forecast in the sixth: a and b last played T4, c T3, d T2
    assert ahead == {"a": 1, "b": 1, "c": 2, "d": 3}
    older = dataclasses.replace(layout, walk_anchor="first period")
    # the walk from the first period reads the draws: none moved, so every gap is 5
    assert list(fit_readers.periods_ahead(older, walk, None)) == [5, 5, 5, 5]
    with pytest.raises(ValueError, match="needs the index of the training matches"):
        fit_readers.periods_ahead(layout, walk, None)


def test_an_unknown_walk_anchor_is_refused(data):
    layout, _, _ = _layouts(data.X)
    with pytest.raises(ValueError, match="walk_anchor must be one of"):
        dataclasses.replace(layout, walk_anchor="debut")


def test_integrated_walk_in_pytensor_and_numpy_agree(data):
    import pytensor.tensor as pt

    from skcodex._matchup.layout import WalkPath

    layout, index, _ = _layouts(data.X)
    path = layout.walk_path(index)
    rng = np.random.default_rng(0)
    z, sd = rng.standard_normal(layout.n_free), np.exp(rng.normal(-1, 0.3, 5))
    tensor_path = WalkPath(*(pt.as_tensor_variable(v) for v in (path.gap, path.upto, path.base)))
    got = layout.theta(pt.as_tensor_variable(z), pt.as_tensor_variable(sd), pt, tensor_path)
    np.testing.assert_allclose(got.eval(), layout.theta(z, sd, path=path), atol=1e-12)
    with pytest.raises(ValueError, match="needs its path"):
        layout.theta(z, sd)


def test_padded_walk_holds_the_fitted_one_and_two_tables_share_a_bucket(data):
    layout, index, _ = _layouts(data.X)
    padded = padded_layout(layout)
    assert padded.walk_steps >= layout.walk_steps and padded.walk_steps <= 1.25 * max(
        layout.walk_steps, 8
    )
    theta_pos, z_pos = embedding(layout, padded)
    rng = np.random.default_rng(1)
    z, sd = rng.standard_normal((4, padded.n_free)), np.exp(rng.normal(-1, 0.3, (4, 5)))
    big = padded.theta(z, sd, path=padded.walk_path(theta_pos[index]))
    small = layout.theta(z[:, z_pos], sd, path=layout.walk_path(index))
    np.testing.assert_allclose(big[:, theta_pos], small, atol=1e-12)
    # other matches, other periods played, the same compiled bucket: the structure is data
    other, other_index, _ = _layouts(data.X.iloc[:140])
    assert other.walk_steps != layout.walk_steps
    assert padded_layout(other) == padded
    assert not np.array_equal(
        padded.walk_path(embedding(other, padded)[0][other_index]).gap,
        padded.walk_path(theta_pos[index]).gap,
    )


def test_two_fits_with_other_periods_played_compile_once(data):
    fits = [data.X.iloc[:140], data.X]
    counts = []
    for X in fits:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf = BayesianMatchupClassifier(
                time_varying=True, debut=False, draws=20, tune=20, chains=1
            )
            clf.fit(X, data.y[: len(X)])
        counts.append(compile_count())
        walk = posterior.group(clf.idata_, "posterior")["walk"].to_numpy()
        layout, index, codes = _layouts(X)
        assert clf.layout_ == layout
        # the walk moves only into the periods played after the player's first
        played = _played(codes, layout)
        after_first = played & (np.cumsum(played, axis=1) > 1)
        moved = (np.diff(walk, axis=-1) != 0).any(axis=(0, 1))
        np.testing.assert_array_equal(moved, after_first[:, 1:])
        # the forecast's walk spans the periods from each player's last played to the next
        last = np.maximum.accumulate(np.where(played, np.arange(layout.n_epochs), 0), 1)[:, -1]
        ahead = fit_readers.periods_ahead(layout, walk.reshape(-1, *walk.shape[2:]), index)
        np.testing.assert_array_equal(ahead, layout.n_epochs - last)
    assert counts[1] == counts[0]  # the second fit reused the first one's compiled model


def _every_period_estimator(data) -> BayesianMatchupClassifier:
    """A fitted estimator whose walk goes through every period, as files written before hold."""
    vocab = Vocabulary.from_table(check_match_table(data.X))
    n_epochs = data.X["period"].nunique()
    layout = Layout(*vocab.sizes, vocab.specs_per_deck, WALK, n_epochs)
    rng = np.random.default_rng(5)
    sd = np.exp(rng.normal(-1, 0.2, (12, 5)))
    clf = BayesianMatchupClassifier(draws=6, chains=2, time_varying=True)
    theta = layout.theta(rng.standard_normal((12, layout.n_free)), sd)
    clf.idata_ = fitting.from_effect_draws(theta, sd, layout, n_chains=2)
    clf.vocabulary_, clf.layout_, clf._unseen_seed = vocab, layout, 11
    clf.classes_ = np.array([0, 1])
    clf.catalogue_ = CODEX
    clf.feature_names_in_ = np.asarray(data.X.columns, dtype=object)
    clf.n_features_in_ = data.X.shape[1]
    clf.convergence_problems_ = []
    return clf


def _drop_walk_steps(path, key: str = "walk_steps") -> None:
    """Rewrite a saved file as an older version wrote it: its layout without ``key``."""
    import hashlib

    with zipfile.ZipFile(path) as zf:
        members = {i.filename: zf.read(i) for i in zf.infolist()}
    meta = json.loads(members["metadata.json"])

    def drop(node):
        if isinstance(node, dict):
            node.pop(key, None)
            for value in node.values():
                drop(value)
        elif isinstance(node, list):
            for value in node:
                drop(value)

    text = json.dumps(meta)
    assert key in text
    drop(meta)
    members["metadata.json"] = json.dumps(meta).encode()
    manifest = json.loads(members["manifest.json"])
    for name, blob in members.items():
        if name in manifest["members"]:
            manifest["members"][name] = {
                "sha256": hashlib.sha256(blob).hexdigest(),
                "bytes": len(blob),
            }
    members["manifest.json"] = json.dumps(manifest).encode()
    with zipfile.ZipFile(path, "w") as zf:
        for name, blob in members.items():
            zf.writestr(name, blob)


def test_files_with_the_every_period_walk_forecast_as_before(data, tmp_path):
    clf = _every_period_estimator(data)
    before = clf.predict_proba(data.X)
    path = clf.save(tmp_path / "old.skcodex")
    _drop_walk_steps(path)
    loaded = load(path)
    assert loaded.layout_ == clf.layout_ and loaded.layout_.walk_steps is None
    np.testing.assert_array_equal(loaded.predict_proba(data.X), before)
    # the forecast as the every-period walk always made it: the last period's skill plus
    # one fresh step N(0, sd_step), whether or not the player played in the last period
    layout = clf.layout_
    blocks = layout.unflatten(fit_readers.effect_draws(clf.idata_, layout))
    sd = posterior.draws(clf.idata_, "sd").astype(float)
    noise = np.random.default_rng([11, 1]).standard_normal(blocks["skill"].shape)
    expected = blocks["skill"] + blocks["walk"][..., -1] + noise * sd[:, [4]]
    current = layout.static().unflatten(loaded.effect_draws_)["skill"]
    np.testing.assert_allclose(current, expected, atol=1e-12)


def test_files_with_the_walk_from_the_first_period_forecast_as_before(data, tmp_path):
    """A file written before ``walk_anchor``: its walk started in the table's first period."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = BayesianMatchupClassifier(
            time_varying=True, debut=False, draws=20, tune=20, chains=2
        ).fit(data.X, data.y)
    # as an earlier version held it: the same draws, read as the walk from the first period
    clf.layout_ = dataclasses.replace(clf.layout_, walk_anchor="first period")
    before = clf.predict_proba(data.X)
    path = clf.save(tmp_path / "old.skcodex")
    _drop_walk_steps(path, "walk_anchor")
    loaded = load(path)
    assert loaded.layout_.walk_anchor == "first period"
    assert loaded.layout_ == clf.layout_
    np.testing.assert_array_equal(loaded.predict_proba(data.X), before)


@pytest.mark.slow
def test_the_fitted_walk_recovers_a_known_step_spread():
    """Matches simulated with skills walking by a known step spread: the fit finds it."""
    truth = 0.5
    sim = make_matches(
        n_players=30,
        n_matches=2400,
        n_tournaments=12,
        sd_step=truth,
        deck_kind="monocolour",
        random_state=7,
    )
    steps = {}
    for scale in (0.5, 0.25):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf = BayesianMatchupClassifier(
                time_varying=True,
                log_sd_step_scale=scale,
                draws=300,
                tune=300,
                chains=2,
                random_state=0,
            ).fit(sim.X, sim.y)
        post = posterior.group(clf.idata_, "posterior")
        steps[scale] = post["sd"].sel(spread="step").to_numpy().ravel()
    # with the wider prior N(-2, 0.5) the truth is recovered
    low, high = np.quantile(steps[0.5], [0.03, 0.97])
    assert low < truth < high, (low, high)
    # informative: that prior's 94% interval of sd_step is about (0.05, 0.36)
    assert high - low < 0.5 and low > 0.2
    # the default N(-2, 0.25) holds the step below a drift this fast (its 94% interval
    # is about 0.08-0.22), but the data still take it far above that interval
    low, high = np.quantile(steps[0.25], [0.03, 0.97])
    assert 0.22 < low < high < truth, (low, high)
