"""Best-of-N sets in a game with draws, against exact enumeration of the games played.

Each check plays out the sequences of games one by one (win, draw or loss), with the
drawn games explicitly: replayed games as a sum over how many draws came first, and
chess-style points by every sequence of all the set's games, so none of it uses the
shortcut the code takes (a replayed game's decisive chance ``p / (1 - d)``).
"""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from tournament_odds import entrant_names  # isort: skip

from skcodex.tournament import (
    SERIES_DRAW_RULES,
    TournamentError,
    predict_series,
    series_win_probability,
    simulate_tournament,
)

N_SIMS = 60_000
#: Draws before a decisive game summed explicitly; the rest is below 0.45^200.
REPLAYS = 200


def _until_decided(p, d):
    """P(A wins a game replayed while drawn): the sum over k draws, then A's win."""
    return sum(d**k * p for k in range(REPLAYS))


def _next_first(f, outcome, first_move):
    if first_move == "alternating":
        return 1 - f
    return {"win": 1, "loss": 0, "draw": f}[outcome]  # loser; the same player after a draw


def _replay_exact(game, best_of, first_move="alternating"):
    """A set in which a drawn game is replayed: every sequence of decided games, one by one.

    ``game[f] = (p, d)``: A's win and draw chance when ``f`` moves first (0: A).
    """
    need = (best_of + 1) // 2

    def played(a, b, f):  # a tree of every sequence, no memory of states
        if a == need or b == need:
            return float(a == need)
        win = _until_decided(*game[f])
        after_win = played(a + 1, b, _next_first(f, "win", first_move))
        return win * after_win + (1 - win) * played(a, b + 1, _next_first(f, "loss", first_move))

    return played(0, 0, 0)


def _points_exact(game, best_of, first_move="alternating", tie_break=None):
    """A set scored in points: every sequence of all its games, then a tie-break if level.

    ``tie_break``: A's chance in the tie-break (by default the game's, replayed while drawn).
    """
    total = 0.0
    for outcome in itertools.product(("win", "draw", "loss"), repeat=best_of):
        prob, f, points = 1.0, 0, 0.0
        for result in outcome:
            p, d = game[f]
            prob *= {"win": p, "draw": d, "loss": 1 - p - d}[result]
            points += {"win": 1.0, "draw": 0.5, "loss": 0.0}[result]
            f = _next_first(f, result, first_move)
        if points > best_of / 2:
            total += prob
        elif points == best_of / 2:
            total += prob * (_until_decided(*game[f]) if tie_break is None else tie_break)
    return total


GAMES = [
    ((0.45, 0.30), (0.35, 0.25)),
    ((0.20, 0.45), (0.10, 0.40)),
    ((0.70, 0.05), (0.60, 0.10)),
]


@pytest.mark.parametrize("best_of", [1, 3, 5])
@pytest.mark.parametrize("first_move", ["alternating", "loser"])
@pytest.mark.parametrize("game", GAMES)
def test_sets_with_draws_equal_enumeration(game, best_of, first_move):
    (p1, d1), (p2, d2) = game
    args = {"best_of": best_of, "first_move": first_move}
    got = {
        rule: series_win_probability(
            [[[p1]]], [[[p2]]], draw_first=[[[d1]]], draw_second=[[[d2]]], draw_rule=rule, **args
        )[0]
        for rule in SERIES_DRAW_RULES
    }
    assert got["replay"] == pytest.approx(_replay_exact(game, best_of, first_move), abs=1e-12)
    assert got["points"] == pytest.approx(_points_exact(game, best_of, first_move), abs=1e-12)
    if best_of > 1:  # the two rules are different sets
        assert abs(got["replay"] - got["points"]) > 1e-4


def test_replay_is_the_default_and_no_draws_is_the_set_without_draws():
    p, d = np.array([[[0.4]], [[0.6]]]), np.array([[[0.3]], [[0.1]]])
    default = series_win_probability(p, best_of=5, draw_first=d)
    assert np.array_equal(
        default, series_win_probability(p, best_of=5, draw_first=d, draw_rule="replay")
    )
    np.testing.assert_allclose(default, series_win_probability(p / (1 - d), best_of=5), rtol=1e-14)
    zero = series_win_probability(p, best_of=5, draw_first=np.zeros_like(d), draw_rule="points")
    np.testing.assert_allclose(zero, series_win_probability(p, best_of=5), rtol=1e-13)


