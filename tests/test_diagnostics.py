"""Convergence diagnostics: equal to ArviZ's, parameter by parameter, and right on known chains."""

from __future__ import annotations

import warnings

import arviz as az
import numpy as np
import pytest
import xarray as xr
from scipy.stats import rankdata

from skcodex import BayesianMatchupClassifier
from skcodex._compat import posterior
from skcodex._matchup import convergence_stats, diagnostics


def ar1(rng, chains, draws, n, phi):
    """AR(1) chains with unit innovations: integrated autocorrelation time (1 + phi) / (1 - phi)."""
    x = np.zeros((chains, draws, n))
    noise = rng.normal(size=(chains, draws, n))
    x[:, 0] = noise[:, 0] / np.sqrt(1 - phi**2)
    for t in range(1, draws):
        x[:, t] = phi * x[:, t - 1] + noise[:, t]
    return x


def arviz_values(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = az.convert_to_dataset({"v": x})
        return (
            np.asarray(az.rhat(ds)["v"]),
            np.asarray(az.ess(ds, method="bulk")["v"]),
            # The 5% and 95% quantiles (Vehtari et al. 2021): ArviZ 0.x's default, stated
            # explicitly since ArviZ 1.x defaults to others.
            np.asarray(az.ess(ds, method="tail", prob=(0.05, 0.95))["v"]),
        )


def cases():
    rng = np.random.default_rng(20261130)
    shifted = ar1(rng, 4, 400, 20, 0.9) + rng.normal(size=(4, 1, 20))  # chains disagree
    return {
        "autocorrelated": ar1(rng, 4, 500, 30, 0.8),
        "alternating": ar1(rng, 4, 301, 30, -0.6),  # odd draws: the middle one is dropped
        "non-converged": shifted,
        "independent": rng.normal(size=(4, 1000, 30)),
        "heavy tails": rng.standard_t(2, size=(2, 300, 20)),
        "ties": rng.integers(0, 3, size=(4, 200, 10)).astype(float),
        "short": rng.normal(size=(3, 7, 5)),
        "one chain": ar1(rng, 1, 400, 10, 0.5),
        "mixed constant": np.concatenate(
            [np.ones((4, 100, 2)), rng.normal(size=(4, 100, 3))], axis=2
        ),
    }


@pytest.mark.parametrize("name", list(cases()))
def test_equal_to_arviz_parameter_by_parameter(name):
    x = cases()[name]
    r_ref, bulk_ref, tail_ref = arviz_values(x)
    np.testing.assert_allclose(convergence_stats.ess_bulk(x), bulk_ref, rtol=1e-10)
    np.testing.assert_allclose(convergence_stats.ess_tail(x), tail_ref, rtol=1e-10)
    if x.shape[0] > 1:
        np.testing.assert_allclose(convergence_stats.rhat(x), r_ref, rtol=1e-12)
    else:
        assert np.isnan(convergence_stats.rhat(x)).all()


def test_known_autocorrelation_time():
    rng = np.random.default_rng(5)
    phi, chains, draws = 0.7, 4, 5000
    ess = convergence_stats.ess_bulk(ar1(rng, chains, draws, 40, phi))
    expected = chains * draws * (1 - phi) / (1 + phi)
    assert abs(np.median(ess) / expected - 1) < 0.05
    assert np.all(np.abs(ess / expected - 1) < 0.25)


def test_rhat_flags_chains_that_disagree():
    rng = np.random.default_rng(6)
    good = rng.normal(size=(4, 500, 5))
    bad = good + np.arange(4)[:, None, None]  # every chain centred elsewhere
    assert np.all(convergence_stats.rhat(good) < 1.01)
    assert np.all(convergence_stats.rhat(bad) > 1.3)


def test_nan_draws_and_too_few_draws_give_nan():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(4, 100, 3))
    x[2, 50, 1] = np.nan
    for f in (convergence_stats.rhat, convergence_stats.ess_bulk, convergence_stats.ess_tail):
        values = f(x)
        assert np.isnan(values[1]) and np.isfinite(values[[0, 2]]).all()
        assert np.isnan(f(rng.normal(size=(4, 3, 2)))).all()


