"""Analyses of a fitted model: skills, matchups, Nash weights, spreads and calibration."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logit

from skcodex import BayesianMatchupClassifier
from skcodex._matchup import fitting
from skcodex._matchup.graph import Layout
from skcodex.analysis import (
    deck_label,
    deck_ranking,
    deck_spread_draws,
    default_decks,
    describe_prior,
    match_forecast,
    matchup_draws,
    matchup_table,
    monocolour_decks,
    most_played_decks,
    nash_equilibria,
    nash_weights,
    prior_spread_comparison_draws,
    prior_spread_draws,
    skill_table,
    skill_versus_decks,
    solve_matrix_game,
    spread_comparison_draws,
)
from skcodex.codex import (
    CODEX,
    Catalogue,
    Deck,
    DeckParseError,
    PlainCatalogue,
    legal_decks,
    parse_deck,
    parse_decks,
)
from skcodex.data import Vocabulary, check_match_table

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
    clf.idata_ = fitting.from_effect_draws(theta, np.ones((4, 4)), layout)
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
    clf.idata_ = fitting.from_effect_draws(theta, sd, layout)
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
    with pytest.raises(ValueError, match="payoff must be numbers"):
        solve_matrix_game([["rock"]])


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
    clf.idata_ = fitting.from_effect_draws(theta, sd, layout)
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
    with pytest.raises(ValueError, match=r"^name both players \(player1 and player2\) or neither"):
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
    import skcodex.analysis._matchups as matchups

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
    p = np.linspace(0.3, 0.9, 9)  # 0.3, 0.375, ..., 0.9
    clf = _one_pair_world(p)
    table = matchup_table(clf, ["MonoRed"], ["MonoBlue", "MonoRed"], interval=0.5)
    assert table[["deck1", "deck2"]].values.tolist() == [
        ["MonoRed", "MonoBlue"],
        ["MonoRed", "MonoRed"],
    ]
    row = table.iloc[0]
    assert row["mean"] == pytest.approx(0.6)
    assert row["sd"] == pytest.approx(np.sqrt(np.sum((p - 0.6) ** 2) / 8))
    assert row["lower"] == pytest.approx(0.45) and row["upper"] == pytest.approx(0.75)
    assert row["p_favoured"] == pytest.approx(6 / 9)  # 0.525 and above
    mirror = table.iloc[1]
    assert (mirror["mean"], mirror["sd"], mirror["p_favoured"]) == (0.5, 0.0, 0.0)
    assert mirror["lower"] == 0.5 and mirror["upper"] == 0.5
    assert table.attrs == {"player1": None, "player2": None, "interval": 0.5}
    wide = matchup_table(clf, ["MonoRed"], ["MonoBlue"], interval=0.9)
    assert wide["lower"].iloc[0] == pytest.approx(0.33, abs=1e-6)
    assert wide["upper"].iloc[0] == pytest.approx(0.87, abs=1e-6)
    two = matchup_table(clf, ["MonoRed"], ["MonoBlue"], n_draws=2)  # draws 0 and 8
    assert two["mean"].iloc[0] == pytest.approx(0.6)
    assert two["sd"].iloc[0] == pytest.approx(0.6 / np.sqrt(2))
    one = matchup_table(clf, ["MonoRed"], ["MonoBlue"], n_draws=1)
    assert one["sd"].iloc[0] == 0.0 and one["mean"].iloc[0] == pytest.approx(0.3)
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
    # The field defaults to the ranked decks, not to the most played ones.
    pair = deck_ranking(clf, [RED, MIXED])
    np.testing.assert_allclose(
        pair.loc[[labels[0], labels[2]], "mean"],
        _ranking_by_hand(p, [0, 2], [0, 2]).mean(axis=0),
    )
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
    for order in ([BLUE, MIXED, RED], [RED, MIXED, BLUE]):
        ranking = deck_ranking(clf, order)
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
    table = skill_table(clf, X, y=[1, 0, 0], interval=0.5)
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
    assert table["wins"].tolist() == [2, 1, 0]  # ann won rows 0 and 1, bob row 2
    assert table["matches"].dtype == np.int64 and table["wins"].dtype == np.int64
    two = skill_table(_world(theta=_theta(clf, 2, skill=skill[:2])))
    np.testing.assert_allclose(two.loc[["ann", "bob", "cy"], "sd"], np.std(skill[:2], 0, ddof=1))
    one = skill_table(_world(theta=_theta(clf, 1, skill=skill[:1])))
    assert (one["sd"] == 0).all() and list(one.index) == ["cy", "ann", "bob"]
    assert "wins" not in skill_table(clf, X).columns


# -- Nash weights on known games ----------------------------------------------------------


def _lp_row_player(A):
    """max v over (x, v): x' A >= v column by column, sum x = 1, x >= 0 (HiGHS dual simplex)."""
    from scipy.optimize import linprog

    n, m = A.shape
    res = linprog(
        c=np.r_[np.zeros(n), -1.0],
        A_ub=np.c_[-A.T, np.ones(m)],
        b_ub=np.zeros(m),
        A_eq=np.r_[np.ones(n), 0.0].reshape(1, -1),
        b_eq=[1.0],
        bounds=[(0, 1)] * n + [(None, None)],
        method="highs-ds",
    )
    assert res.status == 0
    return res.x[:n], res.x[n]


