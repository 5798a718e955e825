"""Glicko-2 and Elo: reference values, independent re-computations, and the sklearn face."""

from __future__ import annotations

import itertools
import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, TimeSeriesSplit, cross_val_score
from sklearn.utils.estimator_checks import parametrize_with_checks

import skcodex
import skcodex.ratings._base as ratings_base
import skcodex.ratings._elo as elo_module
import skcodex.ratings._glicko2 as glicko2_module
from skcodex.data import LuckWarning, MatchTableError
from skcodex.datasets import make_matches
from skcodex.metrics import brier_score, brier_scorer
from skcodex.ratings import EloClassifier, Glicko2Classifier, glicko2_update

from match_table_adapter import (  # isort: skip
    RATINGS_EXPECTED_FAILURES,
    AdaptedElo,
    AdaptedGlicko2,
    assert_fails_as_stated,
    check_name,
    to_match_table,
)

SCALE = 173.7178
PAPER_PLAYER = (1500.0, 200.0, 0.06)
PAPER_OPPONENTS = [(1400.0, 30.0), (1550.0, 100.0), (1700.0, 300.0)]
PAPER_SCORES = [1, 0, 0]


# ---------------------------------------------------------------------------
# An independent Glicko-2, written from the paper with scalars and scipy's brentq
# ---------------------------------------------------------------------------


def ref_g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / math.pi**2)


def ref_quantities(mu, phi, opponents, scores, offsets=None):
    """The paper's v and delta; ``opponents`` on the Glicko-2 scale as (mu_j, phi_j)."""
    offsets = offsets or [0.0] * len(opponents)
    info = gain = 0.0
    for (mu_j, phi_j), s, off in zip(opponents, scores, offsets):
        e = 1.0 / (1.0 + math.exp(-ref_g(phi_j) * (mu + off - mu_j)))
        info += ref_g(phi_j) ** 2 * e * (1.0 - e)
        gain += ref_g(phi_j) * (s - e)
    v = 1.0 / info
    return v, v * gain, gain


