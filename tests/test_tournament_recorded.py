"""Forecasts conditioned on recorded results against exact enumeration, round by round.

Every expected value here is enumerated in this file (every outcome of every match,
and for Swiss stages every order of the random tie-break), independently of the
simulator; the simulation must agree within four Monte Carlo standard errors.
Recorded rounds are recorded in part as well as in whole, and a pair is recorded
more than once where the format lets it meet more than once.
"""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from tournament_odds import coin_flip_odds, entrant_names, random_matrix  # isort: skip

from skcodex.tournament import simulate_tournament

N_SIMS = 20_000


def _within(simulated, exact, n_sims=N_SIMS):
    """Each simulated chance within 4 Monte Carlo standard errors (exact 0 and 1 exactly)."""
    simulated, exact = np.asarray(simulated, float), np.asarray(exact, float)
    se = np.sqrt(exact * (1 - exact) / n_sims)
    assert np.all(np.abs(simulated - exact) <= 4 * se + 1e-12), (simulated, exact)


def _results(rows):
    """A results table from (round, first, second, winner or None) by entrant number."""
    return pd.DataFrame(
        [
            {
                "round": r,
                "player1": f"e{i}",
                "player2": f"e{j}",
                "winner": None if w is None else f"e{w}",
            }
            for r, i, j, w in rows
        ]
    )


class _Meetings:
    """Match outcomes of one enumerated branch; recorded meetings are certain.

    ``recorded`` maps a pair (as a frozenset) to its recorded winners in the order
    of its meetings (None: paired, not played).
    """

    def __init__(self, q, recorded):
        self.q, self.recorded, self.count = q, recorded, {}

    def chance(self, winner, loser):
        pair = frozenset((winner, loser))
        k = self.count.get(pair, 0)
        self.count[pair] = k + 1
        records = self.recorded.get(pair, [])
        if k < len(records) and records[k] is not None:
            return 1.0 if records[k] == winner else 0.0
        return self.q[winner, loser]


def _by_pair(rows):
    recorded = {}
    for _, i, j, w in sorted(rows, key=lambda row: row[0]):
        recorded.setdefault(frozenset((i, j)), []).append(w)
    return recorded


# -- double elimination ----------------------------------------------------------------


def _double_elimination_four(q, rows):
    """P(win) of a four-entrant double elimination with recorded results.

    Winners' bracket 0 v 3 and 1 v 2, then its final; the first-round losers meet,
    their winner meets the loser of the winners' final; the grand final is replayed
    when the losers' bracket winner wins it. A pair's records bind its meetings in
    the order they were recorded.
    """
    recorded = _by_pair(rows)
    p_win = np.zeros(4)
    for bits in itertools.product((0, 1), repeat=7):
        meetings = _Meetings(q, recorded)
        prob = 1.0

        def play(i, j, bit, meetings=meetings):
            nonlocal prob
            w, loser = (i, j) if bit else (j, i)
            prob *= meetings.chance(w, loser)
            return w, loser

        w1, l1 = play(0, 3, bits[0])
        w2, l2 = play(1, 2, bits[1])
        top, drop = play(w1, w2, bits[2])
        low, _ = play(l1, l2, bits[3])
        bottom, _ = play(low, drop, bits[4])
        champion, _ = play(top, bottom, bits[5])
        if champion == bottom:
            champion, _ = play(top, bottom, bits[6])
        elif bits[6]:
            continue  # no replay: count this outcome once
        p_win[champion] += prob
    return p_win


