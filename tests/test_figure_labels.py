"""The report's figures keep every label apart, for 2 to 20 decks (or races, characters).

Each figure is drawn from made-up analysis tables of n components with long
names; after drawing, the window extent of every piece of text drawn (tick
labels, axis labels, titles, legends, annotations) must lie inside the figure
and intersect no other.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from matplotlib.backends.backend_agg import FigureCanvasAgg

from skcodex import plotting

NAMES = ["Protoss", "Terran", "Zerg", "[Anarchy]/Blood/Strength", "Random", "Grandmaster Flash"]
ROLES = ["player 1", "player 2", "both"]
WORDS = [
    {"deck_word": "race", "player1": None},  # a symmetric fit of a game of races
    {"deck_word": "deck", "player1": "who moves first"},  # Codex
    {"deck_word": "character", "player1": "listed first"},
]


def _names(n: int) -> list[str]:
    return [f"{NAMES[i % len(NAMES)]} {i}" if i >= len(NAMES) else NAMES[i] for i in range(n)]


def _matchups(n: int, rng) -> pd.DataFrame:
    decks = _names(n)
    rows = []
    for a, b in itertools.product(decks, decks):
        m = rng.uniform(0.1, 0.9)
        rows.append((a, b, m, max(0.0, m - 0.2), min(1.0, m + 0.2), rng.uniform()))
    table = pd.DataFrame(rows, columns=["deck1", "deck2", "mean", "lower", "upper", "p_favoured"])
    table.attrs["interval"] = 0.9
    return table


def _nash(n: int, rng, roles) -> pd.DataFrame:
    rows = []
    for role in roles:
        w = rng.dirichlet(np.ones(n))
        for deck, m in zip(_names(n), w):
            rows.append((deck, role, m, m * 0.5, min(1.0, m * 1.5), rng.uniform()))
    table = pd.DataFrame(rows, columns=["deck", "role", "mean", "lower", "upper", "p_played"])
    table.attrs.update(interval=0.9, value={"mean": 0.52, "lower": 0.47, "upper": 0.57})
    return table


def drawn_text_boxes(fig) -> list[tuple[str, object]]:
    """The text and window extent of every non-empty piece of text the figure draws."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    texts = []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis._update_ticks():  # the ticks inside the view, as drawn
                texts += [tick.label1, tick.label2]
            texts += [axis.label, axis.offsetText]
        texts += [ax.title, ax._left_title, ax._right_title, *ax.texts]
        legend = ax.get_legend()
        if legend is not None:
            texts += [*legend.get_texts(), legend.get_title()]
    for legend in fig.legends:
        texts += [*legend.get_texts(), legend.get_title()]
    if fig._suptitle is not None:
        texts.append(fig._suptitle)
    shown = [t for t in texts if t.get_visible() and t.get_text().strip()]
    return [(t.get_text(), t.get_window_extent(renderer)) for t in shown]


def assert_labels_apart(fig, what: str) -> None:
    boxes = drawn_text_boxes(fig)
    assert boxes, what
    width, height = fig.bbox.width, fig.bbox.height
    for text, box in boxes:
        inside = box.x0 >= -1 and box.y0 >= -1 and box.x1 <= width + 1 and box.y1 <= height + 1
        assert inside, f"{what}: {text!r} is cut off at the figure's edge ({box})"
    tol = 0.5  # pixels: boxes that only touch do not overlap
    for (ta, a), (tb, b) in itertools.combinations(boxes, 2):
        apart = a.x1 <= b.x0 + tol or b.x1 <= a.x0 + tol or a.y1 <= b.y0 + tol or b.y1 <= a.y0 + tol
        assert apart, f"{what}: {ta!r} overlaps {tb!r}"


@pytest.mark.parametrize("n", [2, 3, 5, 9, 12, 20])
@pytest.mark.parametrize("words", WORDS, ids=lambda w: w["deck_word"])
def test_matchup_and_nash_labels_do_not_overlap(n, words):
    rng = np.random.default_rng(n)
    assert_labels_apart(plotting.plot_matchups(_matchups(n, rng), words=words), f"matchups {n}")
    roles = ["both"] if words["player1"] is None else ROLES
    fig = plotting.plot_nash(_nash(n, rng, roles), words=words)
    assert_labels_apart(fig, f"Nash {n}")


def test_nash_legend_sits_below_the_axis_label_with_three_races():
    """The case seen on a real game: the axis label was drawn over the legend."""
    fig = plotting.plot_nash(_nash(3, np.random.default_rng(0), ROLES), words=WORDS[2])
    boxes = dict(drawn_text_boxes(fig))
    label = boxes[fig.axes[0].get_xlabel()]
    legend = [boxes[t.get_text()] for t in fig.legends[0].get_texts()]
    assert all(box.y1 <= label.y0 for box in legend)


def test_the_other_figures_keep_their_labels_apart():
    rng = np.random.default_rng(1)
    n = 60
    mean = np.sort(rng.normal(size=n))[::-1]
    skills = pd.DataFrame(
        {
            "mean": mean,
            "lower": mean - 0.5,
            "upper": mean + 0.5,
            "matches": rng.integers(1, 300, n),
        },
        index=[f"a player with a long name {i}" for i in range(n)],
    )
    assert_labels_apart(plotting.plot_skills(skills), "skills")
    draws = pd.DataFrame(
        {
            "sd_player": rng.lognormal(-0.3, 0.1, 400),
            "sd_deck": rng.lognormal(-1.0, 0.2, 400),
        }
    )
    draws["sd_skill_difference"] = np.sqrt(2) * draws["sd_player"]
    draws["skill_share"] = draws["sd_skill_difference"] ** 2 / (
        draws["sd_skill_difference"] ** 2 + draws["sd_deck"] ** 2
    )
    assert_labels_apart(plotting.plot_spreads(draws, words=WORDS[0]), "spreads")
    bins = np.linspace(0, 1, 11)
    table = pd.DataFrame(
        {
            "bin_lower": bins[:-1],
            "bin_upper": bins[1:],
            "count": rng.integers(5, 50, 10).astype(float),
            "mean_forecast": bins[:-1] + 0.05,
            "observed": np.clip(bins[:-1] + 0.05 + rng.normal(0, 0.05, 10), 0, 1),
        }
    )
    table["lower"], table["upper"] = table["observed"] - 0.1, table["observed"] + 0.1
    fig = plotting.plot_reliability({"in-sample": table, "held-out": table})
    assert_labels_apart(fig, "reliability")