def ref_f(x, delta, phi, v, sigma, tau):
    """The paper's f(x), for a number or an array: phi (the deviation) appears here, never mu."""
    a = math.log(sigma**2)
    ex = np.exp(x)
    return ex * (delta**2 - phi**2 - v - ex) / (2.0 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2


def ref_volatility(delta, phi, v, sigma, tau, f=ref_f):
    """The root of f nearest a = ln sigma^2, by a grid scan and scipy's brentq.

    f can have three roots when v is large; the paper's iteration, started at a,
    converges to the one nearest a (the smallest change of volatility), so the
    scan walks from a towards the paper's other bracket end until f changes sign.
    """
    a = math.log(sigma**2)
    gap = delta**2 - phi**2 - v
    if gap > 0:
        end = math.log(gap)
    else:
        end = a - tau
        while f(end, delta, phi, v, sigma, tau) < 0:
            end -= tau
    grid = np.linspace(a, end, 20_001)
    values = f(grid, delta, phi, v, sigma, tau)
    if values[0] == 0:
        return sigma
    cross = int(np.flatnonzero(np.sign(values[1:]) != np.sign(values[0]))[0])
    lo, hi = sorted((grid[cross], grid[cross + 1]))
    root = brentq(f, lo, hi, args=(delta, phi, v, sigma, tau), xtol=1e-14, rtol=1e-14)
    return math.exp(root / 2.0)


def ref_update(mu, phi, sigma, opponents, scores, tau, offsets=None):
    """One player, one period, on the Glicko-2 scale."""
    if not opponents:
        return mu, math.sqrt(phi**2 + sigma**2), sigma
    v, delta, gain = ref_quantities(mu, phi, opponents, scores, offsets)
    sigma_new = ref_volatility(delta, phi, v, sigma, tau)
    phi_star = math.sqrt(phi**2 + sigma_new**2)
    phi_new = 1.0 / math.sqrt(1.0 / phi_star**2 + 1.0 / v)
    return mu + phi_new**2 * gain, phi_new, sigma_new


def ref_glicko2_replay(X, scores, tau=0.5, init=(1500.0, 350.0, 0.06), h=0.0):
    """Period by period with dicts: periods in order of first row, idle RD growth."""
    labels = X["period"].tolist() if "period" in X.columns else list(range(len(X)))
    periods: dict = {}
    for row, label in enumerate(labels):
        periods.setdefault(label, []).append(row)
    p1, p2 = X["player1"].tolist(), X["player2"].tolist()
    state: dict = {}  # player -> (mu, phi, sigma, period number)
    start_mu, start_phi = (init[0] - 1500.0) / SCALE, init[1] / SCALE
    hm = h / SCALE
    for t, rows in enumerate(periods.values()):
        before = {}
        for p in {p1[r] for r in rows} | {p2[r] for r in rows}:
            if p in state:
                mu, phi, sigma, last = state[p]
                before[p] = (mu, math.sqrt(phi**2 + (t - last - 1) * sigma**2), sigma)
            else:
                before[p] = (start_mu, start_phi, init[2])
        games: dict = {p: ([], [], []) for p in before}
        for r in rows:
            a, b, s = p1[r], p2[r], scores[r]
            games[a][0].append(before[b][:2])
            games[a][1].append(s)
            games[a][2].append(hm)
            games[b][0].append(before[a][:2])
            games[b][1].append(1.0 - s)
            games[b][2].append(-hm)
        for p, (opps, ss, offs) in games.items():
            state[p] = (*ref_update(*before[p], opps, ss, tau, offs), t)
    end = len(periods) - 1
    return {
        p: (SCALE * mu + 1500.0, SCALE * math.sqrt(phi**2 + (end - last) * sigma**2), sigma)
        for p, (mu, phi, sigma, last) in state.items()
    }


def ref_elo_replay(X, scores, k=20.0, init=1500.0, h=0.0, by_period=False):
    labels = X["period"].tolist() if by_period and "period" in X.columns else range(len(X))
    periods: dict = {}
    for row, label in enumerate(labels):
        periods.setdefault(label, []).append(row)
    p1, p2 = X["player1"].tolist(), X["player2"].tolist()
    rating: dict = {}
    for rows in periods.values():
        change: dict = {}
        for r in rows:
            a, b = p1[r], p2[r]
            ra, rb = rating.get(a, init), rating.get(b, init)
            d = k * (scores[r] - 1.0 / (1.0 + 10.0 ** ((rb - ra - h) / 400.0)))
            change[a] = change.get(a, 0.0) + d
            change[b] = change.get(b, 0.0) - d
        for p, d in change.items():
            rating[p] = rating.get(p, init) + d
    return rating


def table(pairs, periods=None):
    """A match table from (player1, player2) pairs; decks are irrelevant to ratings."""
    X = pd.DataFrame(pairs, columns=["player1", "player2"])
    X["deck1"] = "MonoRed"
    X["deck2"] = "MonoBlue"
    if periods is not None:
        X["period"] = periods
    return X


@pytest.fixture(scope="module")
def data():
    return make_matches(n_players=30, n_matches=400, n_tournaments=5, random_state=7)


# ---------------------------------------------------------------------------
# Glickman's reference values and the volatility iteration
# ---------------------------------------------------------------------------


def test_glickman_worked_example():
    rating, rd, vol = glicko2_update(PAPER_PLAYER, PAPER_OPPONENTS, PAPER_SCORES, tau=0.5)
    assert rating == pytest.approx(1464.05, abs=0.01)
    assert rd == pytest.approx(151.52, abs=0.01)
    assert vol == pytest.approx(0.05999, abs=1e-5)


def test_glickman_intermediate_values_v_and_delta():
    mu, phi = 0.0, 200.0 / SCALE
    mu_j = np.array([(r - 1500.0) / SCALE for r, _ in PAPER_OPPONENTS])
    g_j = glicko2_module._g(np.array([(rd / SCALE) ** 2 for _, rd in PAPER_OPPONENTS]))
    e_j = glicko2_module._expected(g_j, mu - mu_j)
    v = 1.0 / np.sum(g_j**2 * e_j * (1 - e_j))
    delta = v * np.sum(g_j * (np.array(PAPER_SCORES) - e_j))
    # the paper works with g and E rounded to four digits, hence the printed
    # 1.7785 and -0.4834 against the exact 1.77898 and -0.48393
    assert v == pytest.approx(1.7785, abs=1e-3)
    assert delta == pytest.approx(-0.4834, abs=1e-3)
    assert (v, delta) == (pytest.approx(1.77898, abs=1e-5), pytest.approx(-0.48393, abs=1e-5))
    # and the paper's intermediate values of the independent code agree too
    v_ref, delta_ref, _ = ref_quantities(
        mu, phi, [((r - 1500) / SCALE, rd / SCALE) for r, rd in PAPER_OPPONENTS], PAPER_SCORES
    )
    assert (v_ref, delta_ref) == (pytest.approx(v), pytest.approx(delta))


def test_volatility_moves_and_matches_brentq():
    # a strong, settled player (mu = 1.73, phi = 0.35: neither 0 nor equal) loses
    # twenty games in a row to much weaker players: the volatility must rise
    player = (1800.0, 60.0, 0.06)
    opponents = [(1450.0 + 10 * j, 40.0 + 5 * j) for j in range(20)]
    scores = [0.0] * 20
    tau = 1.2
    rating, rd, vol = glicko2_update(player, opponents, scores, tau=tau, epsilon=1e-10)

    mu, phi = (player[0] - 1500) / SCALE, player[1] / SCALE
    opp = [((r - 1500) / SCALE, d / SCALE) for r, d in opponents]
    mu_ref, phi_ref, vol_ref = ref_update(mu, phi, player[2], opp, scores, tau)
    assert vol > 0.075  # it moved, far beyond the tolerances below
    assert vol == pytest.approx(vol_ref, rel=1e-8)
    assert rating == pytest.approx(SCALE * mu_ref + 1500, abs=1e-6)
    assert rd == pytest.approx(SCALE * phi_ref, abs=1e-6)

    # the test has the power to see a mix-up of mu and phi in f
    def mixed_f(x, delta, phi_, v, sigma, tau_):
        return ref_f(x, delta, mu, v, sigma, tau_)

    v, delta, _ = ref_quantities(mu, phi, opp, scores)
    wrong = ref_volatility(delta, phi, v, player[2], tau, f=mixed_f)
    assert abs(wrong - vol) > 1e-3


@settings(max_examples=40, deadline=None)
@given(
    rating=st.floats(0, 3000),
    rd=st.floats(10, 600),
    vol=st.floats(0.005, 0.3),
    tau=st.floats(0.1, 3.0),
    games=st.lists(
        st.tuples(st.floats(0, 3000), st.floats(10, 600), st.sampled_from([0.0, 0.5, 1.0])),
        min_size=1,
        max_size=8,
    ),
)
def test_update_agrees_with_independent_brentq(rating, rd, vol, tau, games):
    opponents = [(r, d) for r, d, _ in games]
    scores = [s for _, _, s in games]
    got = glicko2_update((rating, rd, vol), opponents, scores, tau=tau, epsilon=1e-12)
    mu, phi, sigma = ref_update(
        (rating - 1500) / SCALE,
        rd / SCALE,
        vol,
        [((r - 1500) / SCALE, d / SCALE) for r, d in opponents],
        scores,
        tau,
    )
    assert got[2] == pytest.approx(sigma, rel=1e-7)
    assert got[0] == pytest.approx(SCALE * mu + 1500, abs=1e-5)
    assert got[1] == pytest.approx(SCALE * phi, abs=1e-5)


def test_draws_are_half_points():
    even = glicko2_update((1500, 100, 0.06), [(1500, 100)], [0.5])
    assert even[0] == pytest.approx(1500.0, abs=1e-9)  # expected 0.5, scored 0.5
    assert even[1] < 100  # but more certain
    up = glicko2_update((1500, 100, 0.06), [(1700, 100)], [0.5])
    win = glicko2_update((1500, 100, 0.06), [(1700, 100)], [1.0])
    assert 1500 < up[0] < win[0]


def test_no_games_grows_rd_only():
    rating, rd, vol = glicko2_update((1600, 100, 0.06), [], [])
    assert rating == 1600 and vol == 0.06
    assert rd == pytest.approx(SCALE * math.sqrt((100 / SCALE) ** 2 + 0.06**2))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (((1500, 200), PAPER_OPPONENTS, PAPER_SCORES), "rating, rd, volatility"),
        (((1500, -1, 0.06), PAPER_OPPONENTS, PAPER_SCORES), "rd must be > 0"),
        ((PAPER_PLAYER, PAPER_OPPONENTS, [1, 0]), "3 opponents but 2 scores"),
        ((PAPER_PLAYER, PAPER_OPPONENTS, [1, 0, float("nan")]), "score 2 must be finite"),
        ((PAPER_PLAYER, PAPER_OPPONENTS, [1, 0, 2]), r"score 2 must lie in \[0, 1\]"),
        ((PAPER_PLAYER, [(1400, 30), 5, (1, 1)], PAPER_SCORES), "opponent 1"),
    ],
)
def test_update_rejects_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        glicko2_update(*args)


