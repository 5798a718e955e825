"""The tournament figure: chances drawn as computed, names drawn as typed."""

import io

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.figure import Figure

from skcodex.tournament import plot_tournament, simulate_tournament


def _forecast(names):
    rng = np.random.default_rng(0)
    skill = rng.normal(0, 1, len(names))
    p = 1 / (1 + np.exp(-(skill[:, None] - skill[None, :])))
    return simulate_tournament(
        "swiss:3+knockout:8", names, probabilities=p, n_simulations=2000, random_state=0
    )


def test_plot_draws_each_chance_and_the_names_as_typed():
    names = ["$x$_1", "a_b", "100%", "plain", *[f"p{k}" for k in range(8)]]
    forecast = _forecast(names)
    fig = plot_tournament(forecast, top=6)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    best = [names[k] for k in np.argsort(-forecast.p_win, kind="stable")[:6]]
    assert labels == best
    assert list(ax.get_yticks()) == sorted(ax.get_yticks(), reverse=True)  # best at the top
    assert all(not t.get_parse_math() for t in ax.get_yticklabels())
    # The widest bars are P(top 8), the narrowest P(win), for the entrants shown.
    widths = [[bar.get_width() for bar in container] for container in ax.containers]
    order = np.argsort(-forecast.p_win, kind="stable")[:6]
    assert np.allclose(widths[0], forecast.p_top(8)[order])
    assert np.allclose(widths[-1], forecast.p_win[order])
    # each chance to win is written as the printed table writes it
    notes = [t.get_text() for t in ax.texts]
    assert notes == [f"P(win) {p:.3f}" for p in forecast.p_win[order]]
    assert f"{forecast.table()['p_win'].iloc[0]:.3f}" in notes[0]
    fig.savefig(io.BytesIO(), format="png")


def test_plot_refuses_anything_but_a_forecast():
    with pytest.raises(TypeError, match="TournamentForecast"):
        plot_tournament({"p_win": [0.5, 0.5]})


def test_a_very_long_name_is_drawn_shortened():
    """A 200,000-character name is drawn as its first 39 characters and an ellipsis
    (matplotlib took 30 s to lay it out whole); the tables keep it whole."""
    import numpy as np

    from skcodex.tournament import simulate_tournament
    from skcodex.tournament._plot import plot_tournament

    names = ["x" * 200_000, "b", "c", "d"]
    fc = simulate_tournament(
        "knockout", names, probabilities=np.full((4, 4), 0.5), n_simulations=50
    )
    fig = plot_tournament(fc)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert max(len(label) for label in labels) == 40
    assert "x" * 39 + "\u2026" in labels
    assert names[0] in fc.table().index
