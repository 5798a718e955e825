"""A self-contained HTML report of a fitted model, and CSV files of its tables.

`analyse` runs every analysis of `skcodex.analysis` on a fitted
`BayesianMatchupClassifier` and its training data; `render_html` turns the
result into one HTML page (figures embedded as PNG, no scripts, no external
files) that a player can read; `write_report` does both and also writes each
table as CSV. The ``skcodex fit`` and ``skcodex demo`` commands call
`write_report`.

The page is rendered from Jinja2 templates shipped with the package (HTML
autoescaped); its prose follows the fitted model's options (`describe_model`).
Its sections are declared once, one record each.

Import rule (checked by the tests):
May import: skcodex, skcodex._docstrings, skcodex._pages, skcodex.analysis, skcodex.metrics, skcodex.plotting, skcodex.data, skcodex._compat.posterior, skcodex._matchup.diagnostics, skcodex._matchup.sampling, skcodex._matchup.part_choice
"""  # noqa: E501

from skcodex._pages.csv import spreadsheet_safe
from skcodex._pages.words import game_words
from skcodex.report._advice import render_advice_html
from skcodex.report._analyses import Analyses, HeldOut
from skcodex.report._model import describe_model
from skcodex.report._page import analyse, figures, render_html, write_report
from skcodex.report._sections import CSV_FILES, FIGURES, SECTIONS, section_headings

__all__ = [
    "CSV_FILES",
    "FIGURES",
    "SECTIONS",
    "Analyses",
    "HeldOut",
    "analyse",
    "describe_model",
    "figures",
    "game_words",
    "render_advice_html",
    "render_html",
    "section_headings",
    "spreadsheet_safe",
    "write_report",
]
