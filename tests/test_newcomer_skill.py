"""``newcomer_skill``: a never-seen player's skill drawn around the table's late arrivals.

Checked against an independent integral of the forecast, against known truth (a simulated
table whose late arrivals are weaker), and for what must not move.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import integrate
from scipy.special import expit

from skcodex import BayesianMatchupClassifier, load
from skcodex._matchup import newcomers
from skcodex.datasets import make_matches

FAST = {"draws": 100, "tune": 200, "chains": 2, "random_state": 0}


def _fit(X, y, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return BayesianMatchupClassifier(**{**FAST, **params}).fit(X, y)


@pytest.fixture(scope="module")
def table():
    data = make_matches(n_players=24, n_matches=300, n_tournaments=5, random_state=3)
    train = (data.X["period"] != "T5").to_numpy()
    return data.X[train], data.y[train], data.X[~train].iloc[:6].reset_index(drop=True)


@pytest.fixture(scope="module")
def fitted(table):
    X, y, _ = table
    return _fit(X, y)


def test_late_arrivals_are_the_players_missing_from_the_first_period(table, fitted):
    X, _, _ = table
    players = fitted.vocabulary_.players
    opening = X[X["period"] == "T1"]
    expected = sorted(set(players) - set(opening["player1"]) - set(opening["player2"]))
    assert [players[i] for i in fitted.late_arrivals_] == expected
    assert len(expected) > 0
    # the first period is the one that begins first in time, whatever the rows' order
    shuffled = X.sample(frac=1.0, random_state=1)
    np.testing.assert_array_equal(newcomers.late_arrivals(shuffled, players), fitted.late_arrivals_)
    assert len(newcomers.late_arrivals(X.drop(columns="period"), players)) == 0


def _population(clf, X):
    return clf.set_params(newcomer_skill="population").predict_proba(X)[:, 1]


def test_a_newcomer_forecast_matches_an_independent_integral(table, fitted):
    _, _, test = table
    clf = fitted.set_params(newcomer_skill="late arrivals")
    seen = test["player1"].iloc[0]
    match = test.iloc[[0]].assign(player1="someone new")
    p = clf.predict_proba(match)[0, 1]

    # the known part: the same match with a seen player 1, less that player's skill
    players = list(clf.vocabulary_.players)
    skill = clf.effect_draws_[:, : len(players)]
    sd = clf.spread_draws_[:, list(clf.layout_.spreads).index("player")]
    q = clf.predict_proba_draws(test.iloc[[0]])[:, 0]
    known = np.log(q / (1 - q)) - skill[:, players.index(seen)]
    late = skill[:, clf.late_arrivals_]
    m = (late.sum(axis=1) / sd**2) / (late.shape[1] / sd**2 + 1 / 0.5**2)

    def density(u, k, mu, s):
        return expit(k + u) * np.exp(-0.5 * ((u - mu) / s) ** 2) / (s * np.sqrt(2 * np.pi))

    per_draw = [
        integrate.quad(density, mu - 12 * s, mu + 12 * s, args=(k, mu, s))[0]
        for k, mu, s in zip(known, m, sd)
    ]
    assert p == pytest.approx(np.mean(per_draw), abs=1e-7)
    # "population" is the same integral around 0
    per_draw0 = [
        integrate.quad(density, -12 * s, 12 * s, args=(k, 0.0, s))[0] for k, s in zip(known, sd)
    ]
    assert _population(clf, match)[0] == pytest.approx(np.mean(per_draw0), abs=1e-7)
    assert abs(np.mean(per_draw) - np.mean(per_draw0)) > 1e-4  # it moved


def test_only_matches_of_one_never_seen_player_move(table, fitted):
    _, _, test = table
    mixed = test.copy()
    mixed.loc[1, "player2"] = "new two"
    mixed.loc[2, ["player1", "player2"]] = ["new a", "new b"]  # the means cancel
    before = mixed.copy()
    shifted = fitted.set_params(newcomer_skill="late arrivals").predict_proba(mixed)[:, 1]
    plain = _population(fitted, mixed)
    pd.testing.assert_frame_equal(mixed, before)
    moved = np.abs(shifted - plain) > 1e-6
    np.testing.assert_array_equal(moved, [False, True, False, False, False, False])

    # per draw, the never-seen player's skill draw moves by the mean: player 2's log-odds
    # fall by m_d, and no other match moves
    def log_odds(skill):
        p = fitted.set_params(newcomer_skill=skill).predict_proba_draws(mixed)
        return np.log(p / (1 - p))

    gap = log_odds("late arrivals") - log_odds("population")
    fitted.set_params(newcomer_skill="late arrivals")
    np.testing.assert_allclose(gap[:, 1], -fitted._newcomer_skill_mean(), atol=1e-9)
    np.testing.assert_allclose(np.delete(gap, 1, axis=1), 0.0, atol=1e-12)


def test_no_period_or_the_debut_option_leaves_the_population(table):
    X, y, test = table
    match = test.iloc[[0]].assign(player1="someone new")
    no_period = _fit(X.drop(columns=["period", "date"]), y)
    assert len(no_period.late_arrivals_) == 0
    assert no_period.predict_proba(match)[0, 1] == _population(no_period, match)[0]
    with_debut = _fit(X, y, debut=True)
    assert len(with_debut.late_arrivals_) > 0
    with_debut.set_params(newcomer_skill="late arrivals")
    assert with_debut.predict_proba(match)[0, 1] == _population(with_debut, match)[0]


def test_a_saved_model_keeps_its_late_arrivals(tmp_path, table, fitted):
    _, _, test = table
    match = test.iloc[[0]].assign(player1="someone new")
    fitted.set_params(newcomer_skill="late arrivals")
    loaded = load(fitted.save(tmp_path / "model.skcodex"))
    np.testing.assert_array_equal(loaded.late_arrivals_, fitted.late_arrivals_)
    assert loaded.predict_proba(match)[0, 1] == fitted.predict_proba(match)[0, 1]
    loaded.late_arrivals_ = None  # a file saved before: the population's mean
    assert loaded.predict_proba(match)[0, 1] == _population(fitted, match)[0]


def test_a_bad_value_is_named():
    X = pd.DataFrame({"player1": ["a"], "player2": ["b"], "deck1": ["Red"], "deck2": ["Blue"]})
    with pytest.raises(ValueError, match="newcomer_skill"):
        BayesianMatchupClassifier(newcomer_skill="late").fit(X, [1])


@pytest.mark.slow
def test_weaker_late_arrivals_are_found_and_forecast_better():
    """Known truth: players who join after the first period are 1.5 log-odds weaker."""
    rng = np.random.default_rng(7)
    early = {f"e{i}": rng.normal(0.0, 1.0) for i in range(30)}
    late = {f"l{i}": rng.normal(-1.5, 1.0) for i in range(30)}
    newcomers_ = {f"n{i}": rng.normal(-1.5, 1.0) for i in range(30)}
    skill = {**early, **late, **newcomers_}
    rows = []
    for period in range(6):
        pool = list(early) + [p for i, p in enumerate(late) if period >= 1 + i % 5]
        for _ in range(150):
            a, b = rng.choice(pool, size=2, replace=False)
            rows.append((a, b, f"T{period}"))
    for n in newcomers_:  # the forecast period: each newcomer meets seen players
        for b in rng.choice(list(early) + list(late), size=4, replace=False):
            rows.append((n, b, "T6") if rng.random() < 0.5 else (b, n, "T6"))
    X = pd.DataFrame(rows, columns=["player1", "player2", "period"])
    decks = make_matches(n_players=4, n_matches=40, random_state=0).X["deck1"].unique()
    X["deck1"] = rng.choice(decks, size=len(X))
    X["deck2"] = rng.choice(decks, size=len(X))
    X["date"] = pd.to_datetime("2020-01-01") + pd.to_timedelta(
        X["period"].str[1:].astype(int) * 30, unit="D"
    )
    y = (rng.random(len(X)) < expit(X["player1"].map(skill) - X["player2"].map(skill))).astype(int)
    train = (X["period"] != "T6").to_numpy()
    clf = _fit(X[train], y[train], draws=500, tune=500)
    late_codes = clf.late_arrivals_
    assert sorted(clf.vocabulary_.players[i] for i in late_codes) == sorted(late)
    # skills are measured from the training players' mean, so the late arrivals' true
    # mean there is about -0.75; the estimate lies between it and 0 (shrunk twice: each
    # skill by its own few matches, and the mean by its prior)
    target = np.mean([late[p] for p in late]) - np.mean([skill[p] for p in {**early, **late}])
    assert target < -0.5
    m = clf._newcomer_skill_mean()
    assert 1.5 * target < np.median(m) < 0.3 * target
    test = X[~train]
    truth = expit(test["player1"].map(skill) - test["player2"].map(skill)).to_numpy()
    shifted = clf.predict_proba(test)[:, 1]
    plain = _population(clf, test)
    assert np.mean(np.abs(shifted - truth)) < np.mean(np.abs(plain - truth))
    # on the newcomer's side, "population" overrates newcomers; the late arrivals less so
    first = test["player1"].isin(newcomers_).to_numpy()

    def bias(p):
        return np.mean(np.where(first, p - truth, truth - p))

    assert bias(plain) > bias(shifted) > -bias(plain)


def test_the_report_says_whom_newcomers_are_drawn_around(fitted):
    from skcodex.report import describe_model

    late = len(fitted.late_arrivals_)
    assert (
        describe_model(fitted.set_params(newcomer_skill="late arrivals"))["late_arrivals"] == late
    )
    assert describe_model(fitted.set_params(newcomer_skill="population"))["late_arrivals"] == 0
    fitted.set_params(newcomer_skill="late arrivals")
