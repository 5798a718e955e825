"""Matches that read the same effects, fitted as binomial counts.

The model's likelihood is linear in the outcomes, so collapsing identical
index rows to (trials, summed outcomes) must leave the log density and its
gradient unchanged at every point; both are checked against an independent
NumPy computation of the per-match log density.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import log_expit
from scipy.stats import norm

from skcodex._matchup.graph import build_model, default_priors, quasi_loglik
from skcodex._matchup.layout import Layout, ModelOptions, collapse_matches

from random_matches import random_index  # isort: skip


def _matches_with_repeats(layout: Layout, n_matches: int, n_distinct: int, seed: int):
    """An index matrix of ``n_matches`` rows drawn from ``n_distinct`` distinct ones."""
    rng = np.random.default_rng(seed)
    base = random_index(layout, n_distinct, rng)
    return base[rng.integers(0, n_distinct, n_matches)]


def _independent_log_density(point: dict, index, y, layout: Layout) -> float:
    """Prior plus per-match likelihood, computed in NumPy from the model's formula."""
    priors = default_priors(layout.options)
    loc, scale = np.array(priors.loc), np.array(priors.scale)
    log_sd, z = point["log_sd"], point["z"]
    n_sd = len(layout.spreads)
    own = [b.name for b in layout.declared if b.spread is None]
    z_loc, z_scale = np.zeros(layout.n_free), np.ones(layout.n_free)
    for name in own:
        at, which = layout.free_offsets[name], layout.options.prior_names.index(name)
        z_loc[at], z_scale[at] = loc[which], scale[which]
    prior = norm.logpdf(log_sd, loc[:n_sd], scale[:n_sd]).sum()
    prior += norm.logpdf(z, z_loc, z_scale).sum()
    theta = layout.theta(z, np.exp(log_sd))
    q = theta[index] @ layout.signs
    return float(prior + np.sum(y * log_expit(q) + (1 - y) * log_expit(-q)))


@pytest.mark.parametrize(
    "options",
    [ModelOptions(), ModelOptions(first_move=True, familiarity=True)],
    ids=["seed", "first-move-familiarity"],
)
@pytest.mark.parametrize("luck", [False, True], ids=["wins", "luck-adjusted"])
def test_collapsed_rows_give_the_same_log_density_and_gradient(options, luck):
    layout = Layout(12, 4, 8, 3, options)
    index = _matches_with_repeats(layout, 600, 70, seed=1)
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, len(index)).astype(float)
    if luck:  # hedged outcomes: any real number, the quasi-likelihood
        y = y + rng.normal(0.0, 0.4, len(index))
    rows, trials, totals = collapse_matches(index, y)
    assert len(rows) <= 70 and trials.sum() == len(index)

    per_match = build_model(index, y, layout)
    collapsed = build_model(rows, totals, layout, trials=trials)
    logp_a, dlogp_a = per_match.compile_logp(), per_match.compile_dlogp()
    logp_b, dlogp_b = collapsed.compile_logp(), collapsed.compile_dlogp()
    n_sd = len(layout.spreads)
    for _ in range(5):
        point = {"log_sd": rng.normal(0, 0.7, n_sd), "z": rng.normal(0, 1.2, layout.n_free)}
        expected = _independent_log_density(point, index, y, layout)
        assert logp_a(point) == pytest.approx(expected, abs=1e-9, rel=0)
        assert logp_b(point) == pytest.approx(expected, abs=1e-9, rel=0)
        np.testing.assert_allclose(dlogp_b(point), dlogp_a(point), rtol=0, atol=1e-9)


def test_collapse_counts_and_sums_each_distinct_row():
    index = np.array([[0, 5], [1, 6], [0, 5], [0, 5], [2, 7]])
    y = np.array([1.0, 0.0, 0.0, 1.0, 1.0])
    rows, trials, totals = collapse_matches(index, y)
    found = {tuple(r): (n, k) for r, n, k in zip(rows.tolist(), trials, totals)}
    assert found == {(0, 5): (3.0, 2.0), (1, 6): (1.0, 0.0), (2, 7): (1.0, 1.0)}
    # the same matches in another order give the same rows and counts
    order = np.array([4, 2, 0, 3, 1])
    again = collapse_matches(index[order], y[order])
    np.testing.assert_array_equal(again[0], rows)
    np.testing.assert_array_equal(again[1], trials)
    np.testing.assert_array_equal(again[2], totals)
    assert index[0, 0] == 0 and y[1] == 0.0  # the inputs are left as they were


