"""BayesianMatchupClassifier: scikit-learn behaviour, unseen levels, recovery of known truth."""

import copy
import pickle
import warnings

import numpy as np
import pytest
from scipy.special import expit
from scipy.stats import spearmanr
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegressionCV
from sklearn.model_selection import GridSearchCV, TimeSeriesSplit, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.estimator_checks import parametrize_with_checks

from skcodex import BayesianMatchupClassifier, MatchupEncoder, brier_score, brier_scorer
from skcodex._compat import posterior
from skcodex.analysis import skill_table
from skcodex.codex import Deck, parse_deck
from skcodex.data import MatchTableError, check_match_table, encode
from skcodex.datasets import make_matches

from match_table_adapter import (  # isort: skip
    EXPECTED_FAILURES,
    AdaptedBayes,
    assert_fails_as_stated,
    check_name,
)

# The static model (no skill walk, no debut): these tests check its formula and layout.
STATIC = {"time_varying": False, "debut": False}
TINY = {"draws": 100, "tune": 100, "chains": 2, "random_state": 0, **STATIC}


def tiny(**kwargs):
    return BayesianMatchupClassifier(**{**TINY, **kwargs})


@pytest.fixture(scope="module")
def data():
    return make_matches(n_players=16, n_matches=240, n_tournaments=4, random_state=5)


