"""The forecast benchmark's wrappers of other rating systems (benchmarks/rating_systems.py).

Checked against closed forms: the Elo formula on WHR's own ratings, TrueSkill's
one-game update for TrueSkill Through Time, and OpenSkill's own prediction; and on
simulated players of known order.
"""

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from rating_systems import (
    OpenSkillClassifier,
    TTTClassifier,
    WHRClassifier,
    tournament_index,
)


def _table(pairs, periods, starts):
    return pd.DataFrame(
        {
            "player1": [a for a, _ in pairs],
            "player2": [b for _, b in pairs],
            "period": periods,
            "start": pd.to_datetime(starts),
        }
    )


def _ladder(seed=0, n=300):
    """Matches among four players of known strength order a > b > c > d."""
    rng = np.random.default_rng(seed)
    skill = {"a": 1.5, "b": 0.5, "c": -0.5, "d": -1.5}
    names = list(skill)
    pairs, y = [], []
    for _ in range(n):
        p, q = rng.choice(names, size=2, replace=False)
        pairs.append((p, q))
        y.append(int(rng.random() < 1 / (1 + math.exp(-(skill[p] - skill[q])))))
    periods = [f"T{i // 50}" for i in range(n)]
    starts = [f"2020-{1 + i // 50:02d}-01" for i in range(n)]
    return _table(pairs, periods, starts), np.array(y)


def test_tournament_index_follows_first_start_not_label_or_row_order():
    X = _table(
        [("a", "b")] * 4,
        ["late", "early", "late", "middle"],
        ["2020-03-01", "2020-01-01", "2020-03-05", "2020-02-01"],
    )
    assert tournament_index(X).tolist() == [2, 0, 2, 1]


def test_missing_column_is_named():
    with pytest.raises(ValueError, match="period"):
        tournament_index(pd.DataFrame({"player1": ["a"], "player2": ["b"]}))


@pytest.mark.parametrize(
    ("package", "make"),
    [
        ("whr", lambda: WHRClassifier()),
        ("trueskillthroughtime", lambda: TTTClassifier()),
        ("openskill", lambda: OpenSkillClassifier()),
    ],
)
def test_known_strength_order_is_recovered_and_newcomers_are_even(package, make):
    pytest.importorskip(package)
    X, y = _ladder()
    model = make().fit(X, y)
    test = pd.DataFrame(
        {"player1": ["a", "b", "c", "new", "a"], "player2": ["d", "c", "d", "x", "new"]}
    )
    p = model.predict_proba(test)
    assert np.allclose(p.sum(axis=1), 1)
    assert (p[:3, 1] > 0.6).all(), p[:, 1]
    assert p[3, 1] == pytest.approx(0.5)
    assert p[4, 1] > 0.5
    # swapping the players swaps the forecast
    swapped = test.rename(columns={"player1": "player2", "player2": "player1"})
    assert np.allclose(model.predict_proba(swapped)[:, 1], p[:, 0])


