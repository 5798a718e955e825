"""The report's analyses: what each section computes from the fitted model and its data.

`analyse` (in ``_page.py``) runs the analysis of every section of the report's
table of sections on one `Given` and gathers the results in one `Analyses`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from skcodex import analysis, metrics
from skcodex._pages.words import game_words

__all__ = ["CONFIDENT_FORECAST", "Analyses", "Given", "HeldOut", "data_summary"]

#: A favourite's forecast above which the report checks forecasts come true as often as said.
CONFIDENT_FORECAST = 0.7


@dataclass(frozen=True)
class HeldOut:
    """Forecasts for matches the model did not see, to score out of sample.

    Parameters
    ----------
    label : str
        What the matches are, e.g. ``"tournament T08"``.
    y : array-like
        Their outcomes (1 = player 1 won; 0.5 a draw, in a game with draws).
    p_win : array-like
        The forecast P(player 1 wins), from a model fitted without them; with
        draws, player 1's expected score P(win) + P(draw) / 2.
    n_train : int
        Matches that model was fitted on.
    problems : list of str, default []
        That model's failed convergence checks.
    """

    label: str
    y: Any
    p_win: Any
    n_train: int
    problems: list[str] = field(default_factory=list)


@dataclass
class Analyses:
    """Everything the report shows, computed once (see `analyse`).

    A section's results are the fields named after them; the results of a
    section added to the report's table of sections that are no field here
    are kept in ``extra``, by name.

    Parameters
    ----------
    data : dict
        The data in words: source, counts, dates and the game's words.
    convergence : dict
        `skcodex.analysis.convergence_summary`.
    skills : pandas.DataFrame
        `skcodex.analysis.skill_table`.
    matchups : pandas.DataFrame
        `skcodex.analysis.matchup_table`.
    deck_ranking : pandas.DataFrame
        `skcodex.analysis.deck_ranking`, with how often each deck was played.
    nash : pandas.DataFrame
        `skcodex.analysis.nash_weights`.
    spreads : pandas.DataFrame
        `skcodex.analysis.skill_versus_decks`.
    spread_draws : pandas.DataFrame
        `skcodex.analysis.spread_comparison_draws`.
    reliability : dict of str to pandas.DataFrame
        Each sample's reliability table.
    brier : pandas.DataFrame
        Each sample's Brier decomposition and calibration numbers.
    held_out : HeldOut or None, default None
        The held-out forecasts, when there are any.
    interval : float, default 0.9
        Width of every credible interval.
    true_skills : pandas.Series or None, default None
        Known skills (synthetic data).
    confident : dict of str to pandas.Series, default {}
        Each sample's check of its confident forecasts.
    model : dict, default {}
        `describe_model`.
    prior_spread_draws : pandas.DataFrame or None, default None
        `skcodex.analysis.prior_spread_comparison_draws`.
    extensions : pandas.DataFrame or None, default None
        `skcodex.analysis.extension_table`.
    part_evidence : pandas.DataFrame or None, default None
        `skcodex.analysis.part_evidence`.
    half_life_evidence : pandas.DataFrame or None, default None
        `skcodex.analysis.half_life_evidence`.
    extra : dict, default {}
        The results of sections added to the report, by name.
    """

    data: dict[str, Any]
    convergence: dict[str, Any]
    skills: pd.DataFrame
    matchups: pd.DataFrame
    deck_ranking: pd.DataFrame
    nash: pd.DataFrame
    spreads: pd.DataFrame
    spread_draws: pd.DataFrame
    reliability: dict[str, pd.DataFrame]
    brier: pd.DataFrame
    held_out: HeldOut | None = None
    interval: float = analysis.INTERVAL
    true_skills: pd.Series | None = None
    confident: dict[str, pd.Series] = field(default_factory=dict)
    model: dict[str, Any] = field(default_factory=dict)
    prior_spread_draws: pd.DataFrame | None = None
    extensions: pd.DataFrame | None = None
    part_evidence: pd.DataFrame | None = None
    half_life_evidence: pd.DataFrame | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Given:
    """What every section's analysis is given: the fitted model, its data and the settings."""

    clf: Any
    X: pd.DataFrame
    y: Any
    catalogue: Any = None
    held_out: HeldOut | None = None
    decks: Any = None
    n_ranked_decks: int = 12
    nash_draws: int | None = analysis.NASH_DRAWS
    n_bins: int = 10
    interval: float = analysis.INTERVAL
    advice: pd.DataFrame | None = None


def data_summary(clf: Any, X: pd.DataFrame, source: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "source": source or "the match table passed in",
        "matches": len(X),
        "players": len(clf.vocabulary_.players),
        "starters": len(clf.vocabulary_.starters),
        "specs": len(clf.vocabulary_.specs),
        **game_words(clf),
    }
    if "period" in X.columns:
        periods = list(pd.unique(X["period"]))
        out["tournaments"] = len(periods)
        out["first_tournament"], out["last_tournament"] = str(periods[0]), str(periods[-1])
    if "date" in X.columns:
        from skcodex.data._dates import read_dates

        try:
            dates = read_dates(X["date"], "date").dropna()
        except ValueError:
            dates = pd.Series([], dtype="datetime64[ns]")
        if len(dates):
            out["first_date"] = dates.min().date().isoformat()
            out["last_date"] = dates.max().date().isoformat()
    return out


