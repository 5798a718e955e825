"""Inference speed machinery: padding, the compile cache, the C wrappers, NumPy prediction."""

import ctypes
import pickle
import re
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, TimeSeriesSplit

from skcodex import BayesianMatchupClassifier
from skcodex._matchup import compile_cache, nutpie_compile
from skcodex._matchup import sampling as inference
from skcodex._matchup.compile_cache import compile_count
from skcodex._matchup.graph import Layout, ModelOptions, SpreadPriors, build_model
from skcodex._matchup.padding import embedding, padded_layout
from skcodex._matchup.sampling import FitProblem, SamplingOptions, sample_posterior
from skcodex.data import Vocabulary, check_match_table, encode
from skcodex.datasets import make_matches

# The static model (no skill walk, no debut): these tests count its compiled shapes.
TINY = {"draws": 60, "tune": 60, "chains": 2, "time_varying": False, "debut": False}


def tiny(**kwargs):
    return BayesianMatchupClassifier(**{**TINY, "random_state": 0, **kwargs})


def quiet_fit(clf, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clf.fit(X, y)


def layout_of(X):
    vocab = Vocabulary.from_table(check_match_table(X))
    return Layout(*vocab.sizes, vocab.specs_per_deck)


def index_of(X, layout=None):
    table = check_match_table(X)
    vocab = Vocabulary.from_table(table)
    layout = layout or Layout(*vocab.sizes, vocab.specs_per_deck)
    return layout.index_matrix(encode(table, vocab)), layout


@pytest.fixture(scope="module")
def data():
    return make_matches(n_players=16, n_matches=200, n_tournaments=4, random_state=3)


# -- padding -------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [ModelOptions(), ModelOptions(synergy=True, familiarity=True), ModelOptions(time_varying=True)],
)
def test_padded_layout_contains_the_layout_and_embeds_it(options):
    layout = Layout(37, 7, 19, 3, options, 5 if options.time_varying else 1)
    padded = padded_layout(layout)
    assert (padded.n_players, padded.n_starters, padded.n_specs) == (64, 8, 20)
    assert padded.n_epochs == (8 if options.time_varying else 1)
    assert padded.options == options and padded_layout(padded) == padded
    theta_pos, z_pos = embedding(layout, padded)
    assert len(set(theta_pos)) == layout.size and len(set(z_pos)) == layout.n_free
    rng = np.random.default_rng(0)
    big = rng.normal(size=(3, padded.size))
    small = layout.unflatten(big[:, theta_pos])
    for name, block in padded.unflatten(big).items():
        corner = block[(slice(None), *(slice(0, n) for n in layout.shapes[name]))]
        np.testing.assert_array_equal(small[name], corner)
    # The effects of the padded model, read through the embedding, are the layout's
    # effects computed from the embedded standard normals (the skill walk included).
    z = rng.normal(size=(3, padded.n_free))
    sd = np.exp(rng.normal(size=(3, len(layout.spreads))))
    np.testing.assert_allclose(
        padded.theta(z, sd)[:, theta_pos], layout.theta(z[:, z_pos], sd), atol=1e-12
    )


def test_embedding_rejects_a_smaller_layout():
    with pytest.raises(ValueError, match="does not contain"):
        embedding(Layout(40, 7, 20), Layout(32, 8, 20))


# -- the compiled log-density ------------------------------------------------------


def _call_logp(compiled, x):
    out, logp = np.zeros_like(x), np.zeros(1)
    ptr = ctypes.POINTER(ctypes.c_double)
    code = compiled.compiled_logp_func.ctypes(
        len(x),
        x.ctypes.data_as(ptr),
        out.ctypes.data_as(ptr),
        logp.ctypes.data_as(ptr),
        ctypes.c_void_p(compiled.user_data.ctypes.data),
    )
    return code, logp[0], out


def test_compiled_wrapper_matches_pymc_logp_and_gradient_for_new_data(data):
    pytest.importorskip("nutpie")
    index, layout = index_of(data.X)
    padded = padded_layout(layout)
    theta_pos, _ = embedding(layout, padded)
    supported, why = nutpie_compile.fast_path_supported()
    if not supported:
        pytest.skip(f"the fast compile path is not used here: {why}")
    compiled = compile_cache._compiled("nutpie", padded, theta_pos[index], data.y.astype(float))
    assert hasattr(compiled, "shared_names"), "the fast compile path fell back"
    rng = np.random.default_rng(1)
    x = rng.normal(scale=0.5, size=compiled.n_dim)
    # Other matches (a different number of them) and other priors, swapped in.
    for n, priors in (
        (200, SpreadPriors()),
        (57, SpreadPriors((0.1, -0.2, 0.3, 0.0), (1, 2, 3, 4))),
    ):
        y = rng.integers(0, 2, size=n).astype(float)
        idx = theta_pos[index[:n]]
        swapped = compiled.with_data(
            index=idx,
            y=y,
            trials=np.ones(n),
            prior_loc=np.array(priors.loc),
            prior_scale=np.array(priors.scale),
        )
        code, logp, grad = _call_logp(swapped, x)
        model = build_model(idx, y, padded, priors)
        point = {"log_sd": x[:4], "z": x[4:]}
        assert code == 0
        assert logp == pytest.approx(float(model.compile_logp()(point)), rel=1e-10)
        np.testing.assert_allclose(grad, model.compile_dlogp()(point), rtol=1e-9, atol=1e-9)