def test_update_rejects_bad_tau():
    with pytest.raises(ValueError, match="tau must be > 0"):
        glicko2_update(PAPER_PLAYER, PAPER_OPPONENTS, PAPER_SCORES, tau=0)


# ---------------------------------------------------------------------------
# The classifiers against independent replays
# ---------------------------------------------------------------------------


def _ratings(model, column="rating"):
    return dict(zip(model.ratings_["player"], model.ratings_[column]))


@pytest.mark.parametrize("with_periods", [True, False])
def test_glicko2_fit_equals_period_by_period_replay(data, with_periods):
    X = data.X if with_periods else data.X.drop(columns="period")
    model = Glicko2Classifier(tau=0.7, epsilon=1e-12).fit(X, data.y)
    ref = ref_glicko2_replay(X, data.y.astype(float), tau=0.7)
    assert set(_ratings(model)) == set(ref)
    for col, pos in (("rating", 0), ("rd", 1), ("volatility", 2)):
        got = _ratings(model, col)
        np.testing.assert_allclose(
            [got[p] for p in ref], [ref[p][pos] for p in ref], rtol=1e-7, atol=1e-6
        )


def test_glicko2_periods_ordered_by_first_row_and_idle_rd_grows():
    # period "A" reappears after "B" began: its later match still belongs to "A"
    X = table([("a", "b"), ("c", "d"), ("a", "c"), ("b", "d")], ["A", "B", "A", "C"])
    y = np.array([1, 0, 1, 1])
    model = Glicko2Classifier().fit(X, y)
    ref = ref_glicko2_replay(X, y.astype(float))
    for p, (r, rd, vol) in ref.items():
        row = model.ratings_.set_index("player").loc[p]
        assert (row["rating"], row["rd"], row["volatility"]) == (
            pytest.approx(r),
            pytest.approx(rd),
            pytest.approx(vol),
        )
    same = Glicko2Classifier().fit(X.iloc[[0, 2, 1, 3]], y[[0, 2, 1, 3]])
    pd.testing.assert_frame_equal(model.ratings_, same.ratings_)
    # "a" and "c" sat out period "C": their deviation grew by one volatility step
    assert model.ratings_.set_index("player").loc["a", "last_period"] == "A"
    assert model.n_periods_ == 3


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(0, 3), st.booleans()),
        min_size=1,
        max_size=40,
    ).filter(lambda rows: any(a != b for a, b, _, _ in rows))
)
def test_schedule_replays_exactly_for_any_table(rows):
    rows = [r for r in rows if r[0] != r[1]]
    X = table([(f"p{a}", f"p{b}") for a, b, _, _ in rows], [f"T{t}" for _, _, t, _ in rows])
    y = np.array([int(w) for *_, w in rows])
    model = Glicko2Classifier(first_mover_advantage=30.0).fit(X, y)
    ref = ref_glicko2_replay(X, y.astype(float), h=30.0)
    got = _ratings(model)
    np.testing.assert_allclose([got[p] for p in ref], [ref[p][0] for p in ref], atol=1e-6)
    for by_period in (False, True):
        updates = "period" if by_period else "match"
        elo = EloClassifier(k_factor=24, updates=updates).fit(X, y)
        ref_elo = ref_elo_replay(X, y, k=24, by_period=by_period)
        got = _ratings(elo)
        np.testing.assert_allclose([got[p] for p in ref_elo], list(ref_elo.values()), atol=1e-9)


@pytest.mark.parametrize("updates", ["match", "period"])
def test_elo_fit_equals_sequential_replay(data, updates):
    model = EloClassifier(k_factor=32, updates=updates).fit(data.X, data.y)
    ref = ref_elo_replay(data.X, data.y, k=32, by_period=updates == "period")
    got = _ratings(model)
    np.testing.assert_allclose([got[p] for p in ref], list(ref.values()), rtol=0, atol=1e-9)


@pytest.mark.parametrize("periods", [None, 40, 3])
def test_elo_compiled_replay_equals_the_python_loop_to_the_bit(periods):
    rng = np.random.default_rng(7)
    n, n_players = 3_000, 60
    a = rng.integers(0, n_players, n)
    b = (a + rng.integers(1, n_players, n)) % n_players
    per = np.arange(n) if periods is None else np.sort(rng.integers(0, periods, n))
    per = np.unique(per, return_inverse=True)[1]
    score = rng.random(n)  # scores off {0, 1}, as with luck
    loop, compiled = np.full(n_players, 1500.0), np.full(n_players, 1500.0)
    elo_module._replay(a, b, per, score, loop, 24.0, 31.0, engine="python")
    elo_module._replay(a, b, per, score, compiled, 24.0, 31.0, engine="numba")
    assert np.array_equal(loop, compiled)
    assert not np.allclose(loop, 1500.0)


@pytest.mark.parametrize("updates", ["match", "period"])
def test_elo_fit_on_a_large_table_uses_the_compiled_replay(monkeypatch, updates):
    data = make_matches(n_matches=1_200, n_players=30, n_tournaments=6, random_state=3)
    monkeypatch.setattr(elo_module, "_KERNEL_MIN_MATCHES", 1_000)
    calls = []
    kernel = elo_module._replay_kernel()
    monkeypatch.setattr(elo_module, "_replay_kernel", lambda: calls.append(1) or kernel)
    compiled = EloClassifier(updates=updates).fit(data.X, data.y)
    assert calls
    ref = ref_elo_replay(data.X, data.y, k=20, by_period=updates == "period")
    got = _ratings(compiled)
    np.testing.assert_allclose([got[p] for p in ref], list(ref.values()), rtol=0, atol=1e-9)


