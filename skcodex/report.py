"""A self-contained HTML report of a fitted model, and CSV files of its tables.

`analyse` runs every analysis of `skcodex.analysis` on a fitted
`BayesianMatchupClassifier` and its training data; `render_html` turns the
result into one HTML page (figures embedded as PNG, no scripts, no external
files) that a player can read; `write_report` does both and also writes each
table as CSV. The ``skcodex fit`` and ``skcodex demo`` commands call
`write_report`.

The page is rendered from Jinja2 templates (``skcodex/templates``, HTML
autoescaped); its prose follows the fitted model's options (`describe_model`).
"""

from __future__ import annotations

import base64
import io
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from skcodex import _posterior as posterior
from skcodex import analysis, metrics
from skcodex._report_page import TOP_PLAYERS as _TOP_PLAYERS
from skcodex._report_page import csv_tables, render_page

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
    "render_html",
    "section_headings",
    "spreadsheet_safe",
    "write_report",
]

#: Section ids of the page, in order, with their headings.
SECTIONS = {
    "methods": "How this works",
    "convergence": "Is the sample trustworthy?",
    "skills": "Player skills",
    "matchups": "Deck matchups",
    "decks": "Deck rankings",
    "nash": "Nash weights",
    "skill-versus-decks": "Skill versus decks",
    "calibration": "Calibration",
}

#: A favourite's forecast above which the report checks forecasts come true as often as said.
CONFIDENT_FORECAST = 0.7

#: Figure ids of the page, each in the section it illustrates.
FIGURES = {
    "fig-skills": "skills",
    "fig-matchups": "matchups",
    "fig-nash": "nash",
    "fig-spreads": "skill-versus-decks",
    "fig-reliability": "calibration",
}

#: The CSV files `write_report` writes beside the page.
CSV_FILES = (
    "skills.csv",
    "matchups.csv",
    "deck_ranking.csv",
    "nash.csv",
    "skill_versus_decks.csv",
    "calibration.csv",
    "brier.csv",
    "extensions.csv",
    "part_evidence.csv",
)


@dataclass(frozen=True)
class HeldOut:
    """Forecasts for matches the model did not see, to score out of sample.

    Parameters
    ----------
    label : str
        What the matches are, e.g. ``"tournament T08"``.
    y : array-like
        Their outcomes (1 = player 1 won).
    p_win : array-like
        The forecast P(player 1 wins), from a model fitted without them.
    n_train : int
        Matches that model was fitted on.
    problems : list of str
        That model's failed convergence checks.
    """

    label: str
    y: Any
    p_win: Any
    n_train: int
    problems: list[str] = field(default_factory=list)


@dataclass
class Analyses:
    """Everything the report shows, computed once (see `analyse`)."""

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


def _is_symmetric(clf: Any) -> bool:
    """Whether the fitted matchups are antisymmetric (no side moves first)."""
    layout = getattr(clf, "layout_", None)
    if layout is not None:  # what was fitted, whatever set_params says since
        return bool(getattr(layout.options, "symmetric", False))
    return bool(clf.get_params().get("symmetric", False))


def game_words(clf: Any) -> dict[str, Any]:
    """What the report calls the game's parts and sides, from the fitted model and catalogue.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        Fitted.

    Returns
    -------
    dict
        ``codex`` (the Codex model: Codex decks of three specs), ``specs_per_deck``,
        ``n_deck_effects``, ``starter_word`` and ``spec_word`` (the catalogue's
        nouns), ``deck_word`` (``"deck"``, or the catalogue's noun for a starter
        when a deck is a starter alone, e.g. ``"race"``), ``symmetric`` (no side moves first),
        ``first_move`` (the fitted model has a first-move effect) and
        ``player1``, how player 1 is described: ``"who moves first"`` for Codex
        or a model with a first-move effect, ``"listed first"`` for an ordered
        model of another game, None for a symmetric model (no turn wording).
    """
    from skcodex.codex import PlainCatalogue

    cat = getattr(clf, "catalogue", None) or getattr(clf, "catalogue_", None)
    plain = isinstance(cat, PlainCatalogue)
    k = int(clf.layout_.specs_per_deck)
    starter = cat.starter_word if plain else "starter"
    symmetric = _is_symmetric(clf)
    first_move = bool(getattr(clf.layout_.options, "first_move", False))
    codex = not plain and k == 3
    if symmetric:
        player1 = None
    elif codex or first_move:
        player1 = "who moves first"
    else:
        player1 = "listed first"
    return {
        "codex": codex,
        "specs_per_deck": k,
        "n_deck_effects": 1 + 2 * k + k * k,
        "starter_word": starter,
        "spec_word": cat.component_word if plain else "spec",
        # a deck of a starter alone takes the game's own noun for it, when it has one
        "deck_word": starter if plain and k == 0 and starter != "starter" else "deck",
        "symmetric": symmetric,
        "first_move": first_move,
        "player1": player1,
    }


