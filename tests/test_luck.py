"""Luck estimates, the dice game and luck-adjusted skill estimates, checked against known truth."""

from functools import lru_cache

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import spearmanr

from skcodex.codex import Deck
from skcodex.data import MatchTableError, check_match_table
from skcodex.datasets import DiceGame, make_dice_matches
from skcodex.luck import (
    adjusted_outcome,
    event_luck,
    fit_skills,
    luck_by_match,
    luck_from_pairs,
    net_luck,
    quasi_log_likelihood,
    zare_example,
)

# Jellyfish's first ten rolls in Zare, "Hedging Toward Skill" (2000), as printed:
# average / evaluation / luck, match equity from Jellyfish's view.
ZARE_ROWS = [
    (0.000, 0.012, +0.012),
    (0.054, 0.284, +0.230),
    (0.255, 0.266, +0.011),
    (0.308, 0.257, -0.051),
    (0.282, 0.238, -0.044),
    (0.307, 0.261, -0.046),
    (0.362, 0.238, -0.124),
    (0.161, 0.284, +0.123),
    (0.391, 0.510, +0.119),
    (0.455, 0.464, +0.009),
]


# -- the seed's worked game ---------------------------------------------------------


def test_zare_luck_is_evaluation_minus_average_row_by_row():
    average, evaluation, printed = (np.array(c) for c in zip(*ZARE_ROWS))
    luck = luck_from_pairs(average, evaluation)
    np.testing.assert_allclose(luck, printed, atol=5e-4)
    # the sum of the printed luck column, and of the computed one
    assert printed.sum() == pytest.approx(0.239, abs=1e-9)
    assert luck.sum() == pytest.approx(0.239, abs=5e-4)


def test_zare_example_matches_the_article():
    game = zare_example()
    assert list(game["roll"]) == list(range(1, 11))
    expected = pd.DataFrame(ZARE_ROWS, columns=["average", "evaluation", "luck"])
    pd.testing.assert_frame_equal(game[["average", "evaluation", "luck"]], expected)
    assert game.loc[1, "dice"] == "3-3"


def test_zare_hypothetical_roll_is_lucky_by_one_not_point_eight():
    # evaluator says 0.2 before rolling, but half the rolls give +1 and half -1
    assert event_luck(lambda v: v, [1.0, -1.0], [0.5, 0.5], actual=0) == pytest.approx(1.0)
    assert event_luck(lambda v: v, [1.0, -1.0], [0.5, 0.5], actual=1) == pytest.approx(-1.0)


# -- the pieces ---------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.floats(-5, 5, allow_nan=False), min_size=1, max_size=8),
    weights=st.lists(st.floats(0.01, 1.0), min_size=8, max_size=8),
)
def test_event_luck_averages_to_zero_over_outcomes(values, weights):
    p = np.array(weights[: len(values)])
    p = p / p.sum()
    # any evaluator at all, here a skewed one
    lucks = [event_luck(lambda v: v**3 - 2 * v, values, p, actual=i) for i in range(len(values))]
    assert p @ np.array(lucks) == pytest.approx(0.0, abs=1e-9)


def test_event_luck_validates_its_input():
    with pytest.raises(ValueError, match="sum to 1"):
        event_luck(float, [1.0, 2.0], [0.5, 0.6], actual=0)
    with pytest.raises(ValueError, match="one entry per outcome"):
        event_luck(float, [1.0, 2.0], [1.0], actual=0)
    with pytest.raises(ValueError, match="index an outcome"):
        event_luck(float, [1.0, 2.0], [0.5, 0.5], actual=2)
    with pytest.raises(TypeError):
        event_luck(float, [1.0, 2.0], [0.5, 0.5], actual=True)


def test_net_luck_and_luck_by_match_sign_player_two_events():
    assert net_luck([0.1, 0.25, -0.05], [1, 2, 1]) == pytest.approx(-0.2)
    events = pd.DataFrame(
        {"match": [1, 1, 0, 1], "roller": [2, 1, 1, 2], "luck": [0.3, 0.1, 0.2, -0.4]}
    )
    np.testing.assert_allclose(luck_by_match(events), [0.2, 0.2])
    np.testing.assert_allclose(luck_by_match(events, n_matches=4), [0.2, 0.2, 0.0, 0.0])
    with pytest.raises(ValueError, match="1 \\(player 1\\) or 2"):
        net_luck([0.1], [0])
    with pytest.raises(ValueError, match="n_matches"):
        luck_by_match(events, n_matches=1)
    with pytest.raises(ValueError, match="no column"):
        luck_by_match(events.drop(columns="roller"))


