"""Analyses of a fitted model: skills, matchups, Nash weights, spreads and calibration."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logit

from skcodex import BayesianMatchupClassifier, backend
from skcodex.analysis import (
    deck_label,
    deck_ranking,
    deck_spread_draws,
    match_forecast,
    matchup_draws,
    matchup_table,
    monocolour_decks,
    most_played_decks,
    skill_table,
    skill_versus_decks,
    solve_matrix_game,
    spread_comparison_draws,
)
from skcodex.codex import CODEX, Catalogue, Deck, legal_decks, parse_deck
from skcodex.data import Vocabulary, check_match_table
from skcodex.model import Layout

MONO = ["MonoBlack", "MonoBlue", "MonoGreen", "MonoPurple", "MonoRed", "MonoWhite"]


# -- player skills ----------------------------------------------------------------------


def test_skill_table_on_known_draws():
    """Three players whose draws put them in a fixed order, and one tie-free coin flip."""
    clf = BayesianMatchupClassifier()
    vocab = Vocabulary(("a", "b", "c"), ("Red",), ("Anarchy", "Blood", "Fire"), 3)
    layout = Layout(3, 1, 3, 3)
    theta = np.zeros((4, layout.size))
    # a is best in every draw; b beats c in draws 0 and 1, c beats b in draws 2 and 3.
    theta[:, :3] = [[2.0, 1.0, 0.0], [2.0, 1.0, 0.5], [2.0, 0.0, 1.0], [3.0, -1.0, 0.0]]
    clf.idata_ = backend.from_effect_draws(theta, np.ones((4, 4)), layout)
    clf.vocabulary_, clf.layout_, clf._unseen_seed = vocab, layout, 0
    table = skill_table(clf)
    assert table.loc["a", "p_best"] == 1.0 and table.loc["b", "p_best"] == 0.0
    assert table.loc["a", "rank_mean"] == 1.0
    assert table.loc["b", "rank_mean"] == 2.5 and table.loc["c", "rank_mean"] == 2.5
    assert table.loc["a", "rank_upper"] == 1.0 and table.loc["b", "rank_lower"] == 2.0


def test_skill_table_needs_a_fitted_model():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        skill_table(BayesianMatchupClassifier())


# -- matchups ---------------------------------------------------------------------------


def _prior_model(data, **options):
    """A classifier whose 'posterior' is 100 draws from the prior, for any model options."""
    rng = np.random.default_rng(3)
    clf = BayesianMatchupClassifier(**options)
    vocab = Vocabulary.from_table(check_match_table(data.X))
    layout = Layout(*vocab.sizes, vocab.specs_per_deck, clf.options)
    sd = np.exp(rng.normal(-0.3, 0.3, (100, len(layout.spreads))))
    theta = rng.standard_normal((100, layout.size)) * sd[:, layout.group]
    clf.idata_ = backend.from_effect_draws(theta, sd, layout)
    clf.vocabulary_, clf.layout_, clf._unseen_seed = vocab, layout, 1
    clf.classes_ = np.array([0, 1])
    return clf


@pytest.mark.parametrize(
    "options",
    [{}, {"synergy": True}, {"familiarity": True}, {"synergy": True, "familiarity": True}],
)
def test_matchups_agree_with_predictions_for_every_model(small_matches, options):
    """Equal skill and average familiarity: logit(P) minus the player terms is m."""
    clf = _prior_model(small_matches, **options)
    vocab = clf.vocabulary_
    decks = [parse_deck(d) for d in ("[Anarchy/Blood]/Law", "[Future]/Growth/Truth", "MonoBlue")]
    decks = [d for d in decks if d.starter in vocab.starters and set(d.specs) <= set(vocab.specs)]
    a, b = vocab.players[2], vocab.players[4]
    pairs = [(d, e) for d in decks for e in decks]
    X = pd.DataFrame(
        {
            "player1": a,
            "player2": b,
            "deck1": pd.Series([d for d, _ in pairs], dtype=object),
            "deck2": pd.Series([e for _, e in pairs], dtype=object),
        }
    )
    blocks = clf.layout_.unflatten(clf.effect_draws_)
    players = [vocab.players.index(a), vocab.players.index(b)]
    q = logit(clf.predict_proba_draws(X))
    q -= (blocks["skill"][:, players[0]] - blocks["skill"][:, players[1]])[:, None]
    if options.get("familiarity"):

        def fam(player, deck):
            g = vocab.starters.index(deck.starter)
            h = [vocab.specs.index(x) for x in deck.specs]
            return blocks["fam_st"][:, player, g] + blocks["fam_sp"][:, player, h].sum(-1)

        q -= np.column_stack([fam(players[0], d) - fam(players[1], e) for d, e in pairs])
    ours = logit(matchup_draws(clf, decks)).reshape(len(q), -1)
    np.testing.assert_allclose(ours, q, atol=1e-9)


def test_spreads_include_synergy_and_familiarity(small_matches):
    clf = _prior_model(small_matches, synergy=True, familiarity=True)
    draws = spread_comparison_draws(clf)
    sd = clf.spread_draws_
    syn, fam = sd[:, clf.layout_.spreads.index("syn")], sd[:, clf.layout_.spreads.index("fam")]
    expected = np.sqrt(sd[:, 1] ** 2 + 6 * sd[:, 2] ** 2 + 9 * sd[:, 3] ** 2 + 12 * syn**2)
    np.testing.assert_allclose(draws["sd_deck"], expected)
    np.testing.assert_allclose(draws["sd_familiarity"], np.sqrt(8) * fam)
    assert "sd_familiarity" in skill_versus_decks(clf).index


def test_default_decks_are_the_six_base_monocolour_decks():
    variant = CODEX.with_specs({"DemonBash": "Black", "AnarchyP22": "Red"})
    assert len(legal_decks("monocolour", variant)) > 6
    assert [deck_label(d) for d in monocolour_decks(variant)] == MONO
    other = Catalogue({"A": "X", "B": "X", "C": "X", "D": "Y", "E": "Y", "F": "Y"}, ("X", "Y"), {})
    assert [str(d) for d in monocolour_decks(other)] == ["X: A/B/C", "Y: D/E/F"]


def test_most_played_decks_and_labels(small_matches):
    decks = most_played_decks(small_matches.X, 3)
    counts = pd.Series(
        [parse_deck(d) for d in (*small_matches.X["deck1"], *small_matches.X["deck2"])]
    ).value_counts()
    assert [counts[d] for d in decks] == list(counts.iloc[:3])
    assert deck_label(parse_deck("[Future/Past/Present]")) == "MonoPurple"
    assert deck_label(Deck("Black", ["Anarchy", "Growth", "Law"])) == "Anarchy/Growth/Law/Black"


# -- skill versus decks -----------------------------------------------------------------


def test_deck_spread_formula_matches_simulated_decks():
    """sd_stst^2 + 6 sd_stsp^2 + 9 sd_spsp^2 is the variance of m over random deck pairs."""
    rng = np.random.default_rng(0)
    sd = np.array([[0.0, 0.7, 0.4, 0.25]])
    decks = legal_decks("draft")
    S, K = 7, 20
    starters = {s: i for i, s in enumerate(sorted({x.starter for x in decks}))}
    specs = {s: i for i, s in enumerate(sorted({s for x in decks for s in x.specs}))}
    values = []
    for _ in range(1500):  # worlds: effects drawn from their spreads
        a = rng.normal(0, sd[0, 1], (S, S))
        b = rng.normal(0, sd[0, 2], (S, K))
        c = rng.normal(0, sd[0, 2], (K, S))
        d = rng.normal(0, sd[0, 3], (K, K))
        for i, j in rng.integers(0, len(decks), (3, 2)):  # deck pairs in each world
            d1, d2 = decks[i], decks[j]
            g, t = starters[d1.starter], starters[d2.starter]
            h = [specs[s] for s in d1.specs]
            u = [specs[s] for s in d2.specs]
            values.append(a[g, t] + b[g, u].sum() + c[h, t].sum() + d[np.ix_(h, u)].sum())
    expected = deck_spread_draws(sd)[0]
    assert np.std(values) == pytest.approx(expected, rel=0.05)
    assert expected == pytest.approx(np.sqrt(0.7**2 + 6 * 0.4**2 + 9 * 0.25**2))


# -- Nash weights -----------------------------------------------------------------------


def test_rock_paper_scissors_is_played_uniformly():
    x, y, value = solve_matrix_game([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    np.testing.assert_allclose(x, 1 / 3, atol=1e-9)
    np.testing.assert_allclose(y, 1 / 3, atol=1e-9)
    assert value == pytest.approx(0.0, abs=1e-9)


def test_weighted_rock_paper_scissors():
    # Rock beating scissors pays 2: rock and scissors a quarter of the time, paper half.
    A = np.array([[0, -1, 2], [1, 0, -1], [-2, 1, 0]], dtype=float)
    x, y, value = solve_matrix_game(A)
    np.testing.assert_allclose(x, [1 / 4, 1 / 2, 1 / 4], atol=1e-9)
    np.testing.assert_allclose(y, [1 / 4, 1 / 2, 1 / 4], atol=1e-9)
    assert value == pytest.approx(0.0, abs=1e-9)


def test_dominated_strategy_gets_no_weight():
    # Row 2 is worse than row 0 against every column; once it is gone, column 2 is worse
    # for the column player than either other column. What remains is matching pennies:
    # 1/2 each, value 0.5.
    A = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [0.9, -0.1, 0.8]])
    x, y, value = solve_matrix_game(A)
    np.testing.assert_allclose(x, [0.5, 0.5, 0.0], atol=1e-9)
    np.testing.assert_allclose(y, [0.5, 0.5, 0.0], atol=1e-9)
    assert value == pytest.approx(0.5)


def test_two_by_two_mixed_equilibrium_and_saddle_point():
    x, y, value = solve_matrix_game([[2.0, -1.0], [-1.0, 1.0]])
    np.testing.assert_allclose(x, [2 / 5, 3 / 5], atol=1e-9)
    np.testing.assert_allclose(y, [2 / 5, 3 / 5], atol=1e-9)
    assert value == pytest.approx(1 / 5)
    x, y, value = solve_matrix_game([[3.0, 5.0], [1.0, 4.0], [2.0, 6.0]])
    np.testing.assert_allclose(x, [1, 0, 0], atol=1e-9)
    np.testing.assert_allclose(y, [1, 0], atol=1e-9)
    assert value == pytest.approx(3.0)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda n: st.integers(1, 6).flatmap(
            lambda m: st.lists(
                st.floats(0.01, 0.99, allow_nan=False), min_size=n * m, max_size=n * m
            ).map(lambda v: np.array(v).reshape(n, m))
        )
    )
)
def test_equilibrium_guarantees_the_value(A):
    x, y, value = solve_matrix_game(A)
    assert x.min() >= 0 and y.min() >= 0
    assert x.sum() == pytest.approx(1) and y.sum() == pytest.approx(1)
    assert (x @ A).min() >= value - 1e-7  # player 1 gets at least the value
    assert (A @ y).max() <= value + 1e-7  # player 2 concedes at most the value


def test_solve_matrix_game_rejects_bad_input():
    with pytest.raises(ValueError, match="2-D"):
        solve_matrix_game([1.0, 2.0])
    with pytest.raises(ValueError, match="finite"):
        solve_matrix_game([[np.nan]])


# -- known draws, no fit: every answer computed independently ----------------------------

RED = Deck("Red", ("Anarchy", "Blood", "Fire"))  # MonoRed
BLUE = Deck("Blue", ("Law", "Peace", "Truth"))  # MonoBlue
MIXED = Deck("Red", ("Anarchy", "Law", "Peace"))  # [Anarchy]/Law/Peace
OFF = Deck("Blue", ("Anarchy", "Blood", "Truth"))  # [Truth]/Anarchy/Blood
PLAYERS = ("ann", "bob", "cy")


def _world(theta=None, n_draws=10, seed=0, sd=None, decks=(RED, BLUE, MIXED, OFF), **options):
    """A classifier 'fitted' to given effect draws over two starters and six specs."""
    clf = BayesianMatchupClassifier(**options)
    vocab = Vocabulary(
        PLAYERS,
        ("Blue", "Red"),
        ("Anarchy", "Blood", "Fire", "Law", "Peace", "Truth"),
        3,
        decks=tuple(decks),
        deck_counts=tuple(range(len(decks), 0, -1)),
    )
    layout = Layout(*vocab.sizes, 3, clf.options)
    rng = np.random.default_rng(seed)
    if theta is None:
        theta = rng.normal(0.0, 0.6, (n_draws, layout.size))
    if sd is None:
        sd = np.exp(rng.normal(-0.5, 0.3, (len(theta), len(layout.spreads))))
    clf.idata_ = backend.from_effect_draws(theta, sd, layout)
    clf.vocabulary_, clf.layout_, clf._unseen_seed = vocab, layout, 0
    clf.classes_ = np.array([0, 1])
    return clf


def _theta(clf_or_layout, n_draws, **blocks):
    """Flat effect draws with the named blocks set and every other effect 0."""
    layout = getattr(clf_or_layout, "layout_", clf_or_layout)
    full = {name: np.zeros((n_draws, *shape)) for name, shape in layout.shapes.items()}
    for name, value in blocks.items():
        full[name][...] = value
    return layout.flatten(full)


def _loop_m(clf, d1, d2, draw):
    """m(d1, d2) in one draw, summed effect by effect as the seed writes it."""
    vocab = clf.vocabulary_
    b = clf.layout_.unflatten(clf.effect_draws_[draw])
    g, t = vocab.starters.index(d1.starter), vocab.starters.index(d2.starter)
    h = [vocab.specs.index(x) for x in d1.specs]
    u = [vocab.specs.index(x) for x in d2.specs]
    m = b["stst"][g, t]
    m += sum(b["stsp"][g, x] for x in u) + sum(b["spst"][y, t] for y in h)
    m += sum(b["spsp"][y, x] for y in h for x in u)
    if "first_move" in b:
        m += b["first_move"]
    if "syn_stsp" in b:

        def syn(s, specs):
            own = sum(b["syn_stsp"][s, x] for x in specs)
            return own + sum(
                b["syn_spsp"][x, y] for i, x in enumerate(specs) for y in specs[i + 1 :]
            )

        m += syn(g, h) - syn(t, u)
    return m


def _loop_p(clf, decks1, decks2):
    n = len(clf.effect_draws_)
    m = np.array([[[_loop_m(clf, a, b, k) for b in decks2] for a in decks1] for k in range(n)])
    return 1.0 / (1.0 + np.exp(-m))


@pytest.mark.parametrize(
    "options", [{}, {"first_move": True}, {"synergy": True, "first_move": True}]
)
def test_matchup_draws_are_the_seeds_sum_effect_by_effect(options):
    clf = _world(n_draws=6, **options)
    decks1, decks2 = [RED, MIXED, OFF], [BLUE, RED]
    np.testing.assert_allclose(
        matchup_draws(clf, decks1, decks2), _loop_p(clf, decks1, decks2), atol=1e-12
    )
    # Labels and notation name the same decks; decks2 defaults to decks1.
    labels = [deck_label(d) for d in decks1]
    np.testing.assert_allclose(matchup_draws(clf, labels), _loop_p(clf, decks1, decks1))


def test_matchup_draws_for_named_players_add_their_skills():
    clf = _world(n_draws=5, first_move=True)
    skill = clf.layout_.unflatten(clf.effect_draws_)["skill"]
    p = matchup_draws(clf, [RED, BLUE], [MIXED], player1="cy", player2="ann")
    m = np.log(_loop_p(clf, [RED, BLUE], [MIXED]))
    m -= np.log1p(-_loop_p(clf, [RED, BLUE], [MIXED]))
    q = m + (skill[:, 2] - skill[:, 0])[:, None, None]
    np.testing.assert_allclose(p, 1 / (1 + np.exp(-q)), atol=1e-12)
    with pytest.raises(ValueError, match="name both players"):
        matchup_draws(clf, [RED], player2="ann")


def test_matchup_draws_thin_evenly_and_check_n_draws():
    clf = _world(n_draws=10)
    full = matchup_draws(clf, [RED, BLUE])
    np.testing.assert_array_equal(matchup_draws(clf, [RED, BLUE], n_draws=4), full[[0, 3, 6, 9]])
    np.testing.assert_array_equal(matchup_draws(clf, [RED, BLUE], n_draws=1), full[[0]])
    np.testing.assert_array_equal(matchup_draws(clf, [RED, BLUE], n_draws=10), full)
    np.testing.assert_array_equal(matchup_draws(clf, [RED, BLUE], n_draws=99), full)
    for bad in (0, -2, True, 2.5, "3"):
        with pytest.raises(ValueError, match="n_draws must be a positive integer or None"):
            matchup_draws(clf, [RED, BLUE], n_draws=bad)


def test_matchup_draws_in_small_chunks_are_the_same(monkeypatch):
    import skcodex.analysis.matchups as matchups

    clf = _world(n_draws=9)
    whole = matchup_draws(clf, [RED, BLUE, MIXED])
    monkeypatch.setattr(matchups, "CHUNK_BYTES", 8 * 4 * 9 * 2)  # two draws of a 3 x 3 game
    np.testing.assert_allclose(matchup_draws(clf, [RED, BLUE, MIXED]), whole, rtol=1e-14)
    starts = [s for s, _ in matchups._game_chunks(clf, [RED, BLUE, MIXED], [RED], np.arange(9))]
    assert starts == [0, 6]  # six draws of a 3 x 1 game a chunk
    monkeypatch.setattr(matchups, "CHUNK_BYTES", 1)  # at least one draw a chunk
    assert len(list(matchups._game_chunks(clf, [RED], [BLUE], np.arange(9)))) == 9


def _one_pair_world(p_draws, **options):
    """Draws in which RED moving first beats BLUE with the given probabilities, all else 1/2."""
    clf = _world(n_draws=len(p_draws), **options)
    stst = np.zeros((len(p_draws), 2, 2))
    stst[:, 1, 0] = logit(np.asarray(p_draws))  # Red (code 1) against Blue (code 0)
    return _world(theta=_theta(clf, len(p_draws), stst=stst), **options)


def test_matchup_table_on_known_probabilities():
    p = np.linspace(0.1, 0.9, 9)
    clf = _one_pair_world(p)
    table = matchup_table(clf, ["MonoRed"], ["MonoBlue", "MonoRed"], interval=0.5)
    assert table[["deck1", "deck2"]].values.tolist() == [
        ["MonoRed", "MonoBlue"],
        ["MonoRed", "MonoRed"],
    ]
    row = table.iloc[0]
    assert row["mean"] == pytest.approx(0.5)
    assert row["sd"] == pytest.approx(np.sqrt(np.sum((p - 0.5) ** 2) / 8))
    assert row["lower"] == pytest.approx(0.3) and row["upper"] == pytest.approx(0.7)
    assert row["p_favoured"] == pytest.approx(4 / 9)  # 0.6, 0.7, 0.8, 0.9; 0.5 is not > 0.5
    mirror = table.iloc[1]
    assert (mirror["mean"], mirror["sd"], mirror["p_favoured"]) == (0.5, 0.0, 0.0)
    assert table.attrs == {"player1": None, "player2": None, "interval": 0.5}
    wide = matchup_table(clf, ["MonoRed"], ["MonoBlue"], interval=0.9)
    assert wide["lower"].iloc[0] == pytest.approx(0.14, abs=1e-6)
    assert wide["upper"].iloc[0] == pytest.approx(0.86, abs=1e-6)
    one = matchup_table(clf, ["MonoRed"], ["MonoBlue"], n_draws=1)
    assert one["sd"].iloc[0] == 0.0 and one["mean"].iloc[0] == pytest.approx(0.1)
    for bad in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError, match="interval must be between 0 and 1"):
            matchup_table(clf, ["MonoRed"], interval=bad)


def test_matchup_table_for_named_players_records_them():
    clf = _one_pair_world([0.2, 0.4, 0.6])
    table = matchup_table(clf, [RED], [BLUE], player1="ann", player2="bob")
    assert table.attrs["player1"] == "ann" and table.attrs["player2"] == "bob"
    assert table["mean"].iloc[0] == pytest.approx(0.4)  # skills are 0 in this world


def test_match_forecast_on_known_skills():
    skill = np.array([[1.0, 0.0, -1.0], [0.0, 0.0, 0.0], [-1.0, 0.5, 2.0], [2.0, 1.0, 0.0]])
    clf = _world(n_draws=4)
    clf = _world(theta=_theta(clf, 4, skill=skill))
    X = pd.DataFrame(
        {"player1": ["ann", "cy"], "player2": ["bob", "ann"], "deck1": ["MonoRed"] * 2,
         "deck2": ["MonoBlue"] * 2}
    )  # fmt: skip
    before = X.copy()
    out = match_forecast(clf, X, interval=0.5)
    pd.testing.assert_frame_equal(X, before)
    assert list(out.columns) == ["player1", "player2", "deck1", "deck2", "mean", "lower", "upper"]
    for row, (i, j) in enumerate([(0, 1), (2, 0)]):
        p = np.sort(1 / (1 + np.exp(-(skill[:, i] - skill[:, j]))))
        # four draws: the 25% and 75% quantiles lie 3/4 and 1/4 of the way between draws
        assert out["mean"].iloc[row] == pytest.approx(p.mean())
        assert out["lower"].iloc[row] == pytest.approx(0.25 * p[0] + 0.75 * p[1])
        assert out["upper"].iloc[row] == pytest.approx(0.75 * p[2] + 0.25 * p[3])


def _ranking_by_hand(p, rows, cols):
    """Each deck's coin-flip-turn score against the field, draw by draw, by loops."""
    n = len(p)
    score = np.zeros((n, len(rows)))
    for k in range(n):
        for a, i in enumerate(rows):
            score[k, a] = np.mean([(p[k, i, j] + 1 - p[k, j, i]) / 2 for j in cols])
    return score


