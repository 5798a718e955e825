"""The newcomer benchmark's summaries (benchmarks/newcomer.py), against hand counts."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from newcomer import newcomer_detail, periods_played, windows, with_newcomer_rule

#: Periods each side played in training, for the rows of `_forecasts` (0: new).
PERIODS = np.array([[3, 5], [0, 1], [2, 0], [0, 0], [0, 6]])


def _forecasts():
    # rows: seen v seen, new v seen, seen v new, new v new, new v seen
    new = np.array([[0, 0], [1, 0], [0, 1], [1, 1], [1, 0]], dtype=bool)
    forecasts = pd.DataFrame(
        {
            "y": [1, 0, 0, 1, 1],
            "skcodex default": [0.7, 0.4, 0.6, 0.5, 0.3],
            "players only": [0.6, 0.2, 0.3, 0.4, 0.5],
        }
    )
    return forecasts, new


def test_the_rule_takes_the_other_model_only_where_a_side_is_new():
    forecasts, new = _forecasts()
    before = forecasts.copy()
    name = with_newcomer_rule(forecasts, new, "players only")
    np.testing.assert_array_equal(forecasts[name], [0.7, 0.2, 0.3, 0.4, 0.5])
    pd.testing.assert_frame_equal(forecasts.drop(columns=name), before)


def test_detail_counts_newcomer_wins_and_scores_two_newcomer_matches():
    forecasts, new = _forecasts()
    detail = newcomer_detail(forecasts, new, ["skcodex default"], PERIODS)
    # one newcomer: rows 1, 2, 4; the newcomer won in row 2 (player 2 won) and row 4
    assert detail["one newcomer: matches"] == 3
    assert detail["one newcomer: newcomer won"] == pytest.approx(2 / 3)
    assert detail["two newcomers: matches"] == 1
    assert detail["skcodex default"]["two newcomers: Brier"] == pytest.approx(0.25)
    # by the seen player's periods: row 1 (1 period), row 2 (2), row 4 (6)
    key = "one newcomer, by the seen player's periods"
    assert detail[f"{key}: matches"] == {"1 period": 1, "2-3 periods": 1, "4 or more": 1}
    by = detail["skcodex default"][f"{key}: Brier"]
    assert by == pytest.approx({"1 period": 0.4**2, "2-3 periods": 0.6**2, "4 or more": 0.7**2})


def test_periods_played_counts_each_sides_training_periods_by_hand():
    from sklearn.model_selection import PredefinedSplit

    X = pd.DataFrame(
        {
            "player1": ["a", "a", "b", "c", "a", "d"],
            "player2": ["b", "c", "c", "a", "b", "a"],
            "period": ["t1", "t2", "t2", "t3", "t4", "t4"],
        }
    )
    before = X.copy()
    cv = PredefinedSplit([-1, -1, -1, 0, 1, 1])  # fold 0 tests row 3, fold 1 rows 4 and 5
    counts = periods_played(X, np.zeros(6), cv)
    pd.testing.assert_frame_equal(X, before)
    # fold 0 trains on rows 0-2 and 4-5 (t1, t2, t4): c played t2; a played t1, t2, t4
    # fold 1 trains on rows 0-3 (t1-t3): a played t1-t3, b t1-t2, d never
    np.testing.assert_array_equal(counts, [[1, 3], [3, 2], [0, 3]])


def test_the_calibration_slope_is_one_for_forecasts_that_are_the_truth():
    rng = np.random.default_rng(0)
    n = 20_000
    p = rng.uniform(0.05, 0.95, n)
    new = np.column_stack([np.ones(n, bool), np.zeros(n, bool)])  # player 1 always new
    forecasts = pd.DataFrame({"y": (rng.uniform(size=n) < p).astype(int), "m": p})
    periods = np.column_stack([np.zeros(n, int), np.ones(n, int)])
    slope = newcomer_detail(forecasts, new, ["m"], periods)["m"]["one newcomer: calibration slope"]
    assert slope == pytest.approx(1.0, abs=0.06)
    timid = forecasts.assign(m=0.5 + (p - 0.5) / 2)
    timid_detail = newcomer_detail(timid, new, ["m"], periods)
    assert timid_detail["m"]["one newcomer: calibration slope"] > 1.5


def test_windows_pool_the_last_folds_and_those_before_by_hand():
    forecasts = pd.DataFrame(
        {
            "split": [0, 0, 1, 2, 2, 3],
            "y": [1, 0, 1, 1, 0, 0],
            "skcodex default": [0.6, 0.3, 0.5, 0.8, 0.4, 0.1],
            "other": [0.6, 0.3, 0.9, 0.7, 0.2, 0.3],
        }
    )
    before = forecasts.copy()
    out = windows(forecasts, ["skcodex default", "other"], last=2)
    pd.testing.assert_frame_equal(forecasts, before)
    assert list(out) == ["all folds", "last 2", "before"]
    assert [out[w]["matches"] for w in out] == [6, 3, 3]
    # the last two folds are splits 2 and 3
    assert out["last 2"]["other"] == pytest.approx((0.3**2 + 0.2**2 + 0.3**2) / 3)
    assert out["before"]["skcodex default"] == pytest.approx((0.4**2 + 0.3**2 + 0.5**2) / 3)
    diff = out["before"]["minus default"]["other"]
    expected = ((0.4**2 + 0.3**2 + 0.1**2) - (0.4**2 + 0.3**2 + 0.5**2)) / 3
    assert diff["difference"] == pytest.approx(expected)
    assert diff["lower"] <= diff["difference"] <= diff["upper"]
    assert "skcodex default" not in out["all folds"]["minus default"]
    # no fold before the last ones: no windows
    assert windows(forecasts, ["other"], last=4) == {}
