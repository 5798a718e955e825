"""``fit(X, y, sample_weight=...)``: each match's weight in the likelihood.

A weight of 2 counts a match as two such matches, exactly; weights of 1 are no
weights at all; a weight of 0 leaves a match out of the likelihood. Bad weights are
named, and the caller's array is never changed.
"""

import warnings
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest

from skcodex import BayesianMatchupClassifier
from skcodex._matchup.layout import collapse_matches
from skcodex.data import MatchTableError, check_sample_weight
from skcodex.datasets import make_matches

FAST = {"draws": 100, "tune": 100, "chains": 2, "random_state": 0, "progressbar": False}
STATIC = {"time_varying": False, "debut": False}


def _fit(X, y, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # short chains: their convergence is not tested here
        return BayesianMatchupClassifier(**FAST, **STATIC).fit(X, y, **kwargs)


def _draws(clf) -> np.ndarray:
    return clf.idata_.posterior["skill"].to_numpy()


@pytest.fixture(scope="module")
def table():
    data = make_matches(n_players=12, n_matches=160, n_tournaments=4, random_state=11)
    return data.X, np.asarray(data.y)


def test_collapsed_rows_count_a_weight_of_two_as_two_matches():
    rng = np.random.default_rng(0)
    index = rng.integers(0, 4, size=(50, 3))
    y = rng.integers(0, 2, 50).astype(float)
    twice = collapse_matches(np.vstack([index, index]), np.concatenate([y, y]))
    weighted = collapse_matches(index, y, np.full(50, 2.0))
    for a, b in zip(twice, weighted, strict=True):
        np.testing.assert_array_equal(a, b)
    # a weight of 0 keeps the row but adds nothing to its trials or wins
    zero = collapse_matches(index, y, np.r_[0.0, np.ones(49)])
    plain = collapse_matches(index, y)
    assert zero[1].sum() == plain[1].sum() - 1
    assert zero[2].sum() == plain[2].sum() - y[0]


def test_a_weight_of_two_is_the_match_played_twice(table):
    X, y = table
    doubled = _fit(X, y, sample_weight=np.full(len(y), 2.0))
    twice = _fit(pd.concat([X, X], ignore_index=True), np.concatenate([y, y]))
    np.testing.assert_array_equal(_draws(doubled), _draws(twice))
    ones = _fit(X, y, sample_weight=[1] * len(y))
    np.testing.assert_array_equal(_draws(ones), _draws(_fit(X, y)))


def test_a_weight_of_two_counts_draws_twice_too(table):
    X, y = table
    drawn = y.astype(float)
    drawn[::7] = 0.5
    doubled = _fit(X, drawn, sample_weight=np.full(len(y), 2.0))
    twice = _fit(pd.concat([X, X], ignore_index=True), np.concatenate([drawn, drawn]))
    np.testing.assert_array_equal(_draws(doubled), _draws(twice))
    threshold = doubled.idata_.posterior["draw_threshold"].to_numpy()
    np.testing.assert_array_equal(threshold, twice.idata_.posterior["draw_threshold"].to_numpy())


def test_weight_zero_leaves_the_matches_out():
    """Known truth: a player strong early and weak late is read as weak when early matches
    weigh nothing, as a fit on the late matches alone reads them."""
    data = make_matches(n_players=10, n_matches=600, n_tournaments=6, random_state=5)
    X, y = data.X.copy(), np.asarray(data.y).copy()
    late = X["period"].isin(["T4", "T5", "T6"]).to_numpy()
    for side, won in (("player1", 1), ("player2", 0)):
        mine = (X[side] == "player01").to_numpy()
        y[mine & ~late] = won  # player01 wins every early match
        y[mine & late] = 1 - won  # and loses every late one
    weights = late.astype(float)
    given = weights.copy()
    weighted = _fit(X, y, sample_weight=weights)
    np.testing.assert_array_equal(weights, given)  # the caller's weights are untouched
    alone = _fit(X[late], y[late])
    unweighted = _fit(X, y)

    def skill(clf):
        return float(clf.idata_.posterior["skill"].sel(player="player01").mean())

    assert skill(weighted) < -1.0 and skill(alone) < -1.0
    assert abs(skill(weighted) - skill(alone)) < 0.35
    assert abs(skill(unweighted)) < 0.6  # every match: as many wins as losses


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ([1.0, -1.0, 1.0], "finite and at least 0; found -1.0 at row 1"),
        ([1.0, np.nan, 1.0], "finite and at least 0; found nan at row 1"),
        ([1.0, np.inf, 1.0], "finite and at least 0; found inf at row 1"),
        ([1.0, 1.0], "one number per match: X has 3 matches but sample_weight has 2 values"),
        ([[1.0, 1.0, 1.0]], r"one-dimensional, got shape \(1, 3\)"),
        (["a", "b", "c"], "must be numbers"),
        ([0, 0, 0], "0 for every match"),
        (pd.DataFrame({"a": [1, 1, 1], "b": [1, 1, 1]}), "one column of numbers, got 2"),
    ],
)
def test_bad_weights_are_named(weights, message):
    with pytest.raises(MatchTableError, match=message):
        check_sample_weight(weights, 3)


def test_good_weights_are_a_new_float_array():
    given = pd.DataFrame({"w": [1, 2, 0]})
    out = check_sample_weight(given, 3)
    np.testing.assert_array_equal(out, [1.0, 2.0, 0.0])
    out[0] = 9.0
    assert given["w"].tolist() == [1, 2, 0]


def test_the_estimator_names_bad_weights_before_sampling(table):
    X, y = table
    with pytest.raises(MatchTableError, match="sample_weight must hold one number per match"):
        BayesianMatchupClassifier(**FAST).fit(X, y, sample_weight=np.ones(3))
    clf = BayesianMatchupClassifier(**FAST, method="advi")
    with pytest.raises(ValueError, match="sample_weight needs method='nuts'"):
        clf.fit(X, y, sample_weight=np.ones(len(y)))
    assert not hasattr(clf, "idata_")


class _Spy(BayesianMatchupClassifier):
    """Records the weights each fit is given (the candidates' fits are clones of it)."""

    seen: ClassVar[list] = []

    def fit(self, X, y, *, luck=None, sample_weight=None):
        _Spy.seen.append(None if sample_weight is None else np.array(sample_weight))
        return super().fit(X, y, luck=luck, sample_weight=sample_weight)


def test_forward_part_selection_fits_its_candidates_with_the_weights(table):
    X, y = table
    weights = np.linspace(0.2, 2.0, len(y))
    _Spy.seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = _Spy(**FAST, debut="auto", time_varying=False, part_selection="forward")
        clf.fit(X, y, sample_weight=weights)
    assert len(clf.part_evidence_) == 2  # static and debut
    outer, *inner = _Spy.seen
    np.testing.assert_array_equal(outer, weights)
    assert inner  # each candidate on each fold: the weights of the rows it was fitted on
    for given in inner:
        np.testing.assert_array_equal(given, weights[: len(given)])  # the table is in time order