@pytest.fixture(scope="module")
def fitted(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return tiny().fit(data.X, data.y)


def test_fitted_attributes_and_probabilities(fitted, data):
    assert list(fitted.classes_) == [0, 1]
    n_draws = TINY["draws"] * TINY["chains"]
    assert fitted.effect_draws_.shape == (n_draws, fitted.layout_.size)
    assert fitted.spread_draws_.shape == (n_draws, 4)
    post = posterior.group(fitted.idata_, "posterior")
    assert set(post["skill"].coords["player"].values) == set(data.X["player1"]) | set(
        data.X["player2"]
    )
    assert list(post["stst"].dims[2:]) == ["starter1", "starter2"]
    proba = fitted.predict_proba(data.X)
    assert proba.shape == (len(data.X), 2)
    assert np.allclose(proba.sum(axis=1), 1.0) and np.all((proba > 0) & (proba < 1))
    draws = fitted.predict_proba_draws(data.X)
    assert draws.shape == (n_draws, len(data.X))
    assert np.allclose(draws.mean(axis=0), proba[:, 1], atol=1e-12)
    assert np.array_equal(fitted.predict(data.X), (proba[:, 1] > 0.5).astype(int))


def test_probability_is_the_model_formula(fitted, data):
    """Column 1 is the posterior mean of expit(skill1 - skill2 + m), recomputed from blocks."""
    post = posterior.group(fitted.idata_, "posterior").astype("float64").stack(s=("chain", "draw"))
    row = data.X.iloc[7]
    d1, d2 = parse_deck(row["deck1"]), parse_deck(row["deck2"])
    q = post["skill"].sel(player=row["player1"]) - post["skill"].sel(player=row["player2"])
    q = q + post["stst"].sel(starter1=d1.starter, starter2=d2.starter)
    for u in d2.specs:
        q = q + post["stsp"].sel(starter1=d1.starter, spec2=u)
    for h in d1.specs:
        q = q + post["spst"].sel(spec1=h, starter2=d2.starter)
        for u in d2.specs:
            q = q + post["spsp"].sel(spec1=h, spec2=u)
    want = float(expit(q.values).mean())
    assert fitted.predict_proba(data.X.iloc[[7]])[0, 1] == pytest.approx(want, abs=1e-12)


def test_swapping_turn_order_is_not_assumed_symmetric(fitted, data):
    swapped = data.X.rename(
        columns={"player1": "player2", "player2": "player1", "deck1": "deck2", "deck2": "deck1"}
    )
    p = fitted.predict_proba(data.X)[:, 1]
    p_swapped = fitted.predict_proba(swapped)[:, 1]
    assert not np.allclose(p + p_swapped, 1.0)  # decks' effects depend on who moves first


def test_unseen_player_is_integrated_over_the_population(fitted, data):
    match = data.X.iloc[[0]].copy()
    match["player1"] = "a newcomer"
    p_unseen = fitted.predict_proba(match)[0, 1]
    # Independent computation: Gauss-Hermite integral over skill ~ N(0, sd_player) per draw.
    known = data.X.iloc[[0]].copy()
    theta = fitted.effect_draws_
    encoder_index = fitted.layout_.index_matrix(
        encode(check_match_table(known), fitted.vocabulary_)
    )[0]
    q_rest = theta[:, encoder_index[1:]] @ fitted.layout_.signs[1:]
    nodes, weights = np.polynomial.hermite_e.hermegauss(40)
    sd = fitted.spread_draws_[:, 0]
    integral = (expit(q_rest[:, None] + sd[:, None] * nodes[None, :]) @ weights) / weights.sum()
    exact = integral.mean()
    # One fresh draw per posterior draw: Monte Carlo error ~ sd / sqrt(n_draws).
    mc_sd = np.std(expit(q_rest[:, None] + sd[:, None] * nodes) @ weights / weights.sum())
    assert abs(p_unseen - exact) < 4 * 0.25 / np.sqrt(len(theta)) + 4 * mc_sd / np.sqrt(len(theta))
    plug_in_zero = expit(q_rest).mean()
    assert np.isfinite(p_unseen)
    # It is not the zero-skill plug-in (which ignores the spread) unless by coincidence.
    assert p_unseen != pytest.approx(plug_in_zero, abs=1e-9)


def _standardised_unseen_pairs(fitted, data, column, make, spread):
    """Draws for pairs of never-seen levels, standardised by the block spreads per draw.

    Row 2i and row 2i + 1 differ only in one never-seen level (a player, starter or
    spec). Their log-odds differ by the difference of the two levels' fresh effects,
    whose variance in a draw is ``2 * spread`` with ``spread`` the variance that
    draw's block spreads give one level. Standardised, every value is N(0, 1).
    """
    import copy

    from scipy.special import logit

    from skcodex.codex import CODEX

    n_pairs = 12
    model = copy.copy(fitted)
    model.catalogue = CODEX.with_specs({f"Mystery{i}": "Red" for i in range(2 * n_pairs)})
    model.catalogue = model.catalogue.with_starters([f"Nova{i}" for i in range(2 * n_pairs)])
    X = data.X.iloc[[0] * (2 * n_pairs)].reset_index(drop=True).astype(object)
    X[column] = [make(i) for i in range(2 * n_pairs)]
    q = logit(model.predict_proba_draws(X))
    diff = q[:, 0::2] - q[:, 1::2]
    sd = fitted.spread_draws_  # player, stst, stsp, spsp
    return (diff / np.sqrt(2 * spread(sd))[:, None]).ravel()


@pytest.mark.parametrize(
    ("column", "make", "spread"),
    [
        ("player1", lambda i: f"newcomer {i}", lambda sd: sd[:, 0] ** 2),
        ("player2", lambda i: f"newcomer {i}", lambda sd: sd[:, 0] ** 2),
        (
            "deck1",
            lambda i: Deck(f"Nova{i}", ("Anarchy", "Blood", "Fire")),
            lambda sd: sd[:, 1] ** 2 + 3 * sd[:, 2] ** 2,  # 1 stst + 3 stsp
        ),
        (
            "deck2",
            lambda i: Deck(f"Nova{i}", ("Anarchy", "Blood", "Fire")),
            lambda sd: sd[:, 1] ** 2 + 3 * sd[:, 2] ** 2,  # 1 stst + 3 spst
        ),
        (
            "deck1",
            lambda i: Deck("Red", ("Anarchy", "Blood", f"Mystery{i}")),
            lambda sd: sd[:, 2] ** 2 + 3 * sd[:, 3] ** 2,  # 1 spst + 3 spsp
        ),
        (
            "deck2",
            lambda i: Deck("Red", ("Anarchy", "Blood", f"Mystery{i}")),
            lambda sd: sd[:, 2] ** 2 + 3 * sd[:, 3] ** 2,  # 1 stsp + 3 spsp
        ),
    ],
    ids=["player1", "player2", "starter1", "starter2", "spec1", "spec2"],
)
def test_unseen_levels_are_drawn_with_their_blocks_spread(fitted, data, column, make, spread):
    """Each never-seen level's effects are N(0, sd) with the sd of its own block, per draw."""
    z = _standardised_unseen_pairs(fitted, data, column, make, spread)
    assert z.size == 12 * len(fitted.spread_draws_)
    # 2,400 standard normals: the variance is 1 within 0.15 (about 5 standard errors);
    # half the spread gives 0.25, the player spread for a deck block more than 2.
    assert np.var(z) == pytest.approx(1.0, abs=0.15)
    assert abs(np.mean(z)) < 0.15


def test_unseen_decks_and_repeated_unseen_player_are_consistent(fitted, data):
    match = data.X.iloc[[0, 1]].copy()
    match["player1"] = "newcomer"
    match["deck1"] = "[Anarchy/Blood/Fire]"
    match["deck2"] = "Anarchy/Growth/Law/Black"
    p = fitted.predict_proba(match)
    assert np.all(np.isfinite(p))
    # Same input, same output: the fresh draws are seeded by the fitted model.
    assert np.array_equal(p, fitted.predict_proba(match))


def test_time_varying_forecasts_add_the_walk_since_the_last_period_played(data, monkeypatch):
    """A forecast's skill is the last played period's skill plus the walk from there.

    The walk's steps from the last period a player played to the next period
    after training: a fresh N(0, sd_step^2 * gap) with gap = n_epochs - last.

    The sampler is replaced by known draws (a fixed posterior), so everything fit does
    after sampling runs as it is, in a second.
    """
    import pandas as pd
    import xarray as xr

    import skcodex._matchup.fitting as fitting_module
    from skcodex._matchup.graph import BLOCK_DIMS

    seen = {}
    rng = np.random.default_rng(8)
    spreads = np.array([1.0, 0.4, 0.25, 0.15, 0.3])  # player, stst, stsp, spsp, step

    def known_posterior(problem):
        layout = problem.layout
        seen["layout"], seen["path"] = layout, layout.walk_path(problem.index)
        sd = np.broadcast_to(spreads * np.exp(rng.normal(0, 0.2, (2, 500, 5))), (2, 500, 5))
        z = rng.standard_normal((2, 500, layout.n_free))
        seen["sd"], seen["z"] = sd.reshape(-1, 5), z.reshape(1000, -1)
        theta = layout.theta(z, sd, path=seen["path"])
        post = xr.Dataset(
            {"log_sd": (("chain", "draw", "spread"), np.log(sd))}
            | {"sd": (("chain", "draw", "spread"), sd)}
            | {
                name: (("chain", "draw", *BLOCK_DIMS[name]), block)
                for name, block in layout.unflatten(theta).items()
            }
        )
        return {"posterior": post}

    monkeypatch.setattr(fitting_module, "sample_posterior", known_posterior)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = tiny(time_varying=True).fit(data.X, data.y)
    layout = seen["layout"]
    assert layout.n_epochs == data.X["period"].nunique() >= 3
    # The posterior keeps its draws in single precision.
    theta = layout.theta(seen["z"], seen["sd"], path=seen["path"])
    blocks = layout.unflatten(theta.astype(np.float32).astype(float))
    latest = blocks["skill"] + blocks["walk"][..., -1]
    # each player's last period played, counted from the table itself
    periods = sorted(data.X["period"].unique(), key=lambda p: int(str(p).lstrip("T")))
    epoch = data.X["period"].map({p: i for i, p in enumerate(periods)})
    last = (
        pd.concat([epoch.groupby(data.X["player1"]).max(), epoch.groupby(data.X["player2"]).max()])
        .groupby(level=0)
        .max()
    )
    gap = layout.n_epochs - last.reindex(clf.vocabulary_.players).to_numpy()
    assert (gap > 1).any()  # some players sat out the last period
    # The estimator keeps the layout it sampled; its forecasts use the one without the walk.
    assert clf.layout_ == layout and clf.layout_.options.time_varying
    current = clf.layout_.static().unflatten(clf.effect_draws_)["skill"]
    step = (current - latest) / (seen["sd"][:, [4]] * np.sqrt(gap))
    # 16 players x 1,000 draws of a standard normal: without the extra step this is 0,
    # without the walk it is far from N(0, 1).
    assert np.var(step) == pytest.approx(1.0, abs=0.06)
    assert abs(np.mean(step)) < 0.05
    # The extra step is drawn from the fitted model's own seed: forecasts repeat, from this
    # model and from a copy of it that draws the step afresh.
    first = clf.predict_proba(data.X)
    assert np.array_equal(first, clf.predict_proba(data.X))
    assert np.array_equal(first, copy.deepcopy(clf).predict_proba(data.X))
    # Independent of the other effects: the deck blocks are carried over unchanged.
    np.testing.assert_array_equal(
        clf.layout_.static().unflatten(clf.effect_draws_)["spsp"], blocks["spsp"]
    )


def test_same_random_state_gives_identical_predictions(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = tiny(random_state=3).fit(data.X, data.y).predict_proba(data.X)
        b = tiny(random_state=3).fit(data.X, data.y).predict_proba(data.X)
    assert np.array_equal(a, b)


def test_all_wins_by_player_one_still_fits(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = tiny().fit(data.X[:60], np.ones(60, dtype=int))
    assert list(clf.classes_) == [0, 1]
    p = clf.predict_proba(data.X[60:80])[:, 1]
    assert np.all(np.isfinite(p)) and p.mean() > 0.5


def test_convergence_warning_names_parameters_and_advice(data):
    with pytest.warns(ConvergenceWarning, match=r"bulk ESS below 400.*Increase draws"):
        clf = tiny(draws=30, tune=30).fit(data.X[:80], data.y[:80])
    assert clf.convergence_problems_


def test_luck_adjusted_outcomes(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        plain = tiny().fit(data.X, data.y)
        zero = tiny().fit(data.X, data.y, luck=np.zeros(len(data.y)))
        assert np.array_equal(plain.predict_proba(data.X), zero.predict_proba(data.X))
        # Remove all of the outcome as "luck": every adjusted result is 0.5, skills shrink to 0.
        flat = tiny().fit(data.X, data.y, luck=data.y - 0.5)
    spread_plain = plain.effect_draws_[:, : plain.layout_.n_players].mean(0).std()
    spread_flat = flat.effect_draws_[:, : flat.layout_.n_players].mean(0).std()
    assert spread_flat < 0.5 * spread_plain
    with pytest.raises(MatchTableError, match="luck must be finite"):
        tiny().fit(data.X, data.y, luck=np.full(len(data.y), np.nan))
    with pytest.raises(MatchTableError, match="one number per match"):
        tiny().fit(data.X, data.y, luck=[0.1])


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"draws": 0}, "draws"),
        ({"sampler": "gibbs"}, "sampler"),
        ({"target_accept": 1.5}, "target_accept"),
        ({"log_sd_player_scale": -1.0}, "log_sd_player_scale"),
    ],
)
def test_bad_parameters_are_named(data, params, message):
    with pytest.raises(ValueError, match=message):
        tiny(**params).fit(data.X, data.y)


