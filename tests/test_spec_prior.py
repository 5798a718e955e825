"""The spec blocks' spreads under the exponential prior: deck parts that can switch themselves off.

``spec_prior="exponential"`` puts ``sd ~ Exponential`` of mean ``exp(log_sd_*_loc)`` on the
starter-v-spec and spec-v-spec spreads, whose mode is no spec effect at all. Checked here
against known truth: the priors the estimator declares and draws (against SciPy's
distributions), a table without spec effects, where both spreads must shrink towards zero
(which the log-normal prior cannot do), and known spec effects, which must be recovered.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from skcodex import BayesianMatchupClassifier
from skcodex.analysis import describe_prior, prior_spread_draws
from skcodex.datasets import make_matches
from skcodex.metrics import brier_score

SPECS = ("stsp", "spsp")


def _fit(X, y, **params) -> BayesianMatchupClassifier:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return BayesianMatchupClassifier(random_state=1, **params).fit(X, y)


def _spread(clf: BayesianMatchupClassifier, name: str) -> np.ndarray:
    return clf.spread_draws_[:, clf.options.spreads.index(name)]


def test_the_estimator_gives_the_spec_spreads_the_exponential_prior():
    clf = BayesianMatchupClassifier(spec_prior="exponential", log_sd_spsp_loc=-2.5)
    priors, names = clf.priors, clf.options.prior_names
    for name in SPECS:
        at = names.index(name)
        assert priors.family[at] == "exponential" and priors.scale[at] == 1.0
    # the mean is the log-normal's median, exp(loc); the loc is the parameter as given
    assert priors.loc[names.index("spsp")] == -2.5
    assert priors.loc[names.index("stsp")] == -1.5
    # the skill and starter-v-starter spreads keep their log-normal priors
    for name in ("player", "stst"):
        assert priors.family[names.index(name)] == "lognormal"
    assert set(BayesianMatchupClassifier().priors.family) == {"lognormal"}


def test_the_balanced_prior_is_refused_by_name():
    X, y = make_matches(n_players=6, n_matches=40, random_state=0, return_X_y=True)
    clf = BayesianMatchupClassifier(spec_prior="exponential", prior="balanced", method="advi")
    with pytest.raises(ValueError, match='spec_prior="exponential" needs prior="lognormal"'):
        clf.fit(X, y)
    with pytest.raises(ValueError, match="spec_prior"):
        BayesianMatchupClassifier(spec_prior="gamma").fit(X, y)


def test_prior_draws_follow_each_spreads_family():
    clf = BayesianMatchupClassifier(spec_prior="exponential", time_varying=True)
    draws = prior_spread_draws(clf, n_draws=20_000, random_state=0)
    names = clf.options.spreads
    for name, mean in (("stsp", np.exp(-1.5)), ("spsp", np.exp(-2.0))):
        sample = draws[:, names.index(name)]
        assert stats.kstest(sample, stats.expon(scale=mean).cdf).pvalue > 1e-3
    for name, loc, scale in (("player", 0.0, 0.5), ("stst", -1.0, 0.5), ("step", -2.0, 0.25)):
        sample = np.log(draws[:, names.index(name)])
        assert stats.kstest(sample, stats.norm(loc, scale).cdf).pvalue > 1e-3
    # the step's own exponential prior is drawn as such too
    stepped = BayesianMatchupClassifier(time_varying=True, step_prior="exponential")
    step = prior_spread_draws(stepped, n_draws=20_000, random_state=4)[:, -1]
    assert stats.kstest(step, stats.expon(scale=0.15).cdf).pvalue > 1e-3
    text = describe_prior(clf)
    assert "sd_stsp ~ Exponential(mean 0.223)" in text and "log sd_stst ~ N(-1, 0.5)" in text


@pytest.mark.slow
def test_without_spec_effects_both_spreads_shrink_towards_zero():
    # of the simulated tables 3, 4 and 5 the one that shrinks starter v spec least
    data = make_matches(
        n_players=40, n_matches=5000, n_tournaments=10, sd_stsp=0.0, sd_spsp=0.0,
        random_state=4,
    )  # fmt: skip
    last = (data.X["period"] == data.X["period"].iloc[-1]).to_numpy()
    X, y = data.X[~last], data.y[~last]
    exponential = _fit(X, y, spec_prior="exponential")
    lognormal = _fit(X, y)
    for name, loc in (("stsp", -1.5), ("spsp", -2.0)):
        prior_median = stats.expon(scale=np.exp(loc)).median()
        shrunk = np.median(_spread(exponential, name))
        assert shrunk < 0.7 * prior_median, (name, shrunk)
        # the log-normal prior holds the spread further from zero
        assert shrunk < np.median(_spread(lognormal, name)), name
    # spec v spec, the weaker block, below the log-normal fit's 5% quantile
    assert np.median(_spread(exponential, "spsp")) < np.quantile(_spread(lognormal, "spsp"), 0.05)
    held_out = data.X[last]
    truth = np.asarray(data.p_win)[last]
    p_exp = exponential.predict_proba(held_out)[:, 1]
    p_log = lognormal.predict_proba(held_out)[:, 1]
    # closer to the true probabilities than the log-normal fit, and no worse held out
    assert np.mean((p_exp - truth) ** 2) < np.mean((p_log - truth) ** 2)
    y_out = data.y[last]
    assert brier_score(y_out, p_exp) <= brier_score(y_out, p_log) + 0.002


@pytest.mark.slow
def test_known_spec_effects_are_recovered():
    X, y = make_matches(
        n_players=40, n_matches=3000, n_tournaments=10, sd_stsp=0.5, sd_spsp=0.3,
        random_state=3, return_X_y=True,
    )  # fmt: skip
    clf = _fit(X, y, spec_prior="exponential")
    for name, truth in (("stsp", 0.5), ("spsp", 0.3)):
        lower, upper = np.quantile(_spread(clf, name), [0.05, 0.95])
        assert lower <= truth <= upper, (name, lower, upper)
        assert lower > 0.4 * truth, (name, lower)
