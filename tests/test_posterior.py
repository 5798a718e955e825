"""The posterior's one home: idata_ is the installed ArviZ's object, and ArviZ works on it."""

import re
import warnings

import numpy as np
import pytest
import xarray as xr
from sklearn.exceptions import ConvergenceWarning

from skcodex import BayesianMatchupClassifier, load
from skcodex._compat import posterior
from skcodex._matchup import fitting
from skcodex._matchup import readers as fit_readers
from skcodex.datasets import make_matches

# The static model (no skill walk, no debut): these tests check its formula and layout.
STATIC = {"time_varying": False, "debut": False}
TINY = {"draws": 100, "tune": 100, "chains": 2, "random_state": 0, **STATIC}


@pytest.fixture(scope="module")
def data():
    return make_matches(n_players=14, n_matches=180, n_tournaments=3, random_state=4)


@pytest.fixture(scope="module")
def fitted(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return BayesianMatchupClassifier(**TINY).fit(data.X, data.y)


def test_idata_is_the_installed_arviz_object(fitted):
    import arviz as az

    expected = "DataTree" if posterior.ARVIZ_1 else "InferenceData"
    assert type(fitted.idata_).__name__ == expected
    assert int(az.__version__.split(".")[0]) >= 1 if posterior.ARVIZ_1 else True
    assert set(posterior.group_names(fitted.idata_)) == {
        "posterior",
        "sample_stats",
        "log_likelihood",
        "observed_data",
        "constant_data",
    }


def test_posterior_groups_and_named_coordinates(fitted, data):
    post = posterior.group(fitted.idata_, "posterior")
    players = set(data.X["player1"]) | set(data.X["player2"])
    assert set(post["skill"].coords["player"].values.tolist()) == players
    assert post["sd"].coords["spread"].values.tolist() == ["player", "stst", "stsp", "spsp"]
    assert post["spsp"].dims == ("chain", "draw", "spec1", "spec2")
    assert post.sizes["chain"] == 2 and post.sizes["draw"] == 100
    # Stored once: the standard normals are not kept beside the effects they make.
    assert "z" not in post
    assert post["skill"].dtype == np.float32


def test_effect_draws_are_views_of_idata(fitted):
    """effect_draws_ and spread_draws_ are computed from idata_, not stored beside it."""
    post = posterior.group(fitted.idata_, "posterior")
    assert "effect_draws_" not in vars(fitted) and "spread_draws_" not in vars(fitted)
    skills = post["skill"].transpose("chain", "draw", "player").to_numpy().reshape(200, -1)
    np.testing.assert_array_equal(fitted.effect_draws_[:, : skills.shape[1]], skills)
    sd = post["sd"].transpose("chain", "draw", "spread").to_numpy().reshape(200, -1)
    np.testing.assert_array_equal(fitted.spread_draws_, sd)
    assert fitted.effect_draws_ is fitted.effect_draws_  # computed once, then kept in memory


def test_log_likelihood_is_each_matchs_bernoulli_log_likelihood(fitted, data):
    """An independent computation from the named blocks of one draw."""
    from scipy.special import expit

    from skcodex.codex import parse_deck

    post = posterior.group(fitted.idata_, "posterior").astype("float64")
    loglik = posterior.group(fitted.idata_, "log_likelihood")["outcome"]
    for row_number in (0, 17, 99):
        row = data.X.iloc[row_number]
        d1, d2 = parse_deck(row["deck1"]), parse_deck(row["deck2"])
        one = post.isel(chain=1, draw=42)
        q = float(one["skill"].sel(player=row["player1"]) - one["skill"].sel(player=row["player2"]))
        q += float(one["stst"].sel(starter1=d1.starter, starter2=d2.starter))
        q += sum(float(one["stsp"].sel(starter1=d1.starter, spec2=u)) for u in d2.specs)
        q += sum(float(one["spst"].sel(spec1=h, starter2=d2.starter)) for h in d1.specs)
        q += sum(float(one["spsp"].sel(spec1=h, spec2=u)) for h in d1.specs for u in d2.specs)
        p = expit(q)
        want = np.log(p) if data.y[row_number] == 1 else np.log1p(-p)
        got = float(loglik.isel(chain=1, draw=42, match=row_number))
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12)


