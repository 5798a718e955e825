"""Tournament simulation against exact enumeration, conditioning on results, and bad inputs."""

import itertools

import numpy as np
import pandas as pd
import pytest

from tournament_odds import coin_flip_odds, entrant_names, random_matrix, within_error  # isort: skip

from skcodex.tournament import (
    Format,
    Knockout,
    RoundRobin,
    TournamentError,
    parse_format,
    simulate_tournament,
)

N_SIMS = 40_000


# -- exact enumeration, written independently of the simulator ---------------------


def _knockout_exact(q, positions):
    """Distribution of the winner of a bracket given in positions (entrant numbers)."""
    if len(positions) == 1:
        return {positions[0]: 1.0}
    half = len(positions) // 2
    left, right = _knockout_exact(q, positions[:half]), _knockout_exact(q, positions[half:])
    out = {}
    for i, pi in left.items():
        for j, pj in right.items():
            out[i] = out.get(i, 0) + pi * pj * q[i, j]
            out[j] = out.get(j, 0) + pi * pj * q[j, i]
    return out


def _table_exact(q, pairs, n, buchholz=False):
    """P(first place) and expected wins when ``pairs`` are all played, ties split evenly.

    With ``buchholz``, ties in wins go first to the higher sum of opponents' wins.
    """
    p_first = np.zeros(n)
    expected = np.zeros(n)
    for outcome in itertools.product((0, 1), repeat=len(pairs)):
        prob, wins = 1.0, np.zeros(n)
        for (i, j), first_wins in zip(pairs, outcome):
            winner = i if first_wins else j
            prob *= q[i, j] if first_wins else q[j, i]
            wins[winner] += 1
        key = wins.copy()
        if buchholz:
            opponents = np.zeros(n)
            for i, j in pairs:
                opponents[i] += wins[j]
                opponents[j] += wins[i]
            key = wins * 1000 + opponents
        top = np.flatnonzero(key == key.max())
        p_first[top] += prob / len(top)
        expected += prob * wins
    return p_first, expected


def test_four_player_knockout_matches_enumeration():
    p = random_matrix(4, 1)
    q = coin_flip_odds(p)
    fc = simulate_tournament(
        "single-elimination",
        entrant_names(4),
        probabilities=p,
        n_simulations=N_SIMS,
        random_state=0,
    )
    # Seeds 1 v 4 and 2 v 3 (entrants 0 v 3 and 1 v 2).
    exact = _knockout_exact(q, [0, 3, 1, 2])
    within_error(fc.p_win, np.array([exact[k] for k in range(4)]), N_SIMS)
    reach_final = np.array([q[0, 3], q[1, 2], q[2, 1], q[3, 0]])
    within_error(fc.p_reach()["p_final"].to_numpy(), reach_final, N_SIMS)


def test_eight_player_knockout_matches_enumeration():
    p = random_matrix(8, 2)
    q = coin_flip_odds(p)
    fc = simulate_tournament(
        "knockout", entrant_names(8), probabilities=p, n_simulations=N_SIMS, random_state=1
    )
    # Standard seeding: 1v8, 4v5, 2v7, 3v6 (entrant k is seed k+1).
    exact = _knockout_exact(q, [0, 7, 3, 4, 1, 6, 2, 5])
    within_error(fc.p_win, np.array([exact[k] for k in range(8)]), N_SIMS)


def test_five_player_round_robin_matches_enumeration():
    p = random_matrix(5, 3)
    q = coin_flip_odds(p)
    fc = simulate_tournament(
        "round-robin", entrant_names(5), probabilities=p, n_simulations=N_SIMS, random_state=2
    )
    p_first, expected_wins = _table_exact(q, list(itertools.combinations(range(5), 2)), 5)
    within_error(fc.p_win, p_first, N_SIMS)
    assert np.allclose(fc.wins.mean(axis=0), expected_wins, atol=4 * 2.0 / np.sqrt(N_SIMS))