def test_whr_forecast_is_the_elo_formula_on_its_last_ratings():
    whr = pytest.importorskip("whr")
    X, y = _ladder(seed=1, n=100)
    model = WHRClassifier(w2=14.0).fit(X, y)
    base = whr.Base(config={"w2": 14.0})
    for i in range(len(X)):
        base.create_game(X.player1[i], X.player2[i], "B" if y[i] else "W", i // 50)
    base.iterate_until_converge(verbose=False)
    elo_a, elo_d = (base.ratings_for_player(p)[-1][1] for p in ("a", "d"))
    expected = 1 / (1 + 10 ** (-(elo_a - elo_d) / 400))
    got = model.predict_proba(pd.DataFrame({"player1": ["a"], "player2": ["d"]}))[0, 1]
    assert got == pytest.approx(expected, rel=1e-6)


def _home_league(seed=0, n=600, edge=1.0):
    """Six equal teams; player 1 (the home side) wins with log-odds ``edge``."""
    rng = np.random.default_rng(seed)
    teams = list("abcdef")
    pairs = [tuple(rng.choice(teams, size=2, replace=False)) for _ in range(n)]
    y = (rng.random(n) < 1 / (1 + math.exp(-edge))).astype(int)
    periods = [f"T{i // 100}" for i in range(n)]
    starts = [f"2020-{1 + i // 100:02d}-01" for i in range(n)]
    return _table(pairs, periods, starts), y


def test_whr_first_mover_advantage_is_each_games_handicap():
    whr = pytest.importorskip("whr")
    X, y = _home_league(n=200)
    model = WHRClassifier(w2=14.0, first_mover_advantage="auto").fit(X, y)
    # "auto": player 1's training share with a win and a loss added, in Elo points
    share = (y.sum() + 1) / (len(y) + 2)
    h = 400 * math.log10(share / (1 - share))
    assert model.first_mover_advantage_ == pytest.approx(h)
    base = whr.Base(config={"w2": 14.0})
    for i in range(len(X)):
        base.create_game(X.player1[i], X.player2[i], "B" if y[i] else "W", i // 100, handicap=h)
    base.iterate_until_converge(verbose=False)
    elo_a, elo_b = (base.ratings_for_player(p)[-1][1] for p in ("a", "b"))
    test = pd.DataFrame({"player1": ["a", "new"], "player2": ["b", "other"]})
    got = model.predict_proba(test)[:, 1]
    assert got[0] == pytest.approx(1 / (1 + 10 ** (-(elo_a + h - elo_b) / 400)), rel=1e-6)
    assert got[1] == pytest.approx(share)


def test_ttt_first_mover_teammate_learns_a_known_home_edge():
    pytest.importorskip("trueskillthroughtime")
    X, y = _home_league(edge=1.0)  # player 1 wins 73% between equals
    with_edge = TTTClassifier(gamma=0.01, first_mover=True).fit(X, y)
    without = TTTClassifier(gamma=0.01).fit(X, y)
    test = pd.DataFrame({"player1": list("abc"), "player2": list("def")})
    p_edge, p_none = with_edge.predict_proba(test)[:, 1], without.predict_proba(test)[:, 1]
    assert np.all(np.abs(p_edge - 0.73) < 0.06), p_edge
    assert np.all(np.abs(p_none - 0.5) < 0.06), p_none
    # the edge belongs to player 1's side: swapping the teams does not swap the forecast
    swapped = test.rename(columns={"player1": "player2", "player2": "player1"})
    assert np.all(with_edge.predict_proba(swapped)[:, 1] > 0.6)


def test_ttt_one_game_is_trueskills_closed_form_update():
    pytest.importorskip("trueskillthroughtime")
    sigma, beta, gamma = 1.6, 1.0, 0.01
    X = _table([("w", "l")], ["T0"], ["2020-01-01"])
    model = TTTClassifier(sigma=sigma, beta=beta, gamma=gamma).fit(X, np.array([1]))
    # TrueSkill's update for one win between equal priors: v(0) = pdf(0) / cdf(0).
    c2 = 2 * sigma**2 + 2 * beta**2
    v = norm.pdf(0) / norm.cdf(0)
    mu = sigma**2 / math.sqrt(c2) * v
    var = sigma**2 * (1 - sigma**2 / c2 * v * (v + 0))
    assert model.skill_["w"][0] == pytest.approx(mu, abs=1e-4)
    assert model.skill_["l"][0] == pytest.approx(-mu, abs=1e-4)
    assert model.skill_["w"][1] == pytest.approx(math.sqrt(var), abs=1e-4)
    expected = norm.cdf(2 * mu / math.sqrt(2 * var + 2 * gamma**2 + 2 * beta**2))
    got = model.predict_proba(pd.DataFrame({"player1": ["w"], "player2": ["l"]}))[0, 1]
    assert got == pytest.approx(expected, rel=1e-4)


def test_openskill_matches_its_own_sequential_updates():
    pytest.importorskip("openskill")
    from openskill.models import PlackettLuce

    X = _table(
        [("a", "b"), ("b", "c"), ("a", "c")],
        ["T0", "T0", "T1"],
        ["2020-01-01"] * 2 + ["2020-02-01"],
    )
    y = np.array([1, 0, 1])
    pl = PlackettLuce()
    r = {p: pl.rating(name=p) for p in "abc"}
    for winner, loser in (("a", "b"), ("c", "b"), ("a", "c")):
        (r[winner],), (r[loser],) = pl.rate([[r[winner]], [r[loser]]])
    expected = pl.predict_win([[r["b"]], [r["c"]]])[0]
    model = OpenSkillClassifier().fit(X, y)
    got = model.predict_proba(pd.DataFrame({"player1": ["b"], "player2": ["c"]}))[0, 1]
    assert got == pytest.approx(expected)


# -- the benchmark's scoring helpers (benchmarks/forecast.py, forecast_player_part.py) ----


def test_calibration_slope_is_one_for_calibrated_and_below_for_bold_forecasts():
    from forecast import calibration_slope
    from scipy.special import expit

    rng = np.random.default_rng(3)
    z = rng.normal(0, 1.5, 20000)
    y = (rng.random(z.size) < expit(z)).astype(int)
    assert calibration_slope(y, expit(z)) == pytest.approx(1.0, abs=0.05)
    assert calibration_slope(y, expit(2 * z)) == pytest.approx(0.5, abs=0.05)


def test_cached_forecasts_refit_only_a_changed_model(tmp_path):
    from forecast import cached_forecasts
    from sklearn.dummy import DummyClassifier

    from skcodex import TournamentSplit

    X, y = _ladder(seed=2)
    cv = TournamentSplit(n_splits=2)
    first = cached_forecasts({"m": DummyClassifier(strategy="prior")}, X, y, cv, tmp_path)
    assert len(list(tmp_path.iterdir())) == 1
    again = cached_forecasts({"renamed": DummyClassifier(strategy="prior")}, X, y, cv, tmp_path)
    assert len(list(tmp_path.iterdir())) == 1
    assert np.array_equal(again["renamed"], first["m"])
    other = cached_forecasts({"m": DummyClassifier(strategy="uniform")}, X, y, cv, tmp_path)
    assert len(list(tmp_path.iterdir())) == 2
    assert np.allclose(other["m"], 0.5) and not np.allclose(first["m"], 0.5)


def test_forecast_cache_key_follows_the_code_and_the_data(tmp_path, monkeypatch):
    import forecast
    from sklearn.dummy import DummyClassifier

    from skcodex import TournamentSplit

    X, y = _ladder(seed=2)
    cv, model = TournamentSplit(n_splits=2), DummyClassifier(strategy="prior")
    key = forecast.cache_key(model, X, y, cv)
    assert forecast.cache_key(model, X.copy(), y.copy(), cv) == key
    # the same number of matches and wins, one player renamed: other data
    renamed = X.replace({"player1": {X["player1"].iloc[0]: "someone else"}})
    assert forecast.cache_key(model, renamed, y, cv) != key
    # the same parameters and data, other code behind the model
    edited = tmp_path / "wrapper.py"
    edited.write_text("# a wrapper\n")
    monkeypatch.setattr(forecast.inspect, "getfile", lambda cls: str(edited))
    before = forecast.cache_key(model, X, y, cv)
    edited.write_text("# a wrapper, edited\n")
    assert forecast.cache_key(model, X, y, cv) != before
    monkeypatch.undo()
    # an estimator inside another (a tuned rating system): its own code counts too
    from sklearn.pipeline import make_pipeline

    real = forecast.inspect.getfile
    monkeypatch.setattr(
        forecast.inspect,
        "getfile",
        lambda cls: str(edited) if cls is DummyClassifier else real(cls),
    )
    outer = make_pipeline(DummyClassifier(strategy="prior"))
    before = forecast.cache_key(outer, X, y, cv)
    edited.write_text("# a wrapper, edited twice\n")
    assert forecast.cache_key(outer, X, y, cv) != before


def test_newcomer_handicap_uses_only_earlier_folds():
    from forecast_player_part import handicap, offset_from_earlier_folds

    p = np.full(6, 0.5)
    new = np.array([[1, 0], [0, 1], [1, 0], [0, 0], [1, 0], [0, 0]], dtype=bool)
    assert np.allclose(handicap(p, new, 0.0), p)
    lowered = handicap(p, new, 1.0)
    assert lowered[0] < 0.5 < lowered[1] and lowered[3] == 0.5
    split = np.array([0, 0, 1, 1, 2, 2])
    # fold 0: newcomers lost both matches; fold 1: the newcomer won
    y = np.array([0, 1, 1, 0, 0, 1])
    out, chosen = offset_from_earlier_folds(y, p, new, split)
    assert chosen[0] == 0.0  # nothing earlier to learn from
    assert chosen[1] == 2.0  # fold 0 alone: newcomers always lost, the largest offset
    assert 0.0 < chosen[2] < 2.0  # folds 0 and 1: a lost, a lost, a won
    assert np.allclose(out[split == 0], 0.5)