def test_refits_with_the_same_or_a_smaller_vocabulary_do_not_recompile(data):
    first = quiet_fit(tiny(), data.X, data.y)
    before = compile_count()
    gone = ["player01", "player02"]
    fewer = ~(data.X["player1"].isin(gone) | data.X["player2"].isin(gone)).to_numpy()
    assert layout_of(data.X[fewer]).n_players == first.layout_.n_players - 2
    assert padded_layout(layout_of(data.X[fewer])) == padded_layout(first.layout_)
    quiet_fit(tiny(random_state=1), data.X[fewer], data.y[fewer])
    quiet_fit(tiny(log_sd_player_loc=0.5, log_sd_spsp_scale=0.2), data.X, data.y)
    assert compile_count() == before


def test_swapped_data_give_the_same_draws_as_a_fresh_compile(data):
    quiet_fit(tiny(), data.X, data.y)  # compiled with other data
    reused = quiet_fit(tiny(random_state=4), data.X[:120], data.y[:120])
    before = compile_count()
    compile_cache.clear_compiled()
    fresh = quiet_fit(tiny(random_state=4), data.X[:120], data.y[:120])
    assert compile_count() == before + 1
    np.testing.assert_allclose(fresh.effect_draws_, reused.effect_draws_, rtol=0, atol=1e-12)


def test_sampled_posterior_is_in_the_data_layout(data):
    index, layout = index_of(data.X)
    groups = sample_posterior(
        FitProblem(
            index, data.y, layout, SpreadPriors(), SamplingOptions(draws=20, tune=20, chains=1)
        )
    )
    post = groups["posterior"]
    assert "z" not in post  # the standard normals are not stored beside the effects
    for name, shape in layout.shapes.items():
        assert post[name].shape == (1, 20, *shape)
    assert post["sd"].shape == (1, 20, len(layout.spreads))
    np.testing.assert_allclose(np.exp(post["log_sd"]), post["sd"], rtol=1e-12)
    assert "diverging" in groups["sample_stats"]
    # Only per-draw statistics are kept (no per-parameter arrays).
    assert all(set(v.dims) == {"chain", "draw"} for v in groups["sample_stats"].data_vars.values())


def test_fitted_estimator_pickles_predicts_identically_and_refits(data):
    clf = quiet_fit(tiny(), data.X, data.y)
    copy = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(copy.predict_proba(data.X), clf.predict_proba(data.X))
    before = compile_count()
    quiet_fit(copy, data.X[:150], data.y[:150])
    assert compile_count() == before
    assert copy.effect_draws_.shape[0] == TINY["draws"] * TINY["chains"]


