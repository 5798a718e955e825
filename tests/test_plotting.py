"""Figures of the analyses: each returns a readable matplotlib Figure.

The figures are drawn from a posterior stand-in (effects drawn from the prior for
the vocabulary of a small synthetic tournament), so no sampling is needed here.
"""

import io

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from matplotlib.figure import Figure

from skcodex import BayesianMatchupClassifier
from skcodex._matchup import fitting
from skcodex._matchup.graph import Layout
from skcodex.analysis import (
    matchup_table,
    nash_weights,
    reliability_table,
    skill_table,
    spread_comparison_draws,
)
from skcodex.codex import legal_decks
from skcodex.data import Vocabulary, check_match_table
from skcodex.plotting import (
    plot_matchups,
    plot_nash,
    plot_reliability,
    plot_skills,
    plot_spreads,
)


@pytest.fixture(scope="module")
def prior_model(small_matches):
    """A classifier whose 'posterior' is 200 draws from the prior: enough to draw with."""
    rng = np.random.default_rng(0)
    vocab = Vocabulary.from_table(check_match_table(small_matches.X))
    layout = Layout(*vocab.sizes, vocab.specs_per_deck)
    sd = np.exp(rng.normal(0.0, 0.5, (200, 4)))
    clf = BayesianMatchupClassifier()
    theta = rng.standard_normal((200, layout.size)) * sd[:, layout.group]
    clf.idata_ = fitting.from_effect_draws(theta, sd, layout)
    clf.vocabulary_, clf.layout_, clf._unseen_seed = vocab, layout, 1
    clf.classes_ = np.array([0, 1])
    return clf


def _png(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=40)
    return buffer.getvalue()


def _texts(ax) -> list[str]:
    return [t.get_text() for t in ax.texts]


def test_skill_forest_plot(prior_model, small_matches):
    table = skill_table(prior_model, small_matches.X)
    fig = plot_skills(table, truth=small_matches.params["skill"])
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == len(table)
    best = table.index[0]
    assert labels[0] == f"{best} ({table.loc[best, 'matches']})"  # best at the top
    assert "skill" in ax.get_xlabel()
    assert _png(fig).startswith(b"\x89PNG")


def test_skill_plot_from_a_classifier_and_top(prior_model):
    fig = plot_skills(prior_model, top=5)
    assert len(fig.axes[0].get_yticklabels()) == 5


def test_matchup_heatmap_is_annotated(prior_model):
    table = matchup_table(prior_model, "monocolour")
    fig = plot_matchups(table)
    ax = fig.axes[0]
    texts = _texts(ax)
    assert len(texts) == 36
    first = table.iloc[0]
    assert texts[0] == f"{first['mean']:.2f}\n{first['lower']:.2f}–{first['upper']:.2f}"
    assert [t.get_text() for t in ax.get_yticklabels()] == list(dict.fromkeys(table["deck1"]))
    assert "equally skilled" in ax.get_title()
    assert len(fig.axes) == 2  # the heatmap and its colour bar
    _png(fig)


def test_matchup_heatmap_scales_down_annotations(prior_model):
    decks = legal_decks("multicolour")[:14]
    fig = plot_matchups(matchup_table(prior_model, decks, n_draws=20))
    assert all("\n" not in t for t in _texts(fig.axes[0]))  # means only
    decks = legal_decks("multicolour")[:25]
    fig = plot_matchups(matchup_table(prior_model, decks, n_draws=20))
    assert _texts(fig.axes[0]) == []  # too many cells to write in


def test_matchup_heatmap_for_named_players(prior_model):
    a, b = prior_model.vocabulary_.players[:2]
    fig = plot_matchups(matchup_table(prior_model, ["MonoRed", "MonoBlue"], player1=a, player2=b))
    assert f"{a} (moves first) v {b}" in fig.axes[0].get_title()


def test_nash_plot_has_every_role_and_deck(prior_model):
    table = nash_weights(prior_model, "monocolour", n_draws=20)
    fig = plot_nash(table)
    ax = fig.axes[0]
    legend = [t.get_text() for t in fig.legends[0].get_texts()]  # below the axis label
    assert len(legend) == 3 and legend[0] == "as player 1"
    assert legend[2] == "both roles (one deck, first or second at random)"
    assert len(ax.patches) == 18  # 6 decks x 3 roles
    assert "value for player 1" in ax.get_title()
    _png(fig)


def test_reliability_diagram_with_two_samples():
    rng = np.random.default_rng(0)
    p = rng.uniform(size=500)
    y = (rng.uniform(size=500) < p).astype(int)
    tables = {
        "in-sample": reliability_table(y[:400], p[:400]),
        "held-out": reliability_table(y[400:], p[400:]),
    }
    fig = plot_reliability(tables)
    ax = fig.axes[0]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["perfect calibration", "in-sample (400 matches)", "held-out (100 matches)"]
    assert ax.get_xlim() == (0.0, 1.0)
    single = plot_reliability(tables["in-sample"])
    assert isinstance(single, Figure)
    _png(fig)


def test_spread_plot(prior_model):
    fig = plot_spreads(prior_model)
    left, right = fig.axes
    assert len(left.get_lines()) == 3
    p = np.mean(spread_comparison_draws(prior_model)["skill_share"] > 0.5)
    assert f"{p:.2f}" in _texts(right)[0]
    _png(fig)


def test_plots_draw_into_given_axes(prior_model):
    fig = Figure()
    axes = fig.subplots(1, 3)
    assert plot_skills(prior_model, ax=axes[0]) is fig
    assert plot_matchups(prior_model, ax=axes[1]) is fig
    table = pd.DataFrame(
        {
            "bin_lower": [0.0],
            "bin_upper": [1.0],
            "count": [3.0],
            "mean_forecast": [0.5],
            "observed": [2 / 3],
            "lower": [0.2],
            "upper": [0.9],
        }
    )
    assert plot_reliability(table, ax=axes[2]) is fig
    other = Figure()
    assert plot_spreads(prior_model, ax=other.subplots(1, 2)) is other