def test_adjusted_outcome_and_its_validation():
    np.testing.assert_allclose(adjusted_outcome([1, 0], [0.4, -0.3]), [0.6, 0.3])
    with pytest.raises(MatchTableError):
        adjusted_outcome([1, 0.5], [0.0, 0.0])
    with pytest.raises(ValueError, match="luck values"):
        adjusted_outcome([1, 0], [0.0])
    with pytest.raises(ValueError, match="finite"):
        adjusted_outcome([1, 0], [0.0, np.nan])


def test_quasi_likelihood_is_bernoulli_on_wins_and_concave_everywhere():
    q = np.linspace(-4, 4, 81)
    np.testing.assert_allclose(
        quasi_log_likelihood(np.ones_like(q), q), np.log(1 / (1 + np.exp(-q)))
    )
    np.testing.assert_allclose(
        quasi_log_likelihood(np.zeros_like(q), q), np.log(1 / (1 + np.exp(q)))
    )
    for r in (-0.7, 0.3, 1.6):
        second = np.diff(quasi_log_likelihood(np.full_like(q, r), q), 2)
        assert (second < 0).all()


# -- the dice game ------------------------------------------------------------------


@lru_cache
def _value_iteration(length: int, faces: int) -> np.ndarray:
    """Independent solver: plain value iteration over positions, rolls and moves."""
    rolls = [(d1, d2) for d1 in range(1, faces + 1) for d2 in range(1, faces + 1)]
    V = np.full((length + 1, length + 1), 0.5)
    for _ in range(2000):
        new = V.copy()
        for a in range(1, length + 1):
            for b in range(1, length + 1):
                total = 0.0
                for d1, d2 in rolls:
                    moves = {m for m in (d1, d2, d1 + d2) if m <= a}
                    if not moves:
                        total += 1.0 - V[b, a]
                    else:
                        total += max(1.0 if m == a else 1.0 - V[b, a - m] for m in moves)
                new[a, b] = total / len(rolls)
        change = np.abs(new - V)[1:, 1:].max()
        V = new
        if change < 1e-14:
            break
    return V


@pytest.mark.parametrize(("length", "faces"), [(9, 6), (12, 3)])
def test_dynamic_programme_matches_value_iteration(length, faces):
    game = DiceGame(length=length, faces=faces)
    np.testing.assert_allclose(
        game.values[1:, 1:], _value_iteration(length, faces)[1:, 1:], atol=1e-10
    )


def test_values_obey_the_bellman_equation_and_known_cases():
    game = DiceGame()
    after = game.roll_values("exact")
    np.testing.assert_allclose((after @ game.roll_probabilities)[1:, 1:], game.values[1:, 1:])
    # at (1, 1) each turn wins with chance 11/36 (a 1 on either die)
    p = 11 / 36
    assert game.value(1, 1) == pytest.approx(p / (1 - (1 - p) ** 2))
    assert 0.5 < game.initial_value < 0.7


@pytest.mark.parametrize("start", [(30, 30), (12, 5), (3, 8), (1, 2)])
def test_values_agree_with_simulated_optimal_play(start):
    game = DiceGame()
    n = 20_000
    y, _ = game.play(np.ones(n), np.ones(n), start=start, random_state=sum(start))
    se = np.sqrt(game.value(*start) * (1 - game.value(*start)) / n)
    assert abs(y.mean() - game.value(*start)) < 3 * se


def test_moves_rules():
    game = DiceGame()
    assert game.moves(30, (3, 3)) == (3, 6)
    assert game.moves(4, (2, 5)) == (2,)
    assert game.moves(1, (2, 5)) == ()
    assert game.best_move(1, 4, (2, 5)) == 0
    assert game.best_move(7, 30, (3, 4)) == 7  # finishing wins
    with pytest.raises(ValueError, match="two dice"):
        game.moves(5, (0, 3))
    with pytest.raises(ValueError, match="distances"):
        game.value(31, 3)