@pytest.mark.parametrize(
    "rows",
    [
        # The first round in part: the pair can meet again in the grand final.
        [(1, 1, 2, 2)],
        # The first round in whole: the winners' bracket winner is not certain to win.
        [(1, 0, 3, 0), (1, 1, 2, 2)],
        # Everything up to the grand final, which the losers' bracket winner took: the
        # pair's third meeting, the replay, is still open.
        [(1, 0, 3, 0), (1, 1, 2, 1), (2, 0, 1, 0), (2, 3, 2, 3), (3, 3, 1, 3), (4, 0, 3, 3)],
        # A pairing recorded but not played yet, beside a played match.
        [(1, 0, 3, None), (1, 2, 1, 1)],
    ],
)
def test_double_elimination_results_bind_only_their_meeting(rows):
    p = random_matrix(4, 21)
    exact = _double_elimination_four(coin_flip_odds(p), rows)
    assert exact.sum() == pytest.approx(1.0)
    fc = simulate_tournament(
        "double-elimination",
        entrant_names(4),
        probabilities=p,
        results=_results(rows),
        n_simulations=N_SIMS,
        random_state=1,
    )
    _within(fc.p_win, exact)


def test_a_first_round_result_leaves_the_grand_final_open():
    # The case that went from 0.685 to 1.000: entrant 0 beat entrant 3 in round 1,
    # and a grand final between them was then always won by entrant 0 again.
    p = np.full((4, 4), 0.5)
    p[0, 3], p[3, 0] = 0.2, 0.8  # entrant 3 is much the stronger of the two
    rows = [(1, 0, 3, 0)]
    exact = _double_elimination_four(coin_flip_odds(p), rows)
    fc = simulate_tournament(
        "double-elimination",
        entrant_names(4),
        probabilities=p,
        results=_results(rows),
        n_simulations=N_SIMS,
        random_state=2,
    )
    _within(fc.p_win, exact)


# -- single elimination ----------------------------------------------------------------


def _knockout(q, positions, meetings_of):
    """Winner distribution of a bracket in positions; ``meetings_of`` gives a pair's chance."""
    if len(positions) == 1:
        return {positions[0]: 1.0}
    half = len(positions) // 2
    left = _knockout(q, positions[:half], meetings_of)
    right = _knockout(q, positions[half:], meetings_of)
    out = {}
    for i, pi in left.items():
        for j, pj in right.items():
            out[i] = out.get(i, 0) + pi * pj * meetings_of(i, j)
            out[j] = out.get(j, 0) + pi * pj * meetings_of(j, i)
    return out


@pytest.mark.parametrize(
    "rows",
    [
        # Round 1 in part, one pairing of it not played yet.
        [(1, 0, 7, 7), (1, 2, 5, None)],
        # Round 1 in whole, round 2 in part.
        [(1, 0, 7, 7), (1, 3, 4, 4), (1, 1, 6, 1), (1, 2, 5, None), (2, 7, 4, 4)],
    ],
)
def test_knockout_with_rounds_recorded_in_part_matches_enumeration(rows):
    p = random_matrix(8, 22)
    q = coin_flip_odds(p)
    recorded = {frozenset((i, j)): w for _, i, j, w in rows}

    def chance(winner, loser):
        w = recorded.get(frozenset((winner, loser)))
        return q[winner, loser] if w is None else float(w == winner)

    # Seeds 1 v 8, 4 v 5, 2 v 7, 3 v 6 (entrant k is seed k + 1).
    winners = _knockout(q, [0, 7, 3, 4, 1, 6, 2, 5], chance)
    exact = np.array([winners.get(k, 0.0) for k in range(8)])
    fc = simulate_tournament(
        "knockout", entrant_names(8), probabilities=p, results=_results(rows), n_simulations=N_SIMS
    )
    _within(fc.p_win, exact)


# -- round robin -----------------------------------------------------------------------