def section_headings(words: dict[str, Any]) -> dict[str, str]:
    """`SECTIONS` with the game's noun for a deck (``"Race matchups"``)."""
    deck = words.get("deck_word", "deck")
    if deck == "deck":
        return dict(SECTIONS)
    return {
        **SECTIONS,
        "matchups": f"{deck.capitalize()} matchups",
        "decks": f"{deck.capitalize()} rankings",
        "skill-versus-decks": f"Skill versus {deck}s",
    }


#: The model's optional parts, as `describe_model` names them.
_EXTENSIONS = (
    "time_varying",
    "synergy",
    "familiarity",
    "first_move",
    "debut",
    "period_offset",
    "experience",
)

#: How the report names each kind of spread prior.
_PRIOR_NAMES = {
    "balanced": "the balanced prior",
    "default": "the default log-normal prior",
    "seed": "the seed model's log-normal prior",
    "custom": "a custom log-normal prior",
}


#: The seed's priors named for a game other than Codex (the seed model is Codex's).
_NEUTRAL_SEED_PRIOR = "the log-normal prior N(0, 0.5) on every log-spread"


def _prior_kind(clf: Any, options: Any) -> str:
    """``"balanced"``, or whether the log-normal priors are the defaults, the seed's or custom."""
    if options.prior == "balanced":
        return "balanced"
    from skcodex._classifier import SEED_PRIORS

    structure = {name: getattr(options, name) for name in _EXTENSIONS}
    # the priors of the spreads the fitted model has (none of absent spec blocks)
    names = getattr(clf, "layout_", None) or options
    own = clf._priors_for(names)
    for kind, priors in (("default", {}), ("seed", SEED_PRIORS)):
        reference = type(clf)(**structure, **priors)._priors_for(names)
        if np.array_equal(own.loc, reference.loc) and np.array_equal(own.scale, reference.scale):
            return kind
    return "custom"


def describe_model(clf: Any) -> dict[str, Any]:
    """How a fitted classifier's numbers were made, for the report's words.

    The model's structure is read from what was fitted (``layout_.options``),
    so parameters changed after the fit do not change it, and so is an
    approximation's method (the posterior records it); NUTS's sampler and
    the priors are read from the classifier's parameters.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        Fitted (or, for its parameters alone, unfitted).

    Returns
    -------
    dict
        ``method`` (``"nuts"`` or ``"advi"``), ``sampler`` (``"nutpie"``,
        ``"PyMC"``, or None for ADVI), the extensions ``time_varying``,
        ``synergy``, ``familiarity`` and ``first_move`` (bool), ``symmetric``
        (bool: matchups the same from either side), ``effects`` (the fitted
        effect blocks in words, their `skcodex._blocks` labels in the game's
        nouns; empty when unfitted), ``n_epochs``
        (rating periods of the skill walk), ``prior`` (``"lognormal"`` or
        ``"balanced"``), ``prior_kind`` (``"balanced"``, ``"default"``,
        ``"seed"`` or ``"custom"``), ``prior_name`` and ``prior_text`` (the
        prior in words), and the one-line summaries ``extensions`` and
        ``fitting``.
    """
    params = clf.get_params()
    layout = getattr(clf, "layout_", None)
    options = layout.options if layout is not None else clf.options
    fitted_method, n_epochs = None, 0
    if getattr(clf, "idata_", None) is not None:  # the posterior records an approximation
        post = posterior.group(clf.idata_, "posterior")
        fitted_method = post.attrs.get("inference_method")
        params = _as_fitted(params, post)
    if options.time_varying and layout is not None:  # ``layout_`` is the layout as sampled
        n_epochs = int(layout.n_epochs)
    extensions = [name for name in _EXTENSIONS if getattr(options, name)]
    symmetric = _is_symmetric(clf)
    if symmetric:
        extensions.append("symmetric")
    codex = layout is None or game_words(clf)["codex"]
    method = fitted_method or params["method"]
    sampler = params["sampler"]
    if sampler == "auto":  # skcodex._fitting's rule: PyMC for the balanced prior, else the fastest
        from skcodex._inference import resolve_sampler

        sampler = "pymc" if options.prior == "balanced" else resolve_sampler("auto")
        setting = f"auto: {sampler}"
    else:
        setting = sampler
    if method == "nuts":
        fitting = (
            f"NUTS ({setting} sampler), {params['chains']} chains of {params['draws']} draws "
            f"after {params['tune']} tuning steps, target acceptance "
            f"{params['target_accept']}, seed {params['random_state']}"
        )
    else:
        fitting = f"{method} approximation, {params['draws']} draws, seed {params['random_state']}"
    kind = _prior_kind(clf, options)
    return {
        "method": method,
        "sampler": {"nutpie": "nutpie", "pymc": "PyMC"}[sampler] if method == "nuts" else None,
        **{name: bool(getattr(options, name)) for name in _EXTENSIONS},
        "symmetric": symmetric,
        "effects": _effect_words(clf),
        "n_epochs": n_epochs if options.time_varying else 0,
        "prior": options.prior,
        "prior_kind": kind,
        "prior_name": _PRIOR_NAMES[kind] if codex or kind != "seed" else _NEUTRAL_SEED_PRIOR,
        "prior_text": analysis.describe_prior(clf),
        "extensions": ", ".join(extensions) or ("none (the seed model)" if codex else "none"),
        "fitting": fitting,
    }


