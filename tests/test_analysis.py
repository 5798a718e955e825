"""Analyses of a fitted model: skills, matchups, Nash weights, spreads and calibration."""

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logit

from skcodex import BayesianMatchupClassifier, backend, posterior
from skcodex.analysis import (
    brier_decomposition,
    convergence_summary,
    deck_label,
    deck_ranking,
    deck_spread_draws,
    match_forecast,
    matchup_draws,
    matchup_table,
    monocolour_decks,
    most_played_decks,
    nash_equilibria,
    nash_weights,
    reliability_table,
    skill_table,
    skill_versus_decks,
    solve_matrix_game,
    spread_comparison_draws,
)
from skcodex.codex import CODEX, Catalogue, Deck, DeckParseError, legal_decks, parse_deck
from skcodex.data import Vocabulary, check_match_table
from skcodex.metrics import brier_score
from skcodex.model import Layout

MONO = ["MonoBlack", "MonoBlue", "MonoGreen", "MonoPurple", "MonoRed", "MonoWhite"]


@pytest.fixture(scope="module")
def fitted(small_matches):
    clf = BayesianMatchupClassifier(draws=100, tune=100, chains=2, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(small_matches.X, small_matches.y)
    return clf


# -- player skills ----------------------------------------------------------------------


def test_skill_table_summarises_the_skill_draws(fitted, small_matches):
    X, y = small_matches.X, small_matches.y
    table = skill_table(fitted, X, y=y)
    assert list(table.index) == sorted(table.index, key=lambda p: -table.loc[p, "mean"])
    assert set(table.index) == set(fitted.vocabulary_.players)
    player = table.index[0]
    column = fitted.vocabulary_.players.index(player)
    draws = fitted.effect_draws_[:, column]
    assert table.loc[player, "mean"] == pytest.approx(draws.mean())
    assert table.loc[player, "lower"] == pytest.approx(np.quantile(draws, 0.05))
    assert table.loc[player, "upper"] == pytest.approx(np.quantile(draws, 0.95))
    assert table["p_best"].sum() == pytest.approx(1.0)
    assert (table["rank_lower"] <= table["rank_mean"]).all()
    assert (table["rank_mean"] <= table["rank_upper"]).all()
    assert table["matches"].sum() == 2 * len(X)
    assert table["wins"].sum() == len(X)
    assert (table["wins"] <= table["matches"]).all()


def test_skill_table_p_best_and_ranks_match_an_independent_count(fitted):
    """P(best) and the rank columns, recounted draw by draw with scipy's ranking."""
    from scipy.stats import rankdata

    table = skill_table(fitted, interval=0.5)
    post = posterior.group(fitted.idata_, "posterior")["skill"]
    names = list(post.coords["player"].values)
    skills = np.asarray(post, dtype=float).reshape(-1, len(names))
    ranks = rankdata(-skills, axis=1, method="ordinal")  # 1 = best in that draw
    best = pd.Series(np.asarray(names, dtype=object)[skills.argmax(axis=1)]).value_counts()
    p_best = best.reindex(names).fillna(0).to_numpy() / len(skills)
    expected = pd.DataFrame(
        {
            "p_best": p_best,
            "rank_mean": ranks.mean(axis=0),
            "rank_lower": np.quantile(ranks, 0.25, axis=0),
            "rank_upper": np.quantile(ranks, 0.75, axis=0),
        },
        index=pd.Index(names, name="player"),
    )
    pd.testing.assert_frame_equal(table[expected.columns].loc[names], expected)
    # The table is ordered best first, and the best-ranked player is not rare at the top.
    assert table["p_best"].iloc[0] == table["p_best"].max()
    assert table["rank_mean"].iloc[0] == table["rank_mean"].min()


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


def test_skill_table_without_data_has_no_counts(fitted):
    table = skill_table(fitted)
    assert "matches" not in table.columns and "wins" not in table.columns


def test_skill_table_needs_a_fitted_model():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        skill_table(BayesianMatchupClassifier())


# -- matchups ---------------------------------------------------------------------------


def test_matchup_draws_agree_with_the_classifiers_predictions(fitted):
    """m from the effect blocks equals logit(P) minus the skill difference, draw by draw."""
    decks = ["MonoRed", "[Demonology]/Anarchy/Law", "[Past]/Anarchy/Peace"]
    a, b = fitted.vocabulary_.players[:2]
    X = pd.DataFrame(
        {
            "player1": a,
            "player2": b,
            "deck1": [d for d in decks for _ in decks],
            "deck2": [e for _ in decks for e in decks],
        }
    )
    p = fitted.predict_proba_draws(X)
    skills = fitted.effect_draws_[:, [0, 1]]
    m = logit(p) - (skills[:, 0] - skills[:, 1])[:, None]
    ours = logit(matchup_draws(fitted, decks)).reshape(len(p), -1)
    np.testing.assert_allclose(ours, m, atol=1e-9)


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


def test_matchup_draws_for_named_players_are_the_classifiers(fitted):
    a, b = fitted.vocabulary_.players[3], fitted.vocabulary_.players[5]
    p = matchup_draws(fitted, ["MonoRed"], ["MonoBlue"], player1=a, player2=b)
    X = pd.DataFrame({"player1": [a], "player2": [b], "deck1": ["MonoRed"], "deck2": ["MonoBlue"]})
    np.testing.assert_allclose(p[:, 0, 0], fitted.predict_proba_draws(X)[:, 0])


def test_matchup_table_defaults_to_the_most_played_decks_in_both_turn_orders(fitted):
    from skcodex.analysis import N_DEFAULT_DECKS, deck_label, default_decks

    decks = default_decks(fitted)
    assert len(decks) == min(N_DEFAULT_DECKS, len(fitted.vocabulary_.decks))
    assert (
        list(fitted.vocabulary_.deck_counts[: len(decks)])
        == sorted(fitted.vocabulary_.deck_counts, reverse=True)[: len(decks)]
    )
    labels = {deck_label(d, fitted.catalogue) for d in decks}
    table = matchup_table(fitted)
    assert len(table) == len(decks) ** 2
    assert set(table["deck1"]) == labels and set(table["deck2"]) == labels
    assert ((table["lower"] <= table["mean"]) & (table["mean"] <= table["upper"])).all()
    assert table["mean"].between(0, 1).all() and table["p_favoured"].between(0, 1).all()
    assert table.attrs["player1"] is None
    mono = matchup_table(fitted, "monocolour")
    assert len(mono) == 36
    assert set(mono["deck1"]) == set(MONO) and set(mono["deck2"]) == set(MONO)
    pairs = set(zip(mono["deck1"], mono["deck2"]))
    assert ("MonoRed", "MonoBlue") in pairs and ("MonoBlue", "MonoRed") in pairs


def test_matchup_table_rectangular_and_thinned(fitted):
    table = matchup_table(fitted, ["MonoRed"], ["MonoBlue", "MonoGreen"], n_draws=30)
    assert table[["deck1", "deck2"]].values.tolist() == [
        ["MonoRed", "MonoBlue"],
        ["MonoRed", "MonoGreen"],
    ]
    assert matchup_draws(fitted, ["MonoRed"], n_draws=30).shape == (30, 1, 1)


def test_decks_with_unseen_components_get_population_draws(fitted):
    # A variant spec the model never saw gets fresh N(0, sd) effects in every draw: the
    # same draws the classifier itself gives it, and the same in every call.
    import copy

    variant = copy.copy(fitted)
    variant.catalogue = CODEX.with_specs({"Mystery": "Red"})
    new = Deck("Red", ("Anarchy", "Blood", "Mystery"))
    ours = matchup_draws(variant, [new], ["MonoBlue"])
    np.testing.assert_array_equal(ours, matchup_draws(variant, [new], ["MonoBlue"]))
    a, b = variant.vocabulary_.players[:2]
    X = pd.DataFrame(
        {
            "player1": [a],
            "player2": [b],
            "deck1": pd.Series([new], dtype=object),
            "deck2": ["MonoBlue"],
        }
    )
    skills = variant.effect_draws_[:, [0, 1]]
    m = logit(variant.predict_proba_draws(X)[:, 0]) - (skills[:, 0] - skills[:, 1])
    np.testing.assert_allclose(logit(ours[:, 0, 0]), m, atol=1e-9)
    assert np.isfinite(ours).all()


def test_unseen_specs_in_matchups_have_their_blocks_spread(fitted):
    """Known truth, not the classifier's own path: a never-seen spec's effects are N(0, sd).

    Two decks that differ only in a never-seen spec, against a known deck, differ in
    log-odds by one spec-vs-starter and three spec-vs-spec effects of each new spec,
    variance ``2 (sd_stsp^2 + 3 sd_spsp^2)`` in each draw.
    """
    import copy

    n = 10
    variant = copy.copy(fitted)
    variant.catalogue = CODEX.with_specs({f"Mystery{i}": "Red" for i in range(2 * n)})
    decks = [Deck("Red", ("Anarchy", "Blood", f"Mystery{i}")) for i in range(2 * n)]
    m = logit(matchup_draws(variant, decks, ["MonoBlue"]))[:, :, 0]
    sd = fitted.spread_draws_
    z = (m[:, 0::2] - m[:, 1::2]) / np.sqrt(2 * (sd[:, [2]] ** 2 + 3 * sd[:, [3]] ** 2))
    assert z.size == n * len(sd)
    assert np.var(z) == pytest.approx(1.0, abs=0.15)  # 2,000 standard normals
    assert abs(np.mean(z)) < 0.15
    # As player 2's deck: one starter-vs-spec and three spec-vs-spec effects each.
    m2 = logit(matchup_draws(variant, ["MonoBlue"], decks))[:, 0, :]
    z2 = (m2[:, 0::2] - m2[:, 1::2]) / np.sqrt(2 * (sd[:, [2]] ** 2 + 3 * sd[:, [3]] ** 2))
    assert np.var(z2) == pytest.approx(1.0, abs=0.15)


def test_matchup_errors_are_readable(fitted):
    with pytest.raises(ValueError, match="both players"):
        matchup_table(fitted, player1="somebody")
    with pytest.raises(DeckParseError):
        matchup_table(fitted, ["MonoRedd"])
    with pytest.raises(ValueError, match="empty"):
        matchup_table(fitted, [])


def test_match_forecast_interval_brackets_the_mean(fitted, small_matches):
    forecast = match_forecast(fitted, small_matches.X.head(5))
    np.testing.assert_allclose(
        forecast["mean"], fitted.predict_proba(small_matches.X.head(5))[:, 1]
    )
    assert ((forecast["lower"] <= forecast["mean"]) & (forecast["mean"] <= forecast["upper"])).all()


@pytest.mark.parametrize("interval", [0.5, 0.9])
def test_match_forecast_interval_is_the_equal_tailed_quantiles_of_the_draws(
    fitted, small_matches, interval
):
    X = small_matches.X.head(6)
    forecast = match_forecast(fitted, X, interval=interval)
    # Independent: the per-draw probabilities from the blocks, and their quantiles.
    blocks = fitted.layout_.unflatten(fitted.effect_draws_)
    vocab = fitted.vocabulary_
    q = []
    for _, row in X.iterrows():
        d1, d2 = parse_deck(row["deck1"]), parse_deck(row["deck2"])
        g, t = vocab.starters.index(d1.starter), vocab.starters.index(d2.starter)
        h = [vocab.specs.index(x) for x in d1.specs]
        u = [vocab.specs.index(x) for x in d2.specs]
        skill = blocks["skill"]
        value = skill[:, vocab.players.index(row["player1"])]
        value = value - skill[:, vocab.players.index(row["player2"])] + blocks["stst"][:, g, t]
        value = value + blocks["stsp"][:, g, u].sum(-1) + blocks["spst"][:, h, t].sum(-1)
        q.append(value + blocks["spsp"][:, h][:, :, u].sum(axis=(1, 2)))
    p = 1 / (1 + np.exp(-np.column_stack(q)))
    tail = (1 - interval) / 2
    np.testing.assert_allclose(forecast["lower"], np.quantile(p, tail, axis=0), atol=1e-12)
    np.testing.assert_allclose(forecast["upper"], np.quantile(p, 1 - tail, axis=0), atol=1e-12)
    np.testing.assert_allclose(forecast["mean"], p.mean(axis=0), atol=1e-12)


def test_deck_ranking_scores_average_one_half_against_their_own_field(fitted):
    # Against the field of the ranked decks themselves, with a random turn order, every
    # match has one winner among the decks: the scores average exactly 1/2 in every draw.
    ranking = deck_ranking(fitted)
    assert ranking["mean"].mean() == pytest.approx(0.5)
    assert list(ranking["mean"]) == sorted(ranking["mean"], reverse=True)
    assert ranking["p_best"].sum() == pytest.approx(1.0)
    other = deck_ranking(fitted, ["MonoRed"], field=["MonoBlue", "MonoRed"])
    p = matchup_draws(fitted, ["MonoRed", "MonoBlue"])
    expected = 0.5 * ((p[:, 0, 1] + 1 - p[:, 1, 0]) + (p[:, 0, 0] + 1 - p[:, 0, 0])) / 2
    assert other.loc["MonoRed", "mean"] == pytest.approx(expected.mean())


def test_deck_ranking_p_best_and_ranks_recounted_from_the_matchups(fitted):
    from scipy.stats import rankdata

    ranking = deck_ranking(fitted, MONO, n_draws=40)
    p = matchup_draws(fitted, MONO, n_draws=40)  # the six monocolour decks, both turn orders
    score = 0.5 * (p + 1 - p.transpose(0, 2, 1)).mean(axis=2)  # against the field, coin flip
    best = np.bincount(score.argmax(axis=1), minlength=6) / len(score)
    ranks = rankdata(-score, axis=1, method="ordinal")
    expected = pd.DataFrame(
        {"mean": score.mean(axis=0), "p_best": best, "rank_mean": ranks.mean(axis=0)},
        index=pd.Index(MONO, name="deck"),
    )
    pd.testing.assert_frame_equal(ranking[expected.columns].loc[MONO], expected)


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


def test_skill_versus_decks_summarises_the_spread_draws(fitted):
    table = skill_versus_decks(fitted)
    draws = spread_comparison_draws(fitted)
    assert list(table.index) == [
        "sd_player",
        "sd_skill_difference",
        "sd_deck",
        "ratio",
        "skill_share",
    ]
    sd = fitted.spread_draws_
    np.testing.assert_allclose(draws["sd_player"], sd[:, 0])
    np.testing.assert_allclose(
        draws["sd_deck"], np.sqrt(sd[:, 1] ** 2 + 6 * sd[:, 2] ** 2 + 9 * sd[:, 3] ** 2)
    )
    assert table.loc["ratio", "mean"] == pytest.approx((sd[:, 0] / draws["sd_deck"]).mean())
    p = table.attrs["p_skill_matters_more"]
    assert p == pytest.approx(np.mean(np.sqrt(2) * sd[:, 0] > draws["sd_deck"]))
    assert p == pytest.approx(np.mean(draws["skill_share"] > 0.5))
    assert table.attrs["p_player_spread_larger"] <= p


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


def test_nash_equilibria_solve_each_draws_game(fitted):
    eq = nash_equilibria(fitted, "monocolour", n_draws=25)
    assert eq.player1.shape == (25, 6) and eq.player2.shape == (25, 6)
    assert eq.both.shape == (25, 6) and eq.value.shape == (25,)
    for w in (eq.player1, eq.player2, eq.both):
        np.testing.assert_allclose(w.sum(axis=1), 1.0)
        assert w.min() >= 0
    games = matchup_draws(fitted, "monocolour", n_draws=25)
    x, _, value = solve_matrix_game(games[7])
    np.testing.assert_allclose(eq.player1[7], x, atol=1e-9)
    assert eq.value[7] == pytest.approx(value)
    # The both-roles player with one deck cannot be beaten: against every deck of the
    # opponent, the averaged payoff is at least 1/2.
    for A, w in zip(games, eq.both):
        B = 0.5 * (A + 1 - A.T)
        assert (w @ B).min() >= 0.5 - 1e-7


def _column_player(A):
    """The column player's equilibrium by an LP written out independently of the package.

    minimise w over (y, w): A y <= w (row by row), sum y = 1, y >= 0.
    """
    from scipy.optimize import linprog

    n, m = A.shape
    res = linprog(
        c=np.r_[np.zeros(m), 1.0],
        A_ub=np.c_[A, -np.ones(n)],
        b_ub=np.zeros(n),
        A_eq=np.r_[np.ones(m), 0.0].reshape(1, -1),
        b_eq=[1.0],
        bounds=[(0, 1)] * m + [(None, None)],
        method="highs-ds",
    )
    assert res.status == 0
    return res.x[:m], res.x[m]


def test_nash_player2_weights_agree_with_an_independent_solver(fitted):
    decks1 = ["MonoRed", "MonoBlue", "MonoGreen", "MonoBlack"]
    decks2 = ["MonoWhite", "MonoPurple", "MonoRed"]
    eq = nash_equilibria(fitted, decks1, decks2, n_draws=15)
    games = matchup_draws(fitted, decks1, decks2, n_draws=15)
    assert eq.player2.shape == (15, 3)
    for A, w1, w2, value in zip(games, eq.player1, eq.player2, eq.value):
        y, w = _column_player(A)
        assert value == pytest.approx(w, abs=1e-9)
        # Player 2's weights hold player 1 to the value: optimal, whatever the LP's tie-break.
        assert (A @ w2).max() == pytest.approx(w, abs=1e-7)
        assert (w1 @ A).min() == pytest.approx(w, abs=1e-7)
        # These games have a unique equilibrium, so the weights themselves agree.
        np.testing.assert_allclose(w2, y, atol=1e-6)


def test_nash_weights_table(fitted):
    table = nash_weights(fitted, ["MonoRed", "MonoBlue", "MonoGreen"], n_draws=20)
    assert list(dict.fromkeys(table["role"])) == ["player 1", "player 2", "both"]
    assert len(table) == 9
    np.testing.assert_allclose(table.groupby("role")["mean"].sum(), 1.0)
    assert ((table["lower"] <= table["mean"]) & (table["mean"] <= table["upper"])).all()
    value = table.attrs["value"]
    assert 0 < value["lower"] <= value["mean"] <= value["upper"] < 1
    assert table.attrs["n_draws"] == 20


def test_nash_with_different_deck_lists_has_no_both_roles(fitted):
    eq = nash_equilibria(fitted, ["MonoRed", "MonoBlue"], ["MonoGreen"], n_draws=10)
    assert eq.both is None
    np.testing.assert_allclose(eq.player2, 1.0)
    assert set(eq.summary()["role"]) == {"player 1", "player 2"}


# -- calibration ------------------------------------------------------------------------


def test_brier_decomposition_is_exact_when_forecasts_take_bin_values():
    rng = np.random.default_rng(1)
    centres = (np.arange(10) + 0.5) / 10
    p = rng.choice(centres, 5000)
    y = (rng.uniform(size=5000) < np.clip(p + 0.1, 0, 1)).astype(int)
    parts = brier_decomposition(y, p, n_bins=10)
    total = parts["reliability"] - parts["resolution"] + parts["uncertainty"]
    assert total == pytest.approx(brier_score(y, p), abs=1e-12)
    assert parts["within_bin"] == pytest.approx(0.0, abs=1e-12)
    assert parts["uncertainty"] == pytest.approx(y.mean() * (1 - y.mean()))
    assert parts["reliability"] > 0.005  # forecasts 0.1 too low are miscalibrated


def test_calibrated_forecasts_have_reliability_near_zero():
    rng = np.random.default_rng(2)
    p = rng.uniform(size=200_000)
    y = (rng.uniform(size=p.size) < p).astype(int)
    parts = brier_decomposition(y, p)
    assert parts["reliability"] < 1e-4
    assert parts["resolution"] == pytest.approx(1 / 12, rel=0.05)
    table = reliability_table(y, p)
    np.testing.assert_allclose(table["observed"], table["mean_forecast"], atol=0.01)
    assert ((table["lower"] <= table["observed"]) & (table["observed"] <= table["upper"])).all()


def test_reliability_table_bins():
    table = reliability_table([0, 1, 1, 1], [0.2, 0.3, 0.8, 0.9], n_bins=2)
    np.testing.assert_allclose(
        table[["count", "mean_forecast", "observed"]], [[2, 0.25, 0.5], [2, 0.85, 1.0]]
    )
    assert table["bin_lower"].tolist() == [0.0, 0.5]
    # empty bins are left out; p = 1 falls in the last bin
    table = reliability_table([1, 1], [1.0, 0.95], n_bins=10)
    assert table["count"].tolist() == [2.0]
    quantile = reliability_table(
        np.r_[np.zeros(50), np.ones(50)], np.linspace(0, 1, 100), 4, strategy="quantile"
    )
    assert quantile["count"].tolist() == [25.0] * 4


def test_calibration_input_errors():
    with pytest.raises(ValueError, match="outcomes but"):
        reliability_table([0, 1], [0.5])
    with pytest.raises(ValueError, match="n_bins"):
        reliability_table([0, 1], [0.5, 0.5], n_bins=0)
    with pytest.raises(ValueError, match="strategy"):
        reliability_table([0, 1], [0.5, 0.5], strategy="kmeans")
    with pytest.raises(ValueError, match="probabilities"):
        brier_decomposition([0, 1], [0.5, 1.5])


# -- convergence ------------------------------------------------------------------------


def test_convergence_summary(fitted):
    summary = convergence_summary(fitted)
    assert summary["chains"] == 2 and summary["draws"] == 100
    # Independent: ArviZ's rank-normalised split R-hat and ESS over the free parameters.
    import arviz as az

    # The standard normals the sampler moved: each effect over its block's spread.
    post = posterior.group(fitted.idata_, "posterior").astype("float64")
    spread_of = {"skill": "player", "stst": "stst", "stsp": "stsp", "spst": "stsp", "spsp": "spsp"}
    free = xr.Dataset(
        {"log_sd": post["log_sd"]}
        | {
            name: post[name] / post["sd"].sel(spread=spread, drop=True)
            for name, spread in spread_of.items()
        }
    )
    assert summary["max_rhat"] == pytest.approx(float(az.rhat(free).to_array().max()), rel=1e-9)
    ess_bulk = float(az.ess(free, method="bulk").to_array().min())
    ess_tail = float(az.ess(free, method="tail", prob=(0.05, 0.95)).to_array().min())
    assert summary["min_ess_bulk"] == pytest.approx(ess_bulk, rel=1e-9)
    assert summary["min_ess_tail"] == pytest.approx(ess_tail, rel=1e-9)
    stats = posterior.group(fitted.idata_, "sample_stats")
    assert summary["divergences"] == int(stats["diverging"].sum())
    assert summary["problems"] == fitted.convergence_problems_


def _idata(shift: float, diverging: int = 0, seed: int = 0):
    """Four chains of 1,000 draws of 3 effects; chain 0 shifted by ``shift`` sds."""

    rng = np.random.default_rng(seed)
    z = rng.standard_normal((4, 1000, 3))
    z[0] += shift
    div = np.zeros((4, 1000), dtype=bool)
    div.flat[rng.choice(div.size, diverging, replace=False)] = True
    draws = ("chain", "draw")
    return posterior.from_groups(
        {
            "posterior": xr.Dataset(
                {
                    "z": ((*draws, "z_dim_0"), z),
                    "log_sd": ((*draws, "log_sd_dim_0"), rng.standard_normal((4, 1000, 4))),
                }
            ),
            "sample_stats": xr.Dataset({"diverging": (draws, div)}),
        }
    )


@pytest.mark.parametrize(
    ("shift", "flagged"), [(0.0, False), (0.2, False), (0.45, True), (0.6, True)]
)
def test_rhat_warning_threshold_is_1_01(shift, flagged):
    """The R-hat check flags exactly the samples whose worst R-hat exceeds 1.01."""
    import arviz as az

    from skcodex.diagnostics import convergence_problems

    idata = _idata(shift)
    worst = float(az.rhat(posterior.group(idata, "posterior")[["z"]]).to_array().max())
    # The cases sit on both sides of 1.01 (1.001, 1.006, 1.025, 1.043), all below 1.05:
    # a threshold of 1.05 or 1.1, or of 1.005, would misjudge one of them.
    assert (worst > 1.01) == flagged and worst < 1.05
    problems = convergence_problems(idata)
    assert any("R-hat above 1.01" in p for p in problems) == flagged, (worst, problems)


def test_convergence_summary_counts_divergences_and_agrees_with_arviz():
    import arviz as az

    clf = BayesianMatchupClassifier()
    clf.idata_ = _idata(0.45, diverging=3)
    summary = convergence_summary(clf)
    free = posterior.group(clf.idata_, "posterior")[["log_sd", "z"]]
    assert summary["divergences"] == 3
    assert summary["chains"] == 4 and summary["draws"] == 1000
    assert summary["max_rhat"] == pytest.approx(float(az.rhat(free).to_array().max()), rel=1e-9)
    ess = float(az.ess(free, method="bulk").to_array().min())
    assert summary["min_ess_bulk"] == pytest.approx(ess, rel=1e-9)
    assert "3 divergent transition(s)" in summary["problems"]
    assert any("R-hat above 1.01" in p for p in summary["problems"])