def test_deck_ranking_on_known_draws():
    clf = _world(n_draws=12, seed=4, synergy=True)
    decks = [RED, BLUE, MIXED, OFF]
    p = _loop_p(clf, decks, decks)
    score = _ranking_by_hand(p, range(4), range(4))
    ranking = deck_ranking(clf, decks, interval=0.5)
    labels = [deck_label(d) for d in decks]
    assert list(ranking.index) == [labels[i] for i in np.argsort(-score.mean(axis=0))]
    assert ranking.index.name == "deck"
    got = ranking.loc[labels]
    np.testing.assert_allclose(got["mean"], score.mean(axis=0))
    np.testing.assert_allclose(got["lower"], np.quantile(score, 0.25, axis=0))
    np.testing.assert_allclose(got["upper"], np.quantile(score, 0.75, axis=0))
    best = [np.mean([row.argmax() == i for row in score]) for i in range(4)]
    np.testing.assert_allclose(got["p_best"], best)
    ranks = [[1 + sum(row[j] > row[i] for j in range(4)) for i in range(4)] for row in score]
    np.testing.assert_allclose(got["rank_mean"], np.mean(ranks, axis=0))
    # A field of other decks: RED and MIXED ranked against BLUE and RED.
    other = deck_ranking(clf, [RED, MIXED], field=[BLUE, RED], n_draws=6)
    thinned = _ranking_by_hand(p[[0, 2, 4, 7, 9, 11]], [0, 2], [1, 0])
    np.testing.assert_allclose(other.loc[[labels[0], labels[2]], "mean"], thinned.mean(axis=0))