def test_skill_is_move_accuracy():
    game = DiceGame()
    n = 4000
    _, events = game.play(np.full(n, 0.7), np.full(n, 0.7), random_state=3)
    moves = game.move_values()
    vals = moves[events.mover_distance, events.opponent_distance, events.roll]
    legal = np.isfinite(vals)
    top = np.where(legal, vals, -np.inf).max(axis=1)
    real_choice = (legal & (vals < top[:, None] - 1e-12)).any(axis=1)
    accuracy = (events["error"][real_choice] == 0).mean()
    se = np.sqrt(0.7 * 0.3 / real_choice.sum())
    assert abs(accuracy - 0.7) < 3 * se
    assert (events["error"] <= 0).all()
    assert (events["error"][~real_choice] == 0).all()


def test_better_players_win_more():
    game = DiceGame()
    y, _ = game.play(np.full(4000, 1.0), np.full(4000, 0.5), random_state=0)
    assert y.mean() > 0.7


def test_biased_evaluator_is_wrong_but_keeps_finished_games():
    game = DiceGame()
    biased = game.biased_values()
    assert np.abs(biased - game.values)[1:, 1:].mean() > 0.05
    np.testing.assert_array_equal(biased[:, 0], game.values[:, 0])
    np.testing.assert_array_equal(biased[0, 1:], game.values[0, 1:])
    # fair luck averages to zero over the rolls of every position, whatever the evaluator
    for table in ("exact", biased, np.random.default_rng(0).uniform(size=biased.shape)):
        luck = game.luck_table(table)
        np.testing.assert_allclose((luck @ game.roll_probabilities)[1:, 1:], 0.0, atol=1e-12)


# -- make_dice_matches ---------------------------------------------------------------


def test_make_dice_matches_table_and_fundamental_equation():
    data = make_dice_matches(n_players=8, n_matches=500, random_state=0)
    table = check_match_table(data.X)
    assert len(table) == 500
    assert set(table["deck1"]) == {Deck("Dice", ("dice",))}
    assert (data.X["player1"] != data.X["player2"]).all()
    assert set(data.y) <= {0, 1}
    assert list(data.skills.index) == sorted(set(data.X["player1"]) | set(data.X["player2"]))
    # Final - Initial = Net Luck + Net Skill, exactly, with the exact evaluator
    np.testing.assert_allclose(data.y - data.initial_value, data.luck + data.net_skill, atol=1e-12)
    np.testing.assert_allclose(luck_by_match(data.events, 500), data.luck)
    # player 1 moves first: their events are on odd turns counted from 1
    assert (data.events["roller"] == np.where(data.events["turn"] % 2 == 0, 1, 2)).all()


def test_make_dice_matches_same_games_whatever_the_evaluator():
    exact = make_dice_matches(n_players=5, n_matches=300, random_state=4)
    biased = make_dice_matches(n_players=5, n_matches=300, evaluator="biased", random_state=4)
    np.testing.assert_array_equal(exact.y, biased.y)
    pd.testing.assert_frame_equal(exact.X, biased.X)
    assert not np.allclose(exact.luck, biased.luck)
    again = make_dice_matches(n_players=5, n_matches=300, random_state=4)
    np.testing.assert_array_equal(exact.luck, again.luck)


def test_make_dice_matches_validation():
    with pytest.raises(ValueError, match="n_players"):
        make_dice_matches(n_players=1)
    with pytest.raises(ValueError, match="skill_range"):
        make_dice_matches(skill_range=(0.5, 1.2))
    with pytest.raises(ValueError, match="skills has"):
        make_dice_matches(n_players=3, skills=[0.5, 0.6])
    with pytest.raises(ValueError, match="evaluator"):
        make_dice_matches(evaluator="perfect")
    data = make_dice_matches(n_players=3, n_matches=50, skills=[0.2, 0.5, 0.9], random_state=0)
    np.testing.assert_array_equal(data.skills.to_numpy(), [0.2, 0.5, 0.9])


# -- unbiasedness ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def many_games():
    return make_dice_matches(n_players=20, n_matches=20_000, random_state=11)


def _mean_and_se(x: np.ndarray) -> tuple[float, float]:
    return float(np.mean(x)), float(np.std(x, ddof=1) / np.sqrt(len(x)))