def test_three_round_swiss_with_fixed_pairings_matches_enumeration():
    p = random_matrix(8, 4)
    q = coin_flip_odds(p)
    rounds = [
        [(0, 1), (2, 3), (4, 5), (6, 7)],
        [(0, 2), (1, 3), (4, 6), (5, 7)],
        [(0, 4), (1, 5), (2, 6), (3, 7)],
    ]
    names = entrant_names(8)
    pairings = pd.DataFrame(
        [
            {"round": r + 1, "player1": names[i], "player2": names[j], "winner": None}
            for r, pairs in enumerate(rounds)
            for i, j in pairs
        ]
    )
    fc = simulate_tournament(
        "swiss:3", names, probabilities=p, results=pairings, n_simulations=N_SIMS, random_state=3
    )
    played = [pair for pairs in rounds for pair in pairs]
    p_first, expected_wins = _table_exact(q, played, 8, buchholz=True)
    within_error(fc.p_win, p_first, N_SIMS)
    assert np.allclose(fc.wins.mean(axis=0), expected_wins, atol=4 * 1.5 / np.sqrt(N_SIMS))


def test_double_elimination_of_two_needs_two_losses():
    # The losers' bracket winner must win the grand final twice.
    p = np.array([[0.5, 0.7], [0.4, 0.5]])
    q = coin_flip_odds(p)
    fc = simulate_tournament(
        "double-elimination", ["a", "b"], probabilities=p, n_simulations=N_SIMS, random_state=4
    )
    # The first match's loser drops to the losers' bracket and meets the winner again in
    # the grand final, which the loser must win twice in a row.
    exact_a = q[0, 1] * (1 - q[1, 0] ** 2) + q[1, 0] * q[0, 1] ** 2
    within_error(fc.p_win, np.array([exact_a, 1 - exact_a]), N_SIMS)


# -- one posterior draw per tournament ---------------------------------------------


def test_one_draw_is_shared_by_all_matches_of_a_tournament():
    # Draw 0: entrant 0 beats everyone; draw 1: entrant 0 loses to everyone.
    p = np.full((2, 4, 4), 0.5)
    p[0, 0, :], p[0, :, 0] = 1.0, 0.0
    p[1, 0, :], p[1, :, 0] = 0.0, 1.0
    fc = simulate_tournament("knockout", entrant_names(4), probabilities=p, n_simulations=4000)
    # Shared draws: champion exactly in the half of tournaments on draw 0 (a draw per
    # match would give 1/4).
    assert fc.p_win[0] == pytest.approx(0.5, abs=1e-12)


# -- conditioning on results ---------------------------------------------------------


def test_knockout_results_fix_only_their_matches():
    p = random_matrix(4, 5)
    q = coin_flip_odds(p)
    names = entrant_names(4)
    played = pd.DataFrame({"round": [1], "player1": ["e3"], "player2": ["e0"], "winner": ["e3"]})
    fc = simulate_tournament(
        "knockout", names, probabilities=p, results=played, n_simulations=N_SIMS, random_state=6
    )
    assert fc.p_win[0] == 0.0
    reach = fc.p_reach()["p_final"].to_numpy()
    assert reach[3] == 1.0 and reach[0] == 0.0
    # The other half of the bracket is untouched.
    within_error(reach[1:3], np.array([q[1, 2], q[2, 1]]), N_SIMS)
    p3 = q[3, 1] * q[1, 2] + q[3, 2] * q[2, 1]
    within_error(fc.p_win[[3]], np.array([p3]), N_SIMS)


def test_round_robin_results_condition_the_forecast():
    p = random_matrix(5, 7)
    q = coin_flip_odds(p)
    names = entrant_names(5)
    played = pd.DataFrame(
        {"round": [1, 1], "player1": ["e0", "e2"], "player2": ["e1", "e3"], "winner": ["e1", "e2"]}
    )
    fc = simulate_tournament(
        "round-robin", names, probabilities=p, results=played, n_simulations=N_SIMS, random_state=8
    )
    q_cond = q.copy()
    q_cond[1, 0], q_cond[0, 1] = 1.0, 0.0
    q_cond[2, 3], q_cond[3, 2] = 1.0, 0.0
    p_first, expected = _table_exact(q_cond, list(itertools.combinations(range(5), 2)), 5)
    within_error(fc.p_win, p_first, N_SIMS)
    assert np.allclose(fc.wins.mean(axis=0), expected, atol=4 * 2.0 / np.sqrt(N_SIMS))


