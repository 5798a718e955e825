"""Draws: the ordered-logit third outcome, its fit, forecasts, scores, file and recovery."""

import hashlib
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from scipy.stats import binom
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV

from skcodex import BayesianMatchupClassifier
from skcodex._compat import posterior
from skcodex._matchup import draws
from skcodex.data import MatchTableError
from skcodex.datasets import make_game_matches, make_matches
from skcodex.metrics import (
    brier_score,
    brier_scorer,
    multiclass_brier_score,
    multiclass_brier_scorer,
    ranked_probability_score,
    ranked_probability_scorer,
)

TINY = {"draws": 150, "tune": 150, "chains": 2, "random_state": 0}
GAME = {"n_players": 10, "n_matches": 240, "n_tournaments": 2, "starters": 3}


# -- the formulas, against direct computation ----------------------------------------------


@pytest.mark.parametrize("c", [1e-4, 0.3, 1.0, 5.0])
def test_three_probabilities_sum_to_one_and_match_the_definition(c):
    q = np.linspace(-30, 30, 121)
    p = draws.outcome_probabilities(q, c)
    assert p.shape == (121, 3)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-14)
    np.testing.assert_allclose(p[:, 2], expit(q - c), rtol=1e-13)
    np.testing.assert_allclose(p[:, 0], expit(-q - c), rtol=1e-13)
    # the draw from its own expression: exact where the subtraction would cancel
    direct = 1.0 - expit(q - c) - expit(-q - c)
    ok = direct > 1e-3
    np.testing.assert_allclose(p[ok, 1], direct[ok], rtol=1e-9)
    assert np.all(p[:, 1] > 0)
    # between equal sides a draw has chance tanh(c / 2)
    np.testing.assert_allclose(draws.outcome_probabilities(0.0, c)[1], np.tanh(c / 2), rtol=1e-12)


def test_loglik_terms_are_the_log_of_the_probabilities():
    rng = np.random.default_rng(0)
    q = rng.normal(0, 2, 50)
    c = rng.uniform(0.05, 2.0, 50)
    y = rng.choice([0.0, 0.5, 1.0], 50)
    p = draws.outcome_probabilities(q, c)
    expected = np.log(p[np.arange(50), (2 * y).astype(int)])
    np.testing.assert_allclose(draws.loglik_terms(y, q, c), expected, rtol=1e-12)


def test_counts_of_a_row_add_up_to_its_matches():
    """A row of n matches with w wins and d draws adds what its matches add one by one."""
    q, c = 0.7, 0.4
    outcomes = np.array([1.0, 1.0, 0.5, 0.0, 0.5, 0.5, 1.0])
    one_by_one = draws.loglik_terms(outcomes, q, c).sum()
    counted = draws.loglik_terms(
        outcomes.sum(), q, c, trials=len(outcomes), draws=np.sum(outcomes == 0.5)
    )
    np.testing.assert_allclose(counted, one_by_one, rtol=1e-13)


def test_pytensor_likelihood_and_gradient_equal_numpy():
    import pytensor
    import pytensor.tensor as pt

    rng = np.random.default_rng(1)
    n_theta, width, n = 9, 3, 40
    index = rng.integers(0, n_theta, (n, width))
    signs = np.array([1.0, -1.0, 1.0])
    y = rng.choice([0.0, 0.5, 1.0], n)
    theta_v = rng.normal(0, 1, n_theta)
    theta, c = pt.dvector("theta"), pt.dscalar("c")
    total = draws.draw_loglik(
        theta,
        pt.as_tensor(index),
        signs,
        pt.as_tensor(y),
        pt.ones(n),
        pt.as_tensor((y == 0.5).astype(float)),
        c,
    )
    f = pytensor.function([theta, c], [total, *pytensor.grad(total, [theta, c])])
    value, g_theta, g_c = f(theta_v, 0.6)

    def numpy_loglik(th, cc):
        return draws.loglik_terms(y, (th[index] * signs).sum(axis=1), cc).sum()

    np.testing.assert_allclose(value, numpy_loglik(theta_v, 0.6), rtol=1e-12)
    h = 1e-6
    numeric = [
        (numpy_loglik(theta_v + h * e, 0.6) - numpy_loglik(theta_v - h * e, 0.6)) / (2 * h)
        for e in np.eye(n_theta)
    ]
    np.testing.assert_allclose(g_theta, numeric, rtol=1e-6, atol=1e-7)
    numeric_c = (numpy_loglik(theta_v, 0.6 + h) - numpy_loglik(theta_v, 0.6 - h)) / (2 * h)
    np.testing.assert_allclose(g_c, numeric_c, rtol=1e-6)


