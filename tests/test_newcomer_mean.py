"""Newcomers drawn around the late arrivals (benchmarks/newcomer_mean.py), against hand counts
and an independent computation of the forecast."""

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import integrate
from scipy.special import expit

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from newcomer_mean import TAU, late_arrivals, newcomer_mean_forecasts

from skcodex import BayesianMatchupClassifier
from skcodex.datasets import make_matches


def test_late_arrivals_are_the_players_missing_from_the_earliest_period():
    X = pd.DataFrame(
        {
            "player1": ["c", "a", "d", "e"],
            "player2": ["a", "b", "a", "c"],
            "period": ["t2", "t1", "t2", "t3"],
            "date": pd.to_datetime(["2020-02-01", "2020-01-01", "2020-02-02", "2020-03-01"]),
        }
    )
    before = X.copy()
    assert late_arrivals(X) == {"c", "d", "e"}  # t1, the earliest match's period, had a and b
    pd.testing.assert_frame_equal(X, before)


@pytest.fixture(scope="module")
def fitted():
    data = make_matches(n_players=24, n_matches=300, n_tournaments=5, random_state=3)
    train = data.X["period"] != "T5"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = BayesianMatchupClassifier(
            draws=100, tune=200, chains=2, random_state=0, time_varying=False, debut=False
        ).fit(data.X[train], data.y[train])
    return clf, data.X[train], data.X[~train].iloc[:6].reset_index(drop=True)


def test_a_newcomer_forecast_matches_an_independent_integral(fitted):
    clf, train, test = fitted
    late = late_arrivals(train)
    assert late  # the fixture's table has players who joined after its first period
    seen = test["player1"].iloc[0]
    match = test.iloc[[0]].assign(player1="someone new")
    p, n = newcomer_mean_forecasts(clf, match, late)
    assert n == len(late)

    # independently: the same match with a seen player 1, minus that player's skill draws,
    # is the known part; the newcomer adds N(m_d, sd_d^2), m_d from the late arrivals
    players = list(clf.vocabulary_.players)
    skill = clf.effect_draws_[:, : len(players)]
    sd = clf.spread_draws_[:, list(clf.layout_.spreads).index("player")]
    logit = np.log(clf.predict_proba_draws(test.iloc[[0]])[:, 0])
    logit -= np.log1p(-np.exp(logit))
    known = logit - skill[:, players.index(seen)]
    late_skill = skill[:, [players.index(p) for p in late]]
    m = (late_skill.sum(axis=1) / sd**2) / (len(late) / sd**2 + 1 / TAU**2)
    per_draw = [
        integrate.quad(
            lambda u, k=k, mu=mu, s=s: (
                expit(k + u) * np.exp(-0.5 * ((u - mu) / s) ** 2) / (s * np.sqrt(2 * np.pi))
            ),
            mu - 12 * s,
            mu + 12 * s,
        )[0]
        for k, mu, s in zip(known, m, sd)
    ]
    assert p[0] == pytest.approx(np.mean(per_draw), abs=1e-7)
    assert p[0] != pytest.approx(clf.predict_proba(match)[0, 1], abs=1e-4)  # it moved


def test_without_a_shift_or_a_single_newcomer_the_forecast_is_predict_proba(fitted):
    clf, train, test = fitted
    late = late_arrivals(train)
    mixed = test.copy()
    mixed.loc[1, "player2"] = "new two"
    mixed.loc[2, ["player1", "player2"]] = ["new a", "new b"]  # the means cancel
    static = clf.predict_proba(mixed)[:, 1]
    unshifted, _ = newcomer_mean_forecasts(clf, mixed, late, shift=False)
    np.testing.assert_allclose(unshifted, static, rtol=0, atol=1e-12)
    moved, _ = newcomer_mean_forecasts(clf, mixed, late)
    untouched = [0, 2, 3, 4, 5]  # seen players, or two newcomers
    np.testing.assert_array_equal(moved[untouched], static[untouched])
    assert moved[1] != static[1]
    # no late arrivals: nothing moves
    none, n = newcomer_mean_forecasts(clf, mixed, set())
    assert n == 0
    np.testing.assert_array_equal(none, static)