def _as_fitted(params: dict, post: Any) -> dict:
    """The sampling parameters as the posterior was drawn, where it records them.

    Chains and draws are the posterior's own dimensions; tuning steps and target
    acceptance are kept in its attributes. The seed is
    the parameter's when it still gives the sampler seed the fit used, else
    ``"changed after the fit"``.
    """
    params = dict(params)
    if "chain" in post.sizes and "draw" in post.sizes:
        params["chains"], params["draws"] = int(post.sizes["chain"]), int(post.sizes["draw"])
    attrs = post.attrs
    for name in ("tune", "target_accept"):
        if f"fitted_{name}" in attrs:
            value = attrs[f"fitted_{name}"]
            params[name] = value.item() if hasattr(value, "item") else value
    if "fitted_seed" in attrs:
        from sklearn.utils import check_random_state

        state = params.get("random_state")
        # the estimator's fit draws its sampler seed first from its random_state
        if isinstance(state, (int, np.integer)) and not isinstance(state, bool):
            first = int(check_random_state(state).randint(0, 2**31 - 1, size=2)[0])
            if first != int(attrs["fitted_seed"]):
                params["random_state"] = "changed after the fit"
    return params


def _effect_words(clf: Any) -> list[str]:
    """The fitted layout's effect blocks in words, as `skcodex._blocks` labels them.

    "starter" and "spec" become the game's own nouns; blocks with no effect
    in this game (no specs) and blocks without a label are left out.
    """
    layout = getattr(clf, "layout_", None)
    if layout is None:
        return []
    words = game_words(clf)
    nouns = {"starter": words["starter_word"], "spec": words["spec_word"]}
    return [
        re.sub(r"\b(starter|spec)\b", lambda found: nouns[found[1]], block.label)
        for block in layout.declared
        if block.label and np.prod(layout.shapes[block.name]) > 0
    ]