# -- outcomes ------------------------------------------------------------------------------


def test_outcomes_with_a_draw_are_read_and_bad_ones_named():
    y = draws.checked_outcome([1, 0.5, 0, 1.0], 4)
    np.testing.assert_array_equal(y, [1.0, 0.5, 0.0, 1.0])
    assert draws.has_draws(y)
    # without a draw: exactly as check_outcome reads them (True/False too)
    np.testing.assert_array_equal(draws.checked_outcome([True, False], 2), [1.0, 0.0])
    with pytest.raises(MatchTableError, match=r"0\.5 \(a draw\).*got 0\.3 at row 2"):
        draws.checked_outcome([1, 0.5, 0.3], 3)
    with pytest.raises(MatchTableError, match="got 'draw' at row 1"):
        draws.checked_outcome(np.array([0.5, "draw"], dtype=object), 2)
    with pytest.raises(MatchTableError, match="3 matches but y has 2"):
        draws.checked_outcome([0.5, 1], 3)


# -- the synthetic generator ----------------------------------------------------------------


def _fingerprint(X, y) -> str:
    return hashlib.sha256(X.to_csv().encode() + np.asarray(y).tobytes()).hexdigest()


def test_synthetic_default_is_unchanged_for_the_same_seed():
    """Fingerprints of the generators' output recorded before the draw threshold existed."""
    game = make_game_matches(
        n_players=8, n_matches=120, n_tournaments=2, starters=3, random_state=3
    )
    assert _fingerprint(game.X, game.y) == (
        "769419bce0d838394a9f056270883c8253d9807bcdac8c86ee19607f01b52f28"
    )
    zero = make_game_matches(
        n_players=8, n_matches=120, n_tournaments=2, starters=3, random_state=3, draw_threshold=0
    )
    assert _fingerprint(zero.X, zero.y) == _fingerprint(game.X, game.y)
    assert not np.any(game.p_draw)
    codex = make_matches(n_players=8, n_matches=60, n_tournaments=2, random_state=3)
    assert _fingerprint(codex.X, codex.y) == (
        "87ecba6012d9343cefa02c8eeb246967738ef49ecee3f8cbbccb92d965a247e2"
    )


def test_synthetic_draws_follow_their_probabilities():
    data = make_game_matches(
        n_players=10, n_matches=4000, starters=3, draw_threshold=0.8, random_state=1
    )
    assert set(np.unique(data.y)) == {0.0, 0.5, 1.0}
    assert data.params["draw_threshold"] == 0.8
    # the same uniform decides the outcome: draws where it falls between the thresholds
    share, expected = np.mean(data.y == 0.5), data.p_draw.mean()
    assert abs(share - expected) < 4 * np.sqrt(expected * (1 - expected) / len(data.y))
    assert abs(np.mean(data.y == 1) - data.p_win.mean()) < 0.03


@pytest.mark.parametrize("bad", [-0.1, np.nan, np.inf, "1"])
def test_synthetic_refuses_a_bad_threshold(bad):
    with pytest.raises(ValueError, match="draw_threshold must be a finite number >= 0"):
        make_game_matches(n_matches=20, draw_threshold=bad)


