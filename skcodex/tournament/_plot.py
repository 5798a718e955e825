"""The figure of a tournament forecast: each entrant's chances to go far, best first."""

from __future__ import annotations

from typing import Any

import numpy as np

from skcodex._docstrings import shared_parameters
from skcodex.plotting import _figure
from skcodex.tournament._forecast import TournamentForecast

__all__ = ["plot_tournament"]

# Lightest (reach the furthest-back milestone) to darkest (win), colour-blind safe.
_SHADES = ["#c6dbef", "#6baed6", "#2171b5", "#08306b"]


def _milestones(forecast: TournamentForecast) -> list[tuple[str, np.ndarray]]:
    """Nested chances, widest first: top 8, top 4, final (top 2), win; those the field allows."""
    n = len(forecast.entrants)
    steps = [(f"top {k}", forecast.p_top(k)) for k in (8, 4) if k < n]
    if n > 2:
        steps.append(("final / top 2", forecast.p_top(2)))
    steps.append(("win", forecast.p_win))
    return steps


@shared_parameters
def plot_tournament(
    forecast: TournamentForecast, *, top: int = 16, title: str | None = None, ax: Any = None
):
    """Each entrant's chance to win, reach the final and finish in the top four and eight.

    Bars are nested (a wider chance behind a narrower one), entrants sorted
    by their chance to win, the ``top`` most likely shown. Names are drawn
    exactly as typed (no TeX markup is read from them).

    Parameters
    ----------
    {forecast}
    top : int, default 16
        Entrants shown, the likeliest winners first.
    title : str or None, default None
        Drawn as typed above the figure; by default the format and the number
        of simulated tournaments.
    ax : matplotlib Axes or None, default None
        Where to draw; a new figure by default.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on.
    """
    if not isinstance(forecast, TournamentForecast):
        raise TypeError(
            f"plot_tournament needs a TournamentForecast, got {type(forecast).__name__}"
        )
    order = np.argsort(-forecast.p_win, kind="stable")[: max(1, int(top))]
    n = len(order)
    fig, ax = _figure(ax, (7.0, 1.6 + 0.32 * n))
    pos = np.arange(n)[::-1]
    steps = _milestones(forecast)
    for shade, (label, p) in zip(_SHADES[-len(steps) :], steps):
        ax.barh(pos, p[order], height=0.75, color=shade, label=label)
    widest = steps[0][1][order]
    for y, x, p in zip(pos, widest, forecast.p_win[order]):
        # written as the printed table and the report write it: a probability, 3 decimals
        ax.text(x + 0.01, y, f"P(win) {p:.3f}", va="center", fontsize=8, parse_math=False)
    names = [_short(str(forecast.entrants[k])) for k in order]
    ax.set_yticks(pos, names, fontsize=9, parse_math=False)
    ax.set_xlim(0.0, 1.15)
    ax.set_xticks(np.linspace(0.0, 1.0, 6))
    ax.set_xlabel("probability")
    from skcodex.tournament._formats import describe_stage

    stages = " + ".join(describe_stage(s) for s in forecast.format.stages)
    heading = title or f"{stages}: {forecast.n_simulations:,} simulated tournaments"
    ax.set_title(heading, fontsize=10, parse_math=False)
    ax.legend(
        loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=len(steps), fontsize=8, frameon=False
    )
    ax.grid(axis="x", alpha=0.3)
    return fig


#: The longest entrant name drawn whole; longer ones end in an ellipsis (the tables
#: keep them whole). Laying out a label of 200,000 characters took matplotlib 30 s.
MAX_LABEL = 40


def _short(name: str) -> str:
    return name if len(name) <= MAX_LABEL else name[: MAX_LABEL - 1] + "\u2026"
