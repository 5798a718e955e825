"""A tournament forecast as an HTML page and CSV tables.

`tournament_tables` gives the forecast's tables unrounded (the CSV files);
`render_tournament_html` the page: the format and entrants, the results the
forecast is conditioned on, each entrant's chances with their Monte Carlo
standard errors, the likely finals with their head-to-head odds, and the
figure of `plot_tournament`; `write_tournament_report` writes both into a
folder. ``skcodex simulate --out DIR`` calls it.
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from skcodex._docstrings import shared_parameters
from skcodex._pages.csv import spreadsheet_safe
from skcodex._pages.render import png, render_template
from skcodex._pages.text import Table, fmt
from skcodex._pages.words import game_words
from skcodex.tournament._forecast import TournamentForecast
from skcodex.tournament._formats import FIRST_MOVE_RULES

__all__ = [
    "TOURNAMENT_CSV_FILES",
    "render_tournament_html",
    "tournament_tables",
    "tournament_words",
    "write_tournament_report",
]

#: The CSV files `write_tournament_report` writes beside the page.
TOURNAMENT_CSV_FILES = (
    "tournament_forecast.csv",
    "tournament_finals.csv",
    "tournament_entrants.csv",
    "tournament_results.csv",
)

#: What the page says of a game when no fitted model tells it (a rating system, a matrix).
_PLAIN_WORDS = {"deck_word": "deck", "player1": "who moves first", "symmetric": False}


def tournament_words(estimator: Any = None) -> dict[str, Any]:
    """How the page names a deck and player 1, from the fitted model when there is one.

    Parameters
    ----------
    estimator : fitted BayesianMatchupClassifier, optional
        Its `skcodex.report.game_words`; without one (or for a rating system)
        decks are "decks" and player 1 is the player who moves first.

    Returns
    -------
    dict
        ``deck_word``, ``player1`` (``"who moves first"``, ``"listed first"``,
        or None in a game where no side moves first) and ``symmetric``.
    """
    if estimator is None or getattr(estimator, "layout_", None) is None:
        return dict(_PLAIN_WORDS)
    words = game_words(estimator)
    return {key: words[key] for key in _PLAIN_WORDS}


def _check_forecast(forecast: Any) -> TournamentForecast:
    if not isinstance(forecast, TournamentForecast):
        raise TypeError(
            "a tournament report needs the TournamentForecast of simulate_tournament, got "
            f"{type(forecast).__name__}"
        )
    return forecast


def _deck_text(decks: list) -> str:
    return "; ".join(str(d) for d in decks)


# -- the tables, unrounded ----------------------------------------------------------------


def _finals(forecast: TournamentForecast) -> pd.DataFrame:
    finals = forecast.likely_final()
    p, a, n = finals["p_final"], finals["p_a_wins"], finals["n_played"]
    n_sims = forecast.n_simulations
    return finals.assign(
        p_b_wins=1 - a,
        p_final_se=np.sqrt(p * (1 - p) / n_sims),
        p_a_wins_se=np.sqrt(a * (1 - a) / n.clip(lower=1)),
    )


@shared_parameters
def tournament_tables(forecast: TournamentForecast) -> dict[str, pd.DataFrame]:
    """The forecast's tables, unrounded, by CSV file name (see `TOURNAMENT_CSV_FILES`).

    Parameters
    ----------
    {forecast}

    Returns
    -------
    dict of str to pandas.DataFrame
        ``tournament_forecast.csv``: `TournamentForecast.table` with each
        figure's Monte Carlo standard error beside it (``<column>_se``);
        ``tournament_finals.csv``: `TournamentForecast.likely_final` with
        ``p_b_wins`` and the standard errors of ``p_final`` and ``p_a_wins``;
        ``tournament_entrants.csv``: seed, player and decks (``;`` between
        several); ``tournament_results.csv``: the results the forecast is
        conditioned on (no rows when none).
    """
    forecast = _check_forecast(forecast)
    table, errors = forecast.table(), forecast.standard_errors()
    columns = {}
    for column in table.columns:
        if column == "p_win_se":
            continue
        columns[column] = table[column]
        columns[f"{column}_se"] = table["p_win_se"] if column == "p_win" else errors[column]
    decks = forecast.decks or [[] for _ in forecast.entrants]
    entrants = pd.DataFrame(
        {
            "seed": np.arange(1, len(forecast.entrants) + 1),
            "player": pd.Series(forecast.entrants, dtype=object),
            "deck": [_deck_text(d) for d in decks],
        }
    )
    results = forecast.results
    if results is None:
        results = pd.DataFrame(columns=["round", "player1", "player2", "winner"])
    return {
        "tournament_forecast.csv": pd.DataFrame(columns).reset_index(),
        "tournament_finals.csv": _finals(forecast),
        "tournament_entrants.csv": entrants,
        "tournament_results.csv": results.copy(),
    }


# -- the page -------------------------------------------------------------------------------


def _heading(column: str) -> str:
    """What the page calls a column of `TournamentForecast.table`."""
    fixed = {
        "p_win": "P(win) ± s.e.",
        "expected_wins": "expected wins",
        "expected_byes": "expected byes",
        "expected_place": "expected place",
    }
    if column in fixed:
        return fixed[column]
    name, stage = column[2:], ""
    numbered = re.fullmatch(r"(.+)_(\d+)", name)
    if numbered:
        name, stage = numbered.group(1), f", knockout {numbered.group(2)}"
    top = re.fullmatch(r"top(\d+)", name)
    if top:
        return f"P(top {top.group(1)})"
    cut = re.fullmatch(r"top(\d+)_cut", name)
    if cut:
        return f"P(in the top-{cut.group(1)} knockout{stage})"
    return f"P(reach the {name}{stage})"


def _forecast_table(forecast: TournamentForecast) -> Table:
    table = forecast.table()
    shown = [c for c in table.columns if c != "p_win_se"]
    if not table["expected_byes"].any():
        shown.remove("expected_byes")
    columns: dict[str, Any] = {
        "rank": range(1, len(table) + 1),
        "player": [str(p) for p in table.index],
    }
    for column in shown:
        if column == "p_win":
            cells = [
                f"{p:.3f}\u00a0±\u00a0{se:.3f}" for p, se in zip(table["p_win"], table["p_win_se"])
            ]
        elif column.startswith("p_"):
            cells = [fmt(v, 3) for v in table[column]]
        else:
            cells = [fmt(v, 2) for v in table[column]]
        columns[_heading(column)] = cells
    return Table.from_columns("table-tournament", columns)


def _finals_table(forecast: TournamentForecast) -> Table:
    f = _finals(forecast)
    columns = {
        "final": [f"{a} v {b}" for a, b in zip(f["player_a"], f["player_b"])],
        "P(this final)": [fmt(v, 3) for v in f["p_final"]],
        "P(first named wins it) ± s.e.": [
            f"{p:.3f}\u00a0±\u00a0{se:.3f}" for p, se in zip(f["p_a_wins"], f["p_a_wins_se"])
        ],
        "finals simulated": f["n_played"].tolist(),
    }
    return Table.from_columns("table-finals", columns)


def _entrants_table(forecast: TournamentForecast, deck_word: str) -> Table:
    columns: dict[str, Any] = {
        "seed": range(1, len(forecast.entrants) + 1),
        "player": [str(p) for p in forecast.entrants],
    }
    if forecast.decks is not None:
        columns[f"{deck_word}s" if any(len(d) > 1 for d in forecast.decks) else deck_word] = [
            _deck_text(d) for d in forecast.decks
        ]
    return Table.from_columns("table-entrants", columns)


def _results_table(forecast: TournamentForecast, player1: str | None) -> Table | None:
    r = forecast.results
    if r is None:
        return None
    first = {"who moves first": " (moved first)", "listed first": " (listed first)"}
    columns = {
        "round": r["round"].tolist(),
        f"player 1{first.get(player1, '')}": [str(p) for p in r["player1"]],
        "player 2": [str(p) for p in r["player2"]],
        "winner": ["not yet played" if w is None else str(w) for w in r["winner"]],
    }
    return Table.from_columns("table-results", columns)


def _conditioning(forecast: TournamentForecast) -> dict[str, Any] | None:
    r = forecast.results
    if r is None:
        return None
    played = r["winner"].notna()
    first, last = int(r["round"].min()), int(r["round"].max())
    return {
        "played": int(played.sum()),
        "pending": int((~played).sum()),
        "rounds": f"round {first}" if first == last else f"rounds {first} to {last}",
    }


@shared_parameters
def render_tournament_html(
    forecast: TournamentForecast,
    *,
    estimator: Any = None,
    title: str | None = None,
    source: str | None = None,
    top: int = 16,
) -> str:
    """The forecast as one self-contained HTML page (figure embedded, no scripts).

    Parameters
    ----------
    {forecast}
    {tournament_page}

    Returns
    -------
    str
        The page: a section with id ``tournament``, the figure
        ``fig-tournament``, the tables ``table-tournament`` (every entrant's
        chances), ``table-finals``, ``table-entrants`` and, after results,
        ``table-results``.
    """
    from matplotlib import pyplot as plt

    from skcodex.tournament._plot import plot_tournament

    forecast = _check_forecast(forecast)
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise ValueError(f"top must be a whole number of at least 1, got {top!r}")
    words = tournament_words(estimator)
    fig = plot_tournament(forecast, top=int(top))
    image = png(fig)
    plt.close(fig)
    return render_template("tournament.html.j2", _context(forecast, words, title, source, image))


def _context(forecast, words, title, source, image) -> dict[str, Any]:
    table, errors = forecast.table(), forecast.standard_errors()
    probabilities = [c for c in errors.columns if c.startswith("p_")]
    finals = forecast.likely_final()
    n = len(forecast.entrants)
    from skcodex.tournament._formats import describe_stage

    stages = " + ".join(describe_stage(s) for s in forecast.format.stages)
    source_line = f"{source}. " if source else ""
    return {
        "title": title or "Tournament forecast",
        "images": {"fig-tournament": image},
        "provenance": f"{source_line}{forecast.n_simulations:,} simulated tournaments.",
        "stamp": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "format": stages,
        "n_entrants": n,
        "n_simulations": f"{forecast.n_simulations:,}",
        "n_draws": None if forecast.n_draws is None else f"{forecast.n_draws:,}",
        "deck_rule": forecast.deck_rule,
        "several_decks": forecast.decks is not None and any(len(d) > 1 for d in forecast.decks),
        "dk": words["deck_word"],
        "p1": words["player1"],
        "first_move": forecast.format.first_move,
        "first_move_rules": FIRST_MOVE_RULES,
        "favourite": str(table.index[0]),
        "p_favourite": f"{table['p_win'].iloc[0]:.3f}",
        "se_favourite": f"{table['p_win_se'].iloc[0]:.3f}",
        "max_se": f"{errors[probabilities].to_numpy().max():.3f}",
        "max_se_wins": f"{errors['expected_wins'].max():.2f}",
        "final": None
        if finals.empty
        else {
            "a": str(finals["player_a"].iloc[0]),
            "b": str(finals["player_b"].iloc[0]),
            "p": f"{finals['p_final'].iloc[0]:.3f}",
            "p_a": f"{finals['p_a_wins'].iloc[0]:.3f}",
            "p_b": f"{1 - finals['p_a_wins'].iloc[0]:.3f}",
            "last_two": forecast.format.stages[-1].final_of_last_two,
        },
        "conditioning": _conditioning(forecast),
        "tables": {
            "forecast": _forecast_table(forecast),
            "finals": None if finals.empty else _finals_table(forecast),
            "entrants": _entrants_table(forecast, words["deck_word"]),
            "results": _results_table(forecast, words["player1"]),
        },
    }


@shared_parameters
def write_tournament_report(
    forecast: TournamentForecast,
    out: str | os.PathLike,
    *,
    estimator: Any = None,
    title: str | None = None,
    source: str | None = None,
    top: int = 16,
) -> Path:
    """Write ``report.html`` and the forecast's tables as CSV files into a folder.

    Every text cell of the CSV files is made safe for spreadsheets
    (as `skcodex.report.spreadsheet_safe` makes them).

    Parameters
    ----------
    {forecast}
    out : path
        The folder (created if needed).
    {tournament_page}

    Returns
    -------
    pathlib.Path
        The page's path.
    """
    forecast = _check_forecast(forecast)
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(f"{folder} is a file, not a folder")
    page = render_tournament_html(
        forecast, estimator=estimator, title=title, source=source, top=top
    )
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "report.html").write_text(page, encoding="utf-8")
    for name, frame in tournament_tables(forecast).items():
        spreadsheet_safe(frame).to_csv(folder / name, index=False)
    return folder / "report.html"