def test_elo_probabilities_identical_to_skelo(data):
    skelo_elo = pytest.importorskip("skelo.model.elo")
    X = data.X.assign(t=np.arange(len(data.X)))  # skelo orders by timestamp: make it row order
    theirs = skelo_elo.EloEstimator(
        key1_field="player1", key2_field="player2", timestamp_field="t", default_k=20
    ).fit(X, data.y)
    ours = EloClassifier(k_factor=20).fit(data.X, data.y)
    later = X.assign(t=len(X))  # skelo's latest ratings: ours are those at the end of fit
    p_theirs = np.asarray(theirs.predict_proba(later))
    p_ours = ours.predict_proba(data.X)
    # skelo's column 0 is P(player 1 wins); ours is column 1, as classes_ says
    np.testing.assert_allclose(p_ours[:, 1], p_theirs[:, 0], rtol=1e-12, atol=0)
    np.testing.assert_allclose(p_ours[:, 0], p_theirs[:, 1], rtol=1e-12, atol=1e-15)


# ---------------------------------------------------------------------------
# Win probabilities
# ---------------------------------------------------------------------------


def test_glicko2_probability_uses_both_deviations(data):
    model = Glicko2Classifier().fit(data.X, data.y)
    r = model.ratings_.set_index("player")
    X = data.X.iloc[:50]
    p = model.predict_proba(X)[:, 1]
    mu1 = (r.loc[X["player1"], "rating"].to_numpy() - 1500) / SCALE
    mu2 = (r.loc[X["player2"], "rating"].to_numpy() - 1500) / SCALE
    phi1 = r.loc[X["player1"], "rd"].to_numpy() / SCALE
    phi2 = r.loc[X["player2"], "rd"].to_numpy() / SCALE
    expected = [
        1 / (1 + math.exp(-ref_g(math.sqrt(a**2 + b**2)) * (m1 - m2)))
        for m1, m2, a, b in zip(mu1, mu2, phi1, phi2)
    ]
    np.testing.assert_allclose(p, expected, rtol=1e-12)
    ignoring_rd = 1 / (1 + np.exp(-(mu1 - mu2)))
    assert np.max(np.abs(p - ignoring_rd)) > 0.01


def test_glicko2_probability_tends_to_half_as_rd_grows(data):
    model = Glicko2Classifier().fit(data.X, data.y)
    X = data.X.iloc[:20]
    base = model._phi2.copy()
    gaps = []
    for factor in (1, 10, 100, 10**4, 10**8):
        model._phi2 = base * factor
        gaps.append(np.max(np.abs(model.predict_proba(X)[:, 1] - 0.5)))
    model._phi2 = base
    assert all(a > b for a, b in itertools.pairwise(gaps))
    assert gaps[-1] < 1e-3


@pytest.mark.parametrize("make", [EloClassifier, Glicko2Classifier])
def test_swapping_players_complements_the_probability(data, make):
    model = make().fit(data.X, data.y)
    swapped = data.X.rename(
        columns={"player1": "player2", "player2": "player1", "deck1": "deck2", "deck2": "deck1"}
    )
    p = model.predict_proba(data.X)[:, 1]
    q = model.predict_proba(swapped)[:, 1]
    np.testing.assert_allclose(p + q, 1.0, atol=1e-12)


@pytest.mark.parametrize("make", [EloClassifier, Glicko2Classifier])
def test_first_mover_advantage(data, make):
    y = np.ones(len(data.y), dtype=int)
    y[::4] = 0  # player 1 wins 75 %
    model = make(first_mover_advantage="auto").fit(data.X, y)
    w = (y.sum() + 1) / (len(y) + 2)
    assert model.first_mover_advantage_ == pytest.approx(400 * math.log10(w / (1 - w)))
    strangers = table([("new1", "new2"), ("new2", "new1")])
    p = model.predict_proba(strangers)[:, 1]
    if make is EloClassifier:
        assert p[0] == pytest.approx(w)  # equal ratings: exactly player 1's win rate
    assert p[0] == pytest.approx(p[1]) and p[0] > 0.6
    fixed = make(first_mover_advantage=50.0).fit(data.X, data.y)
    assert fixed.first_mover_advantage_ == 50.0
    swapped = data.X.rename(columns={"player1": "player2", "player2": "player1"})
    both = fixed.predict_proba(data.X)[:, 1] + fixed.predict_proba(swapped)[:, 1]
    assert np.all(both > 1.0)  # moving first helps either player


@pytest.mark.parametrize("make", [EloClassifier, Glicko2Classifier])
def test_unseen_players_get_the_initial_rating(data, make):
    model = make().fit(data.X, data.y)
    known = data.X["player1"].iloc[0]
    X = table([("nobody", "stranger"), (known, "stranger"), ("stranger", known)])
    p = model.predict_proba(X)
    assert np.all(np.isfinite(p))
    assert p[0, 1] == 0.5
    assert p[1, 1] + p[2, 1] == pytest.approx(1.0)
    assert p[1, 1] != 0.5
    assert model.predict(X).tolist()[0] == 0  # a tie predicts class 0
    assert model.predict_proba(X.iloc[:0]).shape == (0, 2)


@pytest.mark.parametrize("make", [EloClassifier, Glicko2Classifier])
def test_integer_player_ids(make):
    X = table([(1, 2), (2, 3), (3, 1)])
    model = make().fit(X, [1, 1, 0])
    assert sorted(model.ratings_["player"]) == [1, 2, 3]
    # "1" (a string) is not the player 1: both are new
    assert model.predict_proba(table([("1", "2")]))[0, 1] == 0.5
    assert model.predict_proba(X)[0, 1] != 0.5


