"""The one-pass log-likelihood op against independent computations."""

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from scipy.special import log_expit

from skcodex._matchup.loglik_op import SignedRowLoglik, _kernel, signed_row_loglik_numpy


def _table(seed, n_rows=400, width=5, n_theta=30, binary=True):
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1.5, n_theta)
    index = rng.integers(0, n_theta, size=(n_rows, width))
    signs = rng.choice([-1.0, 1.0], width)
    trials = rng.integers(1, 5, n_rows).astype(float)
    y = rng.binomial(trials.astype(int), 0.5).astype(float)
    if not binary:
        y = y + rng.normal(0, 0.3, n_rows)  # luck-adjusted outcomes: any real number
    return theta, index, signs, y, trials


def _direct(theta, index, signs, y, trials):
    """The log-likelihood as written in the model's docs, term by term."""
    q = np.array([sum(s * theta[k] for s, k in zip(signs, row)) for row in index])
    return float(np.sum(y * log_expit(q) + (trials - y) * log_expit(-q)))


@pytest.mark.parametrize("binary", [True, False])
@pytest.mark.parametrize("mode", ["NUMBA", "FAST_RUN"])
def test_value_and_gradient_match_the_formula_and_finite_differences(mode, binary):
    theta, index, signs, y, trials = _table(3, binary=binary)
    t = pt.dvector("theta")
    loglik, _ = SignedRowLoglik()(t, index, signs, y, trials)
    fn = pytensor.function([t], [loglik, pytensor.grad(loglik, t)], mode=mode)
    value, grad = fn(theta)
    assert value == pytest.approx(_direct(theta, index, signs, y, trials), rel=1e-12)
    h = 1e-6
    numeric = np.array(
        [
            (
                _direct(theta + h * e, index, signs, y, trials)
                - _direct(theta - h * e, index, signs, y, trials)
            )
            / (2 * h)
            for e in np.eye(len(theta))
        ]
    )
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-6)


def test_compiled_kernel_equals_the_numpy_reference_for_extreme_log_odds():
    theta, index, signs, y, trials = _table(5, n_rows=300)
    theta = theta * 40  # log-odds in the hundreds: softplus and sigmoid must stay finite
    import numba

    got = numba.njit(_kernel)(theta, index, signs, y, trials)
    want = signed_row_loglik_numpy(theta, index, signs, y, trials)
    assert np.isfinite(got[0]) and got[0] == pytest.approx(want[0], rel=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12, atol=1e-12)


def test_the_gradient_is_evaluated_in_the_same_pass_as_the_value():
    _, index, signs, y, trials = _table(7)
    t = pt.dvector("theta")
    loglik, _ = SignedRowLoglik()(t, index, signs, y, trials)
    fn = pytensor.function([t], [loglik, pytensor.grad(loglik, t)], mode="NUMBA")
    nodes = [n for n in fn.maker.fgraph.toposort() if isinstance(n.op, SignedRowLoglik)]
    assert len(nodes) == 1


def test_bad_shapes_are_refused():
    with pytest.raises(TypeError, match="index must hold integers"):
        SignedRowLoglik()(np.zeros(3), np.zeros((2, 2)), np.ones(2), np.zeros(2), np.ones(2))
    with pytest.raises(TypeError, match="vectors and index a matrix"):
        SignedRowLoglik()(np.zeros(3), np.zeros(2, dtype=int), np.ones(2), np.zeros(2), np.ones(2))


def test_an_index_out_of_bounds_gives_nan_not_a_write_outside_the_gradient():
    theta, index, signs, y, trials = _table(9)
    import numba

    kernel = numba.njit(boundscheck=False)(_kernel)
    for bad in (len(theta), -1):
        wrong = index.copy()
        wrong[5, 2] = bad
        value, grad = kernel(theta, wrong, signs, y, trials)
        assert np.isnan(value) and grad.shape == theta.shape
