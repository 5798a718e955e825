"""Analyses of a model fitted by MCMC: skills, matchups, Nash weights, spreads, convergence.

The same analyses on known draws, without a fit, are in test_analysis.py.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy.special import logit

from skcodex import BayesianMatchupClassifier
from skcodex._compat import posterior
from skcodex.analysis import (
    convergence_summary,
    deck_label,
    deck_ranking,
    match_forecast,
    matchup_draws,
    matchup_table,
    nash_equilibria,
    nash_weights,
    skill_table,
    skill_versus_decks,
    solve_matrix_game,
    spread_comparison_draws,
)
from skcodex.codex import CODEX, Deck, DeckParseError, parse_deck

MONO = ["MonoBlack", "MonoBlue", "MonoGreen", "MonoPurple", "MonoRed", "MonoWhite"]


@pytest.fixture(scope="module")
def fitted(small_matches):
    """The static model: the independent counts below read its skills as drawn."""
    clf = BayesianMatchupClassifier(
        draws=100, tune=100, chains=2, random_state=0, time_varying=False, debut=False
    )
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


def test_skill_table_without_data_has_no_counts(fitted):
    table = skill_table(fitted)
    assert "matches" not in table.columns and "wins" not in table.columns


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


def test_matchup_draws_for_named_players_are_the_classifiers(fitted):
    a, b = fitted.vocabulary_.players[3], fitted.vocabulary_.players[5]
    p = matchup_draws(fitted, ["MonoRed"], ["MonoBlue"], player1=a, player2=b)
    X = pd.DataFrame({"player1": [a], "player2": [b], "deck1": ["MonoRed"], "deck2": ["MonoBlue"]})
    np.testing.assert_allclose(p[:, 0, 0], fitted.predict_proba_draws(X)[:, 0])


def test_matchup_table_defaults_to_the_most_played_decks_in_both_turn_orders(fitted):
    from skcodex.analysis import N_DEFAULT_DECKS, default_decks

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


# -- skill versus decks -----------------------------------------------------------------


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


@pytest.mark.parametrize("analysis", [nash_weights, matchup_table])
def test_a_deck_named_twice_is_refused(fitted, analysis):
    with pytest.raises(ValueError, match="decks2 names the deck 'MonoRed' twice"):
        analysis(fitted, ["MonoBlue"], ["MonoRed", "MonoGreen", "MonoRed"])


def test_nash_with_different_deck_lists_has_no_both_roles(fitted):
    eq = nash_equilibria(fitted, ["MonoRed", "MonoBlue"], ["MonoGreen"], n_draws=10)
    assert eq.both is None
    np.testing.assert_allclose(eq.player2, 1.0)
    assert set(eq.summary()["role"]) == {"player 1", "player 2"}


# -- calibration ------------------------------------------------------------------------


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


def test_extension_table_reads_each_optional_part_from_the_posterior(small_matches):
    """Each row against the named posterior variables (`idata_`), computed independently."""
    from skcodex.analysis import extension_table

    clf = BayesianMatchupClassifier(
        first_move=True,
        debut=True,
        time_varying=True,
        draws=100,
        tune=100,
        chains=2,
        random_state=1,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(small_matches.X, small_matches.y)
    post = posterior.group(clf.idata_, "posterior")
    truth = {
        "first_move": post["first_move"],
        "debut": post["debut"].sel(stage="debut"),
        "debut_deck_factor": post["debut_deck_factor"],
        "sd_step": post["sd"].sel(spread="step"),
    }
    table = extension_table(clf, interval=0.8)
    assert list(table.index) == list(truth)
    assert list(table["scale"]) == ["log-odds", "log-odds", "factor", "spread"]
    for name, draws in truth.items():
        values = draws.to_numpy().ravel().astype(np.float64)
        assert table.loc[name, "mean"] == pytest.approx(values.mean(), rel=1e-6)
        assert table.loc[name, "lower"] == pytest.approx(np.quantile(values, 0.1), rel=1e-6)
        assert table.loc[name, "upper"] == pytest.approx(np.quantile(values, 0.9), rel=1e-6)
    assert 0 < table.loc["debut_deck_factor", "lower"] < table.loc["debut_deck_factor", "upper"] < 2


def test_extension_table_of_the_seed_model_is_empty_and_bad_input_is_refused(fitted):
    from sklearn.exceptions import NotFittedError

    from skcodex.analysis import extension_table

    table = extension_table(fitted)
    assert table.empty and list(table.columns) == ["what", "scale", "mean", "lower", "upper"]
    with pytest.raises(ValueError, match="interval must be between 0 and 1"):
        extension_table(fitted, interval=1.5)
    with pytest.raises(NotFittedError):
        extension_table(BayesianMatchupClassifier())
