"""Never-seen levels: forecasts independent of the batch, repeatable, bounded in memory;
and a failed refit leaves the fitted state as it was."""

import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

from skcodex import BayesianMatchupClassifier, load
from skcodex._matchup import fitting, never_seen
from skcodex._matchup.layout import Layout
from skcodex.data import Vocabulary, check_match_table
from skcodex.datasets import make_matches


@pytest.fixture(scope="module")
def data():
    return make_matches(n_players=12, n_matches=160, n_tournaments=3, random_state=11)


@pytest.fixture(scope="module")
def fitted(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = BayesianMatchupClassifier(draws=100, tune=100, chains=2, random_state=3)
        return clf.fit(data.X, data.y)


def _with_newcomers(X: pd.DataFrame) -> pd.DataFrame:
    out = X.iloc[:6].copy().reset_index(drop=True)
    out.loc[0, "player1"] = "newcomer A"
    out.loc[2, "player2"] = "newcomer B"
    out.loc[3, ["player1", "player2"]] = ["newcomer B", "newcomer A"]
    out.loc[4, "deck2"] = "[Demonology]/Anarchy/Peace"  # seen parts only
    return out


def test_a_rows_forecast_does_not_depend_on_the_rest_of_the_batch(fitted, data):
    X = _with_newcomers(data.X)
    together = fitted.predict_proba(X)[:, 1]
    for i in range(len(X)):
        alone = fitted.predict_proba(X.iloc[[i]])[0, 1]
        assert alone == together[i]
    reversed_ = fitted.predict_proba(X.iloc[::-1])[:, 1]
    np.testing.assert_array_equal(reversed_[::-1], together)
    # A newcomer's forecast differs from a coin only by the other player's skill and decks,
    # and repeats exactly in a later call.
    np.testing.assert_array_equal(fitted.predict_proba(X)[:, 1], together)


def test_newcomers_are_forecast_identically_after_save_and_load(fitted, data, tmp_path):
    X = _with_newcomers(data.X)
    again = load(fitted.save(tmp_path / "m.skcodex"))
    np.testing.assert_array_equal(again.predict_proba(X), fitted.predict_proba(X))


def test_unseen_cells_are_standard_normals_times_their_own_blocks_spread():
    """Per block: fresh draws over the block's spread are N(0, 1), independent of others."""
    rng = np.random.default_rng(0)
    n_draws = 400
    spreads = [np.full(n_draws, 1.0), rng.uniform(9, 11, n_draws), np.full(n_draws, 100.0)]
    sd = np.column_stack([*spreads, np.full(n_draws, 1000.0)])
    old = Layout(3, 2, 3, 2)
    new = Layout(60, 12, 14, 2)
    levels = {
        "player": [f"p{i}" for i in range(60)],
        "starter": [f"s{i}" for i in range(12)],
        "spec": [f"h{i}" for i in range(14)],
    }
    theta = rng.standard_normal((n_draws, old.size))
    grown = never_seen.extend_effects(theta, sd, old, new, seed=5, levels=levels)
    blocks = new.unflatten(grown)
    old_blocks = old.unflatten(theta)
    for name, group in new.blocks:
        block = blocks[name]
        region = (slice(None), *(slice(0, n) for n in old.shapes[name]))
        np.testing.assert_array_equal(block[region], old_blocks[name])  # fitted draws kept
        mask = np.ones(block.shape[1:], dtype=bool)
        mask[tuple(slice(0, n) for n in old.shapes[name])] = False
        z = block[:, mask] / sd[:, group][:, None]
        assert abs(z.mean()) < 0.02, name
        assert abs(z.std() - 1) < 0.02, name
        # Draws are independent across cells: correlation of two cells near 0.
        assert abs(np.corrcoef(z[:, 0], z[:, 1])[0, 1]) < 0.2


def test_unseen_draws_are_keyed_to_names_not_positions():
    rng = np.random.default_rng(1)
    sd = np.abs(rng.normal(size=(50, 4))) + 0.1
    old = Layout(2, 1, 3, 1)
    new = Layout(4, 1, 3, 1)
    levels = {"player": ["a", "b", "x", "y"], "starter": ["s"], "spec": ["h0", "h1", "h2"]}
    swapped = {**levels, "player": ["a", "b", "y", "x"]}
    theta = rng.standard_normal((50, old.size))
    extend = never_seen.extend_effects
    one = new.unflatten(extend(theta, sd, old, new, levels=levels, seed=7))["skill"]
    two = new.unflatten(extend(theta, sd, old, new, levels=swapped, seed=7))["skill"]
    np.testing.assert_array_equal(one[:, 2], two[:, 3])  # player "x" wherever it sits
    np.testing.assert_array_equal(one[:, 3], two[:, 2])
    other_seed = new.unflatten(extend(theta, sd, old, new, levels=levels, seed=8))["skill"]
    assert not np.array_equal(one[:, 2], other_seed[:, 2])


def test_forecasts_for_many_newcomers_stay_in_bounded_memory(data):
    """20,000 matches of never-seen players at 4,000 draws: chunked, far below the naive size."""
    table = check_match_table(data.X)
    vocab = Vocabulary.from_table(table)
    layout = Layout(*vocab.sizes, vocab.specs_per_deck)
    rng = np.random.default_rng(2)
    n_draws = 4000
    sd = np.exp(rng.normal(-1, 0.2, (n_draws, 4)))
    theta = rng.standard_normal((n_draws, layout.size)) * sd[:, layout.group]
    clf = BayesianMatchupClassifier()
    clf.idata_ = fitting.from_effect_draws(theta, sd, layout, n_chains=4)
    clf.vocabulary_, clf.layout_, clf._unseen_seed = vocab, layout, 9
    clf.classes_ = np.array([0, 1])
    n = 20_000
    X = pd.DataFrame(
        {
            "player1": [f"new{2 * i}" for i in range(n)],
            "player2": [f"new{2 * i + 1}" for i in range(n)],
            "deck1": np.resize(data.X["deck1"].to_numpy(), n),
            "deck2": np.resize(data.X["deck2"].to_numpy(), n),
        }
    )
    clf.effect_draws_  # the flat view, computed once, is not part of the forecast's cost
    naive = n_draws * 2 * n * 8  # the newcomers' skill draws alone: 1.28 GB
    tracemalloc.start()
    p = clf.predict_proba(X)[:, 1]
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 300e6, peak / 1e6
    assert peak < naive / 4
    # Two newcomers of equal (unknown) skill: the forecasts average near the deck matchups'.
    assert 0.3 < p.mean() < 0.7
    # The first rows equal the same rows forecast on their own.
    np.testing.assert_array_equal(clf.predict_proba(X.iloc[:3])[:, 1], p[:3])


def test_a_failed_refit_leaves_the_fitted_state_as_it_was(fitted, data, monkeypatch):
    before = dict(vars(fitted))
    proba = fitted.predict_proba(data.X)
    with pytest.raises(ValueError):
        fitted.fit(data.X, np.full(len(data.X), 7))
    assert vars(fitted).keys() == before.keys()
    assert all(vars(fitted)[k] is before[k] for k in before)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(fitting, "run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fitted.fit(data.X, data.y)
    assert all(vars(fitted)[k] is before[k] for k in before)
    np.testing.assert_array_equal(fitted.predict_proba(data.X), proba)


def _quad_expit_normal(a: float, s: float) -> float:
    """E expit(a + s Z), Z ~ N(0, 1), by adaptive quadrature (the reference)."""
    from scipy.integrate import quad
    from scipy.special import expit
    from scipy.stats import norm

    if s == 0:
        return float(expit(a))
    value, _ = quad(lambda z: expit(a + s * z) * norm.pdf(z), -np.inf, np.inf, epsabs=1e-13)
    return value


@pytest.mark.parametrize("scale", [0.0, 0.3, 1.0, 1.7, 2.5, 4.0])
def test_hermite_quadrature_matches_a_numerical_integral(scale):
    from skcodex._matchup.prediction import mean_win_probability_integrated

    a = np.array([-3.0, -0.7, 0.0, 0.4, 2.2])
    theta = a[None, :]  # one draw; match i reads effect i alone
    index = np.arange(len(a))[:, None]
    sd = np.array([[scale]])
    got = mean_win_probability_integrated(theta, index, np.ones(1), np.ones((len(a), 1)), sd)
    expected = [_quad_expit_normal(v, scale) for v in a]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)
    numpy = mean_win_probability_integrated(
        theta, index, np.ones(1), np.ones((len(a), 1)), sd, engine="numpy"
    )
    np.testing.assert_allclose(numpy, got, rtol=0, atol=1e-12)


def test_newcomer_forecasts_integrate_their_effects_exactly():
    """Never-seen players and deck parts integrated out, against a per-draw numerical integral."""
    from skcodex._matchup.prediction import mean_win_probability_integrated
    from skcodex.data import MatchCodes

    rng = np.random.default_rng(4)
    old, new = Layout(3, 2, 3, 1), Layout(5, 3, 4, 1)  # players 3, 4, starter 2, spec 3 new
    n_draws = 6
    sd = np.exp(rng.normal(-0.3, 0.3, (n_draws, 4)))
    theta = rng.standard_normal((n_draws, old.size)) * sd[:, old.group]
    f, t = np.array([3, 0, 3, 4, 1]), np.array([1, 4, 4, 4, 2])
    g, u = np.array([0, 1, 0, 1, 2]), np.array([1, 0, 0, 0, 0])
    x, y = np.array([[1], [0], [2], [1], [0]]), np.array([[2], [0], [0], [0], [3]])
    codes = MatchCodes(f, t, g, u, x, y, 5, 3, 4)
    known, weights, needs_draws = never_seen.never_seen_terms(old, new, new.index_matrix(codes))
    assert not needs_draws.any()
    got = mean_win_probability_integrated(theta, known, new.signs, weights, sd)
    # The reference: per draw, the known effects' sum and the variance of the new cells,
    # each an independent N(0, sd of its block); spreads: player, stst, stsp (b and c), spsp.
    blocks = old.unflatten(theta)

    def known_and_scale(d, i):
        a, var = 0.0, 0.0
        if f[i] != t[i]:  # the same player on both sides cancels
            for player, sign in ((f[i], 1), (t[i], -1)):
                if player < 3:
                    a += sign * blocks["skill"][d, player]
                else:
                    var += sd[d, 0] ** 2
        cells = (
            ("stst", g[i], u[i], 2, 2, 1),
            ("stsp", g[i], y[i, 0], 2, 3, 2),
            ("spst", x[i, 0], u[i], 3, 2, 2),
            ("spsp", x[i, 0], y[i, 0], 3, 3, 3),
        )
        for name, j, k, n_j, n_k, spread in cells:
            if j < n_j and k < n_k:
                a += blocks[name][d, j, k]
            else:
                var += sd[d, spread] ** 2
        return a, np.sqrt(var)

    expected = [
        np.mean([_quad_expit_normal(*known_and_scale(d, i)) for d in range(n_draws)])
        for i in range(len(f))
    ]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)
    assert np.ptp(got) > 0.01  # the rows differ: the check is not of constants