def convergence(given: Given) -> dict[str, Any]:
    """Whether the sample can be trusted (`skcodex.analysis.convergence_summary`)."""
    return {"convergence": analysis.convergence_summary(given.clf, given.X)}


def skills(given: Given) -> dict[str, Any]:
    """The players' skills and their ranks."""
    return {"skills": analysis.skill_table(given.clf, given.X, y=given.y, interval=given.interval)}


def matchups(given: Given) -> dict[str, Any]:
    """The matchup table of the report's decks."""
    return {"matchups": analysis.matchup_table(given.clf, given.decks, interval=given.interval)}


def deck_ranking(given: Given) -> dict[str, Any]:
    """The most played decks ranked, with how often each was played."""
    clf, catalogue = given.clf, given.catalogue
    ranked = analysis.most_played_decks(given.X, given.n_ranked_decks, catalogue)
    table = analysis.deck_ranking(clf, ranked, interval=given.interval)
    counts = pd.Series(
        [analysis.deck_label(d, catalogue) for d in _decks_played(given.X, catalogue)]
    ).value_counts()
    table["played"] = counts.reindex(table.index).fillna(0).astype(int)
    return {"deck_ranking": table}


def nash(given: Given) -> dict[str, Any]:
    """The Nash weights of the report's decks."""
    weights = analysis.nash_weights(
        given.clf, given.decks, n_draws=given.nash_draws, interval=given.interval
    )
    return {"nash": weights}


def spreads(given: Given) -> dict[str, Any]:
    """Skill against decks: the spreads, their draws, and the prior's draws."""
    clf = given.clf
    return {
        "spreads": analysis.skill_versus_decks(clf, interval=given.interval),
        "spread_draws": analysis.spread_comparison_draws(clf),
        "prior_spread_draws": analysis.prior_spread_comparison_draws(clf),
    }


def model_parts(given: Given) -> dict[str, Any]:
    """The fitted values of the optional parts, and how the ``"auto"`` parts were decided."""
    return {
        "extensions": analysis.extension_table(given.clf, interval=given.interval),
        "part_evidence": analysis.part_evidence(given.clf),
        "half_life_evidence": analysis.half_life_evidence(given.clf),
    }


def advice(given: Given) -> dict[str, Any]:
    """What to bring for a player (`skcodex.analysis.deck_advice`'s table), when asked for."""
    if given.advice is None:
        return {}
    from skcodex.report._advice import advice_words

    advice_words(given.advice)  # a table that is not deck_advice's is refused before the page
    return {"advice": given.advice}


def calibration(given: Given) -> dict[str, Any]:
    """Reliability tables, Brier scores and the favourites' check, in and out of sample."""
    # P(player 1 wins); with draws the expected score, P(win) + P(draw) / 2, against 1, 0.5, 0
    proba = given.clf.predict_proba(given.X)
    classes = np.asarray(getattr(given.clf, "classes_", [0, 1]), dtype=float)
    score = proba @ classes if len(classes) == 3 else proba[:, 1]
    samples = {"in-sample": (given.y, score)}
    if given.held_out is not None:
        samples["held-out"] = (given.held_out.y, given.held_out.p_win)
    n_bins, interval = given.n_bins, given.interval
    reliability, brier, confident = {}, {}, {}
    for label, (outcome, forecast) in samples.items():
        reliability[label] = analysis.reliability_table(
            outcome, forecast, n_bins, interval=interval
        )
        brier[label] = pd.concat(
            [
                analysis.brier_decomposition(outcome, forecast, n_bins),
                _calibration_numbers(outcome, forecast, n_bins, interval),
            ]
        )
        confident[label] = metrics.overconfidence(
            outcome, forecast, CONFIDENT_FORECAST, interval=interval
        )
    return {
        "reliability": reliability,
        "brier": pd.DataFrame(brier).T.rename_axis("sample"),
        "confident": confident,
    }


def _calibration_numbers(y: Any, p: Any, n_bins: int, interval: float) -> pd.Series:
    """The calibration error and the calibration slope and intercept of one sample's forecasts.

    NaN where no slope fits (outcomes all alike, forecasts all equal, or
    separating wins from losses perfectly, as a handful of matches can).
    """
    ece = metrics.calibration_error(y, p, n_bins)
    try:
        fit = metrics.calibration_slope(y, p, interval=interval).drop("n")
    except ValueError:
        fit = pd.Series(float("nan"), index=_SLOPE_COLUMNS)
    return pd.concat([pd.Series({"calibration_error": ece}), fit])


_SLOPE_COLUMNS = [
    "slope",
    "slope_lower",
    "slope_upper",
    "intercept",
    "intercept_lower",
    "intercept_upper",
]


def _decks_played(X: pd.DataFrame, catalogue: Any) -> list:
    from skcodex.data import check_match_table

    table = check_match_table(X, catalogue)
    return [*table["deck1"], *table["deck2"]]