# ---------------------------------------------------------------------------
# The sklearn face
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("make", [EloClassifier, Glicko2Classifier])
def test_classes_and_brier_scorer_reads_the_right_column(data, make):
    model = make().fit(data.X, data.y)
    assert model.classes_.tolist() == [0, 1]
    proba = model.predict_proba(data.X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    score = brier_scorer(model, data.X, data.y)
    assert score == pytest.approx(-brier_score(data.y, proba[:, 1]))
    # the in-sample forecast beats a coin flip, and the reversed column is far worse
    assert -score < 0.25 < brier_score(data.y, proba[:, 0])
    np.testing.assert_array_equal(model.predict(data.X), (proba[:, 1] > 0.5).astype(int))


@pytest.mark.parametrize("make", [EloClassifier, Glicko2Classifier])
def test_one_class_still_has_both_classes(make):
    X = table([("a", "b"), ("b", "c")])
    model = make().fit(X, [1, 1])
    assert model.classes_.tolist() == [0, 1]
    assert model.predict_proba(X).shape == (2, 2)


@pytest.mark.parametrize("bad", [[1, 0.5, 1], [1, np.nan, 0], [1, 2, 0], ["win", 0, 1]])
@pytest.mark.parametrize("make", [EloClassifier, Glicko2Classifier])
def test_draws_and_nan_labels_are_rejected_not_read_as_wins(make, bad):
    X = table([("a", "b"), ("b", "c"), ("c", "a")])
    with pytest.raises(MatchTableError, match="must be 1"):
        make().fit(X, np.array(bad, dtype=object))
    if not isinstance(bad[0], str):
        with pytest.raises(MatchTableError, match="must be 1"):
            make().fit(X, np.array(bad, dtype=float))


@pytest.mark.parametrize("make", [EloClassifier, Glicko2Classifier])
def test_table_errors_are_clear(make):
    with pytest.raises(MatchTableError, match="must be a pandas DataFrame"):
        make().fit(np.zeros((3, 4)), [1, 0, 1])
    X = table([("a", "b"), ("b", "c")])
    with pytest.raises(MatchTableError, match="2 matches but y has 3"):
        make().fit(X, [1, 0, 1])
    with pytest.raises(MatchTableError, match="missing the column"):
        make().fit(X.drop(columns="deck2"), [1, 0])
    with pytest.raises(MatchTableError, match="faces themself"):
        make().fit(table([("a", "a")]), [1])


@pytest.mark.parametrize(
    ("make", "params", "message"),
    [
        (Glicko2Classifier, {"tau": 0}, "tau"),
        (Glicko2Classifier, {"tau": float("nan")}, "tau"),
        (Glicko2Classifier, {"initial_rd": -5}, "initial_rd"),
        (Glicko2Classifier, {"initial_rating": float("inf")}, "initial_rating"),
        (Glicko2Classifier, {"first_mover_advantage": "yes"}, "first_mover_advantage"),
        (EloClassifier, {"k_factor": -1}, "k_factor"),
        (EloClassifier, {"updates": "tournament"}, "updates"),
    ],
)
def test_bad_parameters_raise_value_error(make, params, message):
    X = table([("a", "b")])
    with pytest.raises(ValueError, match=message):
        make(**params).fit(X, [1])


@pytest.mark.parametrize("make", [EloClassifier, Glicko2Classifier])
def test_inputs_are_not_modified(data, make):
    X, y = data.X.copy(), data.y.copy()
    luck = np.linspace(-0.1, 0.1, len(y))
    luck_copy = luck.copy()
    with pytest.warns(LuckWarning, match="vary more than the raw outcomes"):  # made-up luck
        model = make().fit(X, y, luck=luck)
    model.predict_proba(X)
    pd.testing.assert_frame_equal(X, data.X)
    np.testing.assert_array_equal(y, data.y)
    np.testing.assert_array_equal(luck, luck_copy)


def test_luck_adjusts_the_scores(data):
    luck = np.random.default_rng(0).normal(0, 0.1, len(data.y))
    # luck drawn at random adds noise: the estimators say so, and adjust all the same
    with pytest.warns(LuckWarning, match="vary more than the raw outcomes"):
        model = EloClassifier().fit(data.X, data.y, luck=luck)
    ref = ref_elo_replay(data.X, data.y - luck)
    got = _ratings(model)
    np.testing.assert_allclose([got[p] for p in ref], list(ref.values()), atol=1e-9)
    with pytest.warns(LuckWarning, match="vary more than the raw outcomes"):
        g = Glicko2Classifier().fit(data.X, data.y, luck=luck)
    ref_g2 = ref_glicko2_replay(data.X, data.y - luck)
    got = _ratings(g)
    np.testing.assert_allclose([got[p] for p in ref_g2], [v[0] for v in ref_g2.values()])
    zero = Glicko2Classifier().fit(data.X, data.y, luck=np.zeros(len(data.y)))
    pd.testing.assert_frame_equal(zero.ratings_, Glicko2Classifier().fit(data.X, data.y).ratings_)


@pytest.mark.parametrize(
    ("luck", "message"),
    [
        ([0.1, 0.2], "3 matches but luck has 2"),
        ([0.1, np.nan, 0], "finite"),
        (["a", 0, 0], "luck must be numbers"),
    ],
)
def test_bad_luck_is_rejected(luck, message):
    X = table([("a", "b"), ("b", "c"), ("c", "a")])
    with pytest.raises(ValueError, match=message):
        Glicko2Classifier().fit(X, [1, 0, 1], luck=luck)


@pytest.mark.parametrize("make", [EloClassifier, Glicko2Classifier])
def test_pickle_round_trip_and_clone(data, make):
    model = make(first_mover_advantage="auto").fit(data.X, data.y)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict_proba(data.X), model.predict_proba(data.X))
    pd.testing.assert_frame_equal(again.ratings_, model.ratings_)
    fresh = clone(model)
    assert fresh.get_params() == model.get_params()
    assert not hasattr(fresh, "ratings_")


def test_ratings_table_columns(data):
    g = Glicko2Classifier().fit(data.X, data.y)
    assert g.ratings_.columns.tolist() == [
        "player",
        "rating",
        "rd",
        "volatility",
        "matches",
        "last_period",
    ]
    assert g.ratings_["rating"].is_monotonic_decreasing
    assert g.ratings_["matches"].sum() == 2 * len(data.X)
    e = EloClassifier().fit(data.X.drop(columns="period"), data.y)
    assert e.ratings_.columns.tolist() == ["player", "rating", "matches", "last_period"]
    # without periods, the last period is the row of the player's last match
    last = e.ratings_.set_index("player")["last_period"]
    p = data.X["player1"].iloc[-1]
    assert last[p] == len(data.X) - 1


def test_public_names():
    assert skcodex.Glicko2Classifier is Glicko2Classifier
    assert skcodex.EloClassifier is EloClassifier


