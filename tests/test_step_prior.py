"""The walk's step spread under its exponential prior: a part that can switch itself off.

``step_prior="exponential"`` puts ``sd_step ~ Exponential`` (mean ``sd_step_mean``), whose
mode is no drift at all. Checked here against known truth: its density against SciPy's;
simulated series drawn with the step from the prior itself, whose 90% intervals must
cover the true step about 90% of the time (simulation-based calibration); a table with
no drift, where the step must shrink towards zero and the forecasts match the static
model's; and a known fast drift, which must be recovered.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from skcodex import BayesianMatchupClassifier
from skcodex._matchup.graph import SpreadPriors, exponential_correction
from skcodex.datasets import make_matches

EXPONENTIAL = {"time_varying": True, "debut": False, "step_prior": "exponential"}


def _step_draws(clf: BayesianMatchupClassifier) -> np.ndarray:
    return clf.spread_draws_[:, clf.options.spreads.index("step")]


def _fit(X, y, seed: int, **params) -> BayesianMatchupClassifier:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return BayesianMatchupClassifier(random_state=seed, **params).fit(X, y)


@pytest.mark.parametrize("mean", [0.05, 0.15, 1.0])
def test_the_correction_turns_the_normal_into_the_exponential(mean):
    u = np.linspace(-8, 2, 41)
    loc, scale = np.log(mean), 1.0
    normal = stats.norm.logpdf(u, loc, scale)
    corrected = np.array(
        [normal[i] + exponential_correction(u[i], loc, scale, 1.0) for i in range(len(u))]
    )
    # the exponential's density of sd = exp(u), times the Jacobian exp(u)
    expected = stats.expon.logpdf(np.exp(u), scale=mean) + u
    np.testing.assert_allclose(corrected, expected, rtol=1e-10, atol=1e-10)
    assert exponential_correction(u[3], loc, scale, 0.0) == 0.0  # off where the flag is 0


def test_the_estimator_gives_the_step_its_exponential_prior():
    clf = BayesianMatchupClassifier(step_prior="exponential", sd_step_mean=0.2, time_varying=True)
    priors = clf.priors
    at = clf.options.prior_names.index("step")
    assert priors.family[at] == "exponential"
    assert priors.loc[at] == pytest.approx(np.log(0.2)) and priors.scale[at] == 1.0
    assert priors.exponential.tolist() == [float(i == at) for i in range(len(priors.loc))]
    # the other spreads keep their log-normal priors
    lognormal = BayesianMatchupClassifier(time_varying=True).priors
    assert lognormal.family[at] == "lognormal" and lognormal.scale[at] == 0.25
    with pytest.raises(ValueError, match="exponential spread prior has scale 1"):
        SpreadPriors(loc=(0.0,), scale=(0.5,), family=("exponential",))
    with pytest.raises(ValueError, match="family must hold one of"):
        SpreadPriors(loc=(0.0,), scale=(0.5,), family=("gamma",))


@pytest.mark.slow
def test_the_step_intervals_cover_steps_drawn_from_the_prior():
    """50 series, each with its step drawn from the prior: 90% intervals cover ~90%."""
    rng = np.random.default_rng(2026)
    n_series, covered = 50, 0
    for i in range(n_series):
        truth = rng.exponential(0.15)
        X, y = make_matches(
            n_players=16, n_matches=320, n_tournaments=8, sd_step=truth, random_state=i,
            return_X_y=True,
        )  # fmt: skip
        clf = _fit(X, y, i, **EXPONENTIAL, chains=2, draws=250, tune=250)
        lower, upper = np.quantile(_step_draws(clf), [0.05, 0.95])
        covered += lower <= truth <= upper
    # binomial(50, 0.9): 45 expected, sd 2.1; outside 40-49 the intervals are miscalibrated
    assert 40 <= covered <= 49, covered


@pytest.mark.slow
def test_no_drift_shrinks_the_step_and_forecasts_as_the_static_model():
    data = make_matches(n_players=30, n_matches=1500, n_tournaments=10, random_state=5)
    last = (data.X["period"] == data.X["period"].iloc[-1]).to_numpy()
    X, y = data.X[~last], data.y[~last]
    walk = _fit(X, y, 1, **EXPONENTIAL)
    step = _step_draws(walk)
    # the prior's median and 95% quantile: 0.104 and 0.449; the data pull both towards 0
    prior = stats.expon(scale=0.15)
    assert np.median(step) < 0.7 * prior.median(), np.median(step)
    assert np.quantile(step, 0.95) < 0.5 * prior.ppf(0.95), np.quantile(step, 0.95)
    static = _fit(X, y, 1, time_varying=False, debut=False)
    p_walk = walk.predict_proba(data.X[last])[:, 1]
    p_static = static.predict_proba(data.X[last])[:, 1]
    assert np.mean(np.abs(p_walk - p_static)) < 0.015


@pytest.mark.slow
def test_a_known_drift_is_recovered():
    data = make_matches(
        n_players=30, n_matches=2400, n_tournaments=12, sd_step=0.35, random_state=21
    )
    step = _step_draws(_fit(data.X, data.y, 1, **EXPONENTIAL))
    lower, upper = np.quantile(step, [0.05, 0.95])
    assert 0.1 < lower <= 0.35 <= upper, (lower, upper)
