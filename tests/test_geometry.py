"""Centred and non-centred effects: the same posterior in other coordinates.

The log density in centred coordinates must be the non-centred one after the
change of variables ``z = sd**c * z_std`` (its Jacobian ``sd**-c``), with the
same effects; the data-driven choice must follow its rule (checked against a
hand count of the matches behind each level); a fit must recover known
parameters whatever the choice; and a saved fit must predict identically.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from skcodex import BayesianMatchupClassifier, load
from skcodex._matchup.geometry import (
    centred_levels,
    choose_centring,
    declared_block_of,
    differenced_blocks,
    level_information,
    mean_rotations,
    rotate,
    standard_normals,
    typical_spreads,
)
from skcodex._matchup.graph import build_model, default_priors
from skcodex._matchup.layout import Layout, ModelOptions
from skcodex.datasets import make_matches

from random_matches import random_index  # isort: skip


def _index(layout: Layout, n: int, seed: int) -> np.ndarray:
    return random_index(layout, n, np.random.default_rng(seed))


OPTIONS = [
    ModelOptions(),
    ModelOptions(first_move=True, familiarity=True),
    ModelOptions(symmetric=True),
]


@pytest.mark.parametrize("options", OPTIONS, ids=["seed", "first-move-familiarity", "symmetric"])
def test_centred_log_density_is_the_noncentred_one_with_its_jacobian(options):
    layout = Layout(10, 4, 6, 2 if not options.symmetric else 0, options)
    index = _index(layout, 300, seed=3)
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, len(index)).astype(float)
    centring = rng.choice([0.0, 1.0], layout.n_free)
    rotations = mean_rotations(index, None, layout)
    assert rotations.any()  # skills enter as differences: their mean is turned apart
    noncentred = build_model(index, y, layout)
    centred = build_model(index, y, layout, centring=centring, rotations=rotations)
    logp_nc, logp_c = noncentred.compile_logp(), centred.compile_logp()
    effects = [b.name for b in layout.declared]
    theta_nc = noncentred.compile_fn([noncentred[n] for n in effects], inputs=noncentred.free_RVs)
    theta_c = centred.compile_fn([centred[n] for n in effects], inputs=centred.free_RVs)
    n_sd = len(layout.spreads)
    for _ in range(4):
        log_sd = rng.normal(-0.5, 0.7, n_sd)
        z_std = rng.normal(0, 1.3, layout.n_free)
        scale = layout._scale(np.exp(log_sd), layout.free_group)
        # the same point in the other coordinates (each reflection is its own inverse)
        z = rotate(z_std, rotations) * scale**centring
        np.testing.assert_allclose(
            standard_normals(z, np.exp(log_sd), centring, layout, rotations), z_std, atol=1e-12
        )
        jacobian = -np.sum(centring * np.log(scale))
        expected = logp_nc({"log_sd": log_sd, "z": z_std}) + jacobian
        assert logp_c({"log_sd": log_sd, "z": z}) == pytest.approx(expected, abs=1e-9, rel=0)
        a = theta_nc({"log_sd": log_sd, "z": z_std})
        b = theta_c({"log_sd": log_sd, "z": z})
        for name, x, w in zip(effects, a, b):
            np.testing.assert_allclose(w, x, rtol=1e-12, atol=1e-12, err_msg=name)


def test_the_choice_follows_matches_against_the_prior_spread():
    layout = Layout(6, 3, 5, 2, ModelOptions(first_move=True))
    index = _index(layout, 40, seed=5)
    trials = np.random.default_rng(6).integers(1, 30, len(index)).astype(float)
    info = level_information(index, trials, layout)
    # a hand count: each read of a cell adds 0.25 per match behind the row
    hand = np.zeros(layout.size)
    for row, n in zip(index, trials):
        for cell in row:
            hand[cell] += 0.25 * n
    np.testing.assert_allclose(info, hand[: layout.n_free])
    loc = default_priors(layout.options).loc
    s = typical_spreads(layout, loc)[np.maximum(layout.free_group, 0)]
    chosen = choose_centring(index, trials, layout, loc)
    scaled = layout.free_group >= 0
    rule = (hand[: layout.n_free] * s**2 > 1) & scaled
    # the skills' mean (sampled in the first read player's coordinate) has no data
    mean = np.flatnonzero(mean_rotations(index, trials, layout)[0])[0]
    assert mean == np.flatnonzero(info > 0)[0] and rule[mean]
    rule[mean] = False
    np.testing.assert_array_equal(chosen, rule.astype(float))
    first_move = layout.free_offsets["first_move"]
    assert info[first_move] > 0 and chosen[first_move] == 0  # its own prior: not scaled
    assert 0 < chosen.sum() < scaled.sum()  # this table has both kinds
    assert not choose_centring(index, trials, layout, loc, "noncentred").any()
    everything = choose_centring(index, trials, layout, loc, "centred")
    read = (info > 0) & scaled
    read[mean] = False
    np.testing.assert_array_equal(everything, read.astype(float))
    counts = centred_levels(chosen, layout)
    assert sum(counts.values()) == chosen.sum() and counts["first_move"] == 0


def test_blocks_read_as_differences_get_their_mean_turned_apart():
    layout = Layout(8, 3, 5, 2, ModelOptions(familiarity=True, first_move=True))
    index = _index(layout, 200, seed=8)
    found = differenced_blocks(index, layout)
    # skills and familiarities enter as player 1's minus player 2's; matchups do not
    assert set(found) == {"skill", "fam_st", "fam_sp"}
    assert not {"stst", "stsp", "spst", "spsp", "first_move"} & set(found)
    rotations = mean_rotations(index, None, layout)
    x = np.random.default_rng(9).normal(size=(5, layout.n_free))
    turned = rotate(x, rotations)
    np.testing.assert_allclose(rotate(turned, rotations), x, atol=1e-12)  # an involution
    np.testing.assert_allclose(turned @ turned.T, x @ x.T, atol=1e-9)  # orthogonal
    # the first read player's coordinate becomes the players' mean direction
    skill = slice(layout.free_offsets["skill"], layout.free_offsets["skill"] + 8)
    unit = np.zeros(layout.n_free)
    unit[skill.start] = 1.0
    np.testing.assert_allclose(rotate(unit, rotations)[skill], np.full(8, 1 / np.sqrt(8)))
    # shifting every player's skill changes no match's log-odds
    theta = np.random.default_rng(10).normal(size=layout.size)
    shifted = theta.copy()
    shifted[layout.offsets["skill"] : layout.offsets["skill"] + 8] += 0.7
    np.testing.assert_allclose(shifted[index] @ layout.signs, theta[index] @ layout.signs)
    # the model's segment-sum form of the reflections equals the dense one
    import pytensor
    import pytensor.tensor as pt

    v = pt.dvector("v")
    block_of = declared_block_of(layout)
    segment = pytensor.function([v], rotate(v, rotations, pt, block_of=block_of))
    for row in x:
        np.testing.assert_allclose(segment(row), rotate(row, rotations), atol=1e-12)


def test_levels_no_match_reads_stay_noncentred():
    from skcodex._matchup.padding import embedding

    layout, small = Layout(40, 8, 12, 3), Layout(5, 2, 3, 3)
    theta_pos, _ = embedding(small, layout)
    index = theta_pos[_index(small, 5000, seed=7)]  # reads only the first few levels
    chosen = choose_centring(index, None, layout, default_priors(layout.options).loc, "centred")
    read = np.zeros(layout.size, dtype=bool)
    read[index.ravel()] = True
    assert not chosen[~read[: layout.n_free]].any()


def test_bad_choices_are_refused():
    layout = Layout(4, 2, 3, 1)
    index = _index(layout, 10, seed=1)
    loc = default_priors(layout.options).loc
    with pytest.raises(ValueError, match="parameterisation must be one of"):
        choose_centring(index, None, layout, loc, "middle")
    y = np.zeros(len(index))
    with pytest.raises(ValueError, match="centring must be"):
        build_model(index, y, layout, centring=np.full(layout.n_free, 2.0))
    with pytest.raises(ValueError, match="centring must be"):
        build_model(index, y, layout, centring=np.zeros(3))


@pytest.fixture(scope="module")
def rich():
    """A table with many matches per player: skills and starter matchups are centred."""
    return make_matches(n_players=12, n_matches=3000, n_tournaments=4, random_state=11)


@pytest.fixture(scope="module")
def fitted(rich):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return BayesianMatchupClassifier(draws=300, tune=300, chains=2, random_state=0).fit(
            rich.X, rich.y
        )


def test_fit_records_its_choice_and_recovers_known_skills(fitted, rich):
    post = fitted.idata_.posterior
    # 3,000 matches among 12 players: all centred but the coordinate of their mean
    assert post.attrs["centred_skill"] == 11
    assert post.attrs["centred_spsp"] < post["spsp"].size
    players = list(fitted.vocabulary_.players)
    truth = rich.params["skill"].loc[players].to_numpy()
    mean = post["skill"].mean(("chain", "draw")).to_numpy()
    sd = post["skill"].std(("chain", "draw")).to_numpy()
    # skills are identified up to a shift: compare centred on their means
    error = (mean - mean.mean()) - (truth - truth.mean())
    assert np.all(np.abs(error) < 4 * sd + 0.05)
    assert np.corrcoef(mean, truth)[0, 1] > 0.9
    sd_player = float(post["sd"].sel(spread="player").mean())
    assert 0.4 < sd_player < 1.6  # truth 0.8


def test_saved_fit_predicts_identically(fitted, rich, tmp_path):
    again = load(fitted.save(tmp_path / "rich.skcodex"))
    X = rich.X.iloc[:50]
    assert np.array_equal(again.predict_proba(X), fitted.predict_proba(X))
    assert again.layout_ == fitted.layout_
    recorded = {k: v for k, v in fitted.idata_.posterior.attrs.items() if k.startswith("centred_")}
    assert recorded and all(again.idata_.posterior.attrs[k] == v for k, v in recorded.items())