def test_deck_ranking_p_best_of_a_deck_that_always_wins():
    # RED beats BLUE with probability 0.8 whoever moves first; MIXED is RED's twin in stst.
    clf = _world(n_draws=3)
    stst = np.zeros((3, 2, 2))
    stst[:, 1, 0], stst[:, 0, 1] = logit(0.8), logit(0.2)
    spsp = np.zeros((3, 6, 6))
    spsp[:, 1, :] = 0.3  # Blood (in RED only) helps against every spec
    spsp[:, :, 1] = -0.3
    clf = _world(theta=_theta(clf, 3, stst=stst, spsp=spsp))
    ranking = deck_ranking(clf, [BLUE, MIXED, RED])
    assert list(ranking.index) == ["MonoRed", "[Anarchy]/Law/Peace", "MonoBlue"]
    assert ranking["p_best"].tolist() == [1.0, 0.0, 0.0]
    assert ranking["rank_mean"].tolist() == [1.0, 2.0, 3.0]


def test_skill_table_on_known_skills_and_counts():
    skill = np.array(
        [[1.0, 0.0, 2.0], [2.0, -1.0, 0.0], [0.5, 0.0, 1.5], [3.0, 1.0, -2.0], [1.5, 2.5, 0.0]]
    )
    clf = _world(n_draws=5)
    clf = _world(theta=_theta(clf, 5, skill=skill))
    X = pd.DataFrame(
        {"player1": ["ann", "bob", "ann"], "player2": ["bob", "ann", "bob"],
         "deck1": ["MonoRed"] * 3, "deck2": ["MonoBlue"] * 3}
    )  # fmt: skip
    table = skill_table(clf, X, y=[1, 1, 0], interval=0.5)
    assert list(table.index) == ["ann", "bob", "cy"]  # means 1.6, 0.5, 0.3
    assert table.index.name == "player"
    np.testing.assert_allclose(table["mean"], [1.6, 0.5, 0.3])
    np.testing.assert_allclose(table["sd"], np.std(skill, axis=0, ddof=1))
    s = np.sort(skill, axis=0)  # five draws: the 25% and 75% quantiles are the 2nd and 4th
    np.testing.assert_allclose(table["lower"], s[1])
    np.testing.assert_allclose(table["upper"], s[3])
    # best per draw: cy, ann, cy, ann, bob; ranks (1 = best) by hand
    np.testing.assert_allclose(table["p_best"], [0.4, 0.2, 0.4])
    ranks = np.array([[2, 3, 1], [1, 3, 2], [2, 3, 1], [1, 2, 3], [2, 1, 3]])
    np.testing.assert_allclose(table["rank_mean"], ranks.mean(axis=0))
    np.testing.assert_allclose(table["rank_lower"], np.sort(ranks, axis=0)[1])
    np.testing.assert_allclose(table["rank_upper"], np.sort(ranks, axis=0)[3])
    assert table["matches"].tolist() == [3, 3, 0]
    assert table["wins"].tolist() == [1, 2, 0]  # ann won row 0, bob rows 1 and 2
    one = skill_table(_world(theta=_theta(clf, 1, skill=skill[:1])))
    assert (one["sd"] == 0).all() and list(one.index) == ["cy", "ann", "bob"]
    assert "wins" not in skill_table(clf, X).columns