def _brute_column_player(A):
    """Player 2's best mix of two decks: the lowest point of the upper envelope of lines.

    Against mix (q, 1 - q), row i pays ``A[i, 1] + q (A[i, 0] - A[i, 1])``; the envelope's
    minimum lies at q = 0, q = 1 or where two lines cross.
    """
    slopes, ends = A[:, 0] - A[:, 1], A[:, 1]
    candidates = [0.0, 1.0]
    for i in range(len(A)):
        for j in range(i + 1, len(A)):
            if slopes[i] != slopes[j]:
                q = (ends[j] - ends[i]) / (slopes[i] - slopes[j])
                if 0 <= q <= 1:
                    candidates.append(q)
    worst = [max(ends + q * slopes) for q in candidates]
    q = candidates[int(np.argmin(worst))]
    return np.array([q, 1 - q]), min(worst)


def test_nash_equilibria_agree_with_independent_solutions():
    clf = _world(n_draws=8, seed=5, first_move=True)
    decks1, decks2 = [RED, BLUE, MIXED], [BLUE, OFF]
    eq = nash_equilibria(clf, decks1, decks2)
    games = _loop_p(clf, decks1, decks2)
    assert eq.decks1 == ("MonoRed", "MonoBlue", "[Anarchy]/Law/Peace")
    assert eq.decks2 == ("MonoBlue", "[Truth]/Anarchy/Blood") and eq.both is None
    assert eq.player1.shape == (8, 3) and eq.player2.shape == (8, 2) and eq.value.shape == (8,)
    for A, w1, w2, value in zip(games, eq.player1, eq.player2, eq.value):
        y, w = _brute_column_player(A)
        x, v = _lp_row_player(A)
        assert value == pytest.approx(w, abs=1e-9) and value == pytest.approx(v, abs=1e-9)
        assert (A @ w2).max() == pytest.approx(w, abs=1e-9)  # player 2 concedes only the value
        assert (w1 @ A).min() == pytest.approx(v, abs=1e-9)  # player 1 is guaranteed it
        np.testing.assert_allclose(w2, y, atol=1e-7)
        np.testing.assert_allclose(w1, x, atol=1e-7)


def test_nash_both_roles_solve_the_averaged_game():
    clf = _world(n_draws=6, seed=2)
    decks = [RED, BLUE, MIXED, OFF]
    eq = nash_equilibria(clf, decks)
    assert eq.both.shape == (6, 4)
    for A, w in zip(_loop_p(clf, decks, decks), eq.both):
        B = 0.5 * (A + 1 - A.T)  # one deck for both roles, each role half the time
        x, v = _lp_row_player(B)
        assert v == pytest.approx(0.5, abs=1e-9)  # a symmetric game is worth 1/2
        assert (w @ B).min() == pytest.approx(0.5, abs=1e-9)
        np.testing.assert_allclose(w, x, atol=1e-7)
    # The same list given twice is the same game.
    again = nash_equilibria(clf, decks, list(decks))
    np.testing.assert_array_equal(again.both, eq.both)