def _round_robin(q, n, legs, rows, rounds_per_leg):
    """P(first place) and expected wins of a round robin, ties split evenly.

    A record binds the meeting of its pair in the leg of its round.
    """
    recorded = {}
    for r, i, j, w in rows:
        recorded[(frozenset((i, j)), (r - 1) // rounds_per_leg)] = w
    matches = [(i, j, leg) for leg in range(legs) for i, j in itertools.combinations(range(n), 2)]
    p_first, expected = np.zeros(n), np.zeros(n)
    for outcome in itertools.product((0, 1), repeat=len(matches)):
        prob, wins = 1.0, np.zeros(n)
        for (i, j, leg), i_wins in zip(matches, outcome):
            winner, loser = (i, j) if i_wins else (j, i)
            w = recorded.get((frozenset((i, j)), leg))
            prob *= q[winner, loser] if w is None else float(w == winner)
            wins[winner] += 1
        if prob == 0:
            continue
        top = np.flatnonzero(wins == wins.max())
        p_first[top] += prob / len(top)
        expected += prob * wins
    return p_first, expected


@pytest.mark.parametrize(
    "rows",
    [
        # The pair 0-1 recorded in both legs with different winners (rounds 3 and 6),
        # round 1 in part, and a pair recorded only in the second leg.
        [(3, 0, 1, 0), (6, 1, 0, 1), (1, 0, 3, 3), (4, 2, 3, 2)],
        # A pair recorded in the second leg only: its first meeting is still open.
        [(5, 2, 0, 2)],
    ],
)
def test_double_round_robin_results_bind_their_leg(rows):
    p = random_matrix(4, 23)
    q = coin_flip_odds(p)
    # Four entrants: three rounds a leg.
    p_first, expected = _round_robin(q, 4, 2, rows, 3)
    fc = simulate_tournament(
        "double-round-robin",
        entrant_names(4),
        probabilities=p,
        results=_results(rows),
        n_simulations=N_SIMS,
        random_state=3,
    )
    _within(fc.p_win, p_first)
    # Wins per entrant lie in 0..6: a standard deviation of at most 3.
    assert np.all(np.abs(fc.wins.mean(axis=0) - expected) <= 4 * 3 / np.sqrt(N_SIMS))


# -- Swiss ------------------------------------------------------------------------------


def _swiss(q, n, n_rounds, rows):
    """P(win), expected wins and expected byes of a Swiss stage, every branch enumerated.

    The random tie-break is an order of the entrants drawn once per tournament
    (every order equally likely). Each round ranks by score (wins plus byes), then
    the tie-break. A recorded round's pairs meet as recorded; the others are paired
    among themselves: with an odd number, the lowest-ranked of those with the fewest
    byes gets a bye; then first meets second, third fourth, ... unless two of those
    have met, in which case each highest unpaired meets the next one not met (the
    next one if all were met). The final standings rank by score, the sum of the
    opponents' scores (Buchholz), then the tie-break.
    """
    by_round = {}
    for r, i, j, w in rows:
        by_round.setdefault(r, []).append((i, j, w))
    p_win, exp_wins, exp_byes = np.zeros(n), np.zeros(n), np.zeros(n)
    orders = list(itertools.permutations(range(n)))

    def pair_up(free, met):
        pairs = list(zip(free[0::2], free[1::2]))
        if not any(frozenset(p) in met for p in pairs):
            return pairs
        free, pairs = list(free), []
        while len(free) > 1:
            top = free.pop(0)
            unmet = [e for e in free if frozenset((top, e)) not in met]
            other = unmet[0] if unmet else free[0]
            free.remove(other)
            pairs.append((top, other))
        return pairs

    def play_round(r, tie, wins, byes, met, opponents, prob):
        if prob == 0:
            return
        if r > n_rounds:
            score = [wins[e] + byes[e] for e in range(n)]
            buchholz = [sum(score[o] for o in opponents[e]) for e in range(n)]
            best = max(range(n), key=lambda e: (score[e], buchholz[e], -tie.index(e)))
            p_win[best] += prob
            exp_wins[:] += prob * np.array(wins)
            exp_byes[:] += prob * np.array(byes)
            return
        order = sorted(range(n), key=lambda e: (-(wins[e] + byes[e]), tie.index(e)))
        fixed = by_round.get(r, [])
        listed = {e for i, j, _ in fixed for e in (i, j)}
        free = [e for e in order if e not in listed]
        bye = None
        if len(free) % 2:
            fewest = min(byes[e] for e in free)
            bye = [e for e in free if byes[e] == fewest][-1]
            free.remove(bye)
        pairs = [(i, j, w) for i, j, w in fixed] + [(i, j, None) for i, j in pair_up(free, met)]
        byes = list(byes)
        if bye is not None:
            byes[bye] += 1
        for outcome in itertools.product((0, 1), repeat=len(pairs)):
            chance, new_wins = prob, list(wins)
            new_met, new_opp = set(met), [set(o) for o in opponents]
            for (i, j, w), i_wins in zip(pairs, outcome):
                winner, loser = (i, j) if i_wins else (j, i)
                chance *= q[winner, loser] if w is None else float(w == winner)
                new_wins[winner] += 1
                new_met.add(frozenset((i, j)))
                new_opp[i].add(j)
                new_opp[j].add(i)
            play_round(r + 1, tie, new_wins, byes, new_met, new_opp, chance)

    for tie in orders:
        play_round(
            1, list(tie), [0] * n, [0] * n, set(), [set() for _ in range(n)], 1 / len(orders)
        )
    return p_win, exp_wins, exp_byes


@pytest.mark.parametrize(
    ("n", "n_rounds", "rows"),
    [
        # One of three first-round matches recorded: the other four still play.
        (6, 2, [(1, 0, 5, 5)]),
        # One played and one only paired: the remaining two meet.
        (6, 2, [(1, 0, 5, 0), (1, 1, 2, None)]),
        # Round 1 in whole and round 2 in part.
        (6, 2, [(1, 0, 1, 0), (1, 2, 3, 3), (1, 4, 5, 4), (2, 0, 3, 0)]),
        # An odd field, round 1 in part: the bye goes to one of the unlisted.
        (5, 2, [(1, 0, 1, 1)]),
    ],
)
def test_swiss_with_rounds_recorded_in_part_matches_enumeration(n, n_rounds, rows):
    p = random_matrix(n, 25)
    p_win, wins, byes = _swiss(coin_flip_odds(p), n, n_rounds, rows)
    assert p_win.sum() == pytest.approx(1.0)
    fc = simulate_tournament(
        f"swiss:{n_rounds}",
        entrant_names(n),
        probabilities=p,
        results=_results(rows),
        n_simulations=N_SIMS,
        random_state=5,
    )
    _within(fc.p_win, p_win)
    # In an even field nobody has a bye; wins per entrant lie in 0..n_rounds.
    assert (fc.byes.sum(axis=1) == n % 2 * n_rounds).all()
    assert np.all(np.abs(fc.wins.mean(axis=0) - wins) <= 4 * n_rounds / 2 / np.sqrt(N_SIMS))
    _within(fc.byes.mean(axis=0), byes)


def test_the_bye_goes_to_the_lowest_ranked_without_one():
    # Five entrants, three rounds, nothing recorded: who gets each bye is decided by
    # the standings, so the chances of a bye differ by strength.
    p = random_matrix(5, 26)
    p_win, _, byes = _swiss(coin_flip_odds(p), 5, 3, [])
    fc = simulate_tournament("swiss:3", entrant_names(5), probabilities=p, n_simulations=N_SIMS)
    _within(fc.byes.mean(axis=0), byes)
    _within(fc.p_win, p_win)
    assert math.isclose(byes.sum(), 3.0)


# -- results the format cannot hold, and values that are no round or name ---------------


def _refused(text, names, rows, pattern, **kwargs):
    from skcodex.tournament import TournamentError

    results = rows if isinstance(rows, pd.DataFrame) else _results(rows)
    before = results.copy()
    p = np.full((len(names), len(names)), 0.5)
    with pytest.raises(TournamentError, match=pattern) as info:
        simulate_tournament(text, names, probabilities=p, results=results, n_simulations=10)
    assert "\n" not in str(info.value)
    pd.testing.assert_frame_equal(results, before)  # nothing passed in is changed


@pytest.mark.parametrize(
    ("text", "rows", "pattern"),
    [
        # seeds 1 and 2 meet only in the final of four
        (
            "knockout",
            [(1, 0, 1, 0)],
            r"row 1: 'e0' v 'e1' is recorded in round 1 of the knockout, "
            r"but seeds 1 and 2 can meet only in its round 2",
        ),
        # entrant 3 lost in round 1 and is recorded winning in round 2
        (
            "knockout",
            [(1, 0, 3, 0), (2, 3, 1, 3)],
            r"row 2: 'e3' plays in round 2, but the results "
            r"before it put them out",
        ),
        ("double-elimination", [(1, 0, 3, 0), (2, 3, 2, 2), (3, 3, 1, 3)], r"row 3: 'e3' plays"),
        ("losses:1", [(1, 0, 3, 0), (2, 3, 1, 3)], r"row 2: 'e3' plays in round 2"),
        # one pair, two contradicting results where it meets once
        ("knockout", [(1, 0, 3, 0), (2, 3, 0, 3)], r"row 2: 'e3' plays|recorded again"),
        (
            "round-robin",
            [(1, 0, 3, 0), (2, 3, 0, 3)],
            r"row 2: 'e3' v 'e0' is recorded again "
            r"\(row 1\); a pair meets once in leg 1",
        ),
        # a round the format cannot reach
        (
            "losses:3",
            [(1_000_000, 0, 3, 0)],
            r"row 1: a round 1000000, but the format has 12 "
            r"rounds",
        ),
        ("swiss:2", [(3, 0, 3, 0)], r"row 1: a round 3, but the format has 2 rounds"),
        ("double-elimination", [(6, 0, 3, 0)], r"row 1: a round 6, but the format has 5 rounds"),
        # entrants 0 and 1 never lose to anyone else, yet meet four times
        (
            "double-elimination",
            [(1, 0, 1, 0), (2, 1, 0, 1), (3, 0, 1, 0), (4, 1, 0, 1)],
            r"row 4: 'e1' v 'e0' is recorded a fourth time|row 4: 'e1' plays",
        ),
    ],
)
def test_results_the_format_cannot_hold_are_refused_naming_the_row(text, rows, pattern):
    _refused(text, entrant_names(4), rows, pattern)


def test_legs_and_later_meetings_are_not_contradictions():
    p = random_matrix(4, 27)
    for text, rows in [
        ("double-round-robin", [(1, 0, 3, 0), (4, 3, 0, 3)]),
        ("double-elimination", [(1, 0, 3, 0), (1, 1, 2, 1), (2, 0, 1, 0), (2, 3, 2, 3)]),
    ]:
        fc = simulate_tournament(
            text, entrant_names(4), probabilities=p, results=_results(rows), n_simulations=50
        )
        assert fc.p_win.sum() == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("value", "pattern"),
    [
        ("1", r"round must be a whole number from 1 to 1,000,000, got '1'"),
        ("abc", r"got 'abc'"),
        (None, r"got None"),
        (1e300, r"got 1e\+300"),
        (2**63, r"got 9223372036854775808"),
        (0, r"got 0"),
        (float("nan"), r"got nan"),
        (True, r"got True"),
    ],
)
def test_a_round_that_is_no_round_number_is_one_line(value, pattern):
    rows = pd.DataFrame({"round": [value], "player1": ["e0"], "player2": ["e3"], "winner": ["e0"]})
    rows["round"] = rows["round"].astype(object)
    rows.loc[0, "round"] = value
    _refused("knockout", entrant_names(4), rows, "results row 1: .*" + pattern)


def test_names_that_are_no_names_are_one_line():
    from skcodex.tournament import TournamentError

    p = np.full((4, 4), 0.5)
    for name, pattern in [
        (["a"], r"entrant number 1: a name must be text or a number, got list \['a'\]"),
        ({"a": 1}, r"entrant number 1: a name must be text or a number, got dict"),
        (pd.NA, r"entrant number 1 has no name"),
        (None, r"entrant number 1 has no name"),
        ("  ", r"entrant number 1 has no name"),
    ]:
        with pytest.raises(TournamentError, match=pattern):
            simulate_tournament("knockout", [name, "b", "c", "d"], probabilities=p)
    rows = pd.DataFrame({"round": [1], "player1": [["e0"]], "player2": ["e3"], "winner": ["e0"]})
    _refused("knockout", entrant_names(4), rows, r"results row 1: \['e0'\] is not an entrant")


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("swiss:²", r"'swiss:²': the number after ':' must be whole"),
        ("swiss:٣", r"the number after ':' must be whole"),
        ("losses:1000000000", r"losses must be a whole number from 1 to 1,000, got 1000000000"),
        ("swiss:1000000000", r"Swiss rounds must be a whole number from 1 to 1,000"),
        ("round-robin:100000000", r"round robin legs must be a whole number from 1 to 1,000"),
        ("swiss:" + "9" * 400, r"may be at most 1,000"),
    ],
)
def test_formats_beyond_any_tournament_are_refused(text, pattern):
    from skcodex.tournament import TournamentError, parse_format

    with pytest.raises(TournamentError, match=pattern):
        parse_format(text)


