"""Draws on the command line: what ``fit``, ``predict`` and ``simulate`` add for a model with draws.

A match table whose results hold a draw (``y`` 0.5, or ``winner`` ``draw``;
`skcodex.cli._tables`) is fitted with the draw model
(`skcodex.BayesianMatchupClassifier`, ``classes_`` ``[0, 0.5, 1]``). Its
forecasts then have three outcomes: the lines below print the draw's share
beside the win's. A table without draws never reaches them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd


def has_draws(model: Any) -> bool:
    """Whether a fitted (or quick-read) model was fitted with draws."""
    layout = getattr(model, "layout_", None)
    return bool(getattr(getattr(layout, "options", None), "draws", False))


def expected_score(clf: Any, X: pd.DataFrame) -> np.ndarray:
    """Player 1's expected score per match: P(win) + P(draw) / 2 (P(win) without draws).

    ``predict_proba`` weighted by ``classes_`` with draws; without them,
    exactly its column 1.
    """
    proba = clf.predict_proba(X)
    classes = getattr(clf, "classes_", None)
    if classes is None or len(classes) != 3:  # two outcomes: P(player 1 wins), as always
        return proba[:, 1]
    return proba @ np.asarray(classes, dtype=float)


def print_fit_draws(clf: Any, y: np.ndarray, X: pd.DataFrame) -> None:
    """The draw rate learned, and the three-outcome score, after ``skcodex fit``'s Brier line."""
    if not has_draws(clf):
        return
    from skcodex.metrics import ranked_probability_score

    rate = clf.draw_.loc["draw_rate_even"]
    seen = float(np.mean(np.asarray(y, dtype=float) == 0.5))
    print(
        f"\nDraws: {seen:.1%} of the fitted matches were drawn. Between equal sides a draw has "
        f"chance {rate['mean']:.3f} [{rate['lower']:.3f}, {rate['upper']:.3f}] (posterior "
        "mean, 90% interval); a match between unequal sides is drawn less often."
    )
    rps = ranked_probability_score(y, clf.predict_proba(X))
    print(
        f"  Ranked probability score, in-sample (three outcomes; lower is better): {rps:.3f}. "
        "The Brier scores above compare the expected score, P(win) + P(draw) / 2, with the "
        "result scored 1, 0.5 or 0."
    )


def draw_line(model: Any, table: pd.DataFrame, interval: float) -> str | None:
    """``P(draw) = ...`` with its interval for ``predict``'s match, or None without draws."""
    if not has_draws(model):
        return None
    classes = np.asarray(model.classes_, dtype=float)  # [0, 0.5, 1]
    p = model.predict_outcome_draws(table)[:, 0, :]  # (n_draws, 3)
    tail = (1.0 - interval) / 2.0
    words = {0.0: "player 2 wins", 0.5: "a draw", 1.0: "player 1 wins"}
    mean = p.mean(axis=0)
    lower, upper = np.quantile(p[:, 1], tail), np.quantile(p[:, 1], 1.0 - tail)
    shares = ", ".join(f"{words[float(c)]} {m:.3f}" for c, m in zip(classes[::-1], mean[::-1]))
    return (
        f"P(draw) = {mean[1]:.3f}\n{round(100 * interval)}% interval: {lower:.3f} to "
        f"{upper:.3f}\noutcomes: {shares}"
    )


def simulate_note(model: Any, draw_rule: str = "replay") -> str | None:
    """What ``simulate`` does with draws, or None for a model without them."""
    if not has_draws(model):
        return None
    sets = {
        "replay": "a drawn game is replayed (--draw-rule replay)",
        "points": "a draw scores half a point and a level set goes to a decider "
        "(--draw-rule points)",
    }[draw_rule]
    return (
        "The model has draws: in Swiss and round-robin standings a draw is worth half a win; "
        "a drawn knockout game goes to the winner of a decider played with the draw left out; "
        f"in best-of-N sets {sets}."
    )


def set_draw_words(model: Any, draw_rule: str) -> str:
    """``predict --best-of``'s words for what a drawn game counts for (none without draws)."""
    if not has_draws(model):
        return ""
    return {
        "replay": "; a drawn game is replayed",
        "points": "; a draw is half a point, a level set goes to a decider",
    }[draw_rule]
