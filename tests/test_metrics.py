"""Brier score, Brier skill score and the classes_-aware scorer."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss
from sklearn.model_selection import KFold, cross_val_score

from skcodex import brier_score, brier_scorer, brier_skill_score
from skcodex.metrics import (
    COIN_FLIP_BRIER,
    brier_decomposition,
    positive_class_probability,
    reliability_table,
)


class ReversedLogistic(ClassifierMixin, BaseEstimator):
    """A logistic regression that reports its classes, and predict_proba columns, as [1, 0]."""

    def __init__(self, C=1.0):
        self.C = C

    def fit(self, X, y):
        self.model_ = LogisticRegression(C=self.C).fit(X, y)
        self.classes_ = np.array([1, 0])
        return self

    def predict_proba(self, X):
        return self.model_.predict_proba(X)[:, ::-1]

    def predict(self, X):
        return self.model_.predict(X)


def naive_scorer(estimator, X, y):
    """What a scorer that ignores classes_ would compute."""
    return -brier_score(y, estimator.predict_proba(X)[:, 1])


@pytest.fixture(scope="module")
def classification():
    X, y = make_classification(n_samples=300, n_features=5, n_informative=3, random_state=0)
    return X, y


# -- brier_score ----------------------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 200), st.integers(0, 2**32 - 1), st.booleans())
def test_brier_score_equals_sklearn(n, seed, weighted):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p = rng.uniform(size=n)
    w = rng.uniform(0.1, 2.0, n) if weighted else None
    expected = brier_score_loss(y, p, sample_weight=w, labels=[0, 1])
    assert brier_score(y, p, sample_weight=w) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_brier_score_reference_values():
    assert brier_score([1, 0, 1], [0.5, 0.5, 0.5]) == 0.25
    assert brier_score([1, 0], [1.0, 0.0]) == 0.0
    assert brier_score([1, 0], [0.0, 1.0]) == 1.0
    assert brier_score([1, 0], [0.9, 0.2]) == pytest.approx((0.01 + 0.04) / 2)
    assert brier_score([1, 1, 0], [0.8, 0.8, 0.8], sample_weight=[1, 1, 2]) == pytest.approx(
        (0.04 + 0.04 + 2 * 0.64) / 4
    )


@given(st.lists(st.integers(0, 1), min_size=1, max_size=50))
def test_coin_flip_scores_a_quarter(y):
    assert brier_score(y, [0.5] * len(y)) == COIN_FLIP_BRIER == 0.25
    assert brier_skill_score(y, [0.5] * len(y)) == 0.0


def test_brier_score_accepts_booleans():
    assert brier_score([True, False], [0.9, 0.2]) == pytest.approx(0.025)


# -- brier_skill_score ------------------------------------------------------------------------


def test_brier_skill_score():
    assert brier_skill_score([1, 0], [0.9, 0.2]) == pytest.approx(1 - 0.025 / 0.25)
    assert brier_skill_score([1, 0], [1.0, 0.0]) == 1.0
    assert brier_skill_score([1, 0], [0.0, 1.0]) == pytest.approx(-3.0)
    rng = np.random.default_rng(3)
    y, p = rng.integers(0, 2, 100), rng.uniform(size=100)
    assert brier_skill_score(y, p) == pytest.approx(1 - np.mean((y - p) ** 2) / 0.25)


# -- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [1.2, -0.1, np.nan, np.inf])
def test_probabilities_must_be_in_unit_interval(bad):
    with pytest.raises(ValueError, match=rf"p_win must be probabilities in \[0, 1\]; found {bad}"):
        brier_score([1, 0, 1], [0.5, bad, 0.5])


@pytest.mark.parametrize("bad", [2, -1, np.nan])
def test_outcomes_must_be_in_unit_interval(bad):
    with pytest.raises(ValueError, match=rf"y_true must be outcomes in \[0, 1\].*found {bad}"):
        brier_score([1, bad, 1], [0.5, 0.5, 0.5])


def test_length_mismatch():
    with pytest.raises(ValueError, match="y_true has 3 outcomes but p_win has 2 probabilities"):
        brier_score([1, 0, 1], [0.5, 0.5])


def test_two_dimensional_probabilities_are_refused():
    with pytest.raises(ValueError, match="column 1 of predict_proba"):
        brier_score([1, 0], [[0.4, 0.6], [0.7, 0.3]])


def test_no_matches():
    with pytest.raises(ValueError, match="no matches"):
        brier_score([], [])


def test_non_numbers():
    with pytest.raises(ValueError, match="must be numbers"):
        brier_score([1, 0], ["high", "low"])


# -- the scorer ---------------------------------------------------------------------------------


def test_scorer_is_the_negated_brier_score(classification):
    X, y = classification
    model = LogisticRegression().fit(X, y)
    assert brier_scorer(model, X, y) == pytest.approx(
        -brier_score_loss(y, model.predict_proba(X)[:, 1])
    )


def test_scorer_in_cross_val_score(classification):
    X, y = classification
    cv = KFold(5, shuffle=True, random_state=0)
    ours = cross_val_score(LogisticRegression(), X, y, scoring=brier_scorer, cv=cv)
    sklearn_own = cross_val_score(LogisticRegression(), X, y, scoring="neg_brier_score", cv=cv)
    np.testing.assert_allclose(ours, sklearn_own, rtol=1e-12)
    assert np.all(ours < 0)
    assert np.all(ours > -COIN_FLIP_BRIER)


def test_scorer_reads_class_1_through_classes(classification):
    X, y = classification
    cv = KFold(5, shuffle=True, random_state=0)
    reference = cross_val_score(LogisticRegression(), X, y, scoring=brier_scorer, cv=cv)
    reversed_ = cross_val_score(ReversedLogistic(), X, y, scoring=brier_scorer, cv=cv)
    np.testing.assert_allclose(reversed_, reference, rtol=1e-12)
    # Reading column 1 blindly would have scored P(player 2 wins): much worse than a coin flip.
    naive = cross_val_score(ReversedLogistic(), X, y, scoring=naive_scorer, cv=cv)
    assert np.all(naive < -COIN_FLIP_BRIER)
    assert np.all(naive < reference - 0.1)


def test_positive_class_probability(classification):
    X, y = classification
    model = ReversedLogistic().fit(X, y)
    np.testing.assert_array_equal(
        positive_class_probability(model, X), model.model_.predict_proba(X)[:, 1]
    )


class NoClasses:
    def predict_proba(self, X):
        return np.full((len(X), 2), 0.5)


class WrongClasses(NoClasses):
    classes_ = np.array(["away", "home"])


class WrongShape(NoClasses):
    classes_ = np.array([0, 1])

    def predict_proba(self, X):
        return np.full(len(X), 0.5)


@pytest.mark.parametrize(
    ("estimator", "message"),
    [
        (NoClasses(), "NoClasses has no classes_"),
        (LogisticRegression(), "LogisticRegression has no classes_"),
        (WrongClasses(), r"WrongClasses.classes_ is \['away', 'home'\]; it must contain 1"),
        (WrongShape(), r"predict_proba returned shape \(3,\)"),
    ],
)
def test_scorer_errors(estimator, message):
    X, y = np.zeros((3, 2)), np.array([1, 0, 1])
    with pytest.raises(ValueError, match=message):
        brier_scorer(estimator, X, y)


# -- calibration ------------------------------------------------------------------------


def test_brier_decomposition_is_exact_when_forecasts_take_bin_values():
    rng = np.random.default_rng(1)
    centres = (np.arange(10) + 0.5) / 10
    p = rng.choice(centres, 5000)
    y = (rng.uniform(size=5000) < np.clip(p + 0.1, 0, 1)).astype(int)
    parts = brier_decomposition(y, p, n_bins=10)
    total = parts["reliability"] - parts["resolution"] + parts["uncertainty"]
    assert total == pytest.approx(brier_score(y, p), abs=1e-12)
    assert parts["within_bin"] == pytest.approx(0.0, abs=1e-12)
    assert parts["uncertainty"] == pytest.approx(y.mean() * (1 - y.mean()))
    assert parts["reliability"] > 0.005  # forecasts 0.1 too low are miscalibrated


def test_calibrated_forecasts_have_reliability_near_zero():
    rng = np.random.default_rng(2)
    p = rng.uniform(size=200_000)
    y = (rng.uniform(size=p.size) < p).astype(int)
    parts = brier_decomposition(y, p)
    assert parts["reliability"] < 1e-4
    assert parts["resolution"] == pytest.approx(1 / 12, rel=0.05)
    table = reliability_table(y, p)
    np.testing.assert_allclose(table["observed"], table["mean_forecast"], atol=0.01)
    assert ((table["lower"] <= table["observed"]) & (table["observed"] <= table["upper"])).all()


def test_reliability_table_bins():
    table = reliability_table([0, 1, 1, 1], [0.2, 0.3, 0.8, 0.9], n_bins=2)
    np.testing.assert_allclose(
        table[["count", "mean_forecast", "observed"]], [[2, 0.25, 0.5], [2, 0.85, 1.0]]
    )
    assert table["bin_lower"].tolist() == [0.0, 0.5]
    # empty bins are left out; p = 1 falls in the last bin
    table = reliability_table([1, 1], [1.0, 0.95], n_bins=10)
    assert table["count"].tolist() == [2.0]
    quantile = reliability_table(
        np.r_[np.zeros(50), np.ones(50)], np.linspace(0, 1, 100), 4, strategy="quantile"
    )
    assert quantile["count"].tolist() == [25.0] * 4


def test_calibration_input_errors():
    with pytest.raises(ValueError, match="outcomes but"):
        reliability_table([0, 1], [0.5])
    with pytest.raises(ValueError, match="n_bins"):
        reliability_table([0, 1], [0.5, 0.5], n_bins=0)
    with pytest.raises(ValueError, match="strategy"):
        reliability_table([0, 1], [0.5, 0.5], strategy="kmeans")
    with pytest.raises(ValueError, match="probabilities"):
        brier_decomposition([0, 1], [0.5, 1.5])