def test_simulations_beyond_the_limit_are_refused_before_any_work():
    from skcodex.tournament import TournamentError

    p = np.full((4, 4), 0.5)
    with pytest.raises(TournamentError, match=r"n_simulations may be at most 10,000,000"):
        simulate_tournament("knockout", entrant_names(4), probabilities=p, n_simulations=10**10)


# -- the Nash deck rule's games, solved many at once ------------------------------------


def _games(shape, seed):
    rng = np.random.default_rng(seed)
    games = rng.uniform(0.2, 0.8, (200, *shape))
    games[0] = 0.5  # every choice the same
    games[1, :, 0] = games[1, :, -1]  # two columns the same
    games[2, 0] = games[2, -1]  # two rows the same
    games[3] = np.round(games[3], 1)  # ties
    games[4, 0] = games[4, 1:].max(axis=0) + 0.05  # a dominant row
    return games


@pytest.mark.parametrize("shape", [(2, 2), (2, 3), (3, 2), (3, 3), (4, 4), (5, 3)])
def test_many_games_solved_at_once_are_solved_optimally(shape):
    from skcodex.analysis import solve_matrix_game
    from skcodex.tournament._probabilities import solve_games

    games = _games(shape, sum(shape))
    x, y = solve_games(games)
    assert np.allclose(x.sum(axis=1), 1) and np.allclose(y.sum(axis=1), 1)
    assert (x >= 0).all() and (y >= 0).all()
    for d, game in enumerate(games):
        value = solve_matrix_game(game)[2]
        # x secures the value and y holds the row player to it: both optimal
        assert (x[d] @ game).min() >= value - 1e-7, d
        assert (game @ y[d]).max() <= value + 1e-7, d


