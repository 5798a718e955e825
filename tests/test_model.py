"""The PyMC model against an independent NumPy implementation of the seed's formula."""

import numpy as np
import pytest
from scipy.special import log_expit
from scipy.stats import norm

from skcodex._matchup.graph import Layout, SpreadPriors, build_model, quasi_loglik
from skcodex.data import Vocabulary, check_match_table, encode
from skcodex.datasets import make_matches


def seed_log_density(z, log_sd, codes, y, layout, priors):
    """log p(z, log_sd | y), written block by block from the seed's formula.

    q_i = p[f_i] - p[s_i] + a[g_i, t_i] + sum_k b[g_i, u_ik] + sum_j c[h_ij, t_i]
          + sum_jk d[h_ij, u_ik], with every effect = z * its spread.
    """
    P, S, K = layout.n_players, layout.n_starters, layout.n_specs
    sd_p, sd_a, sd_bc, sd_d = np.exp(log_sd)
    at = 0
    p = z[at : at + P] * sd_p
    at += P
    a = z[at : at + S * S].reshape(S, S) * sd_a
    at += S * S
    b = z[at : at + S * K].reshape(S, K) * sd_bc
    at += S * K
    c = z[at : at + K * S].reshape(K, S) * sd_bc
    at += K * S
    d = z[at : at + K * K].reshape(K, K) * sd_d
    f, s, g, t = codes.player1, codes.player2, codes.starter1, codes.starter2
    h, u = codes.specs1, codes.specs2
    q = np.empty(len(y))
    for i in range(len(y)):
        total = p[f[i]] - p[s[i]] + a[g[i], t[i]]
        for k in range(3):
            total += b[g[i], u[i, k]] + c[h[i, k], t[i]]
            for j in range(3):
                total += d[h[i, j], u[i, k]]
        q[i] = total
    loglik = np.sum(y * log_expit(q) + (1 - y) * log_expit(-q))
    prior = norm.logpdf(z).sum() + norm.logpdf(log_sd, priors.loc, priors.scale).sum()
    return loglik + prior


@pytest.fixture(scope="module")
def problem():
    data = make_matches(n_players=12, n_matches=120, n_tournaments=3, random_state=3)
    table = check_match_table(data.X)
    vocab = Vocabulary.from_table(table)
    codes = encode(table, vocab)
    layout = Layout(*vocab.sizes, vocab.specs_per_deck)
    return codes, data.y.astype(float), layout


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_log_density_matches_independent_numpy(problem, seed):
    codes, y, layout = problem
    priors = SpreadPriors(loc=(0.1, -0.3, 0.2, -1.0), scale=(0.5, 0.7, 0.4, 1.3))
    model = build_model(layout.index_matrix(codes), y, layout, priors)
    logp = model.compile_logp()
    rng = np.random.default_rng(seed)
    z = rng.normal(size=layout.size)
    log_sd = rng.normal(0, 0.5, size=4)
    got = logp({"log_sd": log_sd, "z": z})
    want = seed_log_density(z, log_sd, codes, y, layout, priors)
    assert got == pytest.approx(want, abs=1e-8, rel=0)


def test_quasi_likelihood_is_bernoulli_for_binary_outcomes_and_concave_beyond():
    rng = np.random.default_rng(0)
    q = rng.normal(size=50)
    y = rng.integers(0, 2, size=50).astype(float)
    bernoulli = np.sum(np.where(y == 1, np.log(1 / (1 + np.exp(-q))), np.log(1 / (1 + np.exp(q)))))
    assert quasi_loglik(y, q) == pytest.approx(bernoulli, rel=1e-12)
    # For an adjusted outcome outside [0, 1] the curvature is still -sigmoid(q)(1-sigmoid(q)).
    r, h = 1.7, 1e-4
    for q0 in (-2.0, 0.0, 3.0):
        second = (
            quasi_loglik(np.array([r]), np.array([q0 + h]))
            - 2 * quasi_loglik(np.array([r]), np.array([q0]))
            + quasi_loglik(np.array([r]), np.array([q0 - h]))
        ) / h**2
        sig = 1 / (1 + np.exp(-q0))
        assert second == pytest.approx(-sig * (1 - sig), rel=1e-4)


def test_layout_round_trip_and_signs(problem):
    codes, _, layout = problem
    theta = np.arange(layout.size, dtype=float)
    assert np.array_equal(layout.flatten(layout.unflatten(theta)), theta)
    index = layout.index_matrix(codes)
    assert index.shape == (len(codes), 18)
    assert list(layout.signs[:2]) == [1.0, -1.0] and np.all(layout.signs[2:] == 1.0)
    assert np.all(index[:, 0] == codes.player1) and np.all(index[:, 1] == codes.player2)


def test_spread_priors_are_validated():
    with pytest.raises(ValueError, match="scales must be positive"):
        SpreadPriors(scale=(0.5, 0.5, 0.0, 0.5))
    with pytest.raises(ValueError, match="must be finite numbers"):
        SpreadPriors(loc=(0.0, 0.0, np.nan, 0.0))