def test_nash_thins_draws_and_solves_each_chunk(monkeypatch):
    import skcodex.analysis._matchups as matchups

    clf = _world(n_draws=8, seed=3)
    full = nash_equilibria(clf, [RED, BLUE, MIXED], n_draws=None)
    default = nash_equilibria(clf, [RED, BLUE, MIXED])  # 500 by default: all eight
    np.testing.assert_array_equal(default.value, full.value)
    some = nash_equilibria(clf, [RED, BLUE, MIXED], n_draws=3)
    np.testing.assert_allclose(some.value, full.value[[0, 4, 7]], atol=1e-12)
    np.testing.assert_allclose(some.player2, full.player2[[0, 4, 7]], atol=1e-9)
    monkeypatch.setattr(matchups, "CHUNK_BYTES", 8 * 4 * 9 * 3)  # three games a chunk
    chunked = nash_equilibria(clf, [RED, BLUE, MIXED])
    for name in ("player1", "player2", "both", "value"):
        np.testing.assert_allclose(getattr(chunked, name), getattr(full, name), atol=1e-12)


def _equilibria():
    from skcodex.analysis import NashEquilibria

    return NashEquilibria(
        decks1=("A", "B"),
        decks2=("C", "D", "E"),
        player1=np.array([[1.0, 0.0], [0.5, 0.5], [0.25, 0.75], [0.0, 1.0], [0.6, 0.4]]),
        player2=np.array([[0.2, 0.8, 0.0], [0.2, 0.3, 0.5], [1.0, 0, 0], [0, 0, 1], [0, 1, 0]]),
        both=None,
        value=np.array([0.5, 0.4, 0.7, 0.6, 0.3]),
    )


def test_nash_summary_of_known_weights():
    eq = _equilibria()
    table = eq.summary(interval=0.5, threshold=0.1)
    assert table.index.tolist() == [0, 1, 2, 3, 4]
    assert eq.summary(threshold=0.25)["p_played"].tolist()[:2] == [0.6, 0.8]  # 0.25 not > 0.25
    assert table["role"].tolist() == ["player 1"] * 2 + ["player 2"] * 3
    assert table["deck"].tolist() == ["A", "B", "C", "D", "E"]
    s1, s2 = np.sort(eq.player1, axis=0), np.sort(eq.player2, axis=0)
    np.testing.assert_allclose(table["mean"], [*eq.player1.mean(0), *eq.player2.mean(0)])
    np.testing.assert_allclose(table["lower"], [*s1[1], *s2[1]])  # 2nd of five draws
    np.testing.assert_allclose(table["upper"], [*s1[3], *s2[3]])  # 4th of five draws
    np.testing.assert_allclose(table["p_played"], [0.8, 0.8, 0.6, 0.6, 0.4])  # weight > 0.1
    assert table.attrs["value"] == pytest.approx({"mean": 0.5, "lower": 0.4, "upper": 0.6})
    assert table.attrs["n_draws"] == 5 and table.attrs["interval"] == 0.5
    default = eq.summary()  # 90%, and any weight above a millionth counts as played
    np.testing.assert_allclose(default["p_played"], [0.8, 0.8, 0.6, 0.6, 0.4])
    np.testing.assert_allclose(default["lower"][:2], np.quantile(eq.player1, 0.05, axis=0))
    assert default.attrs["interval"] == 0.9
    with_both = type(eq)(**{**eq.__dict__, "both": eq.player1[:, ::-1]})
    rows = with_both.summary()
    assert rows["role"].tolist()[-2:] == ["both", "both"] and rows["deck"].tolist()[-2:] == [
        "A",
        "B",
    ]
    np.testing.assert_allclose(rows["mean"][-2:], eq.player1[:, ::-1].mean(0))


def test_nash_weights_are_the_summary_of_the_equilibria():
    clf = _world(n_draws=5, seed=6)
    weights = nash_weights(clf, [RED, BLUE], [MIXED, OFF, BLUE], n_draws=4, interval=0.5)
    expected = nash_equilibria(clf, [RED, BLUE], [MIXED, OFF, BLUE], n_draws=4).summary(0.5)
    pd.testing.assert_frame_equal(weights, expected)
    assert weights.attrs == expected.attrs and weights.attrs["n_draws"] == 4


# -- spreads, posterior and prior ---------------------------------------------------------