def test_binomial_quasi_likelihood_of_sums_equals_the_per_match_sum():
    rng = np.random.default_rng(5)
    q = rng.normal(0, 2, 9)
    group = rng.integers(0, 9, 200)
    r = rng.normal(0.5, 0.8, 200)  # luck-adjusted outcomes outside [0, 1] included
    per_match = quasi_loglik(r, q[group])
    trials = np.bincount(group, minlength=9).astype(float)
    sums = np.bincount(group, weights=r, minlength=9)
    assert quasi_loglik(sums, q, trials=trials) == pytest.approx(per_match, abs=1e-10, rel=0)


def test_collapse_and_trials_reject_mismatched_inputs():
    with pytest.raises(ValueError, match="one outcome per match"):
        collapse_matches(np.zeros((3, 2), dtype=int), np.zeros(2))
    layout = Layout(4, 4, 4, 3)
    index = _matches_with_repeats(layout, 5, 5, seed=0)
    with pytest.raises(ValueError, match="trials must be 5 non-negative"):
        build_model(index, np.zeros(5), layout, trials=np.ones(4))


def test_nuts_is_given_each_distinct_row_once_with_its_counts(monkeypatch):
    from skcodex._matchup import fitting
    from skcodex._matchup.sampling import FitProblem

    layout = Layout(6, 4, 8, 3)
    index = _matches_with_repeats(layout, 300, 40, seed=3)
    y = np.random.default_rng(4).integers(0, 2, len(index)).astype(float)
    seen = {}

    def sample(problem):
        seen.update(rows=problem.index, totals=problem.outcome, trials=problem.trials)
        return {}

    monkeypatch.setattr(fitting, "sample_posterior", sample)
    fitting._sample(FitProblem(index, y, layout, default_priors(layout.options)))
    assert len(seen["rows"]) <= 40 and seen["trials"] is not None
    for row, n, k in zip(seen["rows"], seen["trials"], seen["totals"]):
        same = (index == row).all(axis=1)
        assert n == same.sum() and k == y[same].sum()


def test_a_fit_problem_checks_its_rows_and_collapses_to_counts():
    from skcodex._matchup.sampling import FitProblem

    layout = Layout(6, 4, 8, 3)
    index = _matches_with_repeats(layout, 200, 30, seed=5)
    y = np.random.default_rng(6).integers(0, 2, len(index)).astype(float)
    given = index.copy()
    problem = FitProblem(index, y, layout, default_priors(layout.options))
    with pytest.raises(ValueError, match=r"^a fit needs one outcome per index row, got index"):
        FitProblem(index, y[:-1], layout, default_priors(layout.options))
    with pytest.raises(ValueError, match=r"^trials must hold one count per index row"):
        FitProblem(index, y, layout, default_priors(layout.options), trials=np.ones(3))
    collapsed = problem.collapsed()
    np.testing.assert_array_equal(index, given)  # what was given is left as it was
    assert collapsed.n_rows == len(np.unique(index, axis=0)) < problem.n_rows
    assert collapsed.trials.sum() == len(index) and collapsed.outcome.sum() == y.sum()
    assert collapsed.layout is layout and collapsed.priors is problem.priors
    for row, n, k in zip(collapsed.index, collapsed.trials, collapsed.outcome):
        same = (index == row).all(axis=1)
        assert n == same.sum() and k == y[same].sum()


@pytest.mark.parametrize("luck", [False, True], ids=["wins", "luck-adjusted"])
def test_gradient_matches_central_differences_of_the_independent_density(luck):
    """The compiled gradient against the NumPy density's central differences, large q included."""
    layout = Layout(6, 4, 8, 3)
    index = _matches_with_repeats(layout, 300, 40, seed=3)
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, len(index)).astype(float)
    if luck:
        y = y + rng.normal(0.0, 0.4, len(index))
    rows, trials, totals = collapse_matches(index, y)
    model = build_model(rows, totals, layout, trials=trials)
    dlogp = model.compile_dlogp()
    n_sd = len(layout.spreads)
    # spreads up to e^1.5 put some log-odds far from zero, where softplus(q) is close to q
    point = {"log_sd": rng.normal(1.0, 0.3, n_sd), "z": rng.normal(0, 1.5, layout.n_free)}
    flat = np.concatenate([point["log_sd"], point["z"]])

    def density(x):
        return _independent_log_density({"log_sd": x[:n_sd], "z": x[n_sd:]}, index, y, layout)

    h = 1e-5
    numeric = np.array(
        [(density(flat + h * e) - density(flat - h * e)) / (2 * h) for e in np.eye(len(flat))]
    )
    q = layout.theta(point["z"], np.exp(point["log_sd"]))[index] @ layout.signs
    assert np.max(np.abs(q)) > 10  # the test reaches the tails of the softplus
    np.testing.assert_allclose(dlogp(point), numeric, rtol=1e-6, atol=1e-5)
