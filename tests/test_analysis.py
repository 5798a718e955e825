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
    deck_spread_draws,
    matchup_draws,
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