def test_spread_comparison_of_known_spreads():
    sd = np.array([[1.0, 1.0, 0.5, 0.25], [0.5, 2.0, 1.0, 1.0], [2.0, 0.1, 0.2, 0.3]])
    clf = _world(n_draws=3, sd=sd)
    draws = spread_comparison_draws(clf)
    assert list(draws.columns) == ["sd_player", "sd_skill_difference", "sd_deck", "ratio",
                                   "skill_share"]  # fmt: skip
    deck = np.sqrt(sd[:, 1] ** 2 + 6 * sd[:, 2] ** 2 + 9 * sd[:, 3] ** 2)
    np.testing.assert_allclose(draws["sd_player"], sd[:, 0])
    np.testing.assert_allclose(draws["sd_skill_difference"], np.sqrt(2) * sd[:, 0])
    np.testing.assert_allclose(draws["sd_deck"], deck)
    np.testing.assert_allclose(draws["ratio"], sd[:, 0] / deck)
    np.testing.assert_allclose(
        draws["skill_share"], 2 * sd[:, 0] ** 2 / (2 * sd[:, 0] ** 2 + deck**2)
    )


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_deck_spread_with_synergy_for_any_deck_size(k):
    sd = np.array([[0.3, 0.7, 0.4, 0.25]])
    # syn(deck) sums k starter-spec and k(k-1)/2 spec-spec effects; m holds two of them.
    n_syn = 2 * (k + k * (k - 1) / 2)
    expected = np.sqrt(0.7**2 + 2 * k * 0.4**2 + k**2 * 0.25**2 + n_syn * 0.5**2)
    np.testing.assert_allclose(deck_spread_draws(sd, k, np.array([0.5])), [expected])
    np.testing.assert_allclose(
        deck_spread_draws(sd, k), [np.sqrt(0.7**2 + 2 * k * 0.4**2 + k**2 * 0.25**2)]
    )


def test_skill_versus_decks_on_known_spreads():
    # sd_deck = sqrt(1 + 6 + 9) = 4 in every draw; sd_player 1, 2, 3, 5, 6.
    sd = np.column_stack([[1.0, 2.0, 3.0, 5.0, 6.0], np.ones((5, 3))])
    ties = np.array([[6.0, 3.0, 3.0, 1.0], [4.0, 1.0, 1.0, 1.0]])  # share exactly 1/2; equal sds
    tied = skill_versus_decks(_world(n_draws=2, sd=ties))
    assert tied.attrs["p_skill_matters_more"] == 0.5  # 1/2 is not more; 32/48 is
    assert tied.attrs["p_player_spread_larger"] == 0.0  # 6 < sqrt(72), and 4 is not > 4
    seed_prior = {f"log_sd_{n}_loc": 0.0 for n in ("player", "stst", "stsp", "spsp")}
    clf = _world(n_draws=5, sd=sd, **seed_prior)
    table = skill_versus_decks(clf, interval=0.5)
    assert list(table.columns) == ["mean", "lower", "upper"]
    assert table.loc["sd_player"].tolist() == pytest.approx([3.4, 2.0, 5.0])
    assert table.loc["sd_deck"].tolist() == pytest.approx([4.0, 4.0, 4.0])
    assert table.loc["ratio"].tolist() == pytest.approx([0.85, 0.5, 1.25])
    # skill matters more when sqrt(2) sd_player > 4: sd_player 3, 5, 6
    assert table.attrs["p_skill_matters_more"] == pytest.approx(0.6)
    assert table.attrs["p_player_spread_larger"] == pytest.approx(0.4)  # 5 and 6
    assert table.attrs["interval"] == 0.5
    assert table.attrs["prior"] == describe_prior(clf)
    # Under the seed's prior, log sd ~ N(0, 0.5) each, simulated here independently.
    z = np.exp(np.random.default_rng(99).normal(0.0, 0.5, (400_000, 4)))
    deck = np.sqrt(z[:, 1] ** 2 + 6 * z[:, 2] ** 2 + 9 * z[:, 3] ** 2)
    assert table.attrs["prior_p_skill_matters_more"] == pytest.approx(
        np.mean(np.sqrt(2) * z[:, 0] > deck), abs=0.005
    )
    assert table.attrs["prior_p_player_spread_larger"] == pytest.approx(
        np.mean(z[:, 0] > deck), abs=0.005
    )