def test_swiss_results_keep_the_played_rounds():
    p = random_matrix(8, 9)
    names = entrant_names(8)
    played = pd.DataFrame(
        {
            "round": [1] * 4,
            "player1": names[0:8:2],
            "player2": names[1:8:2],
            "winner": names[0:8:2],
        }
    )
    fc = simulate_tournament(
        "swiss:3+knockout:4", names, probabilities=p, results=played, n_simulations=2000
    )
    # Every first-round winner keeps that win, every loser that loss.
    assert (fc.wins[:, 0:8:2] >= 1).all()
    assert (fc.wins[:, 1:8:2] <= 2 + 2).all()
    assert fc.p_win.sum() == pytest.approx(1.0)


# -- sums and formats ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "round-robin",
        "double-round-robin",
        "groups:2+knockout:4",
        "swiss:4+knockout:8",
        "swiss:3+double-elimination:4",
        "losses:3",
        "single-elimination",
        "double-elimination",
    ],
)
def test_p_win_sums_to_one_and_places_are_a_permutation(text):
    p = random_matrix(11, 10)
    fc = simulate_tournament(
        text, entrant_names(11), probabilities=p, n_simulations=500, random_state=0
    )
    assert fc.p_win.sum() == pytest.approx(1.0)
    assert (np.sort(fc.place, axis=1) == np.arange(1, 12)).all()
    assert fc.table()["p_win"].iloc[0] == fc.p_win.max()


def test_loss_elimination_ends_with_everyone_else_out():
    p = random_matrix(9, 11)
    fc = simulate_tournament("losses:2", entrant_names(9), probabilities=p, n_simulations=500)
    losses = fc.wins.sum(axis=1)  # every match has one winner
    # 8 entrants out at two losses, the winner at most one: 16 or 17 matches.
    assert set(np.unique(losses)) <= {16, 17}


@pytest.mark.parametrize("text", ["losses:3", "losses:1", "swiss:3+knockout:4", "round-robin"])
def test_an_entrant_who_wins_every_match_wins_the_tournament(text):
    p = random_matrix(9, 13)
    p[4, :], p[:, 4] = 1.0, 0.0
    p[4, 4] = 0.5
    fc = simulate_tournament(
        text, entrant_names(9), probabilities=p, n_simulations=300, random_state=0
    )
    assert (fc.place[:, 4] == 1).all()
    assert fc.p_win[4] == 1.0


def test_swiss_pairs_the_next_opponent_not_met():
    from skcodex.tournament._pairing import swiss_pairs

    order = np.array([[0, 1, 2, 3]])
    met = np.zeros((1, 4, 4), dtype=bool)
    met[0, 0, 1] = met[0, 1, 0] = True
    a, b, bye = swiss_pairs(order, np.ones((1, 4), bool), np.zeros((1, 4)), met, order)
    assert a.tolist() == [[0, 1]] and b.tolist() == [[2, 3]] and bye.tolist() == [-1]
    # Only a rematch left: it is played.
    met[0] = True
    a, b, _ = swiss_pairs(order, np.ones((1, 4), bool), np.zeros((1, 4)), met, order)
    assert a.tolist() == [[0, 2]] and b.tolist() == [[1, 3]]


def test_two_swiss_rounds_never_repeat_a_pairing():
    # After one round winners have met no winner and losers no loser, so a second round
    # paired within score groups needs no rematch.
    from skcodex.tournament._formats import Swiss
    from skcodex.tournament._play import Matches
    from skcodex.tournament._results import Results

    n, n_sims = 8, 2000
    rng = np.random.default_rng(0)
    matches = Matches(
        random_matrix(n, 18)[None],
        np.arange(n),
        np.ones(n, int),
        np.zeros(n_sims, int),
        "random",
        rng,
    )
    seeding = np.broadcast_to(np.arange(n), (n_sims, n)).copy()
    Swiss(2).play(matches, seeding, 1, Results([], [], [], [], n))
    assert (matches.played == 2).all()
    assert (matches.met.sum(axis=2) == 2).all()  # two different opponents each


