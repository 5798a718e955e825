"""Brier score, Brier skill score, the classes_-aware scorer and calibration."""

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
    calibration_error,
    calibration_slope,
    overconfidence,
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


# -- calibration in one number ---------------------------------------------------------


def _forecasts(n, slope, intercept=0.0, seed=0):
    """Forecasts p whose outcomes follow sigmoid(intercept + slope logit(p))."""
    from scipy.special import expit

    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 1.5, n)
    won = (rng.random(n) < expit(intercept + slope * z)).astype(float)
    return won, expit(z)


def test_calibration_error_by_hand():
    y = [0, 1, 1, 1, 0, 1]
    p = [0.05, 0.15, 0.55, 0.85, 0.95, 0.9]
    # uniform, 2 bins: [0, 0.5) forecast 0.1, won 1 of 2 -> 0.4; [0.5, 1] mean 0.8125, won 3/4
    expected = (2 * 0.4 + 4 * abs(0.8125 - 0.75)) / 6
    assert calibration_error(y, p, n_bins=2) == pytest.approx(expected, abs=1e-12)
    # 10 uniform bins: 0.9 is an edge and goes to the bin above, with 0.95 (mean 0.925,
    # won 1 of 2); every other forecast is alone in its bin
    expected = (0.05 + 0.85 + 0.45 + 0.15 + 2 * abs(0.925 - 0.5)) / 6
    assert calibration_error(y, p) == pytest.approx(expected, abs=1e-12)
    # quantile bins of three forecasts each (edge at the median, 0.7): {0.05, 0.15, 0.55}
    # won by player 1 in 2 of 3, {0.85, 0.9, 0.95} in 2 of 3
    first = abs(np.mean([0.05, 0.15, 0.55]) - 2 / 3)
    second = abs(np.mean([0.85, 0.9, 0.95]) - 2 / 3)
    got = calibration_error(y, p, n_bins=2, strategy="quantile")
    assert got == pytest.approx((first + second) / 2, abs=1e-12)


def test_calibration_error_is_small_for_calibrated_and_large_for_bold_forecasts():
    y, p = _forecasts(20_000, 1.0)
    assert calibration_error(y, p) < 0.01
    y, p = _forecasts(20_000, 0.5)
    assert calibration_error(y, p) > 0.05


@pytest.mark.parametrize(("slope", "intercept"), [(0.7, 0.0), (1.0, 0.0), (1.3, -0.2)])
def test_calibration_slope_recovers_a_known_miscalibration(slope, intercept):
    y, p = _forecasts(20_000, slope, intercept, seed=1)
    fit = calibration_slope(y, p)
    assert fit["slope_lower"] < slope < fit["slope_upper"]
    assert fit["intercept_lower"] < intercept < fit["intercept_upper"]
    assert fit["slope_upper"] - fit["slope_lower"] < 0.1 and fit["n"] == 20_000
    # the same maximum-likelihood fit as scikit-learn's unpenalised logistic regression
    from scipy.special import logit

    ref = LogisticRegression(C=np.inf, tol=1e-10, max_iter=1000).fit(logit(p).reshape(-1, 1), y)
    assert fit["slope"] == pytest.approx(ref.coef_[0, 0], abs=1e-5)
    assert fit["intercept"] == pytest.approx(ref.intercept_[0], abs=1e-5)


def test_calibration_slope_intervals_cover_as_often_as_they_say():
    covered = [
        (lambda f: f["slope_lower"] < 0.7 < f["slope_upper"])(
            calibration_slope(*_forecasts(400, 0.7, seed=seed), interval=0.9)
        )
        for seed in range(300)
    ]
    assert 0.85 < np.mean(covered) < 0.95


def test_calibration_slope_refusals():
    with pytest.raises(ValueError, match="outcomes are all the same"):
        calibration_slope([1, 1, 1], [0.2, 0.5, 0.7])
    with pytest.raises(ValueError, match="forecasts are all the same"):
        calibration_slope([1, 0, 1], [0.6, 0.6, 0.6])
    with pytest.raises(ValueError, match="separate wins from losses"):
        calibration_slope([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9])
    with pytest.raises(ValueError, match="interval must be between 0 and 1"):
        calibration_slope([0, 1], [0.2, 0.8], interval=1.5)
    y, p = [0, 1, 1, 0, 1], [0.3, 0.6, 0.4, 0.5, 0.2]
    before = (list(y), list(p))
    calibration_slope(y, p)
    assert (y, p) == before


def test_overconfident_forecasts_are_flagged_and_calibrated_ones_are_not():
    y, p = _forecasts(5_000, 1.0, seed=2)
    check = overconfidence(y, p)
    assert not check["overconfident"] and not check["underconfident"]
    assert check["lower"] < check["mean_forecast"] < check["upper"]
    y, p = _forecasts(5_000, 0.6, seed=2)  # too bold: the favourites win less than forecast
    check = overconfidence(y, p)
    assert check["overconfident"] and not check["underconfident"]
    assert check["observed"] < check["mean_forecast"]
    y, p = _forecasts(5_000, 1.6, seed=2)  # too timid
    assert overconfidence(y, p)["underconfident"]


def test_overconfidence_counts_the_favourite_of_either_side():
    # player 2 the favourite at 0.8 in half the matches: folded to the favourite's 0.8
    p = np.r_[np.full(50, 0.8), np.full(50, 0.2), np.full(10, 0.6)]
    y = np.r_[np.arange(50) < 40, np.arange(50) >= 40, np.ones(10)]
    check = overconfidence(y, p, threshold=0.7)
    assert check["count"] == 100 and check["mean_forecast"] == pytest.approx(0.8)
    assert check["observed"] == pytest.approx(0.8)
    empty = overconfidence([1, 0], [0.6, 0.5])
    assert empty["count"] == 0 and not empty["overconfident"]
    with pytest.raises(ValueError, match=r"threshold must be between 0\.5 and 1"):
        overconfidence([1, 0], [0.6, 0.5], threshold=0.3)
