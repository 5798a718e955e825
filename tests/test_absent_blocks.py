"""A block with no cells has no spread: decks without specs sample no spec spreads.

A game of characters alone (k = 0) has no spec levels, so its starter-vs-spec
and spec-vs-spec blocks have no cells; their spreads would be sampled from the
prior alone, and the convergence checks would judge them. The layout drops
them; k = 1 keeps every block (one spec a deck still meets the other deck's
spec); Codex (k = 3) is unchanged. Files written before the drop keep their
spreads and forecast as they did.
"""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skcodex import BayesianMatchupClassifier, analysis, load
from skcodex._compat import posterior
from skcodex._matchup.diagnostics import convergence_summary
from skcodex._matchup.graph import build_model
from skcodex._matchup.layout import Layout, ModelOptions
from skcodex._matchup.padding import padded_layout
from skcodex.datasets import make_game_matches

FIXTURES = Path(__file__).parent / "fixtures" / "decks_without_specs_v1"
SEED_SPREADS = ("player", "stst", "stsp", "spsp")


def _fit(k, **params):
    extra = {"components": ["a", "b", "c"], "specs_per_deck": k} if k else {}
    data = make_game_matches(
        n_players=10, n_matches=150, n_tournaments=2, starters=4, random_state=k, **extra
    )
    clf = BayesianMatchupClassifier(
        draws=60, tune=80, chains=2, random_state=0, catalogue=data.catalogue, **params
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(data.X, data.y)
    return data, clf


def _named(problems):
    return " ".join(problems)


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_the_layout_has_the_spreads_of_blocks_with_cells(k):
    n_specs = 3 if k else 0
    options = ModelOptions(synergy=True, familiarity=True)
    layout = Layout(6, 4, n_specs, k, options)
    cells = {name: int(np.prod(shape)) for name, shape in layout.shapes.items()}
    expected = ("player", "stst", "stsp", "spsp", "syn", "fam") if k else ("player", "stst", "fam")
    assert layout.spreads == expected
    # independently: a spread is there exactly when one of its blocks has a cell
    for block in layout.declared:
        if block.spread is not None:
            assert (block.spread in layout.spreads) == (
                cells[block.name] > 0
                or any(cells[b.name] > 0 for b in layout.declared if b.spread == block.spread)
            )
    assert layout.prior_names == expected
    # a file of earlier versions keeps every spread its options switch on
    kept = Layout(6, 4, n_specs, k, options, empty_spreads=True)
    assert kept.spreads == options.spreads
    # the compiled model's padding adds no spec levels to decks without specs
    assert padded_layout(layout).spreads == layout.spreads


@pytest.mark.parametrize("prior", ["lognormal", "balanced"])
@pytest.mark.parametrize("k", [1, 3])
def test_decks_with_specs_keep_every_spread_the_options_switch_on(k, prior):
    """Codex (k = 3) and k = 1 sample the model they sampled before: every spread, every prior."""
    for extras in itertools.product([False, True], repeat=4):
        synergy, familiarity, first_move, debut = extras
        options = ModelOptions(
            synergy=synergy, familiarity=familiarity, first_move=first_move, debut=debut,
            prior=prior, time_varying=True, period_offset=True,
        )  # fmt: skip
        layout = Layout(6, 4, 5, k, options, n_epochs=2, walk_steps=3, n_periods=2)
        assert layout.spreads == options.spreads
        assert layout.prior_names == options.prior_names
        assert layout.deck_split
        assert padded_layout(layout).spreads == layout.spreads


def test_balanced_prior_without_specs_has_no_split():
    layout = Layout(6, 4, 0, 0, ModelOptions(prior="balanced", time_varying=True), n_epochs=2)
    assert layout.spreads == ("player", "stst", "step")
    assert layout.prior_names == ("total", "step")
    model = build_model(np.zeros((0, 2), dtype=np.int64), np.zeros(0), layout.static())
    names = {v.name for v in model.free_RVs}
    assert "deck_split_logits" not in names and "log_total" in names
    assert list(model.coords["spread"]) == ["player", "stst"]


def test_a_fit_without_specs_samples_and_judges_no_spec_spread():
    _, clf = _fit(0, time_varying=False, debut=False)
    post = posterior.group(clf.idata_, "posterior")
    assert list(post["sd"].coords["spread"].values) == ["player", "stst"]
    assert list(post["log_sd"].coords["spread"].values) == ["player", "stst"]
    assert clf.spread_draws_.shape[1] == 2
    summary = convergence_summary(clf)
    for name in ("stsp", "spsp", "deck_split"):
        assert name not in _named(summary["problems"])
    # the analyses read the spreads by name: the deck spread is sd_stst alone
    sd = analysis.spread_comparison_draws(clf)
    np.testing.assert_allclose(sd["sd_deck"], clf.spread_draws_[:, 1])
    assert "sd_stsp" not in analysis.describe_prior(clf)
    prior = analysis.prior_spread_draws(clf, n_draws=50)
    assert prior.shape == (50, 2)


@pytest.mark.slow
def test_a_balanced_fit_without_specs_has_no_split(tmp_path):
    data, clf = _fit(0, prior="balanced", time_varying=False, debut=False)
    post = posterior.group(clf.idata_, "posterior")
    assert "deck_split_logits" not in post and "deck_split" not in post
    assert list(post["sd"].coords["spread"].values) == ["player", "stst"]
    # the total spread is the skill and deck parts: 2 sd_player^2 + sd_stst^2
    total = np.exp(2 * post["log_total"].to_numpy().ravel())
    sd = clf.spread_draws_
    np.testing.assert_allclose(2 * sd[:, 0] ** 2 + sd[:, 1] ** 2, total, rtol=1e-5)
    assert "split" not in analysis.describe_prior(clf)
    back = load(clf.save(tmp_path / "balanced.skcodex"))
    assert back.layout_ == clf.layout_
    np.testing.assert_allclose(back.predict_proba(data.X), clf.predict_proba(data.X))


def test_one_spec_a_deck_keeps_every_block():
    _, clf = _fit(1, time_varying=False, debut=False)
    post = posterior.group(clf.idata_, "posterior")
    assert list(post["sd"].coords["spread"].values) == list(SEED_SPREADS)
    n_specs = len(clf.vocabulary_.specs)
    assert post["spsp"].shape[-2:] == (n_specs, n_specs) and n_specs > 0


def test_advi_without_specs_has_no_spec_spread():
    data, clf = _fit(0, method="advi", time_varying=False, debut=False)
    post = posterior.group(clf.idata_, "posterior")
    assert list(post["sd"].coords["spread"].values) == ["player", "stst"]
    assert clf.predict_proba(data.X).shape == (len(data.X), 2)


@pytest.mark.parametrize("prior", ["lognormal", "balanced"])
def test_a_file_written_with_the_spec_spreads_loads_and_forecasts_as_before(prior):
    X = pd.read_csv(FIXTURES / "matches.csv")
    expected = np.loadtxt(FIXTURES / f"{prior}_p_win.txt")
    clf = load(FIXTURES / f"{prior}.skcodex")
    assert clf.layout_.empty_spreads and clf.layout_.spreads == SEED_SPREADS
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], expected, rtol=1e-12)
    # its analyses read the four spreads it sampled, the deck spread still sd_stst alone
    sd = analysis.spread_comparison_draws(clf)
    np.testing.assert_allclose(sd["sd_deck"], clf.spread_draws_[:, 1])
    assert analysis.prior_spread_draws(clf, n_draws=10).shape == (10, 4)
    assert convergence_summary(clf)["chains"] == 1