def test_alternating_first_move_gives_the_first_move_to_who_had_it_less():
    # Whoever moves first wins. Two entrants meeting twice: alternating turns give each
    # one first move and one win; a coin flip gives one of them both in half the runs.
    p = np.ones((2, 2))
    alternating = simulate_tournament(
        Format((RoundRobin(2),), first_move="alternating"),
        entrant_names(2),
        probabilities=p,
        n_simulations=300,
    )
    assert (alternating.wins == 1).all()
    coin = simulate_tournament(
        "double-round-robin", entrant_names(2), probabilities=p, n_simulations=300, random_state=0
    )
    assert 0.4 < (coin.wins[:, 0] == 1).mean() < 0.6


# -- decks and estimators ----------------------------------------------------------------


class _DeckOnly:
    """A fitted stand-in: deck 'W' beats any other deck, otherwise a coin flip."""

    classes_ = np.array([0, 1])

    def predict_proba(self, X):
        w1, w2 = X["deck1"].eq("W").to_numpy(), X["deck2"].eq("W").to_numpy()
        p = np.where(w1 & ~w2, 1.0, np.where(w2 & ~w1, 0.0, 0.5))
        return np.column_stack([1 - p, p])


def test_deck_rules():
    entrants = pd.DataFrame({"player": ["a", "b", "c"], "deck": [["W", "L"], "L", "L"]})
    kwargs = {"n_simulations": 20_000, "random_state": 0}
    fixed = simulate_tournament("round-robin", entrants, _DeckOnly(), **kwargs)
    # a plays W in their first match (a sure win) and L in their second (a coin flip).
    assert fixed.wins[:, 0].mean() == pytest.approx(1.5, abs=0.03)
    assert set(np.unique(fixed.wins[:, 0])) == {1, 2}
    uniform = simulate_tournament(
        "round-robin", entrants, _DeckOnly(), deck_rule="uniform", **kwargs
    )
    assert uniform.wins[:, 0].mean() == pytest.approx(1.5, abs=0.03)
    assert set(np.unique(uniform.wins[:, 0])) == {0, 1, 2}
    nash = simulate_tournament("round-robin", entrants, _DeckOnly(), deck_rule="nash", **kwargs)
    assert (nash.wins[:, 0] == 2).all()
    # Both with a choice (a linear programme): a and b both bring W and split their
    # match; either beats c, who has only L.
    choice = pd.DataFrame({"player": ["a", "b", "c"], "deck": [["L", "W"], ["W", "L"], "L"]})
    both = simulate_tournament("round-robin", choice, _DeckOnly(), deck_rule="nash", **kwargs)
    assert (both.wins[:, 2] == 0).all()
    assert both.wins[:, 0].mean() == pytest.approx(1.5, abs=0.03)


def test_fitted_classifier_probabilities_match_predict_proba_draws(small_matches):
    from skcodex import BayesianMatchupClassifier
    from skcodex.tournament._probabilities import check_entrants, win_probability_draws

    X, y = small_matches.X, small_matches.y
    clf = BayesianMatchupClassifier(draws=40, tune=40, chains=1, random_state=0).fit(X, y)
    players = [*pd.unique(X["player1"])[:3], "never seen"]
    decks = ["MonoRed", "MonoBlue", "MonoGreen", "[Anarchy]/Blood/Fire"]
    field = check_entrants(pd.DataFrame({"player": players, "deck": decks}))
    p, _, _ = win_probability_draws(clf, field)
    pair = pd.DataFrame(
        {"player1": [players[3]], "player2": [players[0]], "deck1": [decks[3]], "deck2": [decks[0]]}
    )
    assert np.allclose(p[:, 3, 0], clf.predict_proba_draws(pair)[:, 0])
    fc = simulate_tournament(
        "knockout", pd.DataFrame({"player": players, "deck": decks}), clf, n_simulations=200
    )
    assert fc.p_win.sum() == pytest.approx(1.0)
    with pytest.raises(TournamentError, match=r"entrant 'never seen': .*'Nonsense'"):
        simulate_tournament("knockout", {players[0]: decks[0], "never seen": "Nonsense"}, clf)
    with pytest.raises(TournamentError, match="this estimator reads decks"):
        simulate_tournament("knockout", players, clf)


# -- bad inputs ----------------------------------------------------------------------


