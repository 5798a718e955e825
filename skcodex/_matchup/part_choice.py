"""Deciding the ``"auto"`` parts of the model from the table being fitted.

An optional part of the model (the debut option, the skill walk) is in a fitted
model only when the table's own latest rating periods say it forecasts better:

1. **Candidates.** Every combination of the ``"auto"`` parts the table can hold
   (a walk needs two periods or more, dated matches and NUTS; see the
   estimator's ``_feasible_parts``), the simplest (every ``"auto"`` part off)
   first.
2. **Forward folds.** The last `VALIDATION_FOLDS` rating periods of the table,
   each a fold of `skcodex.TournamentSplit` (a small period is merged with the
   ones after it until a fold holds `MIN_FOLD_MATCHES` matches): every candidate
   is fitted on the matches that ended before the fold began, with
   `SELECTION_SAMPLING` (short chains: the forecasts, not the spreads, are
   judged), and forecasts the fold.
3. **The rule.** Each candidate's forward log score (the sum over the folds'
   matches of log P(what happened)) is compared with the simplest candidate's,
   match by match: the difference ``d`` and its standard error ``se``
   (``sqrt(n) sd(d_i)``, the paired standard error of leave-future-out
   comparisons). A richer candidate is chosen only when ``d > MARGIN_SE * se``;
   of several such, the one with the largest ``d``. Otherwise the simplest
   model stays: without evidence a part is off.

The table of evidence (`EVIDENCE_COLUMNS`) is kept by the estimator as
``part_evidence_``. Fewer periods than a fold needs leave the simplest model,
with the reason in the table's ``attrs["note"]``.

`candidate_evidence` applies the same folds and rule to any list of candidates: an
``"auto"`` half-life's (`skcodex._matchup.recency.candidates`, decided after the parts,
with them as chosen) is one.

This module knows the estimator only through the callable it is given
(``fit_and_forecast``), so it can be tested on its own.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "EVIDENCE_COLUMNS",
    "MARGIN_SE",
    "MIN_FOLD_MATCHES",
    "SELECTION_SAMPLING",
    "VALIDATION_FOLDS",
    "candidate_evidence",
    "candidate_label",
    "candidates",
    "choose",
    "forward_evidence",
]

#: How many of the table's latest rating periods (folds) the candidates forecast.
VALIDATION_FOLDS = 3
#: Fewest matches a fold holds (small periods are merged with the ones after them).
MIN_FOLD_MATCHES = 20
#: A richer candidate must beat the simplest by this many standard errors of the
#: difference in forward log score.
MARGIN_SE = 2.0
#: The sampling of each candidate fit: short chains, enough for forecasts (each capped
#: at the fit's own, so a quick fit's candidates are no longer than it).
SELECTION_SAMPLING = {"chains": 2, "draws": 250, "tune": 250}
#: The columns of the evidence table, one row a candidate.
EVIDENCE_COLUMNS = (
    "candidate",
    "parts",
    "matches",
    "log score",
    "brier",
    "log score - simplest",
    "se",
    "chosen",
)

#: The words of each part in a candidate's label.
_PART_WORDS = {"debut": "debut", "time_varying": "walk"}


def candidate_label(parts: dict) -> str:
    """A candidate's name: its parts switched on (``"debut + walk"``), or ``"static"``.

    A candidate of the recency weighting (a ``half_life`` among its parts, the
    model's other parts the same in every row) is named by its half-life alone:
    ``"half-life 4"``, or ``"no weighting"``.
    """
    if "half_life" in parts:
        h = parts["half_life"]
        return "no weighting" if h is None else f"half-life {h:g}"
    on = [_PART_WORDS.get(name, name) for name, value in parts.items() if value]
    return " + ".join(on) if on else "static"


def candidates(auto_parts: Sequence[str]) -> list[dict[str, bool]]:
    """Every on/off combination of ``auto_parts``, the simplest first (fewest parts on)."""
    combos = [
        dict(zip(auto_parts, values))
        for values in itertools.product((False, True), repeat=len(auto_parts))
    ]
    return sorted(combos, key=lambda c: sum(c.values()))


def _log_score(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Each match's log P(what happened) (outcomes in [0, 1]; forecasts kept off 0 and 1)."""
    p = np.clip(np.asarray(p, dtype=float), 1e-12, 1 - 1e-12)
    return y * np.log(p) + (1 - y) * np.log1p(-p)


def forward_evidence(
    table: pd.DataFrame,
    outcome: np.ndarray,
    auto_parts: Sequence[str],
    fit_and_forecast: Callable[[dict[str, bool], np.ndarray, np.ndarray], np.ndarray],
) -> pd.DataFrame:
    """Every candidate's forward forecasts of the table's latest periods, and the choice.

    Parameters
    ----------
    table : pandas.DataFrame
        The checked match table, in time order, with a ``period`` column.
    outcome : ndarray
        1 where player 1 won, 0 where player 2 won (the outcomes the
        forecasts are scored on).
    auto_parts : sequence of str
        The parts to decide (``ModelOptions`` fields such as ``"debut"``).
    fit_and_forecast : callable
        ``fit_and_forecast(parts, train, test)``: fit the candidate with
        ``parts`` on the rows ``train`` of ``table`` and return P(player 1
        wins) for the rows ``test``.

    Returns
    -------
    pandas.DataFrame
        One row per candidate, columns `EVIDENCE_COLUMNS`; ``attrs["note"]``
        says why there is no evidence when the table is too short for a
        fold (every candidate then has no score and the simplest is chosen).
    """
    return candidate_evidence(table, outcome, candidates(auto_parts), fit_and_forecast)


def candidate_evidence(
    table: pd.DataFrame,
    outcome: np.ndarray,
    combos: Sequence[dict],
    fit_and_forecast: Callable[[dict, np.ndarray, np.ndarray], np.ndarray],
) -> pd.DataFrame:
    """`forward_evidence` of the candidates ``combos`` (each its parameters), simplest first."""
    from skcodex.model_selection import TournamentSplit

    folds, note = _folds(table, TournamentSplit)
    scores = {i: [] for i in range(len(combos))}
    outcomes = []
    for train, test in folds:
        y = np.asarray(outcome, dtype=float)[test]
        outcomes.append(y)
        for i, parts in enumerate(combos):
            scores[i].append(np.asarray(fit_and_forecast(parts, train, test), dtype=float))
    y = np.concatenate(outcomes) if outcomes else np.zeros(0)
    forecasts = {i: np.concatenate(s) if s else np.zeros(0) for i, s in scores.items()}
    evidence = _evidence_table(combos, y, forecasts)
    evidence.attrs["note"] = note
    return evidence


def _folds(table: pd.DataFrame, splitter) -> tuple[list, str]:
    """The forward folds of the table's latest periods (fewer when it is short), and a note."""
    for n_splits in range(VALIDATION_FOLDS, 0, -1):
        try:
            folds = list(
                splitter(n_splits=n_splits, min_test_matches=MIN_FOLD_MATCHES).split(table)
            )
        except ValueError:
            continue
        # a fold's training table must hold two periods for a part to be tried on it
        periods = table["period"].to_numpy()
        folds = [(tr, te) for tr, te in folds if len(pd.unique(periods[tr])) >= 2]
        if folds:
            return folds, ""
    return [], (
        "too few rating periods to forecast one from the ones before it: "
        "the simplest candidate is kept"
    )


def _evidence_table(combos, y: np.ndarray, forecasts: dict) -> pd.DataFrame:
    rows = []
    base = _log_score(y, forecasts[0]) if len(y) else None
    for i, parts in enumerate(combos):
        if len(y):
            score = _log_score(y, forecasts[i])
            d = score - base
            se = float(np.sqrt(len(d)) * np.std(d, ddof=1)) if len(d) > 1 else np.nan
            row = (float(score.mean()), float(np.mean((y - forecasts[i]) ** 2)))
            diff = float(d.sum())
        else:
            row, diff, se = (np.nan, np.nan), np.nan, np.nan
        rows.append(
            {
                "candidate": candidate_label(parts),
                "parts": ", ".join(f"{k}={v}" for k, v in parts.items()),
                "matches": len(y),
                "log score": row[0],
                "brier": row[1],
                "log score - simplest": diff if i else 0.0,
                "se": se if i else 0.0,
                "chosen": False,
            }
        )
    table = pd.DataFrame(rows, columns=list(EVIDENCE_COLUMNS))
    table.loc[choose(table), "chosen"] = True
    return table


def choose(evidence: pd.DataFrame) -> int:
    """The row of the chosen candidate: the rule of this module's docstring."""
    diff = evidence["log score - simplest"].to_numpy(dtype=float)
    se = evidence["se"].to_numpy(dtype=float)
    wins = np.flatnonzero((np.arange(len(diff)) > 0) & (diff > MARGIN_SE * se) & (diff > 0))
    if len(wins) == 0:
        return 0
    return int(wins[np.argmax(diff[wins])])
