"""Figures of the analyses in `skcodex.analysis` (matplotlib; ``pip install skcodex[plot]``).

Each function takes the table an analysis returns (or a fitted
`BayesianMatchupClassifier`, from which the default analysis is computed) and
returns a `matplotlib.figure.Figure`. Figures are built without pyplot, so
they need no display and leave pyplot's global state alone; pass ``ax=`` to
draw into an existing figure instead. Save one with ``fig.savefig(path)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from skcodex import analysis
from skcodex._docstrings import shared_parameters

__all__ = [
    "plot_matchups",
    "plot_nash",
    "plot_reliability",
    "plot_skills",
    "plot_spreads",
]

#: Colours used throughout (colour-blind safe, from the Okabe-Ito palette).
COLOURS = {
    "player 1": "#0072B2",
    "player 2": "#D55E00",
    "both": "#009E73",
    "skill": "#0072B2",
    "deck": "#D55E00",
    "grey": "#555555",
}


def _new_figure(figsize: tuple[float, float]):
    """A constrained-layout figure not registered with pyplot."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("plots need matplotlib: pip install 'skcodex[plot]'") from None
    return Figure(figsize=figsize, layout="constrained")


def _figure(ax: Any, figsize: tuple[float, float]):
    """A new figure and axes, or the given axes and their figure."""
    if ax is not None:
        return ax.figure, ax
    fig = _new_figure(figsize)
    return fig, fig.add_subplot()


def _as_typed(text: Any) -> str:
    """Text from the data (a player, deck or tournament name), drawn exactly as typed.

    Matplotlib reads text between two ``$`` signs as maths (``Ca$h$`` would
    come out with an italic *h*; ``$\\fakecommand$`` fails to draw at all).
    Every ``$`` is escaped, so the name is shown as written, dollar signs and
    all, and never parsed as maths.
    """
    return str(text).replace("$", r"\$")


def _sides(words: Mapping | None) -> dict[str, str]:
    """How the figures name a deck and the two sides (see `skcodex.report.game_words`).

    Codex's words by default: decks, player 1 moving first. ``deck_word`` names a
    deck (``"race"``); ``player1`` describes player 1 (``"who moves first"``,
    ``"listed first"``, or None when no side moves first).
    """
    words = dict(words or {})
    deck = str(words.get("deck_word", "deck"))
    player1 = words.get("player1", "who moves first")
    if player1 == "who moves first":
        first, second = " (moves first)", " (moves second)"
    elif player1:
        first, second = f" ({player1})", ""
    else:
        first = second = ""
    return {"deck": deck, "first": first, "second": second, "turns": player1 == "who moves first"}


def _is_classifier(obj: Any) -> bool:
    return hasattr(obj, "idata_")


def _interval_label(table: pd.DataFrame) -> str:
    return f"{round(100 * table.attrs.get('interval', analysis.INTERVAL))}%"


