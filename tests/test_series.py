"""Best-of-N sets against exact enumeration, written independently of the dynamic programme."""

import functools
import itertools
import math

import numpy as np
import pandas as pd
import pytest

from skcodex.tournament import (
    SERIES_RULES,
    TournamentError,
    predict_series,
    series_win_probability,
)

# -- exact enumeration in plain Python -------------------------------------------------


def _solve_2x2(m):
    """Optimal strategies of a zero-sum game of at most two strategies a side (row maximises)."""
    rows, cols = len(m), len(m[0])
    for i in range(rows):
        for j in range(cols):
            if m[i][j] == min(m[i]) and m[i][j] == max(m[k][j] for k in range(rows)):
                x = [1.0 if k == i else 0.0 for k in range(rows)]
                y = [1.0 if k == j else 0.0 for k in range(cols)]
                return x, y
    (a, b), (c, d) = m
    den = a - b - c + d
    p, q = (d - c) / den, (d - b) / den
    return [p, 1 - p], [q, 1 - q]


class Enumeration:
    """A's chance per draw, every game outcome and every pick followed explicitly."""

    def __init__(self, first, second, best_of, rule, pick, first_move):
        self.first = [[[float(v) for v in row] for row in draw] for draw in first]
        self.second = [[[float(v) for v in row] for row in draw] for draw in second]
        self.n_draws = len(self.first)
        self.na, self.nb = len(self.first[0]), len(self.first[0][0])
        self.need = (best_of + 1) // 2
        self.rule, self.pick, self.first_move = rule, pick, first_move

    def p_game(self, d, a, b, mover):
        if self.first_move == "random":
            return 0.5 * (self.first[d][a][b] + self.second[d][a][b])
        return self.first[d][a][b] if mover == 0 else self.second[d][a][b]

    def mean(self, values):
        return sum(values) / len(values)

    def choose(self, options, maximise):
        """Options are lists of per-draw values; the picker's choice, per draw."""
        if self.pick == "uniform":
            return [sum(o[d] for o in options) / len(options) for d in range(self.n_draws)]
        means = [self.mean(o) for o in options]
        target = max(means) if maximise else min(means)
        return options[means.index(target)]

    def blind(self, a_options, b_options, score, mover):
        """Both pick at once; values of every pair, then the mix."""
        table = [[self.play(score, a, b, mover) for b in b_options] for a in a_options]
        if self.pick == "uniform":
            cells = [v for row in table for v in row]
            return [sum(c[d] for c in cells) / len(cells) for d in range(self.n_draws)]
        means = [[self.mean(v) for v in row] for row in table]
        x, y = _solve_2x2(means)
        return [
            sum(
                x[i] * y[j] * table[i][j][d]
                for i in range(len(a_options))
                for j in range(len(b_options))
            )
            for d in range(self.n_draws)
        ]

    def series(self):
        return self.blind(range(self.na), range(self.nb), (0, 0), 0)

    @functools.cache  # noqa: B019 - one enumeration per instance, dropped after the test
    def play_cached(self, score, a, b, mover):
        return tuple(self._play(score, a, b, mover))

    def play(self, score, a, b, mover):
        return list(self.play_cached(score, a, b, mover))

    def _play(self, score, a, b, mover):
        """A's chance per draw when the next game is played with decks a, b."""
        out = []
        i, j = score
        results = []
        for a_won in (True, False):
            if a_won and i + 1 == self.need:
                results.append([1.0] * self.n_draws)
                continue
            if not a_won and j + 1 == self.need:
                results.append([0.0] * self.n_draws)
                continue
            new = (i + 1, j) if a_won else (i, j + 1)
            if self.first_move == "alternating":
                nxt = 1 - mover
            elif self.first_move == "loser":
                nxt = 1 if a_won else 0
            else:
                nxt = 0
            results.append(self.next_game(new, a, b, nxt, a_won))
        for d in range(self.n_draws):
            p = self.p_game(d, a, b, mover)
            out.append(p * results[0][d] + (1 - p) * results[1][d])
        return out

    def next_game(self, score, a, b, mover, a_won):
        if self.rule == "fixed":
            return self.play(score, a, b, mover)
        if self.rule == "each picks":
            return self.blind(range(self.na), range(self.nb), score, mover)
        if self.rule == "loser may switch":
            if a_won:  # B lost: B picks any of its decks, minimising A's chance
                return self.choose([self.play(score, a, k, mover) for k in range(self.nb)], False)
            return self.choose([self.play(score, k, b, mover) for k in range(self.na)], True)
        # winner may not repeat
        if a_won:
            others = [k for k in range(self.na) if k != a]
            return self.choose([self.play(score, k, b, mover) for k in others], True)
        others = [k for k in range(self.nb) if k != b]
        return self.choose([self.play(score, a, k, mover) for k in others], False)


