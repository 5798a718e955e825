"""Spreads with an exponential prior, sampled through zero (``ModelOptions.signed_spreads``).

A spread whose prior is exponential (``step_prior`` or ``spec_prior="exponential"``) is
sampled as a signed spread ``v`` with a Laplace prior, ``sd = |v|``, and its levels stay
non-centred. Checked here: the model's log density in those coordinates against the
Laplace and normal densities of SciPy, the deterministics, the centring rule, a table
where no spread takes the exponential prior (it must fit bit for bit as without the
option), and that the option is on exactly when an exponential prior is asked for.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from skcodex import BayesianMatchupClassifier
from skcodex._matchup.geometry import choose_centring, signed_spreads
from skcodex._matchup.graph import SPREAD_COORDINATES, SpreadPriors, build_model, default_priors
from skcodex._matchup.layout import Layout, ModelOptions
from skcodex.datasets import make_game_matches

from random_matches import random_index  # isort: skip

#: The spreads given the exponential prior here, and its means.
MEANS = {"stsp": 0.2, "spsp": 0.1}


def _priors(layout: Layout) -> SpreadPriors:
    names = layout.prior_names
    family = tuple("exponential" if n in MEANS else "lognormal" for n in names)
    loc = tuple(
        float(np.log(MEANS[n])) if n in MEANS else -1.0 + 0.25 * i for i, n in enumerate(names)
    )
    scale = tuple(1.0 if n in MEANS else 0.4 + 0.1 * i for i, n in enumerate(names))
    return SpreadPriors(loc, scale, family)


def test_the_signed_coordinate_carries_each_spreads_prior():
    options = ModelOptions(familiarity=True, first_move=True, signed_spreads=True)
    layout = Layout(6, 4, 5, 2, options)
    priors = _priors(layout)
    index = random_index(layout, 50, np.random.default_rng(0))
    y = np.random.default_rng(1).integers(0, 2, len(index)).astype(float)
    model = build_model(index, y, layout, priors)
    free = {v.name for v in model.free_RVs}
    assert SPREAD_COORDINATES["log_sd"] in free and "log_sd" not in free
    logp = model.compile_logp()
    coordinate = model[SPREAD_COORDINATES["log_sd"]]
    sd_and_log = model.compile_fn([model["sd"], model["log_sd"]], inputs=[coordinate])
    point = model.initial_point()
    names = layout.spreads
    exponential = np.array([n in MEANS for n in names])
    loc, scale = np.array(priors.loc[: len(names)]), np.array(priors.scale[: len(names)])
    rng = np.random.default_rng(2)
    values, expected = [], []
    for _ in range(5):
        # signed spreads of either sign, log-spreads anywhere
        v = np.where(exponential, rng.normal(0, 0.3, len(names)), rng.normal(-1, 1, len(names)))
        point[SPREAD_COORDINATES["log_sd"]] = v
        values.append(logp(point))
        mean = np.exp(loc)
        density = np.where(
            exponential,
            stats.laplace(scale=mean).logpdf(v),
            stats.norm(loc, scale).logpdf(v),
        )
        expected.append(density.sum())
        sd, log_sd = sd_and_log({coordinate.name: v})
        np.testing.assert_allclose(sd, np.where(exponential, np.abs(v), np.exp(v)), rtol=1e-12)
        np.testing.assert_allclose(log_sd, np.log(sd), rtol=1e-12)
    # the effects' standard normals (non-centred) and the matches do not depend on the
    # spread coordinates' prior: every difference between points is the priors' own
    np.testing.assert_allclose(np.diff(values), np.diff(expected), atol=1e-9)


def test_laplace_on_the_signed_spread_is_the_exponential_on_its_size():
    # |v| for v ~ Laplace(scale b) is Exponential(mean b): the law the option promises
    b = 0.15
    draws = np.abs(stats.laplace(scale=b).rvs(50_000, random_state=3))
    assert stats.kstest(draws, stats.expon(scale=b).cdf).pvalue > 1e-3


def test_signed_spreads_levels_stay_non_centred():
    options = ModelOptions(signed_spreads=True)
    layout = Layout(6, 3, 5, 2, options)
    index = random_index(layout, 60, np.random.default_rng(5))
    trials = np.full(len(index), 200.0)  # every read level is data-rich: centred by the rule
    loc = default_priors(layout.options).loc
    plain = choose_centring(index, trials, layout, loc)
    family = np.array([n == "stsp" for n in layout.prior_names], dtype=float)
    flags = signed_spreads(layout, family)
    assert flags.tolist() == [n == "stsp" for n in layout.spreads]
    signed = choose_centring(index, trials, layout, loc, signed=flags)
    group = layout.free_group
    stsp = group == layout.spreads.index("stsp")
    assert plain[stsp].any() and not signed[stsp].any()
    np.testing.assert_array_equal(signed[~stsp], plain[~stsp])
    # without the option no spread is signed, whatever the families
    assert not signed_spreads(Layout(6, 3, 5, 2, ModelOptions()), family).any()


def test_the_option_follows_the_exponential_priors():
    assert not BayesianMatchupClassifier().options.signed_spreads
    assert BayesianMatchupClassifier(spec_prior="exponential").options.signed_spreads
    assert BayesianMatchupClassifier(step_prior="exponential").options.signed_spreads


def _fit(data, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = BayesianMatchupClassifier(
            catalogue=data.catalogue, draws=150, tune=150, chains=2, random_state=0,
            time_varying=False, debut=False, **params,
        )  # fmt: skip
        return clf.fit(data.X, data.y)


@pytest.mark.parametrize(
    "params", [{"spec_prior": "exponential"}, {"step_prior": "exponential"}], ids=str
)
def test_a_table_without_such_a_spread_fits_as_without_the_option(params):
    # decks without specs have no spec spreads, a static model no step: the plain model
    data = make_game_matches(n_players=8, n_matches=120, n_tournaments=2, random_state=4)
    plain, option = _fit(data), _fit(data, **params)
    assert option.options.signed_spreads and not option.layout_.options.signed_spreads
    np.testing.assert_array_equal(option.predict_proba(data.X), plain.predict_proba(data.X))


def test_a_table_with_one_fits_the_signed_model():
    data = make_game_matches(
        n_players=8, n_matches=120, n_tournaments=2, components=["a", "b", "c"],
        specs_per_deck=1, random_state=4,
    )  # fmt: skip
    clf = _fit(data, spec_prior="exponential")
    assert clf.layout_.options.signed_spreads
    post = clf.idata_.posterior
    signed = post[SPREAD_COORDINATES["log_sd"]].values
    at = clf.layout_.spreads.index("stsp")
    np.testing.assert_allclose(clf.spread_draws_[:, at], np.abs(signed[..., at]).reshape(-1))
