"""The advice of `skcodex.analysis.deck_advice` as one self-contained HTML page."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np
import pandas as pd

from skcodex._pages.render import render_template
from skcodex._pages.text import Table, fmt, interval_text

__all__ = ["advice_words", "render_advice_html"]

_COLUMNS = ("deck", "win_rate", "win_rate_lower", "win_rate_upper", "p_best_win_rate")


def render_advice_html(
    advice: pd.DataFrame,
    *,
    title: str | None = None,
    source: str | None = None,
    deck_word: str = "deck",
    symmetric: bool = False,
) -> str:
    """The table of `skcodex.analysis.deck_advice` as an HTML page (no scripts, autoescaped).

    Parameters
    ----------
    advice : pandas.DataFrame
        What `skcodex.analysis.deck_advice` returned (its ``attrs`` included).
    title : str, default None
        The page's title; None: "What to bring".
    source : str, default None
        Where the model and the field come from, named under the table.
    deck_word : str, default "deck"
        The game's noun for a deck.
    symmetric : bool, default False
        A game where no side moves first: the page then says nothing of turns.

    Returns
    -------
    str
        The page: a section with id ``advice`` holding the table ``table-advice``.
    """
    context = {
        "title": title or "What to bring",
        "stamp": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        **advice_words(advice, deck_word=deck_word, symmetric=symmetric),
    }
    n_draws = advice.attrs.get("n_draws")
    source_line = f"{source}. " if source else ""
    context["provenance"] = f"{source_line}{n_draws:,} posterior draws." if n_draws else source_line
    return render_template("advice.html.j2", context)


def advice_words(advice: Any, *, deck_word: str = "deck", symmetric: bool = False) -> dict:
    """What the advice's page and report section read: its words and its table ``advice``.

    Raises ValueError for a table that is not `skcodex.analysis.deck_advice`'s
    (or has lost its ``attrs``).
    """
    if not isinstance(advice, pd.DataFrame) or not set(_COLUMNS) <= set(advice.columns):
        raise ValueError("advice must be the table skcodex.analysis.deck_advice returns")
    attrs = advice.attrs
    if "player" not in attrs or "interval" not in attrs:
        raise ValueError(
            "advice has lost its attrs (player, interval, ...): pass the table "
            "deck_advice returned, not a copy without them"
        )
    event = "p_event" in advice.columns
    word = deck_word.capitalize()
    columns: dict[str, Any] = {
        word: [str(d) for d in advice["deck"]],
        "Win rate": [fmt(v, 3) for v in advice["win_rate"]],
        "Interval": [
            interval_text(lo, hi, 3)
            for lo, hi in zip(advice["win_rate_lower"], advice["win_rate_upper"])
        ],
        "P(best)": [fmt(v) for v in advice["p_best_win_rate"]],
    }
    if event:
        columns["P(win event)"] = [fmt(v, 3) for v in advice["p_event"]]
        columns["Interval "] = [
            interval_text(lo, hi, 3)
            for lo, hi in zip(advice["p_event_lower"], advice["p_event_upper"])
        ]
        columns["P(best) "] = [fmt(v) for v in advice["p_best_event"]]
    best = advice["p_best_event" if event else "p_best_win_rate"].iloc[0]
    n_draws = attrs.get("n_draws")
    return {
        "player": str(attrs["player"]),
        "field": "shares of " + deck_word + "s" if attrs.get("field") == "shares" else "entrants",
        "shares": attrs.get("field") == "shares",
        "event": event,
        "format": str(attrs.get("format")),
        "n_entrants": attrs.get("n_entrants"),
        "n_candidates": len(advice),
        "n_draws": f"{n_draws:,}" if n_draws else "all",
        "dk": deck_word,
        "symmetric": bool(symmetric),
        "best": str(advice["deck"].iloc[0]),
        "p_best": f"{best:.0%}",
        "per_draw": f"{attrs.get('simulations_per_draw') or 0:,}",
        "max_se": f"{float(np.max(advice['p_event_se'])):.3f}" if event else None,
        "width": round(100 * attrs["interval"]),
        "tables": {"advice": Table.from_columns("table-advice", columns)},
    }
