"""The model's extensions: time-varying skill, deck synergies, familiarity, the balanced prior."""

import warnings

import numpy as np
import pytest
from scipy.special import log_expit
from scipy.stats import norm
from sklearn.exceptions import ConvergenceWarning

from skcodex import BayesianMatchupClassifier, brier_score
from skcodex._compat import posterior
from skcodex._matchup.graph import Layout, ModelOptions, build_model, default_priors
from skcodex._matchup.priors import balanced_spreads
from skcodex.data import Vocabulary, check_match_table, encode
from skcodex.datasets import make_matches

ALL_ON = ModelOptions(time_varying=True, synergy=True, familiarity=True)


@pytest.fixture(scope="module")
def problem():
    data = make_matches(n_players=10, n_matches=90, n_tournaments=3, random_state=4)
    table = check_match_table(data.X)
    vocab = Vocabulary.from_table(table)
    codes = encode(table, vocab)
    return codes, data.y.astype(float), vocab


def extended_log_odds(z, sd, codes, layout):
    """q of every match, block by block from the formulas in skcodex._matchup.graph's docstring."""
    P, S, K, E = layout.n_players, layout.n_starters, layout.n_specs, layout.n_epochs
    sd_p, sd_a, sd_bc, sd_d, sd_syn, sd_fam, sd_step = sd
    sizes = [P, S * S, S * K, K * S, K * K, S * K, K * K, P * S, P * K, P * (E - 1)]
    parts = np.split(z, np.cumsum(sizes)[:-1])
    p = parts[0] * sd_p
    a = parts[1].reshape(S, S) * sd_a
    b = parts[2].reshape(S, K) * sd_bc
    c = parts[3].reshape(K, S) * sd_bc
    d = parts[4].reshape(K, K) * sd_d
    e = parts[5].reshape(S, K) * sd_syn
    f = parts[6].reshape(K, K) * sd_syn
    r = parts[7].reshape(P, S) * sd_fam
    s_ = parts[8].reshape(P, K) * sd_fam
    steps = parts[9].reshape(P, E - 1) * sd_step
    walk = np.concatenate([np.zeros((P, 1)), np.cumsum(steps, axis=1)], axis=1)

    def syn(g, h):
        total = sum(e[g, hk] for hk in h)
        for j in range(len(h)):
            for k in range(j + 1, len(h)):
                total += f[h[j], h[k]]
        return total

    def fam(player, g, h):
        return r[player, g] + sum(s_[player, hk] for hk in h)

    q = np.empty(len(codes))
    for i in range(len(codes)):
        pf, ps = codes.player1[i], codes.player2[i]
        g, t, h, u = codes.starter1[i], codes.starter2[i], codes.specs1[i], codes.specs2[i]
        ep = codes.epoch[i]
        total = p[pf] + walk[pf, ep] - p[ps] - walk[ps, ep] + a[g, t]
        for k in range(3):
            total += b[g, u[k]] + c[h[k], t]
            for j in range(3):
                total += d[h[j], u[k]]
        total += syn(g, h) - syn(t, u) + fam(pf, g, h) - fam(ps, t, u)
        q[i] = total
    return q


def test_extended_log_density_matches_independent_numpy(problem):
    codes, y, vocab = problem
    layout = Layout(*vocab.sizes, 3, ALL_ON, codes.n_epochs)
    priors = default_priors(ALL_ON)
    model = build_model(layout.index_matrix(codes), y, layout, priors)
    logp = model.compile_logp()
    rng = np.random.default_rng(0)
    z = rng.normal(size=layout.n_free)
    log_sd = rng.normal(-0.5, 0.5, size=len(ALL_ON.spreads))
    q = extended_log_odds(z, np.exp(log_sd), codes, layout)
    want = (
        np.sum(y * log_expit(q) + (1 - y) * log_expit(-q))
        + norm.logpdf(z).sum()
        + norm.logpdf(log_sd, priors.loc, priors.scale).sum()
    )
    assert logp({"log_sd": log_sd, "z": z}) == pytest.approx(want, abs=1e-8, rel=0)


def test_theta_in_numpy_and_pytensor_agree(problem):
    import pytensor.tensor as pt

    codes, _, vocab = problem
    layout = Layout(*vocab.sizes, 3, ALL_ON, codes.n_epochs)
    rng = np.random.default_rng(1)
    z = rng.normal(size=layout.n_free)
    sd = np.exp(rng.normal(size=len(ALL_ON.spreads)))
    got = layout.theta(pt.as_tensor_variable(z), pt.as_tensor_variable(sd), pt).eval()
    assert np.allclose(got, layout.theta(z, sd), atol=1e-12)
    walk = layout.unflatten(layout.theta(z, sd))["walk"]
    assert np.all(walk[:, 0] == 0.0)