def test_bad_input_is_reported_before_sampling(data):
    with pytest.raises(MatchTableError, match="missing the column"):
        tiny().fit(data.X.drop(columns="deck2"), data.y)
    with pytest.raises(MatchTableError, match="y has 3 outcomes"):
        tiny().fit(data.X, data.y[:3])


def test_clone_params_pickle(fitted, data):
    clf = tiny(log_sd_spsp_loc=-1.0)
    assert clone(clf).get_params() == clf.get_params()
    assert clf.set_params(draws=50).draws == 50
    restored = pickle.loads(pickle.dumps(fitted))
    assert np.array_equal(restored.predict_proba(data.X), fitted.predict_proba(data.X))


def _manual_fold_scores(model, X, y, cv):
    """Negative Brier score per fold, fitted and scored by hand."""
    scores = []
    for train, test in cv.split(X):
        fitted_fold = clone(model).fit(X.iloc[train], y[train])
        scores.append(-brier_score(y[test], fitted_fold.predict_proba(X.iloc[test])[:, 1]))
    return np.array(scores)


def test_pipeline_time_series_cv_and_grid_search(data):
    pipe = make_pipeline(FunctionTransformer(lambda X: X.copy()), tiny())
    cv = TimeSeriesSplit(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        scores = cross_val_score(pipe, data.X, data.y, cv=cv, scoring=brier_scorer)
        search = GridSearchCV(
            tiny(), {"log_sd_spsp_loc": [-2.0, 1.0]}, cv=cv, scoring=brier_scorer
        ).fit(data.X, data.y)
        wide = _manual_fold_scores(tiny(log_sd_spsp_loc=1.0), data.X, data.y, cv)
        by_hand = _manual_fold_scores(tiny(), data.X, data.y, cv)
    # The pipeline's and the search's scores are the Brier scores computed by hand.
    np.testing.assert_allclose(scores, by_hand, rtol=1e-12)
    results = search.cv_results_["mean_test_score"]
    np.testing.assert_allclose(results, [by_hand.mean(), wide.mean()], rtol=1e-12)
    best = -2.0 if by_hand.mean() >= wide.mean() else 1.0
    assert search.best_params_ == {"log_sd_spsp_loc": best}
    assert search.best_estimator_.log_sd_spsp_loc == best


# scikit-learn's generic checks feed numeric arrays; `match_table_adapter` turns each into a
# match table row by row, so every check that can run on a match table runs on the
# classifier's own code (invariance to subsets and order of the rows, idempotent fits,
# pickling, unchanged parameters, ...). The few that cannot are listed with their reason
# in `EXPECTED_FAILURES`, and each must fail for exactly that reason.
CHECKED = AdaptedBayes(draws=50, tune=50, chains=2, random_state=0)


@parametrize_with_checks([CHECKED])
def test_sklearn_estimator_checks(estimator, check):
    expected = EXPECTED_FAILURES.get(check_name(check))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if expected is None:
            check(estimator)
            return
        assert_fails_as_stated(check, estimator, expected)
    pytest.xfail(expected.reason)


def test_every_expected_failure_is_a_check_that_runs():
    names = {check_name(c) for _, c in parametrize_with_checks([CHECKED]).args[1]}
    assert set(EXPECTED_FAILURES) <= names


@pytest.mark.parametrize("order", ["subsets", "reversed"])
def test_unseen_level_forecasts_do_not_depend_on_the_batch(fitted, data, order):
    """check_methods_subset_invariance and _sample_order_invariance, with unseen levels."""
    X = data.X.iloc[:6].copy().astype(object)
    X.loc[X.index[[0, 3]], "player1"] = ["newcomer a", "newcomer b"]
    X.loc[X.index[[1, 3]], "deck2"] = ["Anarchy/Growth/Law/Black", "[Anarchy/Blood/Fire]"]
    whole = fitted.predict_proba(X)
    if order == "subsets":
        parts = np.vstack([fitted.predict_proba(X.iloc[[i]]) for i in range(len(X))])
    else:
        parts = fitted.predict_proba(X.iloc[::-1])[::-1]
    np.testing.assert_allclose(parts, whole, rtol=1e-12)


@pytest.mark.slow
def test_recovers_known_skills_and_spreads():
    """Three independent series of 3,000 matches among 60 players, pooled for coverage.

    The true spreads are the posterior means of the seed model on the real tournaments
    (player 1.07, starter-starter 0.45, starter-spec 0.28, spec-spec 0.21), not the
    centres of the default priors.
    """
    covered, players, spreads_covered = 0, 0, 0
    truth_sd = {"sd_player": 1.07, "sd_stst": 0.45, "sd_stsp": 0.28, "sd_spsp": 0.21}
    for seed in (11, 12, 13):
        data = make_matches(
            n_players=60, n_matches=3000, n_tournaments=10, random_state=seed, **truth_sd
        )
        with warnings.catch_warnings():
            # At the default 4 x 1,000 draws the spec-vs-spec spread can mix slowly
            # (R-hat 1.015 seen on one series); recovery is what is tested here.
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf = BayesianMatchupClassifier(random_state=seed).fit(data.X, data.y)
        assert not any("divergent" in problem for problem in clf.convergence_problems_)
        table = skill_table(clf)
        truth = data.params["skill"][table.index]
        assert spearmanr(table["mean"], truth)[0] >= 0.9
        covered += int(np.sum((table["lower"] <= truth) & (truth <= table["upper"])))
        players += len(table)
        # The spreads the effects of this data set actually have (the sd of the drawn
        # effects), against their 90% intervals.
        lower, upper = np.quantile(clf.spread_draws_[:, :4], [0.05, 0.95], axis=0)
        p = data.params
        realised = np.array(
            [
                p["skill"].std(),
                p["stst"].to_numpy().std(),
                np.concatenate([p["stsp"].to_numpy().ravel(), p["spst"].to_numpy().ravel()]).std(),
                p["spsp"].to_numpy().std(),
            ]
        )
        spreads_covered += int(np.sum((lower <= realised) & (realised <= upper)))
    assert 0.80 <= covered / players <= 0.97, covered / players
    # 12 intervals of 90%: a calibrated posterior covers at least 9 with probability 0.97.
    assert spreads_covered >= 9, spreads_covered


@pytest.mark.slow
def test_held_out_brier_near_oracle_and_below_logistic_regression():
    data = make_matches(
        n_players=40, n_matches=3600, n_tournaments=12, deck_kind="monocolour", random_state=12
    )
    train = np.arange(len(data.y)) < 3000
    clf = BayesianMatchupClassifier(random_state=2).fit(data.X[train], data.y[train])
    test = ~train
    ours = brier_score(data.y[test], clf.predict_proba(data.X[test])[:, 1])
    oracle = brier_score(data.y[test], data.p_win[test])
    logistic = make_pipeline(
        MatchupEncoder(), LogisticRegressionCV(Cs=10, cv=TimeSeriesSplit(5), scoring=brier_scorer)
    ).fit(data.X[train], data.y[train])
    theirs = brier_score(data.y[test], logistic.predict_proba(data.X[test])[:, 1])
    assert ours - oracle < 0.01, (ours, oracle)
    assert ours < theirs, (ours, theirs)