@pytest.mark.parametrize(
    ("make", "grid"),
    [(EloClassifier, {"k_factor": [8, 32]}), (Glicko2Classifier, {"tau": [0.3, 1.2]})],
)
def test_grid_search_time_series_split(data, make, grid):
    search = GridSearchCV(
        make(), grid, scoring=brier_scorer, cv=TimeSeriesSplit(n_splits=3), error_score="raise"
    ).fit(data.X, data.y)
    # Each setting's score is its mean Brier score over the folds, computed by hand, and
    # the best is the setting with the lowest.
    (name, values), cv = next(iter(grid.items())), TimeSeriesSplit(n_splits=3)
    by_hand = []
    for value in values:
        folds = []
        for train, test in cv.split(data.X):
            model = make(**{name: value}).fit(data.X.iloc[train], data.y[train])
            folds.append(brier_score(data.y[test], model.predict_proba(data.X.iloc[test])[:, 1]))
        by_hand.append(-np.mean(folds))
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], by_hand, rtol=1e-12)
    assert by_hand[0] != by_hand[1]
    assert search.best_params_ == {name: values[int(np.argmax(by_hand))]}


@pytest.mark.parametrize(
    ("make", "grid"),
    [(EloClassifier, {"k_factor": [8, 32]}), (Glicko2Classifier, {"tau": [0.3, 1.2]})],
)
def test_grid_search_tournament_split(data, make, grid):
    model_selection = pytest.importorskip("skcodex.model_selection")
    cv = model_selection.TournamentSplit(n_splits=3)
    search = GridSearchCV(make(), grid, scoring=brier_scorer, cv=cv, error_score="raise")
    search.fit(data.X, data.y, groups=data.X["period"])
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))


def test_cross_val_score_passes_luck_per_fold(data):
    luck = np.zeros(len(data.y))
    scores = cross_val_score(
        EloClassifier(),
        data.X,
        data.y,
        scoring=brier_scorer,
        cv=TimeSeriesSplit(n_splits=3),
        params={"luck": luck},
    )
    plain = cross_val_score(
        EloClassifier(), data.X, data.y, scoring=brier_scorer, cv=TimeSeriesSplit(n_splits=3)
    )
    np.testing.assert_allclose(scores, plain)


# ---------------------------------------------------------------------------
# scikit-learn's estimator checks, on match tables
# ---------------------------------------------------------------------------
# The checks feed numeric arrays; `match_table_adapter` turns each into a match table
# row by row, so every check that can run on a match table runs on the estimators'
# own code. The few that cannot are listed with their reason, and each must fail for
# exactly that reason.


@parametrize_with_checks([AdaptedElo(), AdaptedGlicko2()])
def test_sklearn_estimator_checks(estimator, check):
    expected = RATINGS_EXPECTED_FAILURES.get(check_name(check))
    if expected is None:
        check(estimator)
        return
    assert_fails_as_stated(check, estimator, expected)
    pytest.xfail(expected.reason)


def test_every_expected_failure_is_a_check_that_runs():
    names = {check_name(c) for _, c in parametrize_with_checks([AdaptedElo()]).args[1]}
    assert set(RATINGS_EXPECTED_FAILURES) <= names


def test_an_expected_failure_for_another_reason_is_reported():
    """The stated reason is checked: a check failing otherwise is a real failure."""

    def check_failing_otherwise(estimator):
        estimator.fit(np.zeros((4, 2)), [0, 1, 0, 1])
        raise AssertionError("something else broke")

    def check_passing(estimator):
        pass

    stated = RATINGS_EXPECTED_FAILURES["check_complex_data"]
    with pytest.raises(AssertionError, match="not for its stated reason"):
        assert_fails_as_stated(check_failing_otherwise, AdaptedElo(), stated)
    with pytest.raises(AssertionError, match="listed as an expected failure but passed"):
        assert_fails_as_stated(check_passing, AdaptedElo(), stated)