# -- bounded memory ---------------------------------------------------------------------


class _Posterior:
    """An estimator with many posterior draws whose predictions must not be asked for."""

    def __init__(self, n_draws):
        self.effect_draws_ = np.zeros((n_draws, 1))

    def predict_proba(self, X):
        raise AssertionError("predicted")

    def predict_proba_draws(self, X):
        raise AssertionError("predicted")


def test_a_forecast_too_large_for_memory_is_refused_with_the_estimate():
    from skcodex.tournament import TournamentError

    field = {f"p{k}": "MonoRed" for k in range(400)}
    with pytest.raises(
        TournamentError,
        match=r"400 entrants .* 4,000 posterior draws need about "
        r"10\.2 GB .* forecast fewer entrants, or fit with fewer draws",
    ):
        simulate_tournament("knockout", field, _Posterior(4000))
    field = {f"p{k}": "MonoRed" for k in range(200)}
    with pytest.raises(
        TournamentError,
        match=r"200 entrants .* 4,000 posterior draws need about "
        r"2\.6 GB .* use at most 2,7\d\d draws \(n_draws=27\d\d; on the command "
        r"line --posterior-draws 27\d\d\)",
    ):
        simulate_tournament("knockout", field, _Posterior(4000))
    with pytest.raises(AssertionError, match="predicted"):  # within the budget: predicted
        simulate_tournament("knockout", field, _Posterior(4000), n_draws=2000)
    with pytest.raises(TournamentError, match="n_draws must be a positive whole number"):
        simulate_tournament("knockout", field, _Posterior(4000), n_draws=0)
