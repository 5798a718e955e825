"""The one-pass effects-and-prior op against independent computations."""

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from scipy.stats import norm

from skcodex._matchup.effects_op import ScaledEffects, scaled_effects_numpy


def _point(seed, n=40, n_sd=3, n_blocks=4):
    """Entries of every kind: scaled and unscaled, centred and not, reflected blocks."""
    rng = np.random.default_rng(seed)
    z = rng.normal(0, 1.2, n)
    sd = np.exp(rng.normal(0, 0.4, n_sd))
    block_of = np.sort(rng.integers(0, n_blocks, n)).astype(np.int64)
    group = np.where(block_of < n_sd, block_of, -1).astype(np.int64)
    centring = ((rng.random(n) < 0.5) & (group >= 0)).astype(float)
    rotations = np.zeros((n_blocks, n))
    for b in (0, 2):  # a unit reflection vector inside each of two blocks
        members = np.flatnonzero(block_of == b)
        w = rng.normal(size=len(members))
        rotations[b, members] = w / np.linalg.norm(w)
    loc = np.where(group < 0, rng.normal(0, 0.5, n), 0.0)
    own = np.where(group < 0, np.exp(rng.normal(0, 0.3, n)), 1.0)
    return z, sd, centring, group, rotations, block_of, loc, own


def _direct(z, sd, centring, group, rotations, block_of, loc, own):
    """The effects and prior as the model's docs write them, with scipy's normal density."""
    scale = np.array([sd[g] if g >= 0 else 1.0 for g in group])
    centred = scale**centring
    u = z / centred
    v = u.copy()
    for w in rotations:  # each reflection I - w w' acts on its own block
        v = v - w * (w @ u)
    prior = norm.logpdf(z, loc, own * centred).sum()
    return scale * v, prior


@pytest.mark.parametrize("seed", [0, 1])
def test_numpy_reference_matches_the_formula(seed):
    point = _point(seed)
    scaled, prior = scaled_effects_numpy(*point)
    want_scaled, want_prior = _direct(*point)
    np.testing.assert_allclose(scaled, want_scaled, rtol=1e-12, atol=1e-12)
    assert prior == pytest.approx(want_prior, rel=1e-12)


@pytest.mark.parametrize("mode", ["NUMBA", "FAST_RUN"])
def test_values_and_gradients_match_finite_differences(mode):
    z0, sd0, *data = _point(3)
    z, sd = pt.dvector("z"), pt.dvector("sd")
    g = pt.dvector("g")  # a fixed linear read of the effects, so every output is used
    scaled, prior = ScaledEffects()(z, sd, *data)
    total = (g * scaled).sum() + 0.7 * prior
    fn = pytensor.function([z, sd, g], [scaled, prior, *pytensor.grad(total, [z, sd])], mode=mode)
    weights = np.random.default_rng(4).normal(size=len(z0))
    got_scaled, got_prior, d_z, d_sd = fn(z0, sd0, weights)
    want_scaled, want_prior = _direct(z0, sd0, *data)
    np.testing.assert_allclose(got_scaled, want_scaled, rtol=1e-12, atol=1e-12)
    assert got_prior == pytest.approx(want_prior, rel=1e-12)

    def objective(zv, sdv):
        s, p = _direct(zv, sdv, *data)
        return weights @ s + 0.7 * p

    h = 1e-6
    numeric_z = [
        (objective(z0 + h * e, sd0) - objective(z0 - h * e, sd0)) / (2 * h) for e in np.eye(len(z0))
    ]
    numeric_sd = [
        (objective(z0, sd0 + h * e) - objective(z0, sd0 - h * e)) / (2 * h)
        for e in np.eye(len(sd0))
    ]
    np.testing.assert_allclose(d_z, numeric_z, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(d_sd, numeric_sd, rtol=1e-6, atol=1e-6)


def test_one_output_alone_has_the_gradient_of_that_output():
    z0, sd0, *data = _point(5)
    z, sd = pt.dvector("z"), pt.dvector("sd")
    scaled, prior = ScaledEffects()(z, sd, *data)
    only_prior = pytensor.function([z, sd], pytensor.grad(prior, [z, sd]), mode="NUMBA")
    only_sum = pytensor.function([z, sd], pytensor.grad(scaled.sum(), [z, sd]), mode="NUMBA")
    both = pytensor.function([z, sd], pytensor.grad(scaled.sum() + prior, [z, sd]), mode="NUMBA")
    for a, b, c in zip(only_prior(z0, sd0), only_sum(z0, sd0), both(z0, sd0)):
        np.testing.assert_allclose(a + b, c, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["NUMBA", "FAST_RUN"])
def test_a_spread_that_underflows_gives_a_non_finite_density_not_an_error(mode):
    z0, sd0, *data = _point(6)
    data[0][:] = 1.0  # every level centred: each divides by its spread
    sd0[0] = 0.0  # exp of a very negative log-spread
    z, sd = pt.dvector("z"), pt.dvector("sd")
    _, prior = ScaledEffects()(z, sd, *data)
    fn = pytensor.function([z, sd], [prior, *pytensor.grad(prior, [z, sd])], mode=mode)
    value, *_ = fn(z0, sd0)
    assert not np.isfinite(value)
