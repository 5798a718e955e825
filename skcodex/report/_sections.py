"""The report's sections, one record each: what the report shows is read from this table.

A section is a `Section`: its element id (and template, ``sections/<id>.html.j2``
among the page templates), its heading, the analysis it runs, the tables the page
prints, the CSV files written beside it, its figures, and the words its template
reads. `analyse`, the page, `figures` and `write_report` all read `SECTION_TABLE`;
a new output of the report is one record appended here, one analysis function
and one template (``sections/<id>.html.j2``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from skcodex.report import _analyses as run
from skcodex.report import _tables as tables

__all__ = [
    "CSV_FILES",
    "FIGURES",
    "SECTIONS",
    "SECTION_TABLE",
    "Section",
    "csv_files",
    "section_headings",
]


def _frame(name: str, index: bool = False) -> Callable[[Any], Any]:
    """A CSV maker that writes one result of the analyses (with its index as a column)."""

    def make(result: Any) -> Any:
        frame = getattr(result, name)
        return frame.reset_index() if index else frame

    return make


@dataclass(frozen=True)
class Section:
    """One section of the report.

    Parameters
    ----------
    id : str
        The section's element id; its template is ``sections/<id>.html.j2``.
    heading : str
        Its heading; ``{deck}`` and ``{Deck}`` become the game's noun for a deck.
    analysis : callable or None
        ``analysis(given) -> dict`` of named results (`Given` to `Analyses`);
        None when the section shows results other sections compute.
    tables : mapping of str to callable
        The page's tables by name, each ``make(result) -> Table``.
    csv : mapping of str to callable
        The CSV files written beside the page, each ``make(result) -> DataFrame``.
    figures : mapping of str to callable
        Figures by element id, each ``make(result) -> matplotlib Figure``.
    words : callable or None
        ``words(result) -> dict``: what the template reads besides the tables.
    template : str or None
        The template as text, for a section whose template is not a file of
        the page templates.
    shown : callable or None
        ``shown(result) -> bool`` for a section the page holds only when asked
        for (the advice for a player); None: every report holds it.
    """

    id: str
    heading: str
    analysis: Callable[[Any], dict[str, Any]] | None = None
    tables: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict)
    csv: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict)
    figures: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict)
    words: Callable[[Any], dict[str, Any]] | None = None
    template: str | None = None
    shown: Callable[[Any], bool] | None = None


def _skills_figure(result: Any) -> Any:
    from skcodex import plotting

    top = None if len(result.skills) <= tables.TOP_PLAYERS else tables.TOP_PLAYERS
    return plotting.plot_skills(result.skills, top=top, truth=result.true_skills)


def _worded(name: str, attribute: str) -> Callable[[Any], Any]:
    """A figure maker for a plot of one result drawn in the game's words."""

    def make(result: Any) -> Any:
        from skcodex import plotting

        return getattr(plotting, name)(getattr(result, attribute), words=result.data)

    return make


def _reliability_figure(result: Any) -> Any:
    from skcodex import plotting

    return plotting.plot_reliability(result.reliability)


#: The report's sections, in the page's order.
SECTION_TABLE: list[Section] = [
    Section(
        "methods",
        "How this works",
        run.model_parts,
        tables={
            "extensions": tables.extensions_table,
            "part_evidence": tables.part_evidence_table,
            "half_life_evidence": tables.half_life_evidence_table,
        },
        csv={
            "extensions.csv": tables.extensions_csv,
            "part_evidence.csv": tables.part_evidence_csv,
            "half_life_evidence.csv": tables.half_life_evidence_csv,
        },
    ),
    Section(
        "convergence",
        "Is the sample trustworthy?",
        run.convergence,
        tables={"convergence": tables.convergence_table},
    ),
    Section(
        "skills",
        "Player skills",
        run.skills,
        tables={"skills": tables.skills_table},
        csv={"skills.csv": _frame("skills", index=True)},
        figures={"fig-skills": _skills_figure},
        words=tables.skills_words,
    ),
    Section(
        "matchups",
        "{Deck} matchups",
        run.matchups,
        tables={"matchups": tables.matchups_table},
        csv={"matchups.csv": _frame("matchups")},
        figures={"fig-matchups": _worded("plot_matchups", "matchups")},
    ),
    Section(
        "decks",
        "{Deck} rankings",
        run.deck_ranking,
        tables={"decks": tables.decks_table},
        csv={"deck_ranking.csv": _frame("deck_ranking", index=True)},
        words=tables.decks_words,
    ),
    Section(
        "nash",
        "Nash weights",
        run.nash,
        tables={"nash": tables.nash_table},
        csv={"nash.csv": tables.nash_csv},
        figures={"fig-nash": _worded("plot_nash", "nash")},
        words=tables.nash_words,
    ),
    Section(
        "skill-versus-decks",
        "Skill versus {deck}s",
        run.spreads,
        tables={"spreads": tables.spreads_table},
        csv={"skill_versus_decks.csv": tables.spreads_csv},
        figures={"fig-spreads": _worded("plot_spreads", "spread_draws")},
        words=tables.spreads_words,
    ),
    Section(
        "calibration",
        "Calibration",
        run.calibration,
        tables={"brier": tables.brier_table},
        csv={
            "calibration.csv": tables.calibration_csv,
            "brier.csv": _frame("brier", index=True),
        },
        figures={"fig-reliability": _reliability_figure},
        words=tables.calibration_section_words,
    ),
    Section(
        "advice",
        "What to bring",
        run.advice,
        words=tables.advice_section_words,
        shown=lambda result: "advice" in result.extra,
    ),
]


def section_headings(words: dict[str, Any], result: Any = None) -> dict[str, str]:
    """The report's section headings by id, in the game's noun for a deck (``"Race matchups"``).

    Parameters
    ----------
    words : dict
        The game's words (`game_words`); its ``deck_word`` names a deck.
    result : Analyses or None, default None
        The analyses of a page: a section shown only when asked for (``shown``)
        is listed when they hold it; None lists every section every page holds.

    Returns
    -------
    dict of str to str
        Each section's id and heading, in the page's order.
    """
    deck = str(words.get("deck_word", "deck"))
    return {
        s.id: s.heading.format(deck=deck, Deck=deck.capitalize())
        for s in SECTION_TABLE
        if s.shown is None or (result is not None and s.shown(result))
    }


#: Section ids of the page, in order, with their headings.
SECTIONS = section_headings({})

#: Figure ids of the page, each in the section it illustrates.
FIGURES = {fig_id: s.id for s in SECTION_TABLE for fig_id in s.figures}


def csv_files() -> tuple[str, ...]:
    """The CSV files `write_report` writes beside the page, every section's."""
    return tuple(name for s in SECTION_TABLE for name in s.csv)


#: The CSV files `write_report` writes beside the page (the built-in sections').
CSV_FILES = csv_files()
