"""The report put together: every section's analysis run, its page rendered, its files written."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from skcodex import analysis
from skcodex._docstrings import shared_parameters
from skcodex._matchup.diagnostics import grouped_problems
from skcodex._pages.csv import spreadsheet_safe
from skcodex._pages.render import png, render_template, render_text
from skcodex._pages.text import Table
from skcodex.report._analyses import Analyses, Given, HeldOut, data_summary
from skcodex.report._model import describe_model, unrecorded_model
from skcodex.report._sections import SECTION_TABLE, section_headings

__all__ = ["analyse", "csv_tables", "figures", "page_tables", "render_html", "write_report"]


@shared_parameters
def analyse(
    clf: Any,
    X: pd.DataFrame,
    y: Any,
    *,
    held_out: HeldOut | None = None,
    decks: list | None = None,
    n_ranked_decks: int = 12,
    nash_draws: int | None = analysis.NASH_DRAWS,
    n_bins: int = 10,
    interval: float = analysis.INTERVAL,
    true_skills: pd.Series | None = None,
    source: str | None = None,
    advice: pd.DataFrame | None = None,
) -> Analyses:
    """Run every analysis the report shows.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        Fitted on ``X``, ``y``: the training data (for match counts and in-sample
        calibration).
    {match_table}
    {outcomes}
    held_out : HeldOut or None, default None
        Out-of-sample forecasts to score beside the in-sample ones.
    decks : list of str or Deck, or a keyword, or None, default None
        Decks of the matchup table and Nash weights: by default (or
        ``"most played"``) the decks played most in the fitted data;
        ``"monocolour"`` gives Codex's six monocolour decks (see
        `skcodex.analysis.matchup_draws`).
    n_ranked_decks : int, default 12
        How many of the most played decks to rank.
    nash_draws : int or None, default 500
        Posterior draws the Nash games are solved for.
    n_bins : int, default 10
        Forecast bins of the reliability tables.
    {interval}
    true_skills : pandas.Series or None, default None
        Known skills (synthetic data), drawn in the skill plot.
    source : str or None, default None
        Where the matches come from (a folder, a file, "synthetic ..."), named
        with every figure and headline.
    advice : pandas.DataFrame or None, default None
        What to bring for a player, as `skcodex.analysis.deck_advice` returned
        it: the report then has a section "What to bring" (id ``advice``) with
        its table; None, no such section.

    Returns
    -------
    Analyses
        Every section's results, with the data and the model in words.
    """
    catalogue = getattr(clf, "catalogue", None) or getattr(clf, "catalogue_", None)
    given = Given(
        clf, X, y, catalogue, held_out, decks, n_ranked_decks, nash_draws, n_bins, interval, advice
    )
    results: dict[str, Any] = {}
    for section in SECTION_TABLE:
        if section.analysis is not None:
            results.update(section.analysis(given))
    known = set(Analyses.__dataclass_fields__)
    return Analyses(
        data=data_summary(clf, X, source),
        held_out=held_out,
        interval=interval,
        true_skills=true_skills,
        model=describe_model(clf),
        **{name: value for name, value in results.items() if name in known},
        extra={name: value for name, value in results.items() if name not in known},
    )


def figures(result: Analyses) -> dict[str, Any]:
    """The report's figures by id (see `FIGURES`), as matplotlib Figures.

    Parameters
    ----------
    result : Analyses
        From `analyse`.

    Returns
    -------
    dict of str to matplotlib.figure.Figure
        Each figure of the report's sections, by its element id.
    """
    return {fig_id: make(result) for s in SECTION_TABLE for fig_id, make in s.figures.items()}


def page_tables(result: Analyses) -> dict[str, Table]:
    """Every table of the page by name, as text (each section's tables, in order)."""
    return {name: make(result) for s in SECTION_TABLE for name, make in s.tables.items()}


def csv_tables(result: Analyses) -> dict[str, pd.DataFrame]:
    """The analyses as the CSV files beside the page, by file name (unrounded)."""
    return {name: make(result) for s in SECTION_TABLE for name, make in s.csv.items()}


def render_html(result: Analyses, *, title: str | None = None, figs: dict | None = None) -> str:
    """The report as one self-contained HTML page.

    Parameters
    ----------
    result : Analyses
        From `analyse`.
    title : str or None, default None
        "Codex skills and matchups" for Codex data, "Skills and matchups" otherwise.
    figs : dict or None, default None
        Figures by id (see `FIGURES`); made from ``result`` by default.

    Returns
    -------
    str
        The page: sections with the ids of `SECTIONS`, figures as embedded
        PNG images with the ids of `FIGURES`, tables as HTML; no scripts and
        no external resources. Its account of the method follows the fitted
        options in ``result.model`` (see `describe_model`).
    """
    if title is None:
        codex = result.data.get("codex", True)
        title = "Codex skills and matchups" if codex else "Skills and matchups"
    figs = figures(result) if figs is None else figs
    images = {fig_id: png(fig) for fig_id, fig in figs.items()}
    return render_page(result, title, images, section_headings(result.data, result))


@shared_parameters
def write_report(
    clf: Any,
    X: pd.DataFrame,
    y: Any,
    out: str | os.PathLike,
    *,
    title: str | None = None,
    **kwargs: Any,
) -> Path:
    """Write ``report.html`` and the tables as CSV files into a folder.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        Fitted on ``X``, ``y``.
    {match_table}
    {outcomes}
    out : path
        The folder (created if needed).
    title : str or None, default None
        "Codex skills and matchups" for Codex data, "Skills and matchups" otherwise.
    **kwargs
        Passed to `analyse` (``held_out``, ``decks``, ``nash_draws``,
        ``true_skills``, ...).

    Returns
    -------
    pathlib.Path
        The report's path.
    """
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    result = analyse(clf, X, y, **kwargs)
    page = folder / "report.html"
    page.write_text(render_html(result, title=title), encoding="utf-8")
    for name, table in csv_tables(result).items():
        spreadsheet_safe(table).to_csv(folder / name, index=False)
    return page


def render_page(result: Analyses, title: str, images: dict[str, str], sections: dict) -> str:
    """The page's HTML: each section's template rendered, then the page around them."""
    context = _context(result, title, images, sections)
    by_id = {s.id: s for s in SECTION_TABLE}
    context["section_html"] = {
        section_id: _render_section(by_id[section_id], context) for section_id in sections
    }
    return render_template("report.html.j2", context)


def _render_section(section: Any, context: dict[str, Any]) -> Any:
    from markupsafe import Markup

    if section.template is not None:
        html = render_text(section.template, context)
    else:
        html = render_template(f"sections/{section.id}.html.j2", context)
    return Markup(html)  # rendered autoescaped: safe to place in the page as it is


def _context(result: Analyses, title: str, images: dict, sections: dict) -> dict[str, Any]:
    """What the templates read: the analyses' numbers and words, and the figures."""
    d, c, m = result.data, result.convergence, result.model
    data_line = f"{d['source']}, {d['matches']} matches"
    model_line = (
        f"{m.get('prior_text', 'prior not recorded')}; extensions: "
        f"{m.get('extensions', 'not recorded')}; {m.get('fitting', 'fitting not recorded')}"
    )
    held = result.held_out
    context = {
        "title": title,
        "sections": sections,
        "images": images,
        "d": d,
        "c": c,
        "m": {**unrecorded_model(), **m},
        **_game_context(d),
        "pct": f"{round(100 * result.interval)}%",
        "prior_draws": f"{analysis.PRIOR_DRAWS:,}",
        "data_line": data_line,
        "model_line": model_line,
        # the whole data-and-model line is given once, at the top; figures and tables
        # name their data in short
        "provenance": f"Data: {data_line}; model as described at the top of the page.",
        "stamp": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "brier": result.brier["brier"].to_dict(),
        "brier_n": {k: int(v) for k, v in result.brier["n"].items()},
        "tables": page_tables(result),
        **_problems(result),
        "held": None
        if held is None
        else {"label": held.label, "n": len(np.asarray(held.y)), "n_train": held.n_train},
    }
    for section in SECTION_TABLE:
        if section.words is not None:
            context.update(section.words(result))
    return context


def _game_context(d: dict[str, Any]) -> dict[str, Any]:
    """The game's nouns and sides as the templates name them."""
    return {
        "k": d.get("specs_per_deck", 3),
        "st": d.get("starter_word", "starter"),
        "sp": d.get("spec_word", "spec"),
        "dk": d.get("deck_word", "deck"),
        "p1": d.get("player1", "who moves first"),
        "turns": d.get("player1", "who moves first") == "who moves first",
        "codex": d.get("codex", True),
    }


def _problems(result: Analyses) -> dict[str, Any]:
    """The failed convergence checks, one by one and grouped, the held-out model's too."""
    c, held = result.convergence, result.held_out
    problems = list(c["problems"])
    deck = str(result.data.get("deck_word", "deck"))  # the matchup family in the game's word
    groups = grouped_problems(problems, deck)
    if held is not None:
        problems += [f"held-out model: {p}" for p in held.problems]
        groups += [f"held-out model, {g}" for g in grouped_problems(list(held.problems), deck)]
    forecasts = c.get("forecasts")
    return {
        "problems": problems,
        "problem_groups": groups,
        "forecast_check": None if forecasts is None else forecasts["sentence"],
    }