def test_bad_inputs_give_clear_errors():
    p = random_matrix(4, 0)
    with pytest.raises(TournamentError, match="more than once"):
        simulate_tournament("knockout", ["a", "b", "a", "c"], probabilities=p)
    with pytest.raises(TournamentError, match="unknown tournament format 'triple'"):
        simulate_tournament("triple", entrant_names(4), probabilities=p)
    with pytest.raises(TournamentError, match="at least 2 entrants"):
        simulate_tournament("round-robin", ["a"], probabilities=[[0.5]])
    with pytest.raises(TournamentError, match="best 8 needs at least 8 entrants, got 4"):
        simulate_tournament("swiss:3+knockout:8", entrant_names(4), probabilities=p)
    with pytest.raises(TournamentError, match="'zed' is not an entrant"):
        simulate_tournament(
            "knockout",
            entrant_names(4),
            probabilities=p,
            results=pd.DataFrame({"round": [1], "player1": ["e0"], "player2": ["zed"]}),
        )
    with pytest.raises(TournamentError, match="winner 'e2' is neither"):
        simulate_tournament(
            "knockout",
            entrant_names(4),
            probabilities=p,
            results=pd.DataFrame(
                {"round": [1], "player1": ["e0"], "player2": ["e3"], "winner": ["e2"]}
            ),
        )
    with pytest.raises(TournamentError, match="a round 3, but the format has 2 rounds"):
        simulate_tournament(
            "knockout",
            entrant_names(4),
            probabilities=p,
            results=pd.DataFrame({"round": [3], "player1": ["e0"], "player2": ["e3"]}),
        )
    with pytest.raises(TournamentError, match="'e0' already has a match in round 1"):
        simulate_tournament(
            "swiss:2",
            entrant_names(4),
            probabilities=p,
            results=pd.DataFrame(
                {"round": [1, 1], "player1": ["e0", "e1"], "player2": ["e3", "e0"]}
            ),
        )
    with pytest.raises(TournamentError, match="shape"):
        simulate_tournament("knockout", entrant_names(4), probabilities=np.ones((3, 3)))
    with pytest.raises(TournamentError, match="either a fitted estimator or probabilities"):
        simulate_tournament("knockout", entrant_names(4))
    with pytest.raises(TournamentError, match="deck_rule"):
        simulate_tournament("knockout", {"a": "x", "b": "y"}, _DeckOnly(), deck_rule="best")
    with pytest.raises(TournamentError, match="first_move"):
        parse_format("knockout", first_move="loser")
    with pytest.raises(TournamentError, match="needs a number"):
        parse_format("swiss")
    with pytest.raises(TournamentError, match="knockout size"):
        Knockout(1)


def test_inputs_are_not_modified():
    p = random_matrix(4, 0)
    p_before = p.copy()
    entrants = pd.DataFrame({"player": entrant_names(4), "deck": ["W", "L", "L", "L"]})
    entrants_before = entrants.copy()
    results = pd.DataFrame({"round": [1], "player1": ["e0"], "player2": ["e3"], "winner": ["e0"]})
    results_before = results.copy()
    simulate_tournament("knockout", entrants, _DeckOnly(), results=results, n_simulations=10)
    simulate_tournament("knockout", entrant_names(4), probabilities=p, n_simulations=10)
    assert np.array_equal(p, p_before)
    pd.testing.assert_frame_equal(entrants, entrants_before)
    pd.testing.assert_frame_equal(results, results_before)


def test_swiss_pairing_of_neighbours_equals_the_greedy_pairing():
    from skcodex.tournament._pairing import _greedy, swiss_pairs

    rng = np.random.default_rng(14)
    n_sims, m = 400, 10
    order = np.argsort(rng.random((n_sims, m)), axis=1)
    active = rng.random((n_sims, m)) < 0.9
    met = rng.random((n_sims, m, m)) < 0.15
    met = met | met.transpose(0, 2, 1)
    entrants = np.broadcast_to(np.arange(m), (n_sims, m))
    byes = np.zeros((n_sims, m), dtype=np.int64)
    a, b, bye = swiss_pairs(order, active, byes, met, entrants)
    free = np.take_along_axis(active, order, axis=1)
    sims = np.arange(n_sims)
    has_bye = bye >= 0
    rank_of_bye = np.argmax(order == bye[:, None], axis=1)
    free[sims[has_bye], rank_of_bye[has_bye]] = False
    ga, gb = _greedy(order, free, met, order, m)
    assert np.array_equal(a, ga) and np.array_equal(b, gb)
    # Nobody is paired twice, and the bye goes to an active entrant left unpaired.
    for s in range(n_sims):
        paired = [x for x in (*a[s], *b[s]) if x >= 0]
        assert len(paired) == len(set(paired))
        assert set(paired) | ({bye[s]} if bye[s] >= 0 else set()) == set(np.flatnonzero(active[s]))