@pytest.mark.parametrize("make", [EloClassifier, Glicko2Classifier])
def test_adapter_feeds_the_estimators_a_match_table(data, make):
    """The adapted estimator is the estimator: same parameters, same forecasts on a table."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 3, (60, 4))
    y = rng.integers(0, 2, 60)
    adapted = {"EloClassifier": AdaptedElo, "Glicko2Classifier": AdaptedGlicko2}[make.__name__]
    table = to_match_table(X)
    assert list(table.columns) == ["player1", "player2", "deck1", "deck2"]
    np.testing.assert_array_equal(table.iloc[7], to_match_table(X[7:8]).iloc[0])
    np.testing.assert_array_equal(
        adapted().fit(X, y).predict_proba(X), make().fit(table, y).predict_proba(table)
    )
    assert adapted().get_params() == make().get_params()


# ---------------------------------------------------------------------------
# Values the mutation run found unguarded, each against an independent computation
# ---------------------------------------------------------------------------


def test_glicko2_update_default_tau_is_half():
    # the volatility-moving case of test_volatility_moves_and_matches_brentq
    player = (1800.0, 60.0, 0.06)
    opponents = [(1450.0 + 10 * j, 40.0 + 5 * j) for j in range(20)]
    scores = [0.0] * 20
    default = glicko2_update(player, opponents, scores)
    assert default == glicko2_update(player, opponents, scores, tau=0.5)
    mu, phi = (player[0] - 1500) / SCALE, player[1] / SCALE
    opp = [((r - 1500) / SCALE, d / SCALE) for r, d in opponents]
    vol_half = ref_update(mu, phi, player[2], opp, scores, 0.5)[2]
    vol_wide = ref_update(mu, phi, player[2], opp, scores, 1.5)[2]
    assert abs(vol_half - vol_wide) > 1e-3  # tau matters here
    assert default[2] == pytest.approx(vol_half, rel=1e-6)


def test_glicko2_update_ignores_an_opponents_volatility():
    with_vol = [(r, rd, 0.5) for r, rd in PAPER_OPPONENTS]
    assert glicko2_update(PAPER_PLAYER, with_vol, PAPER_SCORES) == glicko2_update(
        PAPER_PLAYER, PAPER_OPPONENTS, PAPER_SCORES
    )
    with pytest.raises(ValueError, match=r"opponent 0 must be \(rating, rd\)"):
        glicko2_update(PAPER_PLAYER, [(1400, 30, 0.06, 1)], [1])


@pytest.mark.parametrize(
    ("player", "opponents", "kwargs", "message"),
    [
        (
            ("1500", 200, 0.06),
            PAPER_OPPONENTS,
            {},
            "the player's rating must be a number, got '1500'",
        ),
        ((True, 200, 0.06), PAPER_OPPONENTS, {}, "the player's rating must be a number, got True"),
        ((math.inf, 200, 0.06), PAPER_OPPONENTS, {}, "the player's rating must be finite, got inf"),
        ((1500, 0, 0.06), PAPER_OPPONENTS, {}, "the player's rd must be > 0, got 0"),
        ((1500, 200, 0), PAPER_OPPONENTS, {}, "the player's volatility must be > 0, got 0"),
        ((1500, 200, -0.1), PAPER_OPPONENTS, {}, "the player's volatility must be > 0, got -0.1"),
        (
            (1500, 200, "x"),
            PAPER_OPPONENTS,
            {},
            "the player's volatility must be a number, got 'x'",
        ),
        (PAPER_PLAYER, PAPER_OPPONENTS, {"epsilon": 0}, "epsilon must be > 0, got 0"),
        (PAPER_PLAYER, PAPER_OPPONENTS, {"epsilon": -1e-6}, "epsilon must be > 0, got -1e-06"),
        (PAPER_PLAYER, PAPER_OPPONENTS, {"tau": "0.5"}, "tau must be a number, got '0.5'"),
        (
            PAPER_PLAYER,
            [(1400, 30), ("1550", 100), (1700, 300)],
            {},
            "opponent 1's rating must be a number, got '1550'",
        ),
        (
            PAPER_PLAYER,
            [(1400, 30), (1550, 0), (1700, 300)],
            {},
            "opponent 1's rd must be > 0, got 0",
        ),
        (
            PAPER_PLAYER,
            [(1400, 30), (1550, 100), (1700, -300)],
            {},
            "opponent 2's rd must be > 0, got -300",
        ),
    ],
)
def test_update_names_the_bad_value(player, opponents, kwargs, message):
    with pytest.raises(ValueError) as err:
        glicko2_update(player, opponents, PAPER_SCORES, **kwargs)
    assert str(err.value) == message


def test_glicko2_other_initial_values_equal_the_replay(data):
    init = (1650.0, 120.0, 0.09)
    model = Glicko2Classifier(
        tau=0.7,
        epsilon=1e-12,
        initial_rating=init[0],
        initial_rd=init[1],
        initial_volatility=init[2],
    ).fit(data.X, data.y)
    ref = ref_glicko2_replay(data.X, data.y.astype(float), tau=0.7, init=init)
    for col, pos in (("rating", 0), ("rd", 1), ("volatility", 2)):
        got = _ratings(model, col)
        np.testing.assert_allclose(
            [got[p] for p in ref], [ref[p][pos] for p in ref], rtol=1e-7, atol=1e-6
        )


def _glickman_p_win(r1, rd1, r2, rd2, h):
    """Glickman's win probability on the rating scale, written out with scalars."""
    mu1, mu2 = (r1 - 1500.0) / SCALE, (r2 - 1500.0) / SCALE
    phi = math.hypot(rd1 / SCALE, rd2 / SCALE)
    return 1.0 / (1.0 + math.exp(-ref_g(phi) * (mu1 + h / SCALE - mu2)))


@pytest.mark.parametrize("h", [0.0, 80.0, -45.0])
def test_glicko2_probabilities_follow_glickmans_formula(data, h):
    init = (1580.0, 200.0)
    model = Glicko2Classifier(
        first_mover_advantage=h, initial_rating=init[0], initial_rd=init[1]
    ).fit(data.X, data.y)
    r = model.ratings_.set_index("player")
    pairs = [("player01", "player02"), ("player05", "player03"), ("player04", "stranger")]
    got = model.predict_proba(table(pairs))[:, 1]

    def rating(p):
        return (r.loc[p, "rating"], r.loc[p, "rd"]) if p in r.index else init

    want = [_glickman_p_win(*rating(a), *rating(b), h) for a, b in pairs]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_elo_expected_score_at_a_vast_gap_is_zero_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e = elo_module._expected(np.array([0.0, 0.0]), np.array([2e5, 0.0]), 0.0)
    np.testing.assert_array_equal(e, [0.0, 0.5])


def ref_illinois(delta, phi, v, sigma, tau, epsilon, max_iter):
    """Step 5 of Glickman's paper with scalars, stopped after ``max_iter`` passes of 5.4."""
    a = math.log(sigma**2)

    def f(x):
        return float(ref_f(x, delta, phi, v, sigma, tau))

    A = a
    if delta**2 > phi**2 + v:
        B = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        B = a - k * tau
    fA, fB = f(A), f(B)
    for _ in range(max_iter):
        if abs(B - A) <= epsilon:
            break
        C = A + (A - B) * fA / (fB - fA)
        fC = f(C)
        if fC * fB <= 0:
            A, fA = B, fB
        else:
            fA = fA / 2
        B, fB = C, fC
    return math.exp(A / 2)


ILLINOIS_CASES = {
    # (player, opponents, scores, tau)
    # the volatility moves (delta^2 > phi^2 + v); the kept end point A moves at the
    # 4th, 6th and 7th step
    "losing streak": (
        (1800.0, 60.0, 0.06),
        [(1450.0 + 10 * j, 40.0 + 5 * j) for j in range(20)],
        [0.0] * 20,
        1.2,
    ),
    # Glickman's example, where delta^2 <= phi^2 + v: the bracket is found by the
    # search f(a - k tau) >= 0, which with tau = 1.2 stops at k = 1, where 0 < f < 1
    "paper": (PAPER_PLAYER, PAPER_OPPONENTS, PAPER_SCORES, 1.2),
    # a hundred draws by a certain, wildly volatile player with tau = 10: phi^2 + v is
    # small and f(a - tau) < 0, so the search needs k = 2
    "draws": ((1500.0, 30.0, 40.0), [(1500.0, 30.0)] * 100, [0.5] * 100, 10.0),
}


@pytest.mark.parametrize("case", sorted(ILLINOIS_CASES))
@pytest.mark.parametrize("max_iter", [1, 2, 4, 6, 7, 200])
def test_volatility_iteration_follows_the_paper_step_by_step(monkeypatch, case, max_iter):
    # stopping the iteration early shows each step (and the value it stops at)
    # against the paper's recipe
    monkeypatch.setattr(glicko2_module, "_MAX_ITER", max_iter)
    player, opponents, scores, tau = ILLINOIS_CASES[case]
    got = glicko2_update(player, opponents, scores, tau=tau, epsilon=1e-12)[2]
    mu, phi = (player[0] - 1500) / SCALE, player[1] / SCALE
    opp = [((r - 1500) / SCALE, d / SCALE) for r, d in opponents]
    v, delta, _ = ref_quantities(mu, phi, opp, scores)
    want = ref_illinois(delta, phi, v, player[2], tau, 1e-12, max_iter)
    assert got == pytest.approx(want, rel=1e-12)
    if max_iter == 200:
        assert got == pytest.approx(ref_volatility(delta, phi, v, player[2], tau), rel=1e-9)
    if case == "losing streak" and max_iter < 8:  # away from the root: the stop is visible
        assert abs(got - ref_volatility(delta, phi, v, player[2], tau)) > 1e-6