def test_newcomer_terms_cancel_a_newcomer_on_both_sides():
    old = Layout(2, 1, 2, 1)
    new = Layout(4, 1, 2, 1)
    from skcodex.data import MatchCodes

    z = np.zeros(3, dtype=np.int64)
    codes = MatchCodes(
        np.array([2, 2, 0]), np.array([3, 2, 1]), z, z, z[:, None], z[:, None], 4, 1, 2
    )
    index = new.index_matrix(codes)
    known, weights, needs_draws = never_seen.never_seen_terms(old, new, index)
    np.testing.assert_array_equal(weights[:, 0], [2.0, 0.0, 0.0])
    assert not weights[:, 1:].any() and not needs_draws.any()
    assert (known[:2, :2] == old.size).all() and (known[2] < old.size).all()


def test_counter_normals_depend_on_their_key_and_draw_alone():
    keys = np.array([3, 2**63 + 5, 17], dtype=np.uint64)
    together = never_seen.counter_normals(keys, 50)
    alone = never_seen.counter_normals(keys[1:2], 50)
    np.testing.assert_array_equal(together[:, 1], alone[:, 0])
    np.testing.assert_array_equal(never_seen.counter_normals(keys, 20), together[:20])
    many = never_seen.counter_normals(np.arange(2000, dtype=np.uint64), 200).ravel()
    assert abs(many.mean()) < 0.01 and abs(many.std() - 1) < 0.01
    from scipy.stats import kstest

    assert kstest(many[:20000], "norm").pvalue > 1e-3