def test_lognormal_prior_spread_draws_follow_their_priors():
    clf = BayesianMatchupClassifier(
        synergy=True, first_move=True, log_sd_player_loc=0.4, log_sd_stst_loc=0.0,
        log_sd_stsp_loc=-0.5, log_sd_stsp_scale=0.2, log_sd_spsp_loc=-2.0, log_sd_syn_loc=-1.0,
    )  # fmt: skip
    draws = prior_spread_draws(clf, n_draws=40_000, random_state=1)
    assert draws.shape == (40_000, 5)  # player, stst, stsp, spsp, syn: no first-move column
    logs = np.log(draws)
    np.testing.assert_allclose(logs.mean(axis=0), [0.4, 0, -0.5, -2.0, -1.0], atol=0.01)
    np.testing.assert_allclose(logs.std(axis=0), [0.5, 0.5, 0.2, 0.5, 0.5], atol=0.01)
    np.testing.assert_array_equal(draws, prior_spread_draws(clf, 40_000, random_state=1))
    np.testing.assert_array_equal(  # random_state 0 by default
        prior_spread_draws(clf, 50), prior_spread_draws(clf, 50, random_state=0)
    )
    assert not np.array_equal(prior_spread_draws(clf, 50), prior_spread_draws(clf, 50, 1))
    assert prior_spread_draws(clf, 3, random_state=2).shape == (3, 5)
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="n_draws must be a positive integer"):
            prior_spread_draws(clf, bad)


@pytest.mark.parametrize("k", [2, 3, None])
def test_balanced_prior_spread_draws_recover_total_share_and_split(k):
    """The spreads' total, skill share and deck split have the balanced prior's laws."""
    clf = BayesianMatchupClassifier(prior="balanced", familiarity=True, log_total_loc=0.2,
                                    log_total_scale=0.3, log_sd_fam_loc=-0.5)  # fmt: skip
    if k is None:  # before a fit: Codex's three specs a deck
        k = 3
    else:
        clf.layout_ = Layout(4, 2, 6, k, clf.options)  # only its deck size is read
    sd = prior_spread_draws(clf, n_draws=40_000, random_state=3)
    assert sd.shape == (40_000, 5)
    player2, parts = 2 * sd[:, 0] ** 2, [sd[:, 1] ** 2, 2 * k * sd[:, 2] ** 2, k**2 * sd[:, 3] ** 2]
    total = player2 + sum(parts)
    share = player2 / total
    stats = [
        (0.5 * np.log(total), 0.2, 0.3),  # log total spread ~ N(0.2, 0.3)
        (np.log(share / (1 - share)), 0.0, 1.0),  # skill share sigmoid(N(0, 1))
        (np.log(parts[1] / parts[0]), 0.0, 1.0),  # deck split softmax(0, N(0, 1), N(0, 1))
        (np.log(parts[2] / parts[0]), 0.0, 1.0),
        (np.log(sd[:, 4]), -0.5, 0.5),  # the familiarity spread, log-normal
    ]
    for values, mean, sdev in stats:
        assert values.mean() == pytest.approx(mean, abs=0.02)
        assert values.std() == pytest.approx(sdev, abs=0.02)
    assert abs(np.corrcoef(np.log(parts[1] / parts[0]), np.log(parts[2] / parts[0]))[0, 1]) < 0.02
    comparison = prior_spread_comparison_draws(clf, n_draws=40_000, random_state=3)
    np.testing.assert_allclose(comparison["skill_share"], share)
    np.testing.assert_allclose(comparison["sd_familiarity"], np.sqrt(2 * (1 + k)) * sd[:, 4])


def test_prior_spread_comparison_before_a_fit_has_codex_decks():
    clf = BayesianMatchupClassifier(synergy=True)
    sd = prior_spread_draws(clf, 500, random_state=0)
    draws = prior_spread_comparison_draws(clf, 500)  # random_state 0 by default
    deck = np.sqrt(sd[:, 1] ** 2 + 6 * sd[:, 2] ** 2 + 9 * sd[:, 3] ** 2 + 12 * sd[:, 4] ** 2)
    np.testing.assert_allclose(draws["sd_deck"], deck)
    np.testing.assert_allclose(draws["sd_player"], sd[:, 0])
    assert len(prior_spread_comparison_draws(clf, 7, random_state=1)) == 7