def test_random_first_move_averages_both_orders_before_each_game():
    game = ((0.5, 0.2), (0.3, 0.3))
    mean = tuple(0.5 * (game[0][k] + game[1][k]) for k in range(2))
    got = series_win_probability(
        [[[game[0][0]]]],
        [[[game[1][0]]]],
        best_of=3,
        first_move="random",
        draw_first=[[[game[0][1]]]],
        draw_second=[[[game[1][1]]]],
        draw_rule="points",
    )[0]
    assert got == pytest.approx(_points_exact((mean, mean), 3), abs=1e-12)


def test_each_picks_uniform_with_draws_plays_the_mean_game():
    """Uniform blind picks before every game: each game is the mean over the deck pairs."""
    rng = np.random.default_rng(3)
    p = rng.uniform(0.1, 0.5, (1, 2, 3))
    d = rng.uniform(0.05, 0.4, (1, 2, 3))
    got = series_win_probability(
        p, best_of=3, rule="each picks", pick="uniform", draw_first=d, draw_rule="points"
    )[0]
    # The tie-break is replayed with the decks picked for it.
    mean = (p.mean(), d.mean())
    want = _points_exact((mean, mean), 3, tie_break=np.mean(p / (1 - d)))
    assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"draw_first": [[[0.7]]]}, "add up to more than 1"),
        ({"draw_first": [[[0.2, 0.1]]]}, "must have the shape"),
        ({"draw_first": [[[-0.1]]]}, "between 0 and 1"),
        ({"draw_second": [[[0.1]]]}, "draw_second goes with draw_first"),
        ({"draw_first": [[[0.1]]], "draw_rule": "half"}, "draw_rule must be one of"),
    ],
)
def test_bad_draw_inputs_are_refused(kwargs, message):
    with pytest.raises(TournamentError, match=message):
        series_win_probability([[[0.4]]], best_of=3, **kwargs)


def test_a_game_drawn_with_certainty_cannot_decide_a_set():
    with pytest.raises(TournamentError, match="drawn with certainty"):
        series_win_probability([[[0.0]]], best_of=3, draw_first=[[[1.0]]])


# -- from an estimator fitted with draws ------------------------------------------------


class _DrawModel:
    """Known outcome chances from known skills: the ordered logit with threshold ``c``."""

    classes_ = np.array([0.0, 0.5, 1.0])

    def __init__(self, skills, c=0.8, edge=0.3):
        self.skills, self.c, self.edge = skills, c, edge

    def predict_outcome_draws(self, X):
        s = self.skills
        q = np.array([s[a] - s[b] + self.edge for a, b in zip(X["player1"], X["player2"])])
        q = q[None, :] + np.array([[-0.2], [0.0], [0.4]])  # three posterior draws
        win, loss = expit(q - self.c), expit(-q - self.c)
        return np.stack([loss, 1 - win - loss, win], axis=-1)

    def predict_proba(self, X):
        return self.predict_outcome_draws(X).mean(axis=0)

    def predict_proba_draws(self, X):
        return self.predict_outcome_draws(X)[..., 2]


@pytest.mark.parametrize("draw_rule", SERIES_DRAW_RULES)
def test_predict_series_with_a_draw_model_equals_enumeration_per_draw(draw_rule):
    model = _DrawModel({"ann": 0.6, "bob": -0.1})
    X = pd.DataFrame({"player1": ["ann"], "player2": ["bob"], "deck1": ["x"], "deck2": ["y"]})
    got = predict_series(model, X, best_of=3, draw_rule=draw_rule, interval=0.5)
    swapped = X.rename(columns={"player1": "player2", "player2": "player1"})
    ann_first = model.predict_outcome_draws(X)[:, 0]  # (draws, [loss, draw, win])
    bob_first = model.predict_outcome_draws(swapped)[:, 0]
    exact = _replay_exact if draw_rule == "replay" else _points_exact
    per_draw = [
        exact(((a[2], a[1]), (b[0], b[1])), 3) for a, b in zip(ann_first, bob_first, strict=True)
    ]
    assert got["mean"].iloc[0] == pytest.approx(np.mean(per_draw), abs=1e-12)
    assert got["lower"].iloc[0] == pytest.approx(np.quantile(per_draw, 0.25), abs=1e-12)
    assert got.attrs["draw_rule"] == draw_rule