def test_two_dimensional_input_is_one_parameter_and_bad_shapes_are_refused():
    rng = np.random.default_rng(8)
    x = rng.normal(size=(4, 200))
    assert convergence_stats.ess_bulk(x).shape == (1,)
    np.testing.assert_allclose(
        convergence_stats.ess_bulk(x), convergence_stats.ess_bulk(x[:, :, None])
    )
    with pytest.raises(ValueError, match="chains, draws, n_parameters"):
        convergence_stats.rhat(np.zeros(10))


def test_input_is_not_modified():
    x = cases()["ties"]
    before = x.copy()
    convergence_stats.rhat(x), convergence_stats.ess_bulk(x), convergence_stats.ess_tail(x)
    assert np.array_equal(x, before)


@pytest.mark.parametrize("seed", range(3))
def test_average_ranks_equal_scipy(seed):
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, 4 + 10 * seed, size=(6, 50)).astype(float)
    rows[0] = rng.normal(size=50)  # a row without ties beside rows with many
    np.testing.assert_array_equal(
        convergence_stats.average_ranks(rows), rankdata(rows, method="average", axis=1)
    )


# -- convergence ------------------------------------------------------------------------


def _sampled(shift: float, diverging: int = 0, seed: int = 0):
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

    from skcodex._matchup.diagnostics import convergence_problems

    idata = _sampled(shift)
    worst = float(az.rhat(posterior.group(idata, "posterior")[["z"]]).to_array().max())
    # The cases sit on both sides of 1.01 (1.001, 1.006, 1.025, 1.043), all below 1.05:
    # a threshold of 1.05 or 1.1, or of 1.005, would misjudge one of them.
    assert (worst > 1.01) == flagged and worst < 1.05
    problems = convergence_problems(idata)
    assert any("R-hat above 1.01" in p for p in problems) == flagged, (worst, problems)


def test_convergence_summary_counts_divergences_and_agrees_with_arviz():
    import arviz as az

    clf = BayesianMatchupClassifier()
    clf.idata_ = _sampled(0.45, diverging=3)
    summary = diagnostics.convergence_summary(clf)
    free = posterior.group(clf.idata_, "posterior")[["log_sd", "z"]]
    assert summary["divergences"] == 3
    assert summary["chains"] == 4 and summary["draws"] == 1000
    assert summary["max_rhat"] == pytest.approx(float(az.rhat(free).to_array().max()), rel=1e-9)
    ess = float(az.ess(free, method="bulk").to_array().min())
    assert summary["min_ess_bulk"] == pytest.approx(ess, rel=1e-9)
    assert "3 divergent transition(s)" in summary["problems"]
    assert any("R-hat above 1.01" in p for p in summary["problems"])


def test_failed_checks_are_grouped_by_parameter_family():
    from skcodex._matchup.diagnostics import grouped_problems, problem_family

    problems = [
        "R-hat above 1.01 for 2 spread parameter(s) (log_sd[stsp], log_sd[spsp]; worst 1.020)",
        "R-hat above 1.01 for 4 effect parameter(s) (skill[a], skill[b] and 2 more; worst 1.3)",
        "bulk ESS below 400 for 5 effect parameter(s) (stst[A, B]; lowest 90)",
        "bulk ESS below 400 for 7 effect parameter(s) (spsp[C, D]; lowest 40)",
        "R-hat above 1.01 for 1 effect parameter(s) (walk[a, 2]; worst 1.500)",
        "3 divergent transition(s)",
    ]
    assert [problem_family(p) for p in problems] == [
        "spreads",
        "player skills",
        "deck matchups",
        "deck matchups",
        "player skills",
        "sampler",
    ]
    assert grouped_problems(problems) == [
        "spreads: R-hat above 1.01 for 2 (worst 1.020)",
        "player skills: R-hat above 1.01 for 5 (worst 1.500)",
        "deck matchups: bulk ESS below 400 for 12 (lowest 40)",
        "sampler: 3 divergent transition(s)",
    ]
    assert grouped_problems([]) == []