@pytest.mark.parametrize("evaluator", ["exact", "biased"])
def test_net_luck_is_unbiased_with_any_evaluator(many_games, evaluator):
    game = many_games.game
    events = game.annotate_luck(many_games.events, evaluator)
    luck = luck_by_match(events, len(many_games.y))
    mean, se = _mean_and_se(luck)
    assert abs(mean) < 3 * se
    assert luck.std() > 0.3  # the luck is large: bigger than a win's own spread
    # each player's own luck, summed over their rolls, averages to zero too
    for who in (1, 2):
        own = np.bincount(
            events["match"], weights=events["luck"] * (events["roller"] == who), minlength=len(luck)
        )
        mean, se = _mean_and_se(own)
        assert abs(mean) < 3 * se


def test_naive_luck_with_a_biased_evaluator_is_biased(many_games):
    # value after the roll minus the evaluator's value before it: biased, and the test sees it
    game = many_games.game
    table = game.biased_values()
    after = game.roll_values(table)
    ev = many_games.events
    a, b, r = ev["mover_distance"], ev["opponent_distance"], ev["roll"]
    naive = after[a, b, r] - table[a, b]
    luck = luck_by_match(ev.assign(luck=naive), len(many_games.y))
    mean, se = _mean_and_se(luck)
    assert abs(mean) > 5 * se


# -- variance reduction ----------------------------------------------------------------


def _standardised_rmse(estimate: pd.Series, truth: pd.Series) -> float:
    e = (estimate - estimate.mean()) / estimate.std()
    t = truth[estimate.index]
    t = (t - t.mean()) / t.std()
    return float(np.sqrt(np.mean((e - t) ** 2)))


def test_fit_skills_recovers_the_ranking_and_first_move_advantage():
    data = make_dice_matches(n_players=8, n_matches=2000, random_state=2)
    raw = fit_skills(data.X, data.y)
    assert raw.index.equals(data.skills.index)
    assert spearmanr(raw, data.skills).statistic > 0.8
    assert raw.attrs["first_move"] > 0  # moving first is an advantage in a race
    with pytest.raises(ValueError, match="penalty"):
        fit_skills(data.X, data.y, penalty=0)
    with pytest.raises(MatchTableError, match="one value per match"):
        fit_skills(data.X, data.y[:-1])


def test_adjusted_outcomes_from_n_matches_beat_raw_from_2n():
    n, reps = 300, 8
    rho_adj, rho_raw, rmse_adj, rmse_raw = [], [], [], []
    for rep in range(reps):
        data = make_dice_matches(n_players=20, n_matches=2 * n, random_state=100 + rep)
        adj = fit_skills(data.X.iloc[:n], adjusted_outcome(data.y[:n], data.luck[:n]))
        raw = fit_skills(data.X, data.y)
        rho_adj.append(spearmanr(adj, data.skills[adj.index]).statistic)
        rho_raw.append(spearmanr(raw, data.skills[raw.index]).statistic)
        rmse_adj.append(_standardised_rmse(adj, data.skills))
        rmse_raw.append(_standardised_rmse(raw, data.skills))
    assert np.mean(rho_adj) >= np.mean(rho_raw)
    assert np.mean(rmse_adj) <= np.mean(rmse_raw)


def test_adjusted_outcome_has_less_than_half_the_noise():
    # same pair of equal players over and over: all spread is noise
    game = DiceGame()
    n = 20_000
    y, events = game.play(np.full(n, 0.75), np.full(n, 0.75), random_state=5)
    for evaluator in ("exact", "biased"):
        luck = luck_by_match(game.annotate_luck(events, evaluator), n)
        assert np.var(adjusted_outcome(y, luck)) < 0.5 * np.var(y)


def test_make_dice_matches_return_X_y():
    data = make_dice_matches(n_players=4, n_matches=20, random_state=3)
    X, y = make_dice_matches(n_players=4, n_matches=20, random_state=3, return_X_y=True)
    pd.testing.assert_frame_equal(X, data.X)
    np.testing.assert_array_equal(y, data.y)
    with pytest.raises(TypeError, match="return_X_y must be True or False"):
        make_dice_matches(n_players=4, n_matches=20, return_X_y=1)


# -- checking the evaluator ------------------------------------------------------------


def _season(seed: int = 5):
    """A short season of the dice race: 8 players, 120 matches, exact luck."""
    return make_dice_matches(n_players=8, n_matches=120, random_state=seed)