def test_grid_search_runs_in_parallel_workers(data):
    search = GridSearchCV(
        tiny(draws=30, tune=30),
        {"log_sd_player_scale": [0.3, 0.6]},
        cv=TimeSeriesSplit(2),
        scoring="neg_brier_score",
        n_jobs=2,
        error_score="raise",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        search.fit(data.X, data.y)
    scores = search.cv_results_["mean_test_score"]
    assert np.all(np.isfinite(scores)) and np.all((scores > -0.5) & (scores < 0))


def test_falls_back_to_nutpies_public_compile_when_the_private_api_breaks(data, monkeypatch):
    """A change in nutpie's internals makes the first fit slower, never makes it fail."""
    pytest.importorskip("nutpie")
    reference = quiet_fit(tiny(), data.X, data.y)

    def broken(*args, **kwargs):
        raise AttributeError("no such internals")

    monkeypatch.setattr(nutpie_compile, "_fast_nutpie_model", broken)
    monkeypatch.setattr(compile_cache, "_COMPILED", {})
    with pytest.warns(RuntimeWarning, match="public compile"):
        clf = quiet_fit(tiny(), data.X, data.y)
    compiled = next(iter(compile_cache._COMPILED.values()))
    assert not hasattr(compiled, "shared_names")  # nutpie's own compiled model
    assert clf.effect_draws_.shape == (120, clf.layout_.size)
    # The same model: posterior means agree with the fast path's within Monte Carlo error
    # (taking at least 30 effective draws of each of the 120).
    gap = np.abs(clf.spread_draws_.mean(0) - reference.spread_draws_.mean(0))
    mcse = np.hypot(clf.spread_draws_.std(0), reference.spread_draws_.std(0)) / np.sqrt(30)
    assert np.all(gap < 4 * mcse), (gap, mcse)


def test_untested_versions_take_the_public_path(monkeypatch):
    """Outside the tested versions, or when asked, the private API is not touched."""
    monkeypatch.setenv("SKCODEX_NUTPIE_COMPILE", "public")
    assert nutpie_compile.fast_path_supported() == (False, "SKCODEX_NUTPIE_COMPILE=public")
    monkeypatch.delenv("SKCODEX_NUTPIE_COMPILE")
    monkeypatch.setitem(nutpie_compile.FAST_PATH_VERSIONS, "nutpie", ((0, 1), (0, 2)))
    supported, why = nutpie_compile.fast_path_supported()
    assert not supported and "nutpie" in why and "untested" in why


def test_public_path_on_request_fits_and_refits_without_recompiling(data, monkeypatch):
    pytest.importorskip("nutpie")
    monkeypatch.setenv("SKCODEX_NUTPIE_COMPILE", "public")
    monkeypatch.setattr(compile_cache, "_COMPILED", {})
    before = compile_count("nutpie")
    first = quiet_fit(tiny(), data.X, data.y)
    second = quiet_fit(tiny(), data.X.iloc[:150], data.y[:150])
    assert compile_count("nutpie") == before + 1
    assert not hasattr(next(iter(compile_cache._COMPILED.values())), "shared_names")
    assert first.effect_draws_.shape[0] == second.effect_draws_.shape[0] == 120


@pytest.mark.slow
def test_padding_leaves_the_posterior_of_the_real_effects_unchanged(data, monkeypatch):
    """Padded and exact layouts: posterior means agree within Monte Carlo error."""
    import arviz as az

    settings_ = {"draws": 500, "tune": 400, "chains": 2, "random_state": 5}
    padded = quiet_fit(BayesianMatchupClassifier(**settings_), data.X, data.y)
    monkeypatch.setattr(inference, "padded_layout", lambda layout: layout)
    exact = quiet_fit(BayesianMatchupClassifier(**{**settings_, "random_state": 6}), data.X, data.y)
    assert padded.effect_draws_.shape == exact.effect_draws_.shape

    def mean_and_mcse(clf):
        draws = np.concatenate([clf.effect_draws_, clf.spread_draws_], axis=1)
        draws = draws.reshape(settings_["chains"], settings_["draws"], -1)
        mcse = np.asarray(az.mcse(az.convert_to_dataset({"x": draws}), method="mean")["x"])
        return draws.mean(axis=(0, 1)), mcse

    (m1, s1), (m2, s2) = mean_and_mcse(padded), mean_and_mcse(exact)
    # effects fixed by the model (a walk's first period, the debut baseline) are 0 in both
    fixed = (s1 == 0) & (s2 == 0)
    assert fixed.sum() < 0.1 * fixed.size and np.array_equal(m1[fixed], m2[fixed])
    z = np.abs(m1 - m2)[~fixed] / np.hypot(s1, s2)[~fixed]
    assert np.mean(z < 3) >= 0.97 and z.max() < 5, np.sort(z)[-5:]


def test_a_grid_search_warns_once_and_plain_fits_each_warn(data):
    """Tiny draws always fail the checks: one warning per search, one per plain fit."""
    from sklearn.model_selection import GridSearchCV, KFold

    from skcodex import brier_scorer
    from skcodex._matchup import diagnostics

    # Two identical searches in a row: the second's frame often reuses the first's
    # address, and must warn all the same.
    for _ in range(2):
        search = GridSearchCV(
            tiny(),
            {"log_sd_player_loc": [-0.5, 0.0]},
            cv=KFold(2),
            scoring=brier_scorer,
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            search.fit(data.X, data.y)
        found = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
        assert len(found) == 1, [str(w.message)[:80] for w in found]
        assert "not reported again" in str(found[0].message)
        assert search.best_estimator_.convergence_problems_  # each fit keeps its own list
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tiny().fit(data.X, data.y)
        tiny(random_state=1).fit(data.X, data.y)
    found = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert len(found) == 2
    assert diagnostics._SEARCH_WARNED == {}  # the finished search's frame is let go
    # Parameters are named by their coordinates, not by a position in a flat vector.
    assert re.search(r"(skill|stst|stsp|spst|spsp)\[[^\]\d][^\]]*\]", str(found[0].message))
