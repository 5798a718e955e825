"""Forward-chained forecasts, score tables and paired bootstrap intervals."""

import numpy as np
import pandas as pd
import pytest
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
    interval about 20 times wider; the paired one agrees with the normal-theory
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