def _data_summary(clf: Any, X: pd.DataFrame, source: str | None = None) -> dict[str, Any]:
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
        from skcodex.data._table import read_dates

        try:
            dates = read_dates(X["date"], "date").dropna()
        except ValueError:
            dates = pd.Series([], dtype="datetime64[ns]")
        if len(dates):
            out["first_date"] = dates.min().date().isoformat()
            out["last_date"] = dates.max().date().isoformat()
    return out


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
) -> Analyses:
    """Run every analysis the report shows.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        Fitted on ``X``, ``y``.
    X, y : match table and outcomes
        The training data (for match counts and in-sample calibration).
    held_out : HeldOut, optional
        Out-of-sample forecasts to score beside the in-sample ones.
    decks : list of str or Deck, or a keyword, optional
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
    interval : float, default 0.9
        Width of every credible interval.
    true_skills : Series, optional
        Known skills (synthetic data), drawn in the skill plot.
    source : str, optional
        Where the matches come from (a folder, a file, "synthetic ..."), named
        with every figure and headline.

    Returns
    -------
    Analyses
    """
    catalogue = getattr(clf, "catalogue", None) or getattr(clf, "catalogue_", None)
    ranked = analysis.most_played_decks(X, n_ranked_decks, catalogue)
    in_sample = clf.predict_proba(X)[:, 1]
    samples = {"in-sample": (y, in_sample)}
    if held_out is not None:
        samples["held-out"] = (held_out.y, held_out.p_win)
    reliability, brier, confident = {}, {}, {}
    for label, (outcome, forecast) in samples.items():
        table = analysis.reliability_table(outcome, forecast, n_bins, interval=interval)
        reliability[label] = table
        brier[label] = pd.concat(
            [
                analysis.brier_decomposition(outcome, forecast, n_bins),
                _calibration_numbers(outcome, forecast, n_bins, interval),
            ]
        )
        confident[label] = metrics.overconfidence(
            outcome, forecast, CONFIDENT_FORECAST, interval=interval
        )
    deck_rank = analysis.deck_ranking(clf, ranked, interval=interval)
    counts = pd.Series(
        [analysis.deck_label(d, catalogue) for d in _decks_played(X, catalogue)]
    ).value_counts()
    deck_rank["played"] = counts.reindex(deck_rank.index).fillna(0).astype(int)
    return Analyses(
        data=_data_summary(clf, X, source),
        convergence=analysis.convergence_summary(clf, X),
        skills=analysis.skill_table(clf, X, y=y, interval=interval),
        matchups=analysis.matchup_table(clf, decks, interval=interval),
        deck_ranking=deck_rank,
        nash=analysis.nash_weights(clf, decks, n_draws=nash_draws, interval=interval),
        spreads=analysis.skill_versus_decks(clf, interval=interval),
        spread_draws=analysis.spread_comparison_draws(clf),
        reliability=reliability,
        brier=pd.DataFrame(brier).T.rename_axis("sample"),
        held_out=held_out,
        interval=interval,
        true_skills=true_skills,
        confident=confident,
        model=describe_model(clf),
        prior_spread_draws=analysis.prior_spread_comparison_draws(clf),
        extensions=analysis.extension_table(clf, interval=interval),
        part_evidence=analysis.part_evidence(clf),
    )


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


# -- the page ---------------------------------------------------------------------------


def _png(fig: Any) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def figures(result: Analyses) -> dict[str, Any]:
    """The report's figures by id (see `FIGURES`), as matplotlib Figures."""
    from skcodex import plotting

    top = None if len(result.skills) <= _TOP_PLAYERS else _TOP_PLAYERS
    words = result.data
    return {
        "fig-skills": plotting.plot_skills(result.skills, top=top, truth=result.true_skills),
        "fig-matchups": plotting.plot_matchups(result.matchups, words=words),
        "fig-nash": plotting.plot_nash(result.nash, words=words),
        "fig-spreads": plotting.plot_spreads(result.spread_draws, words=words),
        "fig-reliability": plotting.plot_reliability(result.reliability),
    }


def render_html(result: Analyses, *, title: str | None = None, figs: dict | None = None) -> str:
    """The report as one self-contained HTML page.

    Parameters
    ----------
    result : Analyses
        From `analyse`.
    title : str, optional
        "Codex skills and matchups" for Codex data, "Skills and matchups" otherwise.
    figs : dict, optional
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
    images = {fig_id: _png(fig) for fig_id, fig in figs.items()}
    return render_page(result, title, images, section_headings(result.data))


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
    X, y : match table and outcomes
    out : path
        The folder (created if needed).
    title : str, optional
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


#: What a spreadsheet reads as the start of a formula (OWASP's CSV-injection list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(table: pd.DataFrame) -> pd.DataFrame:
    """A copy of a table whose text cells cannot start a spreadsheet formula.

    A player's or deck's name copied from a forum may begin with ``=``,
    ``+``, ``-``, ``@``, a tab or a carriage return, which Excel, LibreOffice
    and Google Sheets would run as a formula when the CSV file is opened. As
    OWASP's CSV-injection guidance says, such text cells (and column names)
    get a leading single quote (``'=1+2``), which the spreadsheet shows as
    text. Numbers are left as they are, so ``-0.5`` stays a number.

    Parameters
    ----------
    table : pandas.DataFrame

    Returns
    -------
    pandas.DataFrame
        A new frame; ``table`` is not modified.
    """

    def safe(value: Any) -> Any:
        if isinstance(value, str) and value.startswith(FORMULA_STARTS):
            return "'" + value
        return value

    out = table.copy()
    out.columns = [safe(c) for c in out.columns]
    for position in range(out.shape[1]):
        column = out.iloc[:, position]
        if column.dtype == object or isinstance(column.dtype, pd.StringDtype):
            out.isetitem(position, column.map(safe))
    return out
