"""Forward-chained forecasts, score tables and paired bootstrap intervals."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.dummy import DummyClassifier

from skcodex import EloClassifier, TournamentSplit
from skcodex.datasets import make_matches
from skcodex.evaluation import (
    bootstrap_against_best_other,
    forward_forecasts,
    log_loss,
    paired_bootstrap,
    score_table,
)


@pytest.fixture(scope="module")
def forecasts():
    data = make_matches(n_players=20, n_matches=400, n_tournaments=5, random_state=2)
    models = {"coin": DummyClassifier(strategy="uniform"), "Elo": EloClassifier()}
    return forward_forecasts(models, data.X, data.y, TournamentSplit(n_splits=3)), data


def test_forecasts_cover_each_test_tournament_once(forecasts):
    table, data = forecasts
    assert table["row"].is_unique
    assert list(table["period"].unique()) == ["T3", "T4", "T5"]
    assert np.array_equal(table["y"], data.y[table["row"]])
    assert np.allclose(table["coin"], 0.5)
    assert table.attrs["convergence"] == {"coin": 0, "Elo": 0}


def test_score_table_matches_direct_computation(forecasts):
    table, _ = forecasts
    scores = score_table(table)
    for period, part in table.groupby("period"):
        assert scores.loc[period, "Elo"] == pytest.approx(np.mean((part["y"] - part["Elo"]) ** 2))
    assert scores.loc["pooled", "coin"] == pytest.approx(0.25)
    assert scores.loc["log loss (pooled)", "coin"] == pytest.approx(np.log(2))
    assert scores.loc["pooled", "matches"] == len(table)


def test_paired_bootstrap_brackets_a_known_difference():
    rng = np.random.default_rng(0)
    n = 4000
    p = rng.uniform(0.2, 0.8, n)
    y = (rng.uniform(size=n) < p).astype(int)
    frame = pd.DataFrame({"split": 0, "row": np.arange(n), "y": y, "truth": p, "coin": 0.5})
    result = paired_bootstrap(frame, "truth", "coin", n_resamples=1000)
    # E[(y - p)^2 - (y - 0.5)^2] = -(p - 0.5)^2, averaged: -Var(U(0.2, 0.8)) = -0.03
    assert result["difference"] == pytest.approx(np.mean((y - p) ** 2) - np.mean((y - 0.5) ** 2))
    assert result["difference"] == pytest.approx(-np.mean((p - 0.5) ** 2), abs=0.004)
    assert result["lower"] < -0.03 < result["upper"]
    assert result["upper"] < 0
    best = bootstrap_against_best_other(frame, n_resamples=200)
    assert best.loc["truth", "best other"] == "coin"


def test_log_loss_clips_certain_forecasts():
    assert np.isfinite(log_loss(np.array([1, 0]), np.array([0.0, 1.0])))


def test_paired_bootstrap_interval_is_that_of_the_paired_differences():
    """Two close models scored on the same matches: the interval is that of their difference.

    Per-match Brier scores vary a lot from match to match, their difference very little.
    A bootstrap that resampled the two models' matches separately would give an
    interval about 14 times wider; the paired one agrees with the normal-theory
    interval of the mean paired difference, mean +- 1.96 sd / sqrt(n).
    """
    from scipy.stats import norm

    rng = np.random.default_rng(4)
    n = 4000
    p = rng.uniform(0.1, 0.9, n)
    y = (rng.uniform(size=n) < p).astype(int)
    q = np.clip(p + rng.normal(0.02, 0.01, n), 0.01, 0.99)
    frame = pd.DataFrame({"split": 0, "row": np.arange(n), "y": y, "a": p, "b": q})
    result = paired_bootstrap(frame, "a", "b", n_resamples=4000, interval=0.9, random_state=1)
    d = (y - p) ** 2 - (y - q) ** 2
    half = norm.ppf(0.95) * d.std(ddof=1) / np.sqrt(n)
    assert result["difference"] == pytest.approx(d.mean(), rel=1e-12)
    assert result["lower"] == pytest.approx(d.mean() - half, abs=0.1 * half)
    assert result["upper"] == pytest.approx(d.mean() + half, abs=0.1 * half)
    unpaired = norm.ppf(0.95) * np.sqrt(
        ((y - p) ** 2).var(ddof=1) / n + ((y - q) ** 2).var(ddof=1) / n
    )
    assert unpaired > 5 * half  # the check above tells the two apart


def test_bootstrap_against_best_other_picks_the_lowest_brier():
    rng = np.random.default_rng(5)
    n = 2000
    p = rng.uniform(0.2, 0.8, n)
    y = (rng.uniform(size=n) < p).astype(int)
    frame = pd.DataFrame(
        {"split": 0, "row": np.arange(n), "y": y, "truth": p, "coin": 0.5, "worse": 1 - p}
    )
    table = bootstrap_against_best_other(frame, n_resamples=200)
    assert table["best other"].to_dict() == {"truth": "coin", "coin": "truth", "worse": "truth"}
    brier = {m: np.mean((y - frame[m]) ** 2) for m in ("truth", "coin", "worse")}
    assert table.loc["worse", "difference"] == pytest.approx(brier["worse"] - brier["truth"])


class _RecordingSplit:
    """Two fixed splits; records what ``split`` was given."""

    def __init__(self):
        self.calls = []

    def split(self, X, y=None, groups=None):
        self.calls.append((y, groups))
        n = len(X)
        yield np.arange(0, n // 2), np.arange(n // 2, 3 * n // 4)
        yield np.arange(0, 3 * n // 4), np.arange(3 * n // 4, n)


class _Constant(ClassifierMixin, BaseEstimator):
    """Forecasts the probability given to fit, ``p``, for every match."""

    def fit(self, X, y, *, p=0.5):
        self.p_, self.classes_ = p, np.array([0, 1])
        return self

    def predict_proba(self, X):
        return np.tile([1 - self.p_, self.p_], (len(X), 1))


class _Warns(EloClassifier):
    """Elo that issues a ConvergenceWarning at every fit."""

    def fit(self, X, y, **kwargs):
        import warnings

        from sklearn.exceptions import ConvergenceWarning

        warnings.warn("not converged", ConvergenceWarning, stacklevel=2)
        return super().fit(X, y, **kwargs)


def test_forward_forecasts_table_by_hand(capsys):
    data = make_matches(n_players=12, n_matches=120, n_tournaments=4, random_state=3)
    cv, groups = _RecordingSplit(), data.X["period"].to_numpy()
    models = {"Elo": EloClassifier(), "constant": _Constant(), "warns": _Warns()}
    table = forward_forecasts(
        models,
        data.X,
        data.y,
        cv,
        groups=groups,
        fit_params={"constant": {"p": 0.7}},
        verbose=True,
    )
    assert list(table.columns) == ["split", "period", "row", "y", "Elo", "constant", "warns"]
    assert isinstance(table.index, pd.RangeIndex) and table.index[-1] == len(table) - 1
    ((y_seen, groups_seen),) = cv.calls[:1]
    np.testing.assert_array_equal(y_seen, data.y)
    assert groups_seen is groups
    for split, (train, test) in enumerate(_RecordingSplit().split(data.X)):
        part = table[table["split"] == split]
        np.testing.assert_array_equal(part["row"], test)
        np.testing.assert_array_equal(part["period"], data.X["period"].to_numpy()[test])
        np.testing.assert_array_equal(part["y"], data.y[test])
        plain = EloClassifier().fit(data.X.iloc[train], data.y[train])
        np.testing.assert_allclose(part["Elo"], plain.predict_proba(data.X.iloc[test])[:, 1])
        np.testing.assert_allclose(part["warns"], part["Elo"])
    np.testing.assert_allclose(table["constant"], 0.7)  # the fit parameter reached fit
    assert table.attrs["convergence"] == {"Elo": 0, "constant": 0, "warns": 2}
    printed = capsys.readouterr().out.splitlines()
    assert printed == [f"  split {s}: {m} done" for s in (0, 1) for m in models]


def test_forward_forecasts_without_periods_have_no_period_column():
    data = make_matches(n_players=12, n_matches=80, n_tournaments=2, random_state=4)
    X = data.X.drop(columns="period")
    table = forward_forecasts({"Elo": EloClassifier()}, X, data.y, _RecordingSplit())
    assert list(table.columns) == ["split", "row", "y", "Elo"]
    scores = score_table(table)  # grouped by split, as there is no period
    assert list(scores.index) == [0, 1, "pooled", "log loss (pooled)"]


def test_score_table_keeps_the_order_of_periods_and_counts_matches():
    frame = pd.DataFrame(
        {
            "split": [0, 0, 1, 1, 1],
            "period": ["T9", "T9", "T10", "T10", "T10"],
            "row": range(5),
            "y": [1, 0, 1, 1, 0],
            "m": [0.8, 0.3, 0.6, 0.9, 0.5],
        }
    )
    scores = score_table(frame)
    assert list(scores.index) == ["T9", "T10", "pooled", "log loss (pooled)"]
    assert scores["matches"].tolist() == [2, 3, 5, 5]
    assert scores.loc["T10", "m"] == pytest.approx((0.4**2 + 0.1**2 + 0.5**2) / 3)
    by_split = score_table(frame, by="split")
    assert list(by_split.index) == [0, 1, "pooled", "log loss (pooled)"]
    assert score_table(frame, by="no such column").index[:2].tolist() == [0, 1]


def test_paired_bootstrap_is_reproducible_and_passes_its_options_on():
    rng = np.random.default_rng(6)
    n = 500
    p = rng.uniform(0.2, 0.8, n)
    y = (rng.uniform(size=n) < p).astype(int)
    frame = pd.DataFrame({"split": 0, "row": np.arange(n), "y": y, "a": p, "b": 0.5})
    first = paired_bootstrap(frame, "a", "b", n_resamples=300)
    assert paired_bootstrap(frame, "a", "b", n_resamples=300) == first
    assert paired_bootstrap(frame, "a", "b", n_resamples=300, random_state=1) != first
    narrow = paired_bootstrap(frame, "a", "b", n_resamples=300, interval=0.5)
    assert first["lower"] < narrow["lower"] < narrow["upper"] < first["upper"]
    table = bootstrap_against_best_other(frame, n_resamples=300, interval=0.5)
    assert table.loc["a", ["difference", "lower", "upper"]].tolist() == [
        narrow["difference"],
        narrow["lower"],
        narrow["upper"],
    ]
