"""The time-decay benchmark (benchmarks/time_decay.py): its weights by hand, and its choice of
a half-life by the package's forward-evidence rule on tables of known drift."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from time_decay import chosen_half_life, recency_weights


def test_recency_weights_halve_every_half_life_periods():
    X = pd.DataFrame(
        {
            "period": ["a", "a", "b", "c", "c"],
            "date": pd.to_datetime(["2020-01-01"] * 2 + ["2020-02-01"] + ["2020-03-01"] * 2),
        }
    )
    np.testing.assert_allclose(recency_weights(X, 2.0), [0.5, 0.5, 0.5**0.5, 1.0, 1.0])
    assert recency_weights(X, None) is None


class _WeightedRate(BaseEstimator, ClassifierMixin):
    """Forecasts player 1's weighted training win rate for every match."""

    def __init__(self, chains=4, draws=1000, tune=1000):
        self.chains, self.draws, self.tune = chains, draws, tune

    def fit(self, X, y, sample_weight=None):
        w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight)
        self.rate_ = float(np.clip(np.average(y, weights=w), 0.01, 0.99))
        return self

    def predict_proba(self, X):
        return np.tile([1 - self.rate_, self.rate_], (len(X), 1))


def _table(drift: bool, n_periods=12, per_period=40, seed=0):
    rng = np.random.default_rng(seed)
    period = np.repeat(np.arange(n_periods), per_period)
    # with drift, player 1's chance falls from 0.9 to 0.1 over the periods
    chance = np.linspace(0.9, 0.1, n_periods)[period] if drift else np.full(len(period), 0.5)
    X = pd.DataFrame(
        {
            "period": [f"P{p:02d}" for p in period],
            "date": pd.Timestamp("2020-01-01") + pd.to_timedelta(period * 30, unit="D"),
        }
    )
    return X, (rng.random(len(period)) < chance).astype(float)


def test_a_drifting_table_chooses_a_half_life_and_a_steady_one_none():
    X, y = _table(drift=True)
    chosen, evidence = chosen_half_life(_WeightedRate(), X, y)
    assert chosen == 2.0  # the shortest memory forecasts a steady fall best
    assert evidence["chosen"].sum() == 1
    X, y = _table(drift=False)
    chosen, _ = chosen_half_life(_WeightedRate(), X, y)
    assert chosen is None