def _density(values: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """A Gaussian kernel density estimate on a grid (a spike when the values are constant)."""
    from scipy.stats import gaussian_kde

    if len(values) < 2 or np.ptp(values) == 0:
        out = np.zeros_like(grid)
        out[np.abs(grid - values.mean()).argmin()] = 1.0 / (grid[1] - grid[0])
        return out
    return gaussian_kde(values)(grid)


@shared_parameters
def plot_skills(
    skills: Any,
    *,
    top: int | None = None,
    truth: Mapping | pd.Series | None = None,
    ax: Any = None,
):
    """Forest plot of player skills: posterior means with credible intervals.

    Parameters
    ----------
    skills : pandas.DataFrame or BayesianMatchupClassifier
        A `skcodex.analysis.skill_table`, or a fitted classifier.
    top : int or None, default None
        Show only the ``top`` players by mean skill.
    truth : mapping or Series, or None, default None
        Known skills (for synthetic data), drawn as crosses.
    {ax}

    Returns
    -------
    {figure}
    """
    table = analysis.skill_table(skills) if _is_classifier(skills) else skills
    table = table.sort_values("mean", ascending=False)
    if top is not None:
        table = table.head(top)
    n = len(table)
    fig, ax = _figure(ax, (7.0, 1.2 + 0.24 * n))
    pos = np.arange(n)[::-1]
    ax.hlines(pos, table["lower"], table["upper"], color=COLOURS["skill"], lw=1.6, alpha=0.8)
    ax.plot(
        table["mean"], pos, "o", color=COLOURS["skill"], ms=4.5, label="posterior mean, interval"
    )
    if truth is not None:
        true = pd.Series(truth).reindex(table.index)
        ax.plot(true, pos, "x", color=COLOURS["deck"], ms=6, mew=1.5, label="true skill")
        ax.legend(loc="lower right", fontsize=8, frameon=False)
    names = [_as_typed(p) for p in table.index]
    if "matches" in table.columns:
        names = [f"{name} ({m})" for name, m in zip(names, table["matches"])]
    ax.set_yticks(pos, names, fontsize=8 if n > 30 else 9)
    ax.set_ylim(-0.7, n - 0.3)
    ax.axvline(0.0, color=COLOURS["grey"], lw=0.8, ls=":")
    ax.set_xlabel("skill (log-odds; +0.69 doubles the odds of winning)")
    caption = f"{_interval_label(table)} intervals"
    if "matches" in table.columns:
        caption += "; matches played in brackets"
    ax.set_title(f"Player skills ({caption})", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    return fig


@shared_parameters
def plot_matchups(
    matchups: Any,
    *,
    intervals: bool = True,
    ax: Any = None,
    words: Mapping | None = None,
):
    """Heatmap of P(player 1 wins) for every deck pair, annotated.

    Rows are player 1's deck (who moves first), columns player 2's.

    Parameters
    ----------
    matchups : pandas.DataFrame or BayesianMatchupClassifier
        A `skcodex.analysis.matchup_table`, or a fitted classifier (the
        monocolour decks at equal skill).
    intervals : bool, default True
        Also write each cell's credible interval (when the table is small
        enough to read it).
    {ax}
    {words}

    Returns
    -------
    {figure}
    """
    side = _sides(words)
    table = analysis.matchup_table(matchups) if _is_classifier(matchups) else matchups
    rows = list(dict.fromkeys(table["deck1"]))
    cols = list(dict.fromkeys(table["deck2"]))
    mean = table.pivot(index="deck1", columns="deck2", values="mean").loc[rows, cols]
    lower = table.pivot(index="deck1", columns="deck2", values="lower").loc[rows, cols]
    upper = table.pivot(index="deck1", columns="deck2", values="upper").loc[rows, cols]
    n1, n2 = mean.shape
    cell = 1.0 if (intervals and max(n1, n2) <= 10) else 0.6
    fig, ax = _figure(ax, (2.2 + cell * n2 + 1.0, 1.6 + cell * n1))
    values = mean.to_numpy()
    image = ax.imshow(values, cmap="RdBu", vmin=0.0, vmax=1.0, aspect="auto")
    if max(n1, n2) <= 20:
        show_interval = intervals and max(n1, n2) <= 10
        for i in range(n1):
            for j in range(n2):
                v = values[i, j]
                colour = "white" if abs(v - 0.5) > 0.3 else "black"
                text = f"{v:.2f}"
                if show_interval:
                    text += f"\n{lower.iat[i, j]:.2f}–{upper.iat[i, j]:.2f}"
                ax.text(
                    j,
                    i,
                    text,
                    ha="center",
                    va="center",
                    color=colour,
                    fontsize=8 if show_interval else 7,
                )
    ax.set_xticks(range(n2), [_as_typed(c) for c in cols], rotation=90, fontsize=9)
    ax.set_yticks(range(n1), [_as_typed(r) for r in rows], fontsize=9)
    ax.set_xlabel(f"player 2's {side['deck']}{side['second']}")
    ax.set_ylabel(f"player 1's {side['deck']}{side['first']}")
    p1, p2 = table.attrs.get("player1"), table.attrs.get("player2")
    who = (
        "equally skilled players"
        if p1 is None
        else f"{_as_typed(p1)}{side['first']} v {_as_typed(p2)}"
    )
    detail = f"mean and {_interval_label(table)} interval" if intervals else "posterior mean"
    ax.set_title(f"P(player 1 wins), {who}\n{detail}", fontsize=10)
    fig.colorbar(image, ax=ax, shrink=0.8, label="P(player 1 wins)")
    return fig


@shared_parameters
def plot_nash(weights: Any, *, ax: Any = None, words: Mapping | None = None):
    """Nash weights of decks with credible intervals, one colour per role.

    Parameters
    ----------
    weights : pandas.DataFrame or BayesianMatchupClassifier
        A `skcodex.analysis.nash_weights` table, or a fitted classifier (the
        monocolour decks, 500 draws).
    {ax}
    {words}

    Returns
    -------
    matplotlib.figure.Figure
        The legend sits below the axis label (inside the axes when ``ax`` is
        given).
    """
    side = _sides(words)
    own_figure = ax is None
    table = analysis.nash_weights(weights) if _is_classifier(weights) else weights
    roles = list(dict.fromkeys(table["role"]))
    decks = list(dict.fromkeys(table["deck"]))
    n, k = len(decks), len(roles)
    fig, ax = _figure(ax, (7.0, 1.4 + 0.3 * n * k))
    height = 0.8 / k
    for r, role in enumerate(roles):
        part = table[table["role"] == role].set_index("deck").reindex(decks)
        pos = np.arange(n)[::-1] + (k - 1 - r - (k - 1) / 2) * height
        mean = part["mean"].to_numpy()
        err = np.vstack([mean - part["lower"], part["upper"] - mean]).clip(0.0)
        label = role if role == "both" else f"as {role}"
        if role == "both":
            either = "first or second" if side["turns"] else "either side"
            label = f"both roles (one {side['deck']}, {either} at random)"
        ax.barh(
            pos,
            mean,
            height=height * 0.9,
            color=COLOURS.get(role, COLOURS["grey"]),
            alpha=0.85,
            label=label,
        )
        ax.errorbar(mean, pos, xerr=err, fmt="none", ecolor="black", elinewidth=0.8, capsize=2)
    ax.set_yticks(np.arange(n)[::-1], [_as_typed(d) for d in decks], fontsize=9)
    ax.set_xlim(0.0, 1.02)
    ax.set_xlabel("Nash weight (mean over draws; bars show intervals)")
    value = table.attrs.get("value")
    title = f"Nash weights of {side['deck']}s ({_interval_label(table)} intervals)"
    if value:
        title += (
            f"\nvalue for player 1: {value['mean']:.2f} "
            f"[{value['lower']:.2f}, {value['upper']:.2f}]"
        )
    ax.set_title(title, fontsize=10)
    if own_figure:  # below the axis label, in space the layout keeps for it
        fig.legend(loc="outside lower center", ncol=2, fontsize=8, frameon=False)
    else:
        ax.legend(loc="lower right", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return fig


def _reliability_points(ax, below, label, table, colour, offset, total) -> None:
    """One sample's points and intervals on the diagram, and its forecasts' histogram below."""
    x, obs = table["mean_forecast"], table["observed"]
    err = np.vstack([obs - table["lower"], table["upper"] - obs]).clip(0.0)
    ax.errorbar(x + offset, obs, yerr=err, fmt="none", ecolor=colour, elinewidth=0.9, alpha=0.7)
    n = int(table["count"].sum())
    ax.scatter(
        x + offset,
        obs,
        s=20 + 180 * table["count"] / total,
        color=colour,
        alpha=0.85,
        edgecolor="white",
        label=f"{_as_typed(label)} ({n} matches)".strip() if label else f"{n} matches",
        zorder=3,
    )
    ax.plot(x + offset, obs, color=colour, lw=0.8, alpha=0.6)
    if below is not None and n > 0:
        lower, upper = table["bin_lower"], table["bin_upper"]
        share = table["count"] / n
        below.bar(lower, share, width=upper - lower, align="edge", color=colour, alpha=0.3)
        below.stairs(share, np.r_[lower.to_numpy(), upper.iloc[-1]], color=colour, lw=1.0)


def plot_reliability(tables: Any, *, ax: Any = None, histogram: bool = True):
    """Reliability diagram: observed frequency against mean forecast per bin.

    Parameters
    ----------
    tables : pandas.DataFrame or mapping of str to DataFrame
        One `skcodex.metrics.reliability_table`, or several by label (e.g.
        ``{"in-sample": ..., "held-out": ...}``).
    ax : matplotlib Axes or None, default None
        Draw the diagram into these axes (without the histogram).
    histogram : bool, default True
        On a new figure, a panel below the diagram with the share of each
        sample's forecasts in each bin (from the tables' counts): where the
        forecasts are, and so which points rest on many matches.

    Returns
    -------
    matplotlib.figure.Figure
        Points sized by the number of matches in the bin, with the binomial
        (Jeffreys) interval of the observed frequency; the diagonal is
        perfect calibration. A point whose interval misses the diagonal is
        miscalibrated by more than chance explains.

    Examples
    --------
    >>> import numpy as np
    >>> from skcodex.metrics import reliability_table
    >>> from skcodex.plotting import plot_reliability
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=500)
    >>> y = rng.uniform(size=500) < p
    >>> fig = plot_reliability({"held-out": reliability_table(y, p)})
    >>> [a.get_ylabel() for a in fig.axes]
    ['share of matches player 1 won', 'share of forecasts']
    """
    if isinstance(tables, pd.DataFrame):
        tables = {"": tables}
    below = None
    if ax is None and histogram:
        fig = _new_figure((5.5, 6.6))
        grid = fig.add_gridspec(2, 1, height_ratios=[4.2, 1.0])
        ax = fig.add_subplot(grid[0])
        below = fig.add_subplot(grid[1], sharex=ax)
    else:
        fig, ax = _figure(ax, (5.5, 5.2))
        ax.set_aspect("equal")
    ax.plot([0, 1], [0, 1], color=COLOURS["grey"], lw=1, ls="--", label="perfect calibration")
    palette = [COLOURS["player 1"], COLOURS["player 2"], COLOURS["both"], "#CC79A7"]
    total = max(1.0, max(float(t["count"].max()) for t in tables.values() if len(t)))
    widths = {t.attrs.get("interval") for t in tables.values()}
    for i, (label, table) in enumerate(tables.items()):
        offset = (i - (len(tables) - 1) / 2) * 0.006
        _reliability_points(ax, below, label, table, palette[i % len(palette)], offset, total)
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("forecast P(player 1 wins), bin mean")
    ax.set_ylabel("share of matches player 1 won")
    bars = ""
    if len(widths) == 1 and None not in widths:
        bars = f"; lines: {round(100 * widths.pop())}% interval"
    ax.set_title(f"Reliability (point size: matches in the bin{bars})", fontsize=10)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    ax.grid(alpha=0.3)
    if below is not None:
        ax.tick_params(labelbottom=False)
        ax.set_xlabel("")
        below.set_xlim(0, 1)
        below.set_ylim(bottom=0)
        below.set_xlabel("forecast P(player 1 wins)")
        below.set_ylabel("share of forecasts")
        below.grid(alpha=0.3)
    return fig


@shared_parameters
def plot_spreads(draws: Any, *, ax: Any = None, words: Mapping | None = None):
    """Posterior of the skill spread against the deck-matchup spread.

    Left: the spread of the skill part of a match's log-odds
    (``sqrt(2) sd_player``) and of the deck part (``sd_deck``); right: the
    skill share of the log-odds variance, with P(skill matters more).

    Parameters
    ----------
    draws : pandas.DataFrame or BayesianMatchupClassifier
        `skcodex.analysis.spread_comparison_draws`, or a fitted classifier.
    ax : sequence of two matplotlib Axes, or None, default None
        Where to draw the two panels; a new figure by default.
    {words}

    Returns
    -------
    {figure}
    """
    deck = _sides(words)["deck"]
    table = analysis.spread_comparison_draws(draws) if _is_classifier(draws) else draws
    if ax is None:
        fig = _new_figure((9.5, 3.6))
        left, right = fig.subplots(1, 2, width_ratios=[1.4, 1])
    else:
        left, right = ax
        fig = left.figure
    columns = ["sd_skill_difference", "sd_deck", "sd_player"]
    top = float(np.quantile(table[columns].to_numpy(), 0.999))
    grid = np.linspace(0.0, top * 1.1, 300)
    for column, label, colour, style in (
        ("sd_skill_difference", "skill difference, √2·sd_player", COLOURS["skill"], "-"),
        ("sd_player", "one player's skill, sd_player", COLOURS["skill"], ":"),
        ("sd_deck", f"{deck} matchup, sd_deck", COLOURS["deck"], "-"),
    ):
        density = _density(table[column].to_numpy(), grid)
        left.plot(grid, density, color=colour, ls=style, lw=1.8, label=label)
        if style == "-":
            left.fill_between(grid, density, color=colour, alpha=0.15)
    left.set_xlim(0, grid[-1])
    left.set_ylim(bottom=0)
    left.set_xlabel("spread of the log-odds (sd)")
    left.set_ylabel("posterior density")
    left.set_title("Spreads: who plays against what they play", fontsize=10)
    left.legend(fontsize=8, frameon=False)
    share = table["skill_share"].to_numpy()
    right.hist(share, bins=np.linspace(0, 1, 41), color=COLOURS["both"], alpha=0.8)
    right.axvline(0.5, color="black", lw=1, ls="--")
    p = float(np.mean(share > 0.5))
    right.text(
        0.03,
        0.95,
        f"P(skill matters more)\n= P(share > 1/2) = {p:.2f}",
        transform=right.transAxes,
        ha="left",
        va="top",
        fontsize=9,
        bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8},
    )
    right.set_xlim(0, 1)
    right.set_xlabel("skill share of the log-odds variance")
    right.set_ylabel("posterior draws")
    right.set_title("Skill share: 2·sd_player² / (2·sd_player² + sd_deck²)", fontsize=10)
    return fig
