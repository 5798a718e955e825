"""Effect blocks declared once: one table read by the layout, the model, prediction, checks."""

from __future__ import annotations

import html
import inspect
import warnings

import numpy as np
import pytest
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning

from skcodex import BayesianMatchupClassifier, analysis
from skcodex._compat import posterior
from skcodex._matchup import blocks, fitting
from skcodex._matchup.blocks import BLOCK_TABLE, PRIOR_DEFAULTS, SPREAD_TABLE, EffectBlock
from skcodex._matchup.diagnostics import monitored_draws
from skcodex._matchup.graph import default_priors
from skcodex._matchup.layout import Layout, ModelOptions
from skcodex.data import Vocabulary, check_match_table, encode
from skcodex.data import _kinds as kinds
from skcodex.datasets import make_game_matches
from skcodex.exceptions import ApproximationWarning


def test_estimator_prior_defaults_are_the_table():
    """The signature repeats the table's defaults (for readers); they must agree."""
    params = inspect.signature(BayesianMatchupClassifier).parameters
    for spread in SPREAD_TABLE:
        loc, scale = spread.prior
        assert params[f"log_sd_{spread.name}_loc"].default == loc
        assert params[f"log_sd_{spread.name}_scale"].default == scale
    assert (params["log_total_loc"].default, params["log_total_scale"].default) == (
        PRIOR_DEFAULTS["total"]
    )
    for block in BLOCK_TABLE:
        if block.spread is None:
            assert (params[f"{block.name}_loc"].default, params[f"{block.name}_scale"].default) == (
                block.prior
            )
    all_on = {"time_varying": True, "synergy": True, "familiarity": True, "first_move": True}
    for options in (ModelOptions(), ModelOptions(**all_on), ModelOptions(prior="balanced")):
        clf = BayesianMatchupClassifier(prior=options.prior, **(all_on if options.synergy else {}))
        assert clf.priors == default_priors(options)


def test_every_block_is_declared_consistently():
    spreads = {s.name for s in SPREAD_TABLE}
    options = set(ModelOptions.__dataclass_fields__)
    names = [b.name for b in BLOCK_TABLE]
    assert len(set(names)) == len(names)
    for block in BLOCK_TABLE:
        assert block.spread in spreads or (block.spread is None and block.prior is not None)
        assert block.option is None or block.option in options
        assert set(block.kinds) <= set(kinds.kind_names())
        assert block.form in ("independent", "walk", "baseline") and block.label
        if block.mirror is not None:  # mirrored blocks are square in their kinds
            mirror = next(b for b in BLOCK_TABLE if b.name == block.mirror)
            assert block.kinds == mirror.kinds[::-1]
    # The layout's blocks are the table's, in its order, for any options.
    layout = Layout(4, 3, 5, 2, ModelOptions(synergy=True, first_move=True))
    assert [name for name, _ in layout.blocks] == [
        b.name for b in BLOCK_TABLE if b.option in (None, "synergy", "first_move")
    ]


# -- a block added by one declaration ---------------------------------------------------


def _read_strength(codes, layout):
    return [((codes.starter1[:, None],), 1.0), ((codes.starter2[:, None],), -1.0)]


STRENGTH = EffectBlock(
    "starter_strength",
    ("starter1",),
    "syn",
    _read_strength,
    option="synergy",
    label="a starter's own strength",
)


@pytest.fixture
def with_strength(monkeypatch):
    """The block table with one more block, switched on by ``synergy``."""
    from skcodex._matchup import compile_cache

    compile_cache.clear_compiled()
    monkeypatch.setattr(blocks, "BLOCK_TABLE", (*BLOCK_TABLE, STRENGTH))
    yield
    compile_cache.clear_compiled()