def test_balanced_prior_draws_follow_the_stated_distributions():
    """The balanced prior's PyMC branch, sampled: its total, share and split are as stated.

    ``log total ~ N(loc, scale)``; skill share ``sigmoid(N(0, 1))``; deck split
    ``softmax(0, N(0, 1), N(0, 1))``; the seed's four spreads follow from them
    (``2 sd_player^2 = share total^2``, the deck parts of ``(1 - share) total^2`` in
    the split's proportions, with 1, 2k and k^2 effects); extra spreads are
    ``exp(N(loc, scale))``.
    """
    import pymc as pm
    from scipy.special import logit

    from skcodex._matchup.graph import ModelOptions
    from skcodex.analysis import deck_spread_draws

    data = make_matches(n_players=8, n_matches=40, n_tournaments=2, random_state=1)
    table = check_match_table(data.X)
    vocab = Vocabulary.from_table(table)
    layout = Layout(
        *vocab.sizes, vocab.specs_per_deck, ModelOptions(prior="balanced", synergy=True)
    )
    priors = SpreadPriors(loc=(0.3, -1.2), scale=(0.2, 0.4))
    model = build_model(layout.index_matrix(encode(table, vocab)), data.y, layout, priors)
    n = 4000
    # PyMC says the likelihood (a Potential) is left out of prior draws: that is the point
    with model, pytest.warns(UserWarning, match="effect of Potentials"):
        prior = pm.sample_prior_predictive(draws=n, random_seed=1).prior
    flat = {name: np.asarray(prior[name]).reshape(n, -1) for name in prior.data_vars}
    sd, share, split = flat["sd"], flat["skill_share"][:, 0], flat["deck_split"]
    total = np.sqrt(2 * sd[:, 0] ** 2 + deck_spread_draws(sd) ** 2)
    k = layout.specs_per_deck
    se = 4 / np.sqrt(n)  # four standard errors of a mean of unit-variance draws

    # The total: log N(0.3, 0.2), whatever the share and split.
    assert np.mean(np.log(total)) == pytest.approx(0.3, abs=0.2 * se)
    assert np.std(np.log(total)) == pytest.approx(0.2, rel=0.05)
    # The share: logit-normal N(0, 1), and it is the skill part of the total.
    assert np.mean(logit(share)) == pytest.approx(0.0, abs=se)
    assert np.std(logit(share)) == pytest.approx(1.0, rel=0.05)
    np.testing.assert_allclose(2 * sd[:, 0] ** 2, share * total**2, rtol=1e-9)
    # The split: logistic-normal with the first part as reference.
    for j in (1, 2):
        ratio = np.log(split[:, j] / split[:, 0])
        assert np.mean(ratio) == pytest.approx(0.0, abs=se)
        assert np.std(ratio) == pytest.approx(1.0, rel=0.05)
    deck = (1 - share) * total**2
    np.testing.assert_allclose(sd[:, 1] ** 2, split[:, 0] * deck, rtol=1e-9)
    np.testing.assert_allclose(2 * k * sd[:, 2] ** 2, split[:, 1] * deck, rtol=1e-9)
    np.testing.assert_allclose(k**2 * sd[:, 3] ** 2, split[:, 2] * deck, rtol=1e-9)
    # The synergy spread keeps its own log-normal prior, N(-1.2, 0.4).
    assert np.mean(np.log(sd[:, 4])) == pytest.approx(-1.2, abs=0.4 * se)
    assert np.std(np.log(sd[:, 4])) == pytest.approx(0.4, rel=0.05)


@pytest.mark.parametrize("prior", ["lognormal", "balanced"])
def test_first_move_reads_its_own_prior_entry(problem, prior):
    """With unequal custom priors, z's first-move entry is N(loc[-1], scale[-1]); others N(0, 1)."""
    from skcodex._matchup.graph import ModelOptions

    codes, y, seed_layout = problem
    options = ModelOptions(first_move=True, prior=prior)
    layout = Layout(seed_layout.n_players, seed_layout.n_starters, seed_layout.n_specs, 3, options)
    n = len(options.prior_names)
    assert options.prior_names[-1] == "first_move"
    loc = (*np.linspace(-1.0, 0.3, n - 1), 0.7)
    scale = (*np.linspace(0.4, 0.9, n - 1), 0.2)
    model = build_model(layout.index_matrix(codes), y, layout, SpreadPriors(loc=loc, scale=scale))
    z = np.random.default_rng(1).normal(size=layout.n_free)
    at = layout.offsets["first_move"]
    z[at] = 0.55
    point = model.initial_point()
    point["z"] = z
    # z's prior is the model's potential "z_prior"
    (z_prior,) = model.replace_rvs_by_values([model["z_prior"]])
    got = model.compile_fn(z_prior, inputs=model.value_vars, on_unused_input="ignore")(point)
    mean, sd = np.zeros(layout.n_free), np.ones(layout.n_free)
    mean[at], sd[at] = 0.7, 0.2
    assert got == pytest.approx(norm.logpdf(z, mean, sd).sum(), abs=1e-8, rel=0)