def _every_sequence_fixed(p1, p2, best_of):
    """All 2^N outcomes of N games played out, fixed decks, first move alternating."""
    total = 0.0
    for outcome in itertools.product((True, False), repeat=best_of):
        prob = 1.0
        for g, a_won in enumerate(outcome):
            p = p1 if g % 2 == 0 else p2
            prob *= p if a_won else 1 - p
        if sum(outcome) > best_of // 2:
            total += prob
    return total


def _matrices(na, nb, n_draws, seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(0.1, 0.9, (n_draws, na, nb)), rng.uniform(0.1, 0.9, (n_draws, na, nb))


# -- the dynamic programme against enumeration -----------------------------------------


@pytest.mark.parametrize("rule", SERIES_RULES)
@pytest.mark.parametrize("best_of", [1, 3, 5, 7])
@pytest.mark.parametrize("pick", ["best", "uniform"])
@pytest.mark.parametrize("first_move", ["alternating", "loser", "random"])
def test_sets_equal_exact_enumeration(rule, best_of, pick, first_move):
    # Two decks a side under "best" (blind picks are 2 x 2 games the enumeration solves
    # in closed form); three against two under "uniform".
    shapes = [(2, 2)] if pick == "best" else [(3, 2), (2, 3)]
    if rule == "fixed":
        shapes = [*shapes, (1, 1)]
    for k, (na, nb) in enumerate(shapes):
        first, second = _matrices(na, nb, 3, seed=100 * best_of + k)
        got = series_win_probability(
            first, second, best_of, rule=rule, pick=pick, first_move=first_move
        )
        exact = Enumeration(first, second, best_of, rule, pick, first_move).series()
        np.testing.assert_allclose(got, exact, rtol=0, atol=1e-12)


@pytest.mark.parametrize("best_of", [1, 3, 5, 7])
def test_fixed_decks_equal_every_sequence_of_n_games(best_of):
    # A set stopped at (N + 1) / 2 wins has the winner of all N games played out.
    first, second = _matrices(1, 1, 4, seed=best_of)
    got = series_win_probability(first, second, best_of)
    exact = [_every_sequence_fixed(f[0, 0], s[0, 0], best_of) for f, s in zip(first, second)]
    np.testing.assert_allclose(got, exact, rtol=0, atol=1e-12)


@pytest.mark.parametrize("best_of", [1, 3, 5, 7])
def test_one_probability_gives_the_binomial_tail(best_of):
    p = np.linspace(0.05, 0.95, 7)[:, None, None]
    k = (best_of + 1) // 2
    exact = [
        sum(math.comb(k - 1 + j, j) * q**k * (1 - q) ** j for j in range(k)) for q in p[:, 0, 0]
    ]
    np.testing.assert_allclose(series_win_probability(p, best_of=best_of), exact, atol=1e-12)


def test_a_longer_set_favours_the_favourite_more():
    p = np.array([[[0.6]]])
    chances = [series_win_probability(p, best_of=n)[0] for n in (1, 3, 5, 7)]
    assert chances == sorted(chances) and chances[0] == pytest.approx(0.6)


def test_a_choice_never_hurts_the_side_that_makes_it_best():
    # Player 1 may switch after a loss; player 2 has one deck: picking the best deck
    # on the posterior mean beats picking at random, on the posterior mean.
    first, second = _matrices(3, 1, 50, seed=7)
    best = series_win_probability(first, second, 5, rule="loser may switch", pick="best")
    uniform = series_win_probability(first, second, 5, rule="loser may switch", pick="uniform")
    assert best.mean() >= uniform.mean()


def test_bad_arguments_are_refused_with_the_reason():
    p = np.full((1, 2, 2), 0.5)
    with pytest.raises(TournamentError, match="odd whole number"):
        series_win_probability(p, best_of=4)
    with pytest.raises(TournamentError, match="odd whole number"):
        series_win_probability(p, best_of=True)
    with pytest.raises(TournamentError, match="rule must be one of"):
        series_win_probability(p, rule="loser switches")
    with pytest.raises(TournamentError, match="pick must be one of"):
        series_win_probability(p, pick="worst")
    with pytest.raises(TournamentError, match="first_move must be one of"):
        series_win_probability(p, first_move="winner")
    with pytest.raises(TournamentError, match="at least two decks"):
        series_win_probability(np.full((1, 1, 2), 0.5), rule="winner may not repeat")
    with pytest.raises(TournamentError, match="between 0 and 1"):
        series_win_probability(np.full((1, 1, 1), 1.5))
    with pytest.raises(TournamentError, match="same shape"):
        series_win_probability(np.full((1, 1, 1), 0.5), np.full((1, 2, 1), 0.5))


# -- from an estimator -------------------------------------------------------------------


class _Draws:
    """An estimator whose draws are a known function of the decks and who moves first."""

    def __init__(self, values):
        self.values = values  # (player1, player2, deck1, deck2) -> per-draw probabilities

    def predict_proba(self, X):
        p = self.predict_proba_draws(X).mean(axis=0)
        return np.column_stack([1 - p, p])

    def predict_proba_draws(self, X):
        rows = zip(X["player1"], X["player2"], X["deck1"], X["deck2"])
        return np.column_stack([self.values[row] for row in rows])


def _draws_estimator(seed):
    rng = np.random.default_rng(seed)
    values = {}
    for first, second in (("ann", "bob"), ("bob", "ann")):
        for d1 in ("A", "B"):
            for d2 in ("A", "B"):
                values[(first, second, d1, d2)] = rng.uniform(0.2, 0.8, 6)
    return _Draws(values)


@pytest.mark.parametrize("rule", SERIES_RULES)
def test_predict_series_reads_both_first_movers_from_the_estimator(rule):
    est = _draws_estimator(3)
    X = pd.DataFrame({"player1": ["ann"], "player2": ["bob"], "deck1": ["A;B"], "deck2": ["A;B"]})
    out = predict_series(est, X, best_of=5, rule=rule, interval=0.5)
    first = np.empty((6, 2, 2))
    second = np.empty((6, 2, 2))
    for a, da in enumerate("AB"):
        for b, db in enumerate("AB"):
            first[:, a, b] = est.values[("ann", "bob", da, db)]
            second[:, a, b] = 1 - est.values[("bob", "ann", db, da)]
    exact = Enumeration(first, second, 5, rule, "best", "alternating").series()
    assert out["mean"].iloc[0] == pytest.approx(np.mean(exact), abs=1e-12)
    assert out["lower"].iloc[0] == pytest.approx(np.quantile(exact, 0.25), abs=1e-12)
    assert out["upper"].iloc[0] == pytest.approx(np.quantile(exact, 0.75), abs=1e-12)
    assert out["p_game"].iloc[0] == pytest.approx(first.mean())
    assert out.attrs["best_of"] == 5 and out.attrs["rule"] == rule


def test_predict_series_on_a_fitted_classifier_shares_one_draw_across_games(small_matches):
    from skcodex import BayesianMatchupClassifier

    X, y = small_matches.X, small_matches.y
    clf = BayesianMatchupClassifier(draws=40, tune=40, chains=1, random_state=0).fit(X, y)
    rows = X.iloc[:3].reset_index(drop=True)
    out = predict_series(clf, rows, best_of=3)
    p = clf.predict_proba_draws(rows)
    q = 1 - clf.predict_proba_draws(
        rows.rename(
            columns={"player1": "player2", "player2": "player1", "deck1": "deck2", "deck2": "deck1"}
        )
    )
    per_draw = p * q + p * (1 - q) * p + (1 - p) * q * p  # won-won, won-lost-won, lost-won-won
    np.testing.assert_allclose(out["mean"], per_draw.mean(axis=0), atol=1e-12)
    # Not the set chance of the posterior mean game: the draws are shared by the games.
    mean_p, mean_q = p.mean(axis=0), q.mean(axis=0)
    plug_in = mean_p * mean_q + mean_p * (1 - mean_q) * mean_p + (1 - mean_p) * mean_q * mean_p
    assert np.abs(out["mean"] - plug_in).max() > 1e-6


def test_predict_series_refuses_bad_tables():
    est = _draws_estimator(0)
    good = pd.DataFrame({"player1": ["ann"], "player2": ["bob"], "deck1": ["A"], "deck2": ["B"]})
    with pytest.raises(TournamentError, match="missing the column"):
        predict_series(est, good.drop(columns="deck2"))
    with pytest.raises(TournamentError, match="no rows"):
        predict_series(est, good.iloc[:0])
    with pytest.raises(TournamentError, match="at least two decks"):
        predict_series(est, good, rule="winner may not repeat")
    with pytest.raises(TournamentError, match="more than once"):
        predict_series(est, good.assign(deck1="A;A"))
    with pytest.raises(TournamentError, match="interval"):
        predict_series(est, good, interval=1.5)
    with pytest.raises(TournamentError, match="fitted classifier"):
        predict_series(object(), good)
    before = good.copy()
    predict_series(est, good)
    pd.testing.assert_frame_equal(good, before)


# -- the series column of a match table -------------------------------------------------


def _games():
    return pd.DataFrame(
        {
            "player1": ["ann", "bob", "ann", "cat", "ann", "cat"],
            "player2": ["bob", "ann", "bob", "ann", "cat", "bob"],
            "deck1": ["MonoRed", "MonoBlue", "MonoGreen", "MonoRed", "MonoRed", "MonoBlue"],
            "deck2": ["MonoBlue", "MonoRed", "MonoBlue", "MonoBlue", "MonoBlue", "MonoRed"],
            "series": ["s1", "s1", "s1", "s2", "s2", None],
        }
    )


def test_the_series_column_is_kept_and_checked():
    from skcodex.data import MatchTableError, check_match_table

    X = _games()
    before = X.copy()
    table = check_match_table(X)
    assert table["series"].tolist()[:5] == ["s1", "s1", "s1", "s2", "s2"]
    assert pd.isna(table["series"].iloc[5])  # a game outside any series
    pd.testing.assert_frame_equal(X, before)
    bad = X.assign(series=["s1", "s1", "s1", "s1", "s2", None])
    with pytest.raises(MatchTableError, match=r"series 's1' has games between 'ann' and 'bob'"):
        check_match_table(bad)
    with pytest.raises(MatchTableError, match="holds a list"):
        check_match_table(X.assign(series=[["s1"]] + ["s1"] * 5))
    with pytest.raises(MatchTableError, match="True or False"):
        check_match_table(X.assign(series=[True] * 6))
    categorical = check_match_table(X.assign(series=X["series"].astype("category")))
    assert categorical["series"].iloc[0] == "s1"


def test_series_table_scores_each_series():
    from skcodex.tournament import series_table

    out = series_table(_games(), [1, 1, 0, 1, 0, 1])
    assert out["series"].tolist() == ["s1", "s2"]
    assert out[["player1", "player2"]].values.tolist() == [["ann", "bob"], ["cat", "ann"]]
    # s1: ann won game 1, bob game 2 (as player 1), bob game 3; s2: cat won both.
    assert out[["wins1", "wins2", "winner"]].values.tolist() == [[1, 2, 0.0], [2, 0, 1.0]]
    assert out["deck1"].tolist() == ["MonoRed;MonoGreen", "MonoRed;MonoBlue"]
    with pytest.raises(TournamentError, match="no 'series' column"):
        series_table(_games().drop(columns="series"), [1] * 6)


def test_a_series_column_leaves_the_fit_unchanged(small_matches):
    from skcodex import BayesianMatchupClassifier

    X, y = small_matches.X, small_matches.y
    # Label consecutive games of the same pair as one series.
    pair = [frozenset(p) for p in zip(X["player1"], X["player2"])]
    labels, current = [], 0
    for k in range(len(X)):
        if k and pair[k] != pair[k - 1]:
            current += 1
        labels.append(f"set {current}")
    with_series = X.assign(series=labels)
    options = {"draws": 30, "tune": 30, "chains": 1, "random_state": 3}
    plain = BayesianMatchupClassifier(**options).fit(X, y)
    series = BayesianMatchupClassifier(**options).fit(with_series, y)
    np.testing.assert_array_equal(plain.effect_draws_, series.effect_draws_)
    np.testing.assert_array_equal(plain.predict_proba(X), series.predict_proba(with_series))
