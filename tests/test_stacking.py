"""Stacking forecasts by their log score, and its forward form over the splits."""

import numpy as np
import pandas as pd
import pytest

from skcodex.evaluation import forward_stacking, stacking_weights


def _log_score(p, y):
    return np.sum(y * np.log(p) + (1 - y) * np.log1p(-p))


def test_weights_recover_the_mixture_that_made_the_outcomes():
    # known truth: each outcome is drawn from 0.3 * P_a + 0.7 * P_b
    rng = np.random.default_rng(1)
    n = 40_000
    a, b = rng.uniform(0.05, 0.95, n), rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < 0.3 * a + 0.7 * b).astype(float)
    w = stacking_weights(np.column_stack([a, b]), y)
    assert w == pytest.approx([0.3, 0.7], abs=0.03)
    assert w.sum() == pytest.approx(1.0)


def test_weights_match_a_brute_force_search_of_the_log_score():
    # an independent computation: the score on a fine grid of the two-model simplex
    rng = np.random.default_rng(2)
    truth = rng.uniform(0.2, 0.8, 300)
    y = (rng.uniform(size=300) < truth).astype(float)
    noisy = np.clip(truth + rng.normal(0, 0.15, 300), 0.02, 0.98)
    flat = np.full(300, 0.5)
    P = np.column_stack([noisy, flat])
    grid = np.linspace(0, 1, 100_001)
    scores = [_log_score(P @ [g, 1 - g], y) for g in grid]
    best = grid[int(np.argmax(scores))]
    assert 0.01 < best < 0.99  # an interior optimum, so the solver has work to do
    assert stacking_weights(P, y)[0] == pytest.approx(best, abs=1e-4)


def test_three_models_beat_every_corner_and_the_even_mix():
    rng = np.random.default_rng(3)
    truth = rng.uniform(0.1, 0.9, 500)
    y = (rng.uniform(size=500) < truth).astype(float)
    P = np.column_stack(
        [np.clip(truth + rng.normal(0, s, 500), 0.02, 0.98) for s in (0.1, 0.2, 0.3)]
    )
    w = stacking_weights(P, y)
    best = _log_score(P @ w, y)
    for other in [*np.eye(3), np.full(3, 1 / 3)]:
        assert best >= _log_score(P @ other, y) - 1e-9


def test_draws_count_half_a_win():
    P = np.column_stack([np.full(4, 0.5), np.full(4, 0.9)])
    # two draws and two wins: the best single forecast is 0.75, the mix 0.5 w + 0.9 (1 - w)
    w = stacking_weights(P, np.array([0.5, 0.5, 1.0, 1.0]))
    assert P[0] @ w == pytest.approx(0.75, abs=1e-4)


def test_no_matches_leave_the_first_model():
    assert list(stacking_weights(np.zeros((0, 3)), np.zeros(0))) == [1.0, 0.0, 0.0]


def _forecasts(seed=4, splits=4, per_split=200):
    rng = np.random.default_rng(seed)
    n = splits * per_split
    good = rng.uniform(0.1, 0.9, n)
    y = (rng.uniform(size=n) < good).astype(float)
    return pd.DataFrame(
        {
            "split": np.repeat(np.arange(splits), per_split),
            "y": y,
            "flat": 0.5,
            "good": good,
        }
    )


def test_each_split_is_weighted_on_the_splits_before_it_only():
    table = _forecasts()
    out = forward_stacking(table, ["flat", "good"])
    weights = out.attrs["stacking_weights"]
    assert list(weights.index) == [0, 1, 2, 3]
    # the first split has nothing before it: the first model alone
    assert list(weights.loc[0]) == [1.0, 0.0]
    assert np.array_equal(out.loc[out["split"] == 0, "stacking: flat, good"], table["flat"][:200])
    for s in (1, 2, 3):
        before = table["split"] < s
        expected = stacking_weights(table.loc[before, ["flat", "good"]], table.loc[before, "y"])
        assert np.allclose(weights.loc[s], expected)
        here = table["split"] == s
        mix = table.loc[here, ["flat", "good"]].to_numpy() @ expected
        assert np.allclose(out.loc[here, "stacking: flat, good"], mix)
    # with the good forecasts true, the later splits lean on them
    assert weights.loc[3, "good"] > 0.9


def test_later_outcomes_never_reach_an_earlier_split():
    table = _forecasts()
    flipped = table.copy()
    flipped.loc[flipped["split"] >= 2, "y"] = 1 - flipped.loc[flipped["split"] >= 2, "y"]
    a = forward_stacking(table, ["flat", "good"], name="mix")
    b = forward_stacking(flipped, ["flat", "good"], name="mix")
    early = table["split"] <= 2
    assert np.array_equal(a.loc[early, "mix"], b.loc[early, "mix"])
    assert not np.allclose(a.loc[~early, "mix"], b.loc[~early, "mix"])


def test_the_table_passed_in_is_left_as_it_was():
    table = _forecasts()
    table.attrs["convergence"] = {"flat": 0}
    before = table.copy()
    out = forward_stacking(table, ["flat", "good"])
    pd.testing.assert_frame_equal(table, before)
    assert table.attrs == {"convergence": {"flat": 0}}
    assert out.attrs["convergence"] == {"flat": 0}


@pytest.mark.parametrize(
    ("models", "kwargs", "message"),
    [
        (["flat", "elo"], {}, r"no column\(s\) \['elo'\]"),
        (["flat"], {}, "two or more different columns"),
        (["flat", "flat"], {}, "two or more different columns"),
        (["flat", "good"], {"name": "good"}, "already has a column 'good'"),
    ],
)
def test_bad_arguments_are_named(models, kwargs, message):
    with pytest.raises(ValueError, match=message):
        forward_stacking(_forecasts(), models, **kwargs)


def test_forecasts_outside_zero_one_are_named():
    table = _forecasts()
    table.loc[5, "good"] = 1.2
    with pytest.raises(ValueError, match=r"probabilities in \[0, 1\]; 1 value\(s\) are not"):
        forward_stacking(table, ["flat", "good"])
    with pytest.raises(ValueError, match="y has 3 outcomes but forecasts has 2 rows"):
        stacking_weights(np.full((2, 2), 0.5), [1, 0, 1])
    with pytest.raises(ValueError, match="y must be probabilities"):
        stacking_weights(np.full((2, 2), 0.5), [1, np.nan])