# -- scores ---------------------------------------------------------------------------------


def test_ranked_probability_and_multiclass_brier_by_hand():
    proba = [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1], [0.1, 0.8, 0.1]]
    y = [1, 0, 0.5]
    # cumulative forecasts F = (p0, p0 + p1) against cumulative outcomes O
    rps = [
        ((0.2 - 0) ** 2 + (0.5 - 0) ** 2) / 2,
        ((0.6 - 1) ** 2 + (0.9 - 1) ** 2) / 2,
        ((0.1 - 0) ** 2 + (0.9 - 1) ** 2) / 2,
    ]
    assert ranked_probability_score(y, proba) == pytest.approx(np.mean(rps), rel=1e-12)
    brier = [0.04 + 0.09 + 0.25, 0.16 + 0.09 + 0.01, 0.01 + 0.04 + 0.01]
    assert multiclass_brier_score(y, proba) == pytest.approx(np.mean(brier), rel=1e-12)
    w = [1, 2, 0]
    assert ranked_probability_score(y, proba, w) == pytest.approx(
        np.average(rps, weights=w), rel=1e-12
    )


def test_two_column_forecasts_give_a_draw_no_chance():
    rng = np.random.default_rng(0)
    p1 = rng.uniform(size=30)
    y = rng.integers(0, 2, 30)
    two = np.column_stack([1 - p1, p1])
    # without draws: twice the binary Brier score, and the RPS equals it
    assert multiclass_brier_score(y, two) == pytest.approx(2 * brier_score(y, p1), rel=1e-12)
    assert ranked_probability_score(y, two) == pytest.approx(brier_score(y, p1), rel=1e-12)


@pytest.mark.parametrize(
    "y, proba, message",
    [
        ([0.3], [[0.2, 0.3, 0.5]], "found 0.3"),
        ([1], [[0.2, 0.3, 0.6]], "sum to 1"),
        ([1], [0.5], r"\(n_matches, 3\)"),
        ([1, 0], [[0.2, 0.3, 0.5]], "2 outcomes but proba has 1"),
        ([1], [[-0.2, 0.7, 0.5]], r"probabilities in \[0, 1\]"),
    ],
)
def test_three_outcome_scores_refuse_bad_input(y, proba, message):
    with pytest.raises(ValueError, match=message):
        ranked_probability_score(y, proba)


class _Constant(ClassifierMixin, BaseEstimator):
    """Forecasts each outcome's share in training, in classes_ order."""

    def __init__(self, shrink=0.0):
        self.shrink = shrink

    def fit(self, X, y):
        y = np.asarray(y, dtype=float)
        self.classes_ = np.array([0.0, 0.5, 1.0])
        share = np.array([np.mean(y == c) for c in self.classes_])
        self.share_ = (1 - self.shrink) * share + self.shrink / 3
        return self

    def predict_proba(self, X):
        return np.tile(self.share_, (len(X), 1))

    def predict(self, X):
        return np.full(len(X), self.classes_[np.argmax(self.share_)])


def test_scorers_work_in_grid_search_and_the_binary_one_refuses_draws():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": np.arange(90)})
    y = rng.choice([0.0, 0.5, 1.0], 90, p=[0.4, 0.2, 0.4])
    for scorer in (ranked_probability_scorer, multiclass_brier_scorer):
        search = GridSearchCV(_Constant(), {"shrink": [0.0, 0.5, 1.0]}, scoring=scorer, cv=3)
        search.fit(X, y)
        assert np.all(search.cv_results_["mean_test_score"] < 0)
    est = _Constant().fit(X, y)
    expected = -ranked_probability_score(y, est.predict_proba(X))
    assert ranked_probability_scorer(est, X, y) == expected
    with pytest.raises(ValueError, match="ranked_probability_scorer or multiclass_brier_scorer"):
        brier_scorer(est, X, y)