def test_a_declared_block_is_laid_out_read_and_predicted(with_strength):
    data = make_game_matches(n_players=8, n_matches=60, n_tournaments=2, starters=4, random_state=0)
    table = check_match_table(data.X, data.catalogue)
    vocab = Vocabulary.from_table(table)
    codes = encode(table, vocab)
    layout = Layout(*vocab.sizes, 0, ModelOptions(synergy=True))
    assert layout.shapes["starter_strength"] == (vocab.sizes[1],)
    assert "starter_strength" not in Layout(*vocab.sizes, 0).shapes
    # Prediction reads it: with every other effect zero, P = expit(s[g] - s[t]).
    strength = np.array([1.5, -0.5, 0.0, 0.25])[: vocab.sizes[1]]
    theta = np.zeros((1, layout.size))
    at = layout.offsets["starter_strength"]
    theta[0, at : at + len(strength)] = strength
    clf = BayesianMatchupClassifier(synergy=True, catalogue=data.catalogue)
    clf.idata_ = fitting.from_effect_draws(theta, np.ones((1, len(layout.spreads))), layout)
    clf.vocabulary_, clf.layout_, clf._unseen_seed = vocab, layout, 0
    clf.classes_ = np.array([0, 1])
    want = expit(strength[codes.starter1] - strength[codes.starter2])
    np.testing.assert_allclose(clf.predict_proba(data.X)[:, 1], want, rtol=0, atol=1e-12)
    # The analyses read it too: a deck's matchup at equal skill.
    decks = list(clf.vocabulary_.decks[:3])
    starters = [list(vocab.starters).index(d.starter) for d in decks]
    p = analysis.matchup_draws(clf, decks)[0]
    s = strength[starters]
    np.testing.assert_allclose(p, expit(s[:, None] - s[None, :]), rtol=0, atol=1e-12)


def test_a_declared_block_is_sampled_and_checked(with_strength):
    data = make_game_matches(
        n_players=10, n_matches=150, n_tournaments=2, starters=4, random_state=1
    )
    clf = BayesianMatchupClassifier(
        synergy=True, method="advi", draws=50, chains=1, random_state=0, catalogue=data.catalogue
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        # 50 ADVI draws on 150 matches: whether mean-field shrinks a spread is not the point
        warnings.simplefilter("ignore", ApproximationWarning)
        clf.fit(data.X, data.y)
    post = posterior.group(clf.idata_, "posterior")
    assert post["starter_strength"].dims == ("chain", "draw", "starter1")
    assert list(post["starter_strength"].coords["starter1"].values) == list(
        clf.vocabulary_.starters
    )
    assert "starter_strength" in monitored_draws(clf.idata_)
    assert np.all(np.isfinite(clf.predict_proba(data.X)))
    # The report names it, in the game's words, from its declaration alone.
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from skcodex.report import FIGURES, analyse, describe_model, game_words, render_html

    own = f"a {game_words(clf)['starter_word']}'s own strength"
    assert describe_model(clf)["effects"][-1] == own
    figs = dict.fromkeys(FIGURES, Figure(figsize=(1, 1)))
    page = render_html(analyse(clf, data.X, data.y, nash_draws=5), figs=figs)
    methods = html.unescape(page.split('<section id="methods">')[1].split("</section>")[0])
    assert f"{own}." in " ".join(methods.split())


# -- the layout kept as it was sampled ----------------------------------------------------


def _drawn(data, layout, saved_layout):
    """A classifier made fitted from known draws of ``layout``, holding ``saved_layout``."""
    from skcodex.codex import CODEX

    rng = np.random.default_rng(3)
    clf = BayesianMatchupClassifier(draws=6, chains=2, time_varying=True)
    z = rng.standard_normal((12, layout.n_free))
    sd = np.exp(rng.normal(-1, 0.2, (12, len(layout.spreads))))
    clf.idata_ = fitting.from_effect_draws(layout.theta(z, sd), sd, layout, n_chains=2)
    clf.vocabulary_ = Vocabulary.from_table(check_match_table(data.X))
    clf.layout_, clf._unseen_seed, clf.classes_ = saved_layout, 11, np.array([0, 1])
    clf.catalogue_ = CODEX
    clf.feature_names_in_ = np.asarray(data.X.columns, dtype=object)
    clf.n_features_in_ = data.X.shape[1]
    clf.convergence_problems_ = []
    return clf


def test_a_file_with_the_forecast_layout_loads_as_sampled(tmp_path):
    """Files that kept the layout without the skill walk load with the walk put back."""
    from skcodex import load
    from skcodex.datasets import make_matches

    data = make_matches(n_players=8, n_matches=60, n_tournaments=3, random_state=1)
    vocab = Vocabulary.from_table(check_match_table(data.X))
    layout = Layout(*vocab.sizes, 3, ModelOptions(time_varying=True), 3)
    as_sampled = _drawn(data, layout, layout)
    older = _drawn(data, layout, layout.static())
    back = load(older.save(tmp_path / "older.skcodex"))
    assert back.layout_ == layout
    np.testing.assert_array_equal(back.predict_proba(data.X), as_sampled.predict_proba(data.X))
    again = load(as_sampled.save(tmp_path / "now.skcodex"))
    assert again.layout_ == layout
    np.testing.assert_array_equal(again.predict_proba(data.X), as_sampled.predict_proba(data.X))