def _double_elimination_four_exact(q):
    """P(win) of a four-entrant double elimination, every outcome enumerated.

    Winners' bracket 0 v 3 and 1 v 2, then its final; the first-round losers meet,
    their winner meets the loser of the winners' final; the grand final is replayed
    when the losers' bracket winner wins it.
    """
    p_win = np.zeros(4)

    def match(i, j, bit):
        return (i, j) if bit else (j, i)  # (winner, loser)

    for bits in itertools.product((0, 1), repeat=7):
        prob = 1.0

        def play(i, j, bit):
            nonlocal prob
            w, loser = match(i, j, bit)
            prob *= q[w, loser]
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
            continue  # no reset played: count this outcome once
        p_win[champion] += prob
    return p_win


def test_four_player_double_elimination_matches_enumeration():
    p = random_matrix(4, 15)
    q = coin_flip_odds(p)
    fc = simulate_tournament(
        "double-elimination",
        entrant_names(4),
        probabilities=p,
        n_simulations=N_SIMS,
        random_state=5,
    )
    exact = _double_elimination_four_exact(q)
    assert exact.sum() == pytest.approx(1.0)
    within_error(fc.p_win, exact, N_SIMS)


def test_swiss_with_an_odd_field_gives_each_at_most_one_bye():
    p = random_matrix(9, 16)
    fc = simulate_tournament("swiss:4", entrant_names(9), probabilities=p, n_simulations=500)
    assert (fc.byes <= 1).all()
    assert (fc.byes.sum(axis=1) == 4).all()  # one bye a round


def test_two_groups_into_a_knockout_match_enumeration():
    p = random_matrix(4, 17)
    q = coin_flip_odds(p)
    fc = simulate_tournament(
        "groups:2+knockout:4",
        entrant_names(4),
        probabilities=p,
        n_simulations=N_SIMS,
        random_state=6,
    )
    # Snake seeding: groups {0, 3} and {1, 2}, one match each. Winners (one win each)
    # are seeded 1-2 and runners-up 3-4, each pair in a random order; then 1 v 4, 2 v 3.
    exact = np.zeros(4)
    for w0, r0 in ((0, 3), (3, 0)):
        for w1, r1 in ((1, 2), (2, 1)):
            prob = q[w0, r0] * q[w1, r1]
            for winners in ((w0, w1), (w1, w0)):
                for runners in ((r0, r1), (r1, r0)):
                    seeds = [*winners, *runners]
                    champ = _knockout_exact(q, [seeds[0], seeds[3], seeds[1], seeds[2]])
                    for k, v in champ.items():
                        exact[k] += prob * v / 4
    within_error(fc.p_win, exact, N_SIMS)


def test_swiss_elimination_final_is_the_last_two_standing():
    # Two entrants out at one loss: one match, the coin-flip odds decide it.
    p = random_matrix(2, 11)
    fc = simulate_tournament("losses:1", entrant_names(2), probabilities=p, n_simulations=N_SIMS)
    finals = fc.likely_final()
    assert len(finals) == 1 and finals["p_final"].iloc[0] == 1.0
    a = entrant_names(2).index(finals["player_a"].iloc[0])
    within_error(
        np.array([finals["p_a_wins"].iloc[0]]), coin_flip_odds(p)[a, 1 - a : 2 - a], N_SIMS
    )
    # Eight entrants at three losses: the finalists are first and second, the winner first.
    fc = simulate_tournament(
        "losses:3", entrant_names(8), probabilities=random_matrix(8, 12), n_simulations=2000
    )
    first, second, winner = fc.final
    sims = np.arange(fc.n_simulations)
    assert np.all(fc.place[sims, first] == 1) and np.all(fc.place[sims, second] == 2)
    assert np.array_equal(winner, first)
