"""The prior's own answer to "skill or decks?", shown beside the posterior's in the report."""

from __future__ import annotations

import numpy as np
import pytest

from skcodex import BayesianMatchupClassifier
from skcodex._classifier import SEED_PRIORS
from skcodex.analysis import (
    describe_prior,
    prior_spread_comparison_draws,
    prior_spread_draws,
)
from skcodex.cli._parser import build_parser


def _p_skill(clf, n=200_000, seed=0):
    return float((prior_spread_comparison_draws(clf, n, seed)["skill_share"] > 0.5).mean())


def test_balanced_prior_is_even_by_symmetry():
    # the skill share is sigmoid(N(0, 1)), symmetric about 1/2: P = 1/2 exactly
    p = _p_skill(BayesianMatchupClassifier(prior="balanced"))
    assert abs(p - 0.5) < 4 * np.sqrt(0.25 / 200_000)


@pytest.mark.parametrize(
    ("player_loc", "expected"),
    # all deck spreads exp(0) = 1: sd_deck = sqrt(1 + 6 + 9) = 4; sqrt(2) sd_player vs 4
    [(0.0, 0.0), (np.log(4 / np.sqrt(2)) - 0.3, 0.0), (np.log(4 / np.sqrt(2)) + 0.3, 1.0)],
)
def test_a_prior_without_spread_gives_a_sure_answer(player_loc, expected):
    clf = BayesianMatchupClassifier(
        log_sd_player_loc=player_loc,
        log_sd_stst_loc=0.0,
        log_sd_stsp_loc=0.0,
        log_sd_spsp_loc=0.0,
        **{f"log_sd_{n}_scale": 1e-6 for n in ("player", "stst", "stsp", "spsp")},
    )
    assert _p_skill(clf, 1000) == expected


def test_the_issues_figures_for_the_default_and_seed_priors():
    """0.78 for the default priors and 0.03 for the seed's (computed independently before)."""
    assert abs(_p_skill(BayesianMatchupClassifier()) - 0.78) < 0.01
    assert abs(_p_skill(BayesianMatchupClassifier(**SEED_PRIORS)) - 0.03) < 0.01


@pytest.mark.filterwarnings("ignore:The effect of Potentials:UserWarning")
@pytest.mark.parametrize("prior", ["lognormal", "balanced"])
def test_simulation_agrees_with_pymc_prior_sampling(prior):
    """An independent route: PyMC draws the spreads from the model it fits."""
    import pymc as pm

    from skcodex._matchup.graph import Layout, build_model

    clf = BayesianMatchupClassifier(prior=prior)
    layout = Layout(4, 3, 5, 3, clf.options)
    model = build_model(
        np.zeros((1, len(layout.signs)), dtype=np.int64), np.array([1.0]), layout, clf.priors
    )
    with model:
        draws = pm.sample_prior_predictive(draws=8000, var_names=["sd"], random_seed=1)
    sd = np.asarray(draws.prior["sd"]).reshape(-1, len(layout.spreads))
    deck = np.sqrt(sd[:, 1] ** 2 + 6 * sd[:, 2] ** 2 + 9 * sd[:, 3] ** 2)
    p_pymc = float(np.mean(2 * sd[:, 0] ** 2 > deck**2))
    p_ours = _p_skill(clf)
    assert abs(p_pymc - p_ours) < 4 * np.sqrt(0.25 / 8000)
    ours = prior_spread_draws(clf, 8000, 2)
    # the spread distributions match too (medians of each spread, within MC error)
    np.testing.assert_allclose(np.median(ours, axis=0), np.median(sd, axis=0), rtol=0.06)


def test_prior_draws_reject_a_bad_count():
    with pytest.raises(ValueError, match="n_draws must be a positive integer"):
        prior_spread_draws(BayesianMatchupClassifier(), 0)


def test_describe_prior_names_every_parameter():
    text = describe_prior(BayesianMatchupClassifier())
    assert text.startswith("log-normal spread priors")
    for part in ("sd_player ~ N(0, 0.5)", "sd_stst ~ N(-1, 0.5)", "sd_spsp ~ N(-2, 0.5)"):
        assert part in text
    assert "balanced prior" in describe_prior(BayesianMatchupClassifier(prior="balanced"))


def test_the_command_line_takes_the_balanced_prior():
    args = build_parser().parse_args(["fit", "folder", "--out", "o", "--prior", "balanced"])
    assert args.prior == "balanced"
    assert build_parser().parse_args(["demo"]).prior == "lognormal"


def test_report_shows_prior_beside_posterior_and_names_data_and_model(small_matches):
    import re
    import warnings

    pytest.importorskip("matplotlib")
    from skcodex.report import FIGURES, analyse, render_html

    clf = BayesianMatchupClassifier(draws=60, tune=60, chains=2, random_state=0, prior="balanced")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(small_matches.X, small_matches.y)
    result = analyse(
        clf, small_matches.X, small_matches.y, nash_draws=10, source="tournaments of the test"
    )
    page = render_html(result)
    s = result.spreads.attrs
    assert abs(s["prior_p_skill_matters_more"] - 0.5) < 0.01  # the balanced prior
    headline = re.search(r'<p class="key">Probability that a match depends.*?</p>', page, re.S)
    assert headline is not None
    text = headline.group(0)
    assert f"<strong>{s['p_skill_matters_more']:.2f}</strong> after seeing the matches" in text
    assert f">{s['prior_p_skill_matters_more']:.2f}</strong> before seeing any" in text
    assert "the balanced prior" in text
    # every figure and every headline names its data; the model options are given once,
    # in the line that heads the page
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", page, re.S)
    assert len(captions) == len(FIGURES)
    for part in [*captions, *re.findall(r'<p class="key">(.*?)</p>', page, re.S)]:
        assert "Data: tournaments of the test, 400 matches" in part, part
        assert "model as described at the top of the page" in part, part
    top = re.search(r'<p class="summary">Data: (.*?)</p>', page, re.S).group(1)
    assert "balanced prior: log total spread ~ N(0.5, 0.5)" in top
    assert "NUTS (auto: pymc sampler), 2 chains of 60 draws after 60 tuning steps" in top
    assert "prior interval" in page  # the spreads table shows the prior beside the posterior
