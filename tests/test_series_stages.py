"""Tournament stages played in best-of-N sets, against exact enumeration of the bracket."""

import itertools

import numpy as np
import pandas as pd
import pytest

from tournament_odds import entrant_names, random_matrix, within_error  # isort: skip

from skcodex.tournament import (
    Format,
    Knockout,
    Swiss,
    TournamentError,
    parse_format,
    simulate_tournament,
)

N_SIMS = 60_000


def _set_exact(p, i, j, best_of):
    """P(i wins a best-of-N set against j, i first in game 1, first move alternating).

    Every sequence of all N games played out: the set's winner is who won most of them.
    """
    total = 0.0
    for outcome in itertools.product((True, False), repeat=best_of):
        prob = 1.0
        for g, i_won in enumerate(outcome):
            p_i = p[i, j] if g % 2 == 0 else 1 - p[j, i]
            prob *= p_i if i_won else 1 - p_i
        if sum(outcome) > best_of // 2:
            total += prob
    return total


def _coin_sets(p, best_of):
    """P(i wins the set) when a coin decides who moves first in its game 1."""
    n = len(p)
    q = np.full((n, n), 0.5)
    for i in range(n):
        for j in range(n):
            if i != j:
                q[i, j] = 0.5 * (_set_exact(p, i, j, best_of) + 1 - _set_exact(p, j, i, best_of))
    return q


def _four_bracket(semi, final):
    """P(win) and P(final) of seeds 1 v 4, 2 v 3, the final at its own set odds."""
    win, reach = np.zeros(4), np.zeros(4)
    for a, b in ((0, 3), (3, 0)):
        for c, d in ((1, 2), (2, 1)):
            prob = semi[a, b] * semi[c, d]
            reach[a] += prob
            reach[c] += prob
            win[a] += prob * final[a, c]
            win[c] += prob * final[c, a]
    return win, reach


def test_four_player_knockout_in_best_of_three_matches_enumeration():
    p = random_matrix(4, 11)
    fc = simulate_tournament(
        "knockout:4:bo3", entrant_names(4), probabilities=p, n_simulations=N_SIMS, random_state=0
    )
    q = _coin_sets(p, 3)
    win, reach = _four_bracket(q, q)
    within_error(fc.p_win, win, N_SIMS)
    within_error(fc.p_reach()["p_final"].to_numpy(), reach, N_SIMS)
    # Not the single-game bracket: sets favour the favourites.
    single, _ = _four_bracket(_coin_sets(p, 1), _coin_sets(p, 1))
    assert np.abs(win - single).max() > 8 * np.sqrt(0.25 / N_SIMS)


def test_a_best_of_five_final_after_best_of_three_semifinals_matches_enumeration():
    p = random_matrix(4, 12)
    fc = simulate_tournament(
        Format((Knockout(4, best_of=3, final_best_of=5),)),
        entrant_names(4),
        probabilities=p,
        n_simulations=N_SIMS,
        random_state=1,
    )
    win, reach = _four_bracket(_coin_sets(p, 3), _coin_sets(p, 5))
    within_error(fc.p_win, win, N_SIMS)
    within_error(fc.p_reach()["p_final"].to_numpy(), reach, N_SIMS)


def test_each_simulated_tournament_plays_its_sets_on_its_own_draw():
    # Two draws: the forecast is the mean of the two brackets, not the bracket of the mean.
    draws = np.stack([random_matrix(4, 13), random_matrix(4, 14)])
    fc = simulate_tournament(
        "knockout:4:bo3",
        entrant_names(4),
        probabilities=draws,
        n_simulations=N_SIMS,
        random_state=2,
    )
    per_draw = [_four_bracket(_coin_sets(d, 3), _coin_sets(d, 3))[0] for d in draws]
    within_error(fc.p_win, np.mean(per_draw, axis=0), N_SIMS)


def test_alternating_first_move_gives_each_set_s_first_game_in_turn():
    # In a knockout of two with first_move="alternating" the first set's game 1 goes to
    # a coin flip: the chance is the coin-flip set chance.
    p = random_matrix(2, 15)
    fc = simulate_tournament(
        "knockout:bo5",
        entrant_names(2),
        probabilities=p,
        n_simulations=N_SIMS,
        first_move="alternating",
        random_state=3,
    )
    within_error(fc.p_win, _coin_sets(p, 5)[[0, 1], [1, 0]], N_SIMS)


def test_stage_text_and_words():
    fmt = parse_format("swiss:5:bo3+knockout:8:bo3:final-bo5")
    assert fmt.stages == (Swiss(5, best_of=3), Knockout(8, best_of=3, final_best_of=5))
    assert parse_format("double-elimination:4:bo3").stages[0].best_of == 3
    assert parse_format("knockout:final-bo5").stages[0] == Knockout(None, final_best_of=5)
    from skcodex.tournament._formats import describe_stage

    assert describe_stage(fmt.stages[1]) == (
        "single elimination (top 8), best of 3, final best of 5"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("knockout:8:bo4", "odd whole number"),
        ("knockout:8:bo0", "odd whole number"),
        ("knockout:8:boX", "'bo' takes an odd number"),
        ("swiss:5:final-bo5", "only a knockout has a final"),
        ("knockout:8:bo3:bo5", "give 'boN' once"),
    ],
)
def test_bad_set_lengths_are_refused(text, message):
    with pytest.raises(TournamentError, match=message):
        parse_format(text)


def test_bad_set_lengths_in_python_are_refused():
    with pytest.raises(TournamentError, match="odd whole number"):
        Knockout(8, best_of=2)
    with pytest.raises(TournamentError, match="final_best_of"):
        Knockout(8, final_best_of=4)
    with pytest.raises(TournamentError, match="odd whole number"):
        Swiss(3, best_of=True)


def test_decks_in_a_set_stage_come_from_the_estimator_draws():
    class Fixed:
        """P(player 1 wins) = 0.7 for 'x' against anything, else 0.5, in each of 2 draws."""

        def predict_proba(self, X):
            p = self.predict_proba_draws(X).mean(axis=0)
            return np.column_stack([1 - p, p])

        def predict_proba_draws(self, X):
            p = np.where(X["player1"] == "x", 0.7, np.where(X["player2"] == "x", 0.3, 0.5))
            return np.tile(p, (2, 1))

    entrants = pd.DataFrame({"player": ["x", "y"], "deck": ["MonoRed", "MonoBlue"]})
    fc = simulate_tournament(
        "knockout:bo3", entrants, Fixed(), n_simulations=N_SIMS, random_state=4
    )
    exact = 0.7**2 * (3 - 2 * 0.7)
    within_error(fc.p_win, np.array([exact, 1 - exact]), N_SIMS)


def test_set_tables_larger_than_one_chunk_equal_enumeration():
    from skcodex.tournament._series import _SET_CHUNK, fixed_deck_sets

    rng = np.random.default_rng(5)
    n_draws = _SET_CHUNK // 100 + 7  # 10 x 10 pairs a draw: more than one chunk
    p = rng.uniform(0.1, 0.9, (n_draws, 10, 10))
    sets = fixed_deck_sets(p, 3)
    for d, i, j in [(0, 1, 2), (n_draws // 2, 3, 7), (n_draws - 1, 9, 0)]:
        assert sets[d, i, j] == pytest.approx(_set_exact(p[d], i, j, 3), abs=1e-12)