# -- inside a tournament stage ------------------------------------------------------------


def _draw_matrices(n, seed):
    """P(i beats j when i moves first) and P(a draw), from skills and a draw threshold."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0, 1, n)
    q = skill[:, None] - skill[None, :] + 0.3
    win, loss = expit(q - 1.0), expit(-q - 1.0)  # a draw about 46% of even games
    draw = 1 - win - loss
    for m in (win, draw):
        np.fill_diagonal(m, 0.0)
    return win, draw


def _coin_sets_with_draws(win, draw, best_of, exact):
    """P(i wins the set) when a coin decides who moves first in its game 1, by enumeration."""
    n = len(win)
    q = np.full((n, n), 0.5)

    def first_in_game_1(i, j):
        game = ((win[i, j], draw[i, j]), (1 - win[j, i] - draw[j, i], draw[j, i]))
        return exact(game, best_of)

    for i, j in itertools.permutations(range(n), 2):
        q[i, j] = 0.5 * (first_in_game_1(i, j) + 1 - first_in_game_1(j, i))
    return q


def _four_bracket(semi, final):
    """P(win) and P(final) of seeds 1 v 4, 2 v 3, the final at its own set odds."""
    won, reach = np.zeros(4), np.zeros(4)
    for a, b in ((0, 3), (3, 0)):
        for c, d in ((1, 2), (2, 1)):
            prob = semi[a, b] * semi[c, d]
            reach[a] += prob
            reach[c] += prob
            won[a] += prob * final[a, c]
            won[c] += prob * final[c, a]
    return won, reach


def _within(simulated, exact, n_sims):
    se = np.sqrt(np.clip(exact * (1 - exact), 1e-12, None) / n_sims)
    assert np.all(np.abs(simulated - exact) <= 4 * se + 1e-12), (simulated, exact)


@pytest.mark.parametrize(
    ("draw_rule", "exact"), [("replay", _replay_exact), ("points", _points_exact)]
)
def test_knockout_in_best_of_three_sets_with_draws_equals_bracket_enumeration(draw_rule, exact):
    win, draw = _draw_matrices(4, 5)
    fc = simulate_tournament(
        "knockout:4:bo3",
        entrant_names(4),
        probabilities=win,
        draw_probabilities=draw,
        draw_rule=draw_rule,
        n_simulations=N_SIMS,
        random_state=2,
    )
    q = _coin_sets_with_draws(win, draw, 3, exact)
    won, reach = _four_bracket(q, q)
    _within(fc.p_win, won, N_SIMS)
    _within(fc.p_reach()["p_final"].to_numpy(), reach, N_SIMS)
    # Not the other rule's bracket: the rule reaches the sets played.
    other = _points_exact if exact is _replay_exact else _replay_exact
    q_other = _coin_sets_with_draws(win, draw, 3, other)
    assert np.abs(fc.p_win - _four_bracket(q_other, q_other)[0]).max() > 8 * np.sqrt(0.25 / N_SIMS)
    # Not the single-game bracket (a drawn knockout game goes to a decider without draws).
    single = 0.5 * (win / (1 - draw) + 1 - (win / (1 - draw)).T)
    np.fill_diagonal(single, 0.5)
    alone, _ = _four_bracket(single, single)
    assert np.abs(won - alone).max() > 8 * np.sqrt(0.25 / N_SIMS)


def test_a_bad_draw_rule_is_refused_by_the_simulation():
    win, draw = _draw_matrices(4, 5)
    with pytest.raises(TournamentError, match="draw_rule must be one of"):
        simulate_tournament(
            "knockout:4:bo3",
            entrant_names(4),
            probabilities=win,
            draw_probabilities=draw,
            draw_rule="half",
        )