def test_describe_prior_in_words():
    clf = BayesianMatchupClassifier(
        log_sd_player_loc=0.25, log_sd_stst_loc=-1.0, log_sd_stsp_loc=-1.5,
        log_sd_spsp_loc=-2.0, log_sd_spsp_scale=0.75, synergy=True, log_sd_syn_loc=0.0,
    )  # fmt: skip
    assert describe_prior(clf) == (
        "log-normal spread priors: log sd_player ~ N(0.25, 0.5), log sd_stst ~ N(-1, 0.5), "
        "log sd_stsp ~ N(-1.5, 0.5), log sd_spsp ~ N(-2, 0.75), log sd_syn ~ N(0, 0.5)"
    )
    clf = BayesianMatchupClassifier(
        prior="balanced", time_varying=True, log_total_loc=1.5, log_sd_step_loc=-2.5
    )
    assert describe_prior(clf) == (
        "balanced prior: log total spread ~ N(1.5, 0.5), skill share sigmoid(N(0, 1)), "
        "deck split softmax(0, N(0, 1), N(0, 1)); log sd_step ~ N(-2.5, 0.25)"
    )
    assert describe_prior(BayesianMatchupClassifier(prior="balanced")).endswith(
        "softmax(0, N(0, 1), N(0, 1))"
    )


# -- which decks, and the shared checks ---------------------------------------------------


def test_default_decks_are_the_most_played_of_the_fit():
    clf = _world(n_draws=2)
    assert default_decks(clf) == [RED, BLUE, MIXED, OFF]  # fewer than eight were played
    assert default_decks(clf, 2) == [RED, BLUE] and default_decks(clf, 1) == [RED]
    for bad in (0, -1, 1.5, True, None):
        with pytest.raises(ValueError, match="n must be a positive integer"):
            default_decks(clf, bad)
    old = _world(n_draws=2, decks=())  # saved before deck counts were kept
    assert [deck_label(d) for d in default_decks(old)] == MONO
    old.catalogue = Catalogue({"A": "X", "B": "X", "C": "X", "D": "Y", "E": "Y", "F": "Y"},
                              ("X", "Y"), {})  # fmt: skip
    assert [str(d) for d in default_decks(old)] == ["X: A/B/C", "Y: D/E/F"]


def test_deck_keywords_and_labels():
    clf = _world(n_draws=2)
    labels = [deck_label(d) for d in (RED, BLUE, MIXED, OFF)]
    for keyword in (None, "most played", "  Most Played "):
        assert matchup_table(clf, keyword)["deck1"].unique().tolist() == labels
    assert matchup_table(clf, "MonoRed", " MONOCOLOUR ")["deck2"].tolist() == MONO
    assert deck_ranking(clf, field="monocolour").index.size == 4
    plain = _world(n_draws=2)
    plain.catalogue = PlainCatalogue(specs_per_deck=3)
    with pytest.raises(ValueError, match="decks1='monocolour' names Codex's monocolour decks"):
        matchup_draws(plain, "monocolour")
    own = _world(n_draws=2)  # a catalogue of its own, with two monocolour decks
    own.catalogue = Catalogue({"A": "Red", "B": "Red", "C": "Red", "D": "Blue", "E": "Blue",
                               "F": "Blue"}, ("Red", "Blue"), {})  # fmt: skip
    assert len(matchup_table(own, "monocolour")) == 4
    other = _world(n_draws=2)
    other.layout_ = Layout(3, 2, 6, 2, other.options)
    with pytest.raises(ValueError, match="field='monocolour'"):
        deck_ranking(other, [RED], field="monocolour")
    with pytest.raises(TypeError, match="decks must hold deck strings or Decks, got 3"):
        deck_ranking(clf, [RED, 3])
    with pytest.raises(ValueError, match="decks2 is empty"):
        matchup_draws(clf, [RED], [])


def test_decks_are_labelled_with_the_fitted_catalogue():
    nicknamed = CODEX.with_nicknames({"Hotfoot": MIXED})
    clf = _world(n_draws=2)
    clf.catalogue_ = nicknamed
    assert matchup_table(clf, ["Hotfoot"], [RED])["deck1"].tolist() == ["Hotfoot"]
    assert matchup_table(clf, [RED], ["Hotfoot"])["deck2"].tolist() == ["Hotfoot"]
    assert deck_ranking(clf, ["Hotfoot", RED]).index.tolist().count("Hotfoot") == 1
    eq = nash_equilibria(clf, [MIXED, RED], [BLUE, MIXED], n_draws=1)
    assert eq.decks1 == ("Hotfoot", "MonoRed") and eq.decks2 == ("MonoBlue", "Hotfoot")
    clf.catalogue = CODEX.with_nicknames({"Pyre": MIXED})  # the parameter comes first
    assert matchup_table(clf, ["Pyre"], [RED])["deck1"].tolist() == ["Pyre"]