# -- a fit with draws -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def game():
    return make_game_matches(**GAME, draw_threshold=0.7, random_state=4)


@pytest.fixture(scope="module")
def drawn(game):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return BayesianMatchupClassifier(**TINY, catalogue=game.catalogue).fit(game.X, game.y)


def test_fit_with_draws_has_three_classes(drawn, game):
    np.testing.assert_array_equal(drawn.classes_, [0.0, 0.5, 1.0])
    assert drawn.layout_.options.draws
    proba = drawn.predict_proba(game.X)
    assert proba.shape == (len(game.X), 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    assert set(drawn.predict(game.X)) <= {0.0, 0.5, 1.0}
    summary = drawn.draw_
    assert list(summary.index) == ["threshold", "draw_rate_even"]
    c = posterior.draws(drawn.idata_, draws.THRESHOLD).astype(float).ravel()
    assert summary.loc["threshold", "mean"] == pytest.approx(c.mean(), rel=1e-12)
    assert summary.loc["threshold", "lower"] == pytest.approx(np.quantile(c, 0.05), rel=1e-12)


def test_posterior_averaged_probabilities_equal_an_independent_computation(drawn, game):
    """q = skill[p1] - skill[p2] + stst[char1, char2] from the named posterior blocks."""
    post = posterior.group(drawn.idata_, "posterior")
    skill = post["skill"].transpose("chain", "draw", "player")
    stst = post["stst"].transpose("chain", "draw", "starter1", "starter2")
    c = post[draws.THRESHOLD].transpose("chain", "draw").to_numpy().astype(float).ravel()
    X = game.X.iloc[:25]
    players = list(skill["player"].values)
    starters = list(stst["starter1"].values)
    s = skill.to_numpy().astype(float).reshape(len(c), -1)
    m = stst.to_numpy().astype(float).reshape(len(c), len(starters), len(starters))
    f = [players.index(p) for p in X["player1"]]
    g = [players.index(p) for p in X["player2"]]
    a = [starters.index(d) for d in X["deck1"]]
    b = [starters.index(d) for d in X["deck2"]]
    q = s[:, f] - s[:, g] + m[:, a, b]
    win, loss = expit(q - c[:, None]), expit(-q - c[:, None])
    expected = np.stack([loss, 1 - win - loss, win], axis=-1).mean(axis=0)
    np.testing.assert_allclose(drawn.predict_proba(X), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(drawn.predict_proba_draws(X), win, rtol=1e-5, atol=1e-6)


def test_pointwise_log_likelihood_is_the_three_outcome_one(drawn, game):
    loglik = posterior.group(drawn.idata_, "log_likelihood")["outcome"]
    values = loglik.transpose("chain", "draw", "match").to_numpy().reshape(-1, len(game.y))
    proba_draws = drawn.predict_proba_draws(game.X)  # P(player 1 wins) per draw
    wins = np.flatnonzero(game.y == 1)
    np.testing.assert_allclose(values[:, wins], np.log(proba_draws[:, wins]), rtol=1e-5)


def test_a_never_seen_player_is_forecast_with_three_outcomes(drawn, game):
    X = game.X.iloc[:3].copy()
    X["player1"] = "newcomer"
    proba = drawn.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(proba > 0)


def test_round_trip_keeps_the_draw_model(drawn, game, tmp_path):
    from skcodex._format.persistence import load, save

    path = tmp_path / "drawn.skcodex"
    save(drawn, path)
    again = load(path)
    np.testing.assert_array_equal(again.classes_, drawn.classes_)
    np.testing.assert_array_equal(again.predict_proba(game.X), drawn.predict_proba(game.X))
    pd.testing.assert_frame_equal(again.draw_, drawn.draw_)


def test_what_a_draw_model_refuses(game):
    with pytest.raises(ValueError, match="NUTS only"):
        BayesianMatchupClassifier(method="advi", catalogue=game.catalogue).fit(game.X, game.y)
    with pytest.raises(MatchTableError, match="luck"):
        BayesianMatchupClassifier(catalogue=game.catalogue).fit(
            game.X, game.y, luck=np.zeros(len(game.y))
        )


def test_a_model_without_draws_has_no_draw_summary():
    data = make_game_matches(**GAME, random_state=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = BayesianMatchupClassifier(**TINY, catalogue=data.catalogue).fit(data.X, data.y)
    np.testing.assert_array_equal(clf.classes_, [0, 1])
    assert clf.predict_proba(data.X[:3]).shape == (3, 2)
    assert not clf.layout_.options.draws
    with pytest.raises(AttributeError, match="fitted without draws"):
        clf.draw_


#: predict_proba[:, 1] of the fit in `test_a_table_without_draws_fits_as_before`, by the
#: code before draws existed (commit f06911f), per PyMC major version (its sampler differs).
BEFORE_DRAWS = {
    "5": [
        0.14681586974958322,
        0.40212965593811206,
        0.6411363379689621,
        0.8786683453824448,
        0.08246356415734407,
        0.825330638063193,
    ],
    "6": [
        0.15565860318140506,
        0.3999738173447296,
        0.627419201420776,
        0.8582233680701054,
        0.09730086565809182,
        0.8122295411120397,
    ],
}


def test_a_table_without_draws_fits_as_before():
    import pymc

    major = pymc.__version__.split(".")[0]
    if major not in BEFORE_DRAWS:
        pytest.skip(f"no recorded forecast for PyMC {pymc.__version__}")
    data = make_game_matches(
        n_players=8, n_matches=120, n_tournaments=2, starters=3, random_state=3
    )
    clf = BayesianMatchupClassifier(
        chains=1, draws=60, tune=60, random_state=5, debut=False, time_varying=False
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(data.X, data.y)
    np.testing.assert_array_equal(clf.predict_proba(data.X.iloc[:6])[:, 1], BEFORE_DRAWS[major])


# -- recovery ------------------------------------------------------------------------------

#: Series of the recovery test, and the fewest whose 90% interval must cover the truth:
#: binomial(20, 0.9) is below 15 with chance 1.1% for calibrated intervals.
RECOVERY_SERIES, RECOVERY_MIN = 20, 15


@pytest.mark.slow
def test_draw_threshold_is_recovered_within_its_interval():
    assert binom.cdf(RECOVERY_MIN - 1, RECOVERY_SERIES, 0.9) < 0.02
    covered = 0
    for seed in range(RECOVERY_SERIES):
        rng = np.random.default_rng(seed)
        c = float(rng.uniform(0.2, 1.4))
        data = make_game_matches(
            n_players=12,
            n_matches=300,
            n_tournaments=3,
            starters=4,
            draw_threshold=c,
            random_state=100 + seed,
        )
        clf = BayesianMatchupClassifier(
            chains=2,
            draws=300,
            tune=300,
            debut=False,
            time_varying=False,
            random_state=seed,
            catalogue=data.catalogue,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf.fit(data.X, data.y)
        lower, upper = clf.draw_.loc["threshold", ["lower", "upper"]]
        covered += lower <= c <= upper
    assert covered >= RECOVERY_MIN, f"{covered} of {RECOVERY_SERIES} intervals cover the truth"


def test_convergence_checks_cover_the_threshold(drawn):
    from skcodex._matchup.diagnostics import monitored_draws

    assert "draw_log_threshold" in monitored_draws(drawn.idata_, drawn.layout_)


def test_a_draw_model_plays_tournaments_with_draws(drawn, game):
    from skcodex.exceptions import TournamentError
    from skcodex.tournament import simulate_tournament

    players = sorted(set(game.X["player1"]))[:4]
    entrants = pd.DataFrame({"player": players, "deck": ["char0"] * 4})
    forecast = simulate_tournament(
        "round-robin", entrants, drawn, n_simulations=200, random_state=0
    )
    assert forecast.p_win.sum() == pytest.approx(1.0)
    two_decks = pd.DataFrame({"player": players, "deck": ["char0;char1"] * 4})
    with pytest.raises(TournamentError, match="fixed order"):
        simulate_tournament("round-robin", two_decks, drawn, deck_rule="nash", n_simulations=10)


def _match_outcomes(p, d, i, j):
    """P(i wins), P(draw), P(j wins) with the first move decided by a coin."""
    win = 0.5 * p[i, j] + 0.5 * (1 - p[j, i] - d[j, i])
    draw = 0.5 * (d[i, j] + d[j, i])
    return win, draw, 1 - win - draw


def test_round_robin_with_draws_equals_exact_enumeration():
    """Three entrants, a draw worth half a win, ties at the top split evenly."""
    from itertools import product

    from skcodex.tournament import simulate_tournament

    p = np.array([[0.0, 0.5, 0.6], [0.3, 0.0, 0.45], [0.2, 0.35, 0.0]])
    d = np.array([[0.0, 0.3, 0.2], [0.4, 0.0, 0.25], [0.3, 0.3, 0.0]])
    pairs = [(0, 1), (0, 2), (1, 2)]
    exact = np.zeros(3)
    for outcome in product(range(3), repeat=3):  # 0: first named wins, 1: draw, 2: other wins
        chance, points = 1.0, np.zeros(3)
        for (i, j), k in zip(pairs, outcome):
            chance *= _match_outcomes(p, d, i, j)[k]
            points[i] += (1.0, 0.5, 0.0)[k]
            points[j] += (0.0, 0.5, 1.0)[k]
        top = np.flatnonzero(points == points.max())
        exact[top] += chance / len(top)
    n = 200_000
    forecast = simulate_tournament(
        "round-robin",
        ["a", "b", "c"],
        probabilities=p,
        draw_probabilities=d,
        n_simulations=n,
        first_move="random",
        random_state=1,
    )
    se = np.sqrt(exact * (1 - exact) / n)
    assert np.all(np.abs(forecast.p_win - exact) < 4 * se), (forecast.p_win, exact)


def test_a_drawn_knockout_match_goes_to_the_decider():
    from skcodex.tournament import simulate_tournament

    p = np.array([[0.0, 0.4], [0.3, 0.0]])
    d = np.array([[0.0, 0.4], [0.2, 0.0]])
    # first move by a coin; a draw is decided by P(win) / (P(win) + P(loss))
    first = p[0, 1] + d[0, 1] * p[0, 1] / (1 - d[0, 1])
    loss_second = 1 - p[1, 0] - d[1, 0]
    second = loss_second + d[1, 0] * loss_second / (1 - d[1, 0])
    exact = 0.5 * first + 0.5 * second
    n = 200_000
    forecast = simulate_tournament(
        "knockout",
        ["a", "b"],
        probabilities=p,
        draw_probabilities=d,
        n_simulations=n,
        first_move="random",
        random_state=2,
    )
    assert abs(forecast.p_win[0] - exact) < 4 * np.sqrt(exact * (1 - exact) / n)


def test_draw_probabilities_are_checked():
    from skcodex.exceptions import TournamentError
    from skcodex.tournament import simulate_tournament

    p = np.array([[0.0, 0.7], [0.3, 0.0]])
    with pytest.raises(TournamentError, match="add up to more than 1"):
        simulate_tournament(
            "knockout",
            ["a", "b"],
            probabilities=p,
            draw_probabilities=[[0, 0.4], [0, 0]],
            n_simulations=10,
        )
    with pytest.raises(TournamentError, match="shape"):
        simulate_tournament(
            "knockout",
            ["a", "b"],
            probabilities=p,
            draw_probabilities=np.zeros(3),
            n_simulations=10,
        )
