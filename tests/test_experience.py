"""The experience effect: a player's skill moved by how many rating periods they played before."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from skcodex import BayesianMatchupClassifier
from skcodex._matchup.blocks import BLOCK_TABLE, PRIOR_DEFAULTS
from skcodex._matchup.graph import Layout, ModelOptions
from skcodex.data import Vocabulary, check_match_table, encode
from skcodex.data._experience import EDGES, level_of, periods_before, played_periods
from skcodex.data._kinds import EXPERIENCE_LEVELS
from skcodex.datasets import make_matches

from random_matches import period_table as _table  # isort: skip


# -- counting and levels --------------------------------------------------------------------


def test_levels_double_in_width():
    n = np.arange(20)
    expected = [0, 0, 1, 1, 2, 2, 2, 2] + [3] * 12
    assert level_of(n).tolist() == expected
    assert len(EDGES) + 1 == len(EXPERIENCE_LEVELS)


def test_periods_before_is_a_count_of_earlier_periods_played():
    rng = np.random.default_rng(0)
    n_players, n_periods, n_rows = 7, 9, 200
    code = rng.integers(0, n_players, n_rows)
    position = rng.integers(0, n_periods, n_rows)
    played = played_periods(position, code, n_players)
    for p in range(n_players):  # each player's distinct periods, sorted
        assert played[p] == tuple(sorted(set(position[code == p].tolist())))
    queries = rng.integers(0, n_players + 2, 300)  # codes from n_players up: never seen
    at = rng.integers(0, n_periods + 1, 300)
    brute = [sum(x < a for x in played[c]) if c < n_players else 0 for c, a in zip(queries, at)]
    assert periods_before(played, queries, at).tolist() == brute


def test_a_match_reads_each_sides_level_and_a_forecast_counts_every_training_period():
    periods = [f"t{i}" for i in range(1, 10)]
    # a plays every period; b plays t1 and t5; c first plays t9
    p1 = ["a"] * 9 + ["b"]
    p2 = ["b", "x1", "x2", "x3", "b", "x4", "x5", "x6", "c", "c"]
    table = check_match_table(_table(p1, p2, [*periods, "t9"]))
    vocab = Vocabulary.from_table(table)
    codes = encode(table, vocab)
    # a has played 0..8 periods before t1..t9: levels 0,0,1,1,2,2,2,2,3
    assert codes.experience1[:9].tolist() == [0, 0, 1, 1, 2, 2, 2, 2, 3]
    assert codes.experience2[[0, 4]].tolist() == [0, 0]  # b: none before t1, one before t5
    assert codes.experience1[9] == 1  # b has played t1 and t5 before t9
    assert codes.experience2[8] == codes.experience2[9] == 0  # c has played none before
    later = check_match_table(_table(["a", "b", "new"], ["c", "new", "a"], ["t10"] * 3))
    codes = encode(later, vocab)
    # in a period after training: a played 9, b 3, c 1, a never-seen player none
    assert codes.experience1.tolist() == [3, 1, 0]
    assert codes.experience2.tolist() == [0, 0, 3]


def test_without_periods_there_are_no_levels():
    rows = _table(["a", "b"], ["b", "c"], ["t1", "t2"]).drop(columns="period")
    table = check_match_table(rows)
    vocab = Vocabulary.from_table(table)
    assert vocab.played_periods == ()
    codes = encode(table, vocab)
    assert codes.experience1 is None and codes.experience2 is None


def test_the_experience_block_is_pooled_from_a_zero_baseline():
    block = next(b for b in BLOCK_TABLE if b.name == "experience")
    assert block.option == "experience" and block.spread == "experience"
    assert block.form == "baseline" and PRIOR_DEFAULTS["experience"] == (-1.0, 0.5)
    layout = Layout(5, 2, 3, 1, ModelOptions(experience=True))
    assert layout.shapes["experience"] == (len(EXPERIENCE_LEVELS),)
    assert layout.n_free_cells(block) == len(EXPERIENCE_LEVELS) - 1
    sd = np.full((4, len(layout.spreads)), 0.5)
    z = np.random.default_rng(0).standard_normal((4, layout.n_free))
    effects = layout.unflatten(layout.theta(z, sd))
    assert np.all(effects["experience"][:, 0] == 0.0)
    at = layout.free_offsets["experience"]
    np.testing.assert_allclose(effects["experience"][:, 1:], 0.5 * z[:, at : at + 3])


def test_the_log_odds_read_the_difference_of_levels():
    table = check_match_table(
        _table(["a", "a", "a", "b"], ["b", "c", "c", "c"], ["t1", "t2", "t3", "t3"])
    )
    vocab = Vocabulary.from_table(table)
    layout = Layout(*vocab.sizes, vocab.specs_per_deck, ModelOptions(experience=True))
    codes = encode(table, vocab)
    theta = layout.theta(
        np.random.default_rng(1).standard_normal((3, layout.n_free)),
        np.ones((3, len(layout.spreads))),
    )
    blocks = layout.unflatten(theta)
    for name in ("stst", "stsp", "spst", "spsp"):
        blocks[name] = np.zeros_like(blocks[name])
    theta = layout.flatten(blocks)
    q = (theta[:, layout.index_matrix(codes)] * layout.signs).sum(-1)
    skill, exp = blocks["skill"], blocks["experience"]
    a, b, c = (vocab.players.index(p) for p in "abc")
    # before t3: a played 2 periods (level 1), c one (level 0), b one (level 0)
    np.testing.assert_allclose(q[:, 2], skill[:, a] - skill[:, c] + exp[:, 1] - exp[:, 0])
    np.testing.assert_allclose(q[:, 3], skill[:, b] - skill[:, c])


def test_the_estimator_switches_it_on_only_with_periods():
    clf = BayesianMatchupClassifier(experience=True, log_sd_experience_loc=-0.5)
    assert clf.options.experience and "experience" in clf.options.prior_names
    assert clf.priors.loc[clf.options.prior_names.index("experience")] == -0.5
    assert "experience" not in BayesianMatchupClassifier().options.prior_names
    with pytest.raises(ValueError, match="experience"):
        BayesianMatchupClassifier(experience="yes").fit(_table(["a"], ["b"], ["t1"]), np.array([1]))


# -- fitted against known truth --------------------------------------------------------------


def learning_matches(gain: float, *, n_players=60, n_periods=12, per_period=120, seed=0):
    """Tournaments players join one after another; a side's log-odds rise by ``gain``
    once its player has played two rating periods or more before the match's.

    Players enter at a random tournament (eight in the first) and play in any
    tournament after with a chance of 0.8 each; decks have no effect.
    Returns the table and the outcomes.
    """
    rng = np.random.default_rng(seed)
    base = make_matches(
        n_players=20,
        n_matches=n_periods * per_period,
        n_tournaments=n_periods,
        sd_stst=0.0,
        sd_stsp=0.0,
        sd_spsp=0.0,
        random_state=seed,
    ).X.reset_index(drop=True)
    tournament = pd.factorize(base["period"])[0]
    entry = np.sort(rng.integers(0, n_periods, n_players))
    entry[:8] = 0
    plays = (rng.random((n_players, n_periods)) < 0.8) | (
        np.arange(n_periods)[None, :] == entry[:, None]
    )
    plays &= np.arange(n_periods)[None, :] >= entry[:, None]
    first, second = np.empty(len(base), dtype=int), np.empty(len(base), dtype=int)
    for t in range(n_periods):
        rows = np.flatnonzero(tournament == t)
        field = np.flatnonzero(plays[:, t])
        for row in rows:
            first[row], second[row] = rng.choice(field, 2, replace=False)
    # the periods each player actually played, and how many before each match's
    played = np.zeros((n_players, n_periods), dtype=bool)
    played[first, tournament] = True
    played[second, tournament] = True
    before = np.cumsum(played, axis=1) - played
    seasoned1 = before[first, tournament] >= 2
    seasoned2 = before[second, tournament] >= 2
    skill = rng.normal(0.0, 0.8, n_players)
    p = expit(skill[first] - skill[second] + gain * (seasoned1.astype(float) - seasoned2))
    y = (rng.random(len(p)) < p).astype(int)
    X = base.assign(player1=[f"P{i}" for i in first], player2=[f"P{i}" for i in second])
    return X, y


def _fit(X, y, **params):
    return BayesianMatchupClassifier(
        time_varying=False, draws=400, tune=400, chains=2, random_state=0, **params
    ).fit(X, y)


def _level_draws(clf) -> np.ndarray:
    from skcodex._compat import posterior as posterior

    return posterior.draws(clf.idata_, "experience").astype(float)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_a_known_newcomer_handicap_is_recovered(tmp_path):
    """Players with fewer than two earlier periods are weaker by 0.8: every level above finds it."""
    X, y = learning_matches(0.8)
    clf = _fit(X, y, experience=True)
    draws = _level_draws(clf)[:, 1:]
    mean, sd = draws.mean(axis=0), draws.std(axis=0)
    assert np.all(np.abs(mean - 0.8) < 3 * sd)  # each level: the truth within three sds
    assert np.all(np.quantile(draws, 0.05, axis=0) > 0.0)  # and each finds the gain
    # a never-seen player is forecast at the baseline: below a seasoned player of skill 0
    import skcodex

    again = skcodex.load(clf.save(tmp_path / "experience.skcodex"))
    later = X.tail(5).assign(player1="someone new", period="next")
    np.testing.assert_array_equal(again.predict_proba(later), clf.predict_proba(later))


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_no_learning_effect_is_found_where_there_is_none():
    """With no newcomer effect the levels sit near 0 and forecasts match the static model's."""
    X, y = learning_matches(0.0, seed=1)
    train = X["period"] != X["period"].iloc[-1]
    clf = _fit(X[train], y[train], experience=True)
    draws = _level_draws(clf)[:, 1:]
    low, high = np.quantile(draws, [0.05, 0.95], axis=0)
    assert np.all(low < 0.0) and np.all(0.0 < high)
    assert np.all(np.abs(draws.mean(axis=0)) < 0.25)
    static = _fit(X[train], y[train])
    p = clf.predict_proba(X[~train])[:, 1]
    q = static.predict_proba(X[~train])[:, 1]
    assert np.abs(p - q).mean() < 0.02
