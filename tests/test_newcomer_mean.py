"""The newcomer-mean benchmark (benchmarks/newcomer_mean.py): its late arrivals by hand, and its
reference computation against the estimator's ``newcomer_skill``."""

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from newcomer_mean import late_arrivals, newcomer_mean_forecasts, population

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


def test_the_estimator_agrees_with_the_reference_computation(fitted):
    clf, train, test = fitted
    late = late_arrivals(train)
    mixed = test.copy()
    mixed.loc[0, "player1"] = "new one"
    mixed.loc[1, "player2"] = "new two"
    mixed.loc[2, ["player1", "player2"]] = ["new a", "new b"]  # the means cancel
    reference, n = newcomer_mean_forecasts(clf, mixed, late)
    assert n == len(late) > 0
    np.testing.assert_allclose(clf.predict_proba(mixed)[:, 1], reference, rtol=0, atol=1e-12)
    unshifted, _ = newcomer_mean_forecasts(clf, mixed, late, shift=False)
    np.testing.assert_allclose(unshifted, population(clf, mixed), rtol=0, atol=1e-12)
    assert clf.newcomer_skill == "late arrivals"  # population() put it back
    moved = np.abs(reference - unshifted) > 1e-6
    np.testing.assert_array_equal(moved, [True, True, False, False, False, False])
    none, n = newcomer_mean_forecasts(clf, mixed, set())  # no late arrivals: nothing moves
    assert n == 0
    np.testing.assert_array_equal(none, unshifted)