def test_balanced_prior_puts_skill_and_decks_level_a_priori():
    rng = np.random.default_rng(2)
    n = 200_000
    log_total = rng.normal(0.5, 0.5, n)
    share = 1 / (1 + np.exp(-rng.normal(0, 1, n)))
    logits = np.column_stack([np.zeros(n), rng.normal(0, 1, (n, 2))])
    split = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    sd = balanced_spreads(log_total, share, split, 3)
    skill_var = 2 * sd[:, 0] ** 2
    deck_var = sd[:, 1] ** 2 + 6 * sd[:, 2] ** 2 + 9 * sd[:, 3] ** 2
    assert np.allclose(skill_var + deck_var, np.exp(2 * log_total))
    # The share is symmetric about 1/2, so skill and deck variances are equal a priori.
    assert np.median(skill_var / deck_var) == pytest.approx(1.0, abs=0.02)
    assert np.mean(skill_var > deck_var) == pytest.approx(0.5, abs=0.01)


def tiny(**kwargs):
    return BayesianMatchupClassifier(draws=100, tune=150, chains=2, random_state=0, **kwargs)


@pytest.mark.parametrize(
    "options",
    [
        {"time_varying": True},
        {"synergy": True},
        {"familiarity": True},
        {"prior": "balanced"},
        {"time_varying": True, "synergy": True, "familiarity": True, "prior": "balanced"},
    ],
)
def test_each_option_fits_and_predicts_with_unseen_levels(options):
    data = make_matches(n_players=12, n_matches=160, n_tournaments=4, random_state=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = tiny(**options).fit(data.X[:130], data.y[:130])
    new = data.X[130:].copy()
    new.iloc[0, new.columns.get_loc("player1")] = "newcomer"
    new.iloc[1, new.columns.get_loc("deck2")] = "[Anarchy/Blood/Fire]"
    p = clf.predict_proba(new)
    assert p.shape == (len(new), 2) and np.all(np.isfinite(p))
    assert np.allclose(p.sum(axis=1), 1.0)
    assert clf.spread_draws_.shape[1] == len(clf.options.spreads)
    assert posterior.group(clf.idata_, "posterior")["sd"].coords["spread"].values.tolist() == list(
        clf.options.spreads
    )


def test_time_varying_needs_periods():
    data = make_matches(n_players=8, n_matches=40, n_tournaments=2, random_state=0)
    with pytest.raises(ValueError, match="period"):
        tiny(time_varying=True).fit(data.X.drop(columns="period"), data.y)


@pytest.mark.slow
def test_time_varying_skill_tracks_drift():
    """Skills that drift: the walk finds a step spread above zero and forecasts better."""
    data = make_matches(
        n_players=30, n_matches=2400, n_tournaments=12, sd_step=0.35, random_state=21
    )
    last = data.X["period"] == data.X["period"].iloc[-1]
    train, test = ~last.to_numpy(), last.to_numpy()
    static = BayesianMatchupClassifier(random_state=1, time_varying=False, debut=False)
    static.fit(data.X[train], data.y[train])
    # the wider step prior N(-2, 0.5): the default N(-2, 0.25) holds a drift this fast below
    # its size (tests/test_walk_integrated.py)
    walking = BayesianMatchupClassifier(
        random_state=1, time_varying=True, debut=False, log_sd_step_scale=0.5
    ).fit(data.X[train], data.y[train])
    step = walking.spread_draws_[:, walking.options.spreads.index("step")]
    lower, upper = np.quantile(step, [0.05, 0.95])
    # the truth of this series: the spread of the steps its skills took into the training
    # periods (0.336 here; the simulation's 0.35 is what it is drawn around)
    fitted_periods = data.X["period"][train].nunique()
    taken = np.diff(data.params["skill_path"].to_numpy(), axis=1)[:, : fitted_periods - 1]
    realised = float(np.sqrt(np.mean(taken**2)))
    assert lower > 0.1 and lower <= realised <= upper, (lower, realised, upper)
    b_static = brier_score(data.y[test], static.predict_proba(data.X[test])[:, 1])
    b_walk = brier_score(data.y[test], walking.predict_proba(data.X[test])[:, 1])
    assert b_walk < b_static, (b_walk, b_static)
    # the forward evidence finds the walk, and its choice forecasts better than static too
    chosen = BayesianMatchupClassifier(
        random_state=1, part_selection="forward", draws=500, tune=500
    )
    chosen.fit(data.X[train], data.y[train])
    assert chosen.layout_.options.time_varying, chosen.part_evidence_
    b_chosen = brier_score(data.y[test], chosen.predict_proba(data.X[test])[:, 1])
    assert b_chosen < b_static, (b_chosen, b_static)