def test_an_exact_evaluator_passes_the_checks():
    import warnings

    from skcodex import EloClassifier
    from skcodex.data import LuckWarning, adjust_for_luck

    data = _season()
    table = check_match_table(data.X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LuckWarning)
        adjusted = adjust_for_luck(table, data.y.astype(float), data.luck)
        EloClassifier().fit(data.X, data.y, luck=data.luck)
    np.testing.assert_array_equal(adjusted, data.y - data.luck)
    assert np.var(adjusted) < np.var(data.y)


def test_a_noisy_evaluator_is_warned_about():
    from skcodex import EloClassifier, Glicko2Classifier
    from skcodex.data import LuckWarning

    data = _season()
    noisy = data.luck + np.random.default_rng(0).normal(0.0, 1.0, len(data.luck))
    raw, adjusted = np.var(data.y), np.var(data.y - noisy)
    assert adjusted > raw  # the premise: this evaluator adds more noise than it removes
    for model in (EloClassifier(), Glicko2Classifier()):
        with pytest.warns(LuckWarning, match=f"variance {adjusted:.3g} against {raw:.3g}"):
            model.fit(data.X, data.y, luck=noisy)


def _adjusted_wins(X: pd.DataFrame, adjusted: np.ndarray) -> dict:
    """Each player's adjusted total of wins and matches, match by match."""
    wins, played = {}, {}
    for p1, p2, r in zip(X["player1"], X["player2"], adjusted):
        wins[p1] = wins.get(p1, 0.0) + r
        wins[p2] = wins.get(p2, 0.0) + 1.0 - r
        played[p1], played[p2] = played.get(p1, 0) + 1, played.get(p2, 0) + 1
    return {p: (wins[p], played[p]) for p in wins}


def test_a_pure_noise_evaluator_is_refused_where_the_posterior_would_be_improper():
    import re

    from skcodex import BayesianMatchupClassifier, EloClassifier
    from skcodex.data import LuckWarning

    data = _season()
    noise = np.random.default_rng(2).normal(0.0, 3 * np.std(data.luck), len(data.luck))
    totals = _adjusted_wins(data.X, data.y - noise)
    outside = {p: t for p, t in totals.items() if not 0 <= t[0] <= t[1]}
    assert len(outside) == 3  # the premise, counted independently
    X, r = data.X, data.y - noise
    for player, (wins, played) in outside.items():
        # The quasi-likelihood has no maximum: it keeps growing along that player's skill.
        sign = 1.0 if wins > played else -1.0
        direction = sign * ((X["player1"] == player).to_numpy() * 1.0 - (X["player2"] == player))
        values = [quasi_log_likelihood(r, t * direction).sum() for t in (10.0, 100.0, 1000.0)]
        assert values[0] < values[1] < values[2]
    with pytest.warns(LuckWarning), pytest.raises(MatchTableError) as info:
        BayesianMatchupClassifier(draws=10, tune=10, chains=1).fit(data.X, data.y, luck=noise)
    named = re.search(r"player '(\w+)' has (\S+) wins from (\d+) matches", str(info.value))
    wins, played = outside[named[1]]
    assert (named[2], int(named[3])) == (f"{wins:.3g}", played)
    assert f"outside [0, {played}] (3 player(s) in all)" in str(info.value)
    # Elo has no likelihood to keep proper: it warns and fits.
    with pytest.warns(LuckWarning):
        p = EloClassifier().fit(data.X, data.y, luck=noise).predict_proba(data.X)
    assert np.isfinite(p).all()


def test_fit_skills_without_first_move_fits_no_first_move_advantage():
    data = make_dice_matches(n_players=8, n_matches=2000, random_state=2)
    with_h = fit_skills(data.X, data.y)
    without = fit_skills(data.X, data.y, first_move=False)
    assert with_h.attrs["first_move"] > 0.1  # the race favours the first mover
    assert without.attrs["first_move"] == 0.0
    # Without h, the strengths alone maximise the penalised quasi-likelihood.
    table = check_match_table(data.X)
    s = without.to_dict()
    q = np.array([s[a] - s[b] for a, b in zip(table["player1"], table["player2"])])
    r = data.y.astype(float)
    assert abs(np.sum(1 / (1 + np.exp(-q)) - r)) > 1.0  # h's score is not zero: h was held