def test_labels_of_fitted_decks_read_back():
    odd = Deck("Red", ("Anarchy", "Blood"))  # two specs: no forum notation in base Codex
    label = deck_label(odd)
    assert label == "Red/Anarchy/Blood"
    assert parse_decks([label, "MonoRed"], CODEX, known=[odd]) == [odd, RED]
    assert parse_decks(RED) == [RED] and parse_decks("MonoBlue") == [BLUE]
    with pytest.raises(DeckParseError):
        parse_decks([label])  # not a fitted deck: read as notation, which it is not


def test_most_played_decks_break_ties_by_first_appearance():
    X = pd.DataFrame(
        {"player1": ["a", "b", "c"], "player2": ["b", "c", "a"],
         "deck1": ["MonoBlue", "MonoRed", "MonoGreen"],
         "deck2": ["MonoRed", "MonoBlue", "MonoGreen"]}
    )  # fmt: skip
    assert [deck_label(d) for d in most_played_decks(X, 3)] == ["MonoBlue", "MonoRed", "MonoGreen"]
    assert [deck_label(d) for d in most_played_decks(X, 1)] == ["MonoBlue"]
    with pytest.raises(ValueError, match="n must be a positive integer"):
        most_played_decks(X, 0)
    many = legal_decks("monocolour") + legal_decks("multicolour")[:30]
    wide = pd.DataFrame(
        {"player1": "a", "player2": "b", "deck1": pd.Series(many, dtype=object),
         "deck2": pd.Series(many[::-1], dtype=object)}
    )  # fmt: skip
    assert len(most_played_decks(wide)) == 20
    variant = CODEX.with_specs({"Mystery": "Red"})
    X.loc[0, "deck1"] = "[Anarchy/Mystery]/Law"
    assert Deck("Red", ("Anarchy", "Law", "Mystery")) in most_played_decks(X, 4, variant)


@pytest.mark.parametrize(
    "call",
    [
        lambda c: matchup_draws(c, ["MonoRed"]),
        lambda c: matchup_table(c, ["MonoRed"]),
        lambda c: match_forecast(c, pd.DataFrame()),
        lambda c: deck_ranking(c, ["MonoRed"]),
        lambda c: nash_equilibria(c, ["MonoRed"]),
        lambda c: default_decks(c),
        lambda c: spread_comparison_draws(c),
        lambda c: skill_versus_decks(c),
    ],
)
def test_analyses_need_a_fitted_model(call):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        call(BayesianMatchupClassifier())
    half = BayesianMatchupClassifier()  # some fitted attributes, but no posterior
    half.vocabulary_, half.classes_ = _world(n_draws=1).vocabulary_, np.array([0, 1])
    with pytest.raises(NotFittedError):
        call(half)


def test_named_player_matchup_tables_pair_each_cell_with_its_decks():
    """Two decks against three, named players: each row's mean is that pair's probability."""
    clf = _world(n_draws=5, first_move=True)
    skill = clf.layout_.unflatten(clf.effect_draws_)["skill"]
    decks1, decks2 = [RED, BLUE], [MIXED, OFF, RED]
    p_decks = _loop_p(clf, decks1, decks2)
    q = np.log(p_decks) - np.log1p(-p_decks) + (skill[:, 2] - skill[:, 0])[:, None, None]
    want = 1 / (1 + np.exp(-q))
    np.testing.assert_allclose(
        matchup_draws(clf, decks1, decks2, player1="cy", player2="ann"), want, atol=1e-12
    )
    table = matchup_table(clf, decks1, decks2, player1="cy", player2="ann")
    assert len(table) == 6
    labels1, labels2 = [deck_label(d) for d in decks1], [deck_label(d) for d in decks2]
    for _, row in table.iterrows():
        i, j = labels1.index(row["deck1"]), labels2.index(row["deck2"])
        assert row["mean"] == pytest.approx(want[:, i, j].mean(), abs=1e-12)