def _variable(result, name: str):
    """A variable of an ArviZ result: a Dataset (0.x) or a DataTree (1.x)."""
    if isinstance(result, xr.Dataset) or name in getattr(result, "data_vars", {}):
        return result[name]
    return result["posterior"][name]


def test_users_arviz_calls_work_on_idata(fitted):
    import arviz as az

    summary = az.summary(fitted.idata_, var_names=["sd"])
    assert len(summary) == 4
    ess = az.ess(fitted.idata_, var_names=["sd"])
    rhat = az.rhat(fitted.idata_, var_names=["sd"])
    # ArviZ's values equal skcodex's own diagnostics on the same draws.
    from skcodex._matchup.convergence_stats import convergence_statistics

    draws = posterior.group(fitted.idata_, "posterior")["sd"].transpose("chain", "draw", ...)
    ours = convergence_statistics(draws.to_numpy().astype(float))
    ess_values, rhat_values = _variable(ess, "sd"), _variable(rhat, "sd")
    # ArviZ works in the draws' single precision, skcodex in double: equal to 1e-3.
    np.testing.assert_allclose(np.asarray(ess_values), ours["ess_bulk"], rtol=1e-3)
    np.testing.assert_allclose(np.asarray(rhat_values), ours["rhat"], rtol=1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loo = az.loo(fitted.idata_)
    ll = posterior.group(fitted.idata_, "log_likelihood")["outcome"].to_numpy()
    # elpd_loo is at most the in-sample log predictive density.
    lpd = np.sum(np.log(np.mean(np.exp(ll.reshape(-1, ll.shape[-1])), axis=0)))
    elpd = float(loo.elpd if hasattr(loo, "elpd") else loo["elpd_loo"])
    assert elpd <= lpd + 1e-9
    assert elpd > lpd - 60


def test_forest_plot_of_idata(fitted):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import arviz as az
    from matplotlib.text import Text

    result = az.plot_forest(fitted.idata_, var_names=["sd"])
    if hasattr(result, "viz"):  # ArviZ 1.x: a PlotCollection
        figure = result.viz["figure"].item()
    else:  # ArviZ 0.x: an array of axes
        figure = np.ravel(result)[0].figure
    figure.canvas.draw()
    shown = " ".join(t.get_text() for t in figure.findobj(Text))
    spreads = posterior.group(fitted.idata_, "posterior")["sd"].coords["spread"].values
    assert len(spreads) == 4
    for spread in spreads:  # one row a spread of the posterior, each named
        assert re.search(rf"\b{spread}\b", shown), (spread, shown)


def test_saved_file_holds_the_posterior_once_and_loads_identically(fitted, data, tmp_path):
    import zipfile

    path = fitted.save(tmp_path / "m.skcodex")
    with zipfile.ZipFile(path) as archive:
        sizes = {info.filename: info.file_size for info in archive.infolist()}
    # No flat copies of the draws beside the posterior NetCDF: the other members are small.
    posterior_bytes = sum(v for k, v in sizes.items() if k.endswith(".nc"))
    assert sum(sizes.values()) - posterior_bytes < 100_000, sizes
    again = load(path)
    assert type(again.idata_) is type(fitted.idata_)
    assert set(posterior.group_names(again.idata_)) == set(posterior.group_names(fitted.idata_))
    for name in posterior.group_names(fitted.idata_):
        assert posterior.group(again.idata_, name).equals(posterior.group(fitted.idata_, name))
    np.testing.assert_array_equal(again.predict_proba(data.X), fitted.predict_proba(data.X))


def test_from_effect_draws_round_trips(fitted):
    idata = fitting.from_effect_draws(
        fitted.effect_draws_, fitted.spread_draws_, fitted.layout_, n_chains=2
    )
    theta = fit_readers.effect_draws(idata, fitted.layout_)
    np.testing.assert_array_equal(theta, fitted.effect_draws_)