def test_the_bracket_search_runs_in_the_draws_case():
    player, opponents, scores, tau = ILLINOIS_CASES["draws"]
    mu, phi = (player[0] - 1500) / SCALE, player[1] / SCALE
    opp = [((r - 1500) / SCALE, d / SCALE) for r, d in opponents]
    v, delta, _ = ref_quantities(mu, phi, opp, scores)
    assert delta**2 <= phi**2 + v
    assert ref_f(math.log(player[2] ** 2) - tau, delta, phi, v, player[2], tau) < 0


def test_first_mover_points_refuses_a_value_that_is_not_finite():
    with pytest.raises(ValueError) as err:
        ratings_base.first_mover_points(float("nan"), np.array([1.0, 0.0]))
    assert str(err.value) == "first_mover_advantage must be finite or 'auto', got nan"


def test_elo_python_engine_never_loads_the_compiled_kernel(monkeypatch):
    def no_kernel():
        raise AssertionError("the compiled kernel was asked for")

    monkeypatch.setattr(elo_module, "_replay_kernel", no_kernel)
    rating = np.full(3, 1500.0)
    a, b = np.array([0, 1, 2]), np.array([1, 2, 0])
    elo_module._replay(
        a, b, np.arange(3), np.array([1.0, 1.0, 0.0]), rating, 20.0, 0.0, engine="python"
    )
    want = ref_elo_replay(table([(0, 1), (1, 2), (2, 0)]), [1.0, 1.0, 0.0])
    np.testing.assert_allclose(rating, [want[0], want[1], want[2]], rtol=1e-12)


def test_schedule_levels_are_the_longest_chain_of_shared_players():
    # T1 (a-b), T2 (c-d) and T4 (e-f) share no player: level 1; T3 (b-c) and T5
    # (a-e) each follow level-1 periods only and share no player: level 2
    X = table(
        [("a", "b"), ("c", "d"), ("b", "c"), ("e", "f"), ("a", "e")],
        ["T1", "T2", "T3", "T4", "T5"],
    )
    data = ratings_base.prepare_training(X, [1, 0, 1, 1, 0])
    sched = ratings_base.build_schedule(data.player1, data.player2, data.period, data.n_players)
    assert sched.n_levels == 2
    levels = [sorted(data.players[sched.slot_player[slots]]) for _, slots in sched.levels()]
    assert levels == [["a", "b", "c", "d", "e", "f"], ["a", "b", "c", "e"]]


def test_a_clean_outcome_array_takes_the_fast_path(monkeypatch):
    def slow(y, n):
        raise AssertionError("the full outcome check was run")

    monkeypatch.setattr(ratings_base, "check_outcome", slow)
    for y in (np.array([0, 1, 1]), np.array([True, False, True]), np.array([0.0, 1.0, 0.0])):
        np.testing.assert_array_equal(ratings_base.check_outcome_fast(y, 3), y.astype(int))
    with pytest.raises(AssertionError, match="full outcome check"):
        ratings_base.check_outcome_fast(np.array([0, 2, 1]), 3)


def test_ratings_are_sorted_as_numbers_not_as_text():
    # ratings either side of 1000: as text, "999.4" would come before "1010.2"
    X = table([("a", "b"), ("c", "d")])
    model = EloClassifier(k_factor=40, initial_rating=1000).fit(X, [1, 0])
    assert model.ratings_["player"].tolist() == ["a", "d", "b", "c"]
    assert model.ratings_["rating"].tolist() == [1020.0, 1020.0, 980.0, 980.0]


def test_elo_small_tables_replay_without_the_compiled_kernel(monkeypatch):
    def no_kernel():
        raise AssertionError("the compiled kernel was asked for")

    monkeypatch.setattr(elo_module, "_replay_kernel", no_kernel)
    rating = np.full(3, 1500.0)
    args = (np.array([0, 1]), np.array([1, 2]), np.arange(2), np.array([1.0, 0.0]), rating)
    elo_module._replay(*args, 20.0, 0.0)  # engine="auto" by default
    want = ref_elo_replay(table([(0, 1), (1, 2)]), [1.0, 0.0])
    np.testing.assert_allclose(rating, [want[0], want[1], want[2]], rtol=1e-12)


def test_ratings_never_read_the_decks():
    X = table([("a", "b"), ("b", "c")])
    X["deck1"], X["deck2"] = "Kick Boxer", "no deck of Codex"
    for make in (EloClassifier, Glicko2Classifier):
        model = make().fit(X, [1, 0])
        assert model.predict_proba(X).shape == (2, 2)


@pytest.mark.parametrize("make", [EloClassifier, Glicko2Classifier])
@pytest.mark.parametrize("as_object", [False, True])
def test_period_months_give_the_same_forecasts_whatever_the_row_order(make, as_object):
    """Months given as pandas Periods are replayed in month order, not row order."""
    data = make_matches(n_players=16, n_matches=240, n_tournaments=6, random_state=5)
    k = pd.factorize(data.X["period"])[0]
    months = pd.Series(pd.PeriodIndex([f"2024-{i + 1:02d}" for i in k], freq="M"))
    X = data.X.drop(columns="date").assign(
        period=(months.astype(object) if as_object else months).to_numpy()
    )
    later_first = np.argsort(-k, kind="stable")  # the last month's rows first, each in order
    sorted_p = make().fit(X, data.y).predict_proba(X)
    shuffled_p = make().fit(X.iloc[later_first], data.y[later_first]).predict_proba(X)
    assert np.array_equal(sorted_p, shuffled_p)
    # and as text labels (no order of their own) the row order would matter
    text = X.assign(period=months.astype(str).to_numpy())
    text_p = make().fit(text.iloc[later_first], data.y[later_first]).predict_proba(X)
    assert not np.allclose(text_p, sorted_p)
