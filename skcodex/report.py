"""A self-contained HTML report of a fitted model, and CSV files of its tables.

`analyse` runs every analysis of `skcodex.analysis` on a fitted
`BayesianMatchupClassifier` and its training data; `render_html` turns the
result into one HTML page (figures embedded as PNG, no scripts, no external
files) that a player can read; `write_report` does both and also writes each
table as CSV. The ``skcodex fit`` and ``skcodex demo`` commands call
`write_report`.
"""

from __future__ import annotations

import base64
import html
import io
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from skcodex import analysis

__all__ = ["FIGURES", "SECTIONS", "Analyses", "HeldOut", "analyse", "render_html", "write_report"]

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
    model: dict[str, Any] = field(default_factory=dict)
    prior_spread_draws: pd.DataFrame | None = None


def _layout_words(clf: Any) -> dict[str, Any]:
    """What the fitted layout calls its parts, and how many deck effects a match has."""
    from skcodex.codex import PlainCatalogue

    cat = getattr(clf, "catalogue", None)
    plain = isinstance(cat, PlainCatalogue)
    k = int(clf.layout_.specs_per_deck)
    return {
        "codex": not plain and k == 3,
        "specs_per_deck": k,
        "n_deck_effects": 1 + 2 * k + k * k,
        "starter_word": cat.starter_word if plain else "starter",
        "spec_word": cat.component_word if plain else "spec",
        "first_move": bool(getattr(clf.layout_.options, "first_move", False)),
    }


def _model_summary(clf: Any) -> dict[str, Any]:
    """The model options a report's numbers come from, in words."""
    params = clf.get_params() if hasattr(clf, "get_params") else {}
    options = getattr(clf, "options", None)
    extensions = [
        name
        for name in ("time_varying", "synergy", "familiarity")
        if options is not None and getattr(options, name, False)
    ]
    method = params.get("method", "nuts")
    sampler = params.get("sampler", "auto")
    if sampler == "auto":  # the classifier's rule: PyMC for the balanced prior, else the fastest
        from skcodex.inference import resolve_sampler

        chosen = "pymc" if getattr(options, "prior", None) == "balanced" else None
        sampler = f"auto: {chosen or resolve_sampler('auto')}"
    if method == "nuts":
        fitting = (
            f"NUTS ({sampler} sampler), {params.get('chains')} chains of "
            f"{params.get('draws')} draws after {params.get('tune')} tuning steps, target "
            f"acceptance {params.get('target_accept')}, seed {params.get('random_state')}"
        )
    else:
        fitting = f"{method} approximation, {params.get('draws')} draws, seed " + str(
            params.get("random_state")
        )
    return {
        "prior": getattr(options, "prior", "lognormal"),
        "prior_text": analysis.describe_prior(clf) if options is not None else "",
        "extensions": ", ".join(extensions) or "none (the seed model)",
        "fitting": fitting,
    }


def _data_summary(clf: Any, X: pd.DataFrame, source: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "source": source or "the match table passed in",
        "matches": len(X),
        "players": len(clf.vocabulary_.players),
        "starters": len(clf.vocabulary_.starters),
        "specs": len(clf.vocabulary_.specs),
        **_layout_words(clf),
    }
    if "period" in X.columns:
        periods = list(pd.unique(X["period"]))
        out["tournaments"] = len(periods)
        out["first_tournament"], out["last_tournament"] = str(periods[0]), str(periods[-1])
    if "date" in X.columns:
        dates = pd.to_datetime(X["date"], errors="coerce").dropna()
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
    reliability = {"in-sample": analysis.reliability_table(y, in_sample, n_bins)}
    brier = {"in-sample": analysis.brier_decomposition(y, in_sample, n_bins)}
    if held_out is not None:
        reliability["held-out"] = analysis.reliability_table(held_out.y, held_out.p_win, n_bins)
        brier["held-out"] = analysis.brier_decomposition(held_out.y, held_out.p_win, n_bins)
    deck_rank = analysis.deck_ranking(clf, ranked, interval=interval)
    counts = pd.Series(
        [analysis.deck_label(d, catalogue) for d in _decks_played(X, catalogue)]
    ).value_counts()
    deck_rank["played"] = counts.reindex(deck_rank.index).fillna(0).astype(int)
    return Analyses(
        data=_data_summary(clf, X, source),
        convergence=analysis.convergence_summary(clf),
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
        model=_model_summary(clf),
        prior_spread_draws=analysis.prior_spread_comparison_draws(clf),
    )


def _decks_played(X: pd.DataFrame, catalogue: Any) -> list:
    from skcodex.data import check_match_table

    table = check_match_table(X, catalogue)
    return [*table["deck1"], *table["deck2"]]


# -- figures and tables ------------------------------------------------------------------


def _png(fig: Any) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


#: The skill figure shows at most this many players (the table shows all).
_TOP_PLAYERS = 60


def figures(result: Analyses) -> dict[str, Any]:
    """The report's figures by id (see `FIGURES`), as matplotlib Figures."""
    from skcodex import plotting

    top = None if len(result.skills) <= _TOP_PLAYERS else _TOP_PLAYERS
    return {
        "fig-skills": plotting.plot_skills(result.skills, top=top, truth=result.true_skills),
        "fig-matchups": plotting.plot_matchups(result.matchups),
        "fig-nash": plotting.plot_nash(result.nash),
        "fig-spreads": plotting.plot_spreads(result.spread_draws),
        "fig-reliability": plotting.plot_reliability(result.reliability),
    }


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "–"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return f"{float(value):.{digits}f}"


def _interval(lower: float, upper: float, digits: int = 2) -> str:
    return f"{lower:.{digits}f} to {upper:.{digits}f}"


def _table(frame: pd.DataFrame, table_id: str) -> str:
    return frame.to_html(
        index=False, escape=True, border=0, classes="data", table_id=table_id, na_rep="–"
    )


def _skills_html(result: Analyses) -> str:
    s = result.skills
    rows = pd.DataFrame(
        {
            "rank": np.arange(1, len(s) + 1),
            "player": [str(p) for p in s.index],
            "skill": [_fmt(v) for v in s["mean"]],
            "interval": [_interval(lo, hi) for lo, hi in zip(s["lower"], s["upper"])],
            "P(best)": [_fmt(v) for v in s["p_best"]],
            "likely ranks": [
                f"{int(lo)}–{int(hi)}" for lo, hi in zip(s["rank_lower"], s["rank_upper"])
            ],
        }
    )
    if "matches" in s.columns:
        rows["matches"] = s["matches"].to_numpy()
    if "wins" in s.columns:
        rows["wins"] = s["wins"].to_numpy()
    return _table(rows, "table-skills")


def _matchups_html(result: Analyses) -> str:
    m = result.matchups
    rows = pd.DataFrame(
        {
            "player 1's deck (first)": m["deck1"],
            "player 2's deck": m["deck2"],
            "P(player 1 wins)": [_fmt(v) for v in m["mean"]],
            "interval": [_interval(lo, hi) for lo, hi in zip(m["lower"], m["upper"])],
            "P(player 1 favoured)": [_fmt(v) for v in m["p_favoured"]],
        }
    )
    return _table(rows, "table-matchups")


def _decks_html(result: Analyses) -> str:
    d = result.deck_ranking
    rows = pd.DataFrame(
        {
            "deck": [str(x) for x in d.index],
            "P(win) v the field": [_fmt(v) for v in d["mean"]],
            "interval": [_interval(lo, hi) for lo, hi in zip(d["lower"], d["upper"])],
            "P(best)": [_fmt(v) for v in d["p_best"]],
            "mean rank": [_fmt(v, 1) for v in d["rank_mean"]],
            "times played": d["played"].to_numpy(),
        }
    )
    return _table(rows, "table-decks")


def _nash_html(result: Analyses) -> str:
    n = result.nash
    wide = {}
    for role in dict.fromkeys(n["role"]):
        part = n[n["role"] == role].set_index("deck")
        wide[role] = [
            f"{m:.2f} ({_interval(lo, hi)}; in {100 * p:.0f}%)"
            for m, lo, hi, p in zip(part["mean"], part["lower"], part["upper"], part["p_played"])
        ]
        decks = list(part.index)
    rows = pd.DataFrame({"deck": decks, **wide})
    return _table(rows, "table-nash")


def _spreads_html(result: Analyses) -> str:
    s = result.spreads
    names = {
        "sd_player": "spread of player skills, sd_player",
        "sd_skill_difference": "spread of the skill difference, √2·sd_player",
        "sd_deck": "spread of the deck matchup, sd_deck",
        "ratio": "ratio sd_player / sd_deck",
        "skill_share": "skill share of the log-odds variance",
        "sd_familiarity": "spread of the player-deck familiarity part",
    }
    rows = pd.DataFrame(
        {
            "quantity": [names.get(k, k) for k in s.index],
            "posterior mean": [_fmt(v) for v in s["mean"]],
            "posterior interval": [_interval(lo, hi) for lo, hi in zip(s["lower"], s["upper"])],
        }
    )
    prior = result.prior_spread_draws
    if prior is not None:
        tail = (1 - result.interval) / 2
        rows["prior interval"] = [
            _interval(*np.quantile(prior[k], [tail, 1 - tail])) if k in prior else "–"
            for k in s.index
        ]
    return _table(rows, "table-spreads")


def _brier_html(result: Analyses) -> str:
    b = result.brier
    rows = pd.DataFrame(
        {
            "forecasts": list(b.index),
            "matches": b["n"].astype(int).to_numpy(),
            "Brier score": [_fmt(v, 3) for v in b["brier"]],
            "reliability": [_fmt(v, 4) for v in b["reliability"]],
            "resolution": [_fmt(v, 4) for v in b["resolution"]],
            "uncertainty": [_fmt(v, 4) for v in b["uncertainty"]],
        }
    )
    return _table(rows, "table-brier")


def _convergence_html(result: Analyses) -> str:
    c = result.convergence
    rows = pd.DataFrame(
        {
            "check": [
                "chains × draws",
                "largest R-hat (want ≤ 1.01)",
                "smallest bulk ESS (want ≥ 400)",
                "smallest tail ESS (want ≥ 400)",
                "divergent transitions (want 0)",
            ],
            "value": [
                f"{c['chains']} × {c['draws']}",
                _fmt(c["max_rhat"], 3) if c["max_rhat"] is not None else "– (one chain)",
                _fmt(c["min_ess_bulk"], 0),
                _fmt(c["min_ess_tail"], 0),
                str(c["divergences"]),
            ],
        }
    )
    parts = [_table(rows, "table-convergence")]
    problems = list(c["problems"])
    if result.held_out is not None and result.held_out.problems:
        problems += [f"held-out model: {p}" for p in result.held_out.problems]
    if problems:
        items = "".join(f"<li>{html.escape(p)}</li>" for p in problems)
        parts.append(
            '<div class="warning"><p><strong>Some checks failed</strong>, so treat the '
            "numbers below with care. Refit with more draws and tuning steps (more draws "
            "raise the effective sample size) or a higher target acceptance rate (fewer "
            f"divergences).</p><ul>{items}</ul></div>"
        )
    else:
        parts.append('<p class="ok">All convergence checks passed.</p>')
    return "\n".join(parts)


_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0;
       color: #222; background: #fafafa; line-height: 1.5; }
main { max-width: 980px; margin: 0 auto; padding: 1rem 1.5rem 3rem; background: #fff; }
h1 { margin-bottom: 0.2rem; } h2 { border-bottom: 2px solid #0072B2; padding-bottom: 0.2rem;
margin-top: 2.5rem; }
nav { font-size: 0.9rem; margin: 1rem 0; } nav a { margin-right: 0.9rem; color: #0072B2; }
figure { margin: 1rem 0; text-align: center; } figure img { max-width: 100%; height: auto; }
figcaption { font-size: 0.85rem; color: #555; }
table.data { border-collapse: collapse; font-size: 0.85rem; margin: 0.5rem 0 1rem; }
table.data th, table.data td { padding: 0.2rem 0.6rem; border-bottom: 1px solid #ddd;
text-align: right; }
table.data th:first-child, table.data td:first-child,
table.data td:nth-child(2) { text-align: left; }
table.data tr:nth-child(even) { background: #f4f7fa; }
.summary { color: #444; } .ok { color: #006b4f; font-weight: 600; }
.warning { border-left: 4px solid #D55E00; background: #fff4ec; padding: 0.3rem 1rem; }
.key { font-size: 1.05rem; background: #eef5fb; padding: 0.5rem 1rem; border-radius: 4px; }
.source { font-size: 0.8rem; color: #666; font-weight: normal; }
details { margin: 0.5rem 0 1rem; } summary { cursor: pointer; color: #0072B2; }
"""


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
        no external resources.
    """
    if title is None:
        title = (
            "Codex skills and matchups"
            if result.data.get("codex", True)
            else ("Skills and matchups")
        )
    figs = figures(result) if figs is None else figs
    images = {}
    for fig_id, fig in figs.items():
        images[fig_id] = _png(fig)
    pct = f"{round(100 * result.interval)}%"
    prior_draws = f"{analysis.PRIOR_DRAWS:,}"
    d, c = result.data, result.convergence
    esc = html.escape

    m = result.model
    data_line = f"{d['source']}, {d['matches']} matches"
    model_line = (
        f"{m.get('prior_text', 'prior not recorded')}; extensions: "
        f"{m.get('extensions', 'not recorded')}; {m.get('fitting', 'fitting not recorded')}"
    )
    provenance = f"Data: {data_line}. Model: {model_line}."

    def figure(fig_id: str, caption: str) -> str:
        return (
            f'<figure id="{fig_id}"><img src="data:image/png;base64,{images[fig_id]}" '
            f'alt="{esc(caption)}"><figcaption>{esc(caption)}. '
            f'<span class="source">{esc(provenance)}</span></figcaption></figure>'
        )

    def source(extra: str = "") -> str:
        return f'<br><span class="source">{esc(extra + provenance)}</span>'

    span = ""
    if "tournaments" in d:
        span = (
            f" in {d['tournaments']} tournaments ({esc(d['first_tournament'])} to "
            f"{esc(d['last_tournament'])})"
        )
    if "first_date" in d:
        span += f", played {d['first_date']} to {d['last_date']}"
    s = result.spreads
    value = result.nash.attrs.get("value", {})
    b = result.brier
    held = result.held_out
    best = result.skills.index[0]
    top_deck = result.deck_ranking.index[0]

    sections = {}
    k, n_eff = d.get("specs_per_deck", 3), d.get("n_deck_effects", 16)
    st, sp = d.get("starter_word", "starter"), d.get("spec_word", "spec")
    numbers = {0: "no", 1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
    if k == 0:
        deck_words = (
            f"A deck is a {st} alone, and the matchup of two decks is one {st} v {st} "
            "effect, counted from player 1's side, so turn order matters."
        )
    else:
        deck_words = (
            f"A deck is a {st} and {numbers.get(k, str(k))} {sp}{'s' if k > 1 else ''}, and "
            f"the matchup of two decks is built from {n_eff} component effects ({st} v {st}, "
            f"{st} v {sp}, {sp} v {st}, {sp} v {sp}), each counted from player 1's side, so "
            "turn order matters and decks sharing parts share information."
        )
    if d.get("first_move"):
        deck_words += (
            " A first-move effect, the same in every match, adds player 1's advantage of "
            "moving first."
        )
    interact = f", and a deck's {sp}s do not interact with each other" if k > 1 else ""
    sections["methods"] = f"""
<p>Each player has a <em>skill</em> and each pairing of decks a <em>matchup effect</em>;
the chance that player 1 (who moves first) wins is the logistic function of
<code>skill of player 1 − skill of player 2 + matchup</code>, so skills and matchups are on
the log-odds scale: a difference of 0.69 doubles the odds. {deck_words}
Every kind of effect has its own spread, learned from the data, which pulls estimates
from few matches towards the average (partial pooling). The model was fitted by Markov
chain Monte Carlo (the No-U-Turn sampler, {c["chains"]} chains of {c["draws"]} draws), so
every number below comes with its uncertainty: a {pct} interval contains the true value
with {pct} probability, given the model and the data. Player skill does not change over
time in this model{interact}, so read the numbers as averages over the period
covered.</p>"""
    if k == 0:
        spread_formula = "sd_deck = sd_stst, its one component"
    else:
        terms = f"{2 * k} sd_stsp² + {k * k} sd_spsp²" if k > 1 else "2 sd_stsp² + sd_spsp²"
        spread_formula = f"sd_deck = √(sd_stst² + {terms}), from its {n_eff} components"
    sections["convergence"] = (
        "<p>The sampler's output is only a faithful picture of the posterior when its "
        "chains agree (R-hat close to 1), it has enough effectively independent draws "
        "(ESS) and no divergent transitions.</p>" + _convergence_html(result)
    )
    skills_note = ""
    if result.true_skills is not None:
        skills_note = " Crosses mark the true skills the synthetic data were drawn from."
    skills_caption = f"Player skills: posterior mean and {pct} interval"
    if len(result.skills) > _TOP_PLAYERS:
        skills_caption += f" (the {_TOP_PLAYERS} highest of {len(result.skills)} players)"
    sections["skills"] = f"""
<p class="key">Most likely the strongest: <strong>{esc(str(best))}</strong>,
best with probability {result.skills["p_best"].iloc[0]:.2f}.{source()}</p>
<p>Skills are relative: 0 is an average player. Players with few matches have wide
intervals and are pulled towards 0. <em>P(best)</em> is the share of posterior draws in
which the player has the highest skill; <em>likely ranks</em> is the {pct} interval of
their rank.{skills_note}</p>
{figure("fig-skills", skills_caption)}
<details><summary>Every player ({len(result.skills)})</summary>{_skills_html(result)}</details>
"""
    sections["matchups"] = f"""
<p>The chance that player 1 wins when two equally skilled players meet, by deck: rows are
the deck of player 1, who moves first, columns the deck of player 2. Blue favours
player 1, red player 2. The diagonal is the mirror match, where only turn order
differs.</p>
{figure("fig-matchups", "P(player 1 wins) for equally skilled players, by deck")}
<details><summary>The matchup table</summary>{_matchups_html(result)}</details>
"""
    sections["decks"] = f"""
<p class="key">Strongest of the most played decks: <strong>{esc(str(top_deck))}</strong>.
{source()}</p>
<p>The {len(result.deck_ranking)} most played decks, ranked by their chance to beat an
equally skilled opponent whose deck is drawn at random from the same list, with the turn
order decided by a coin flip.</p>
{_decks_html(result)}
"""
    n_nash_decks = result.nash["deck"].nunique()
    sections["nash"] = f"""
<p>If both players pick one of the {n_nash_decks} decks of the matchup table without knowing
the other's choice, the Nash weights are how often each should pick each deck so that the
opponent cannot exploit them. Player 1 (moving first) and player 2 have different weights because
turn order changes the matchups; <em>both roles</em> is a player who must bring one deck
and moves first or second at random. Weights are computed for each of
{result.nash.attrs.get("n_draws", "the")} posterior draws and averaged; "in x%" is the
share of draws in which the deck is played at all. At these weights player 1 wins
with probability {value.get("mean", float("nan")):.2f}
({_interval(value.get("lower", np.nan), value.get("upper", np.nan))}).</p>
{figure("fig-nash", f"Nash weights with {pct} intervals")}
{_nash_html(result)}
"""
    p_more = s.attrs.get("p_skill_matters_more", float("nan"))
    p_spread = s.attrs.get("p_player_spread_larger", float("nan"))
    prior_more = s.attrs.get("prior_p_skill_matters_more", float("nan"))
    prior_spread = s.attrs.get("prior_p_player_spread_larger", float("nan"))
    prior_name = "the balanced prior" if m.get("prior") == "balanced" else "the log-normal prior"
    sections["skill-versus-decks"] = f"""
<p class="key">Probability that a match depends more on who plays than on what they
play: <strong>{p_more:.2f}</strong> after seeing the matches, against
<strong id="prior-p-skill">{prior_more:.2f}</strong> before seeing any, under
{prior_name} alone.{source()}</p>
<p>The prior probability is what the model says from its spread priors alone
({esc(m.get("prior_text", ""))}), found by simulating {prior_draws} draws from them;
the data have spoken only as far as the posterior probability moves away from it. The
balanced prior (<code>skcodex fit --prior balanced</code>) puts it at one half.</p>
<p>Between two players picked at random, the skill part of the log-odds varies with spread
√2·sd_player (a difference of two skills); between two decks picked at random, the deck
part varies with spread {spread_formula}. The skill share is the skill part's share of
the variance; skill matters more when it exceeds one half. Comparing the spreads
directly, sd_player exceeds sd_deck with probability {p_spread:.2f} (prior probability
{prior_spread:.2f}).</p>
{figure("fig-spreads", "Posterior of the skill and deck spreads")}
{_spreads_html(result)}
"""
    held_text = ""
    if held is not None:
        held_text = (
            f" The held-out forecasts are for {esc(held.label)} ({len(np.asarray(held.y))} "
            f"matches), made by the same model fitted on the {held.n_train} matches before "
            "it: a fair test, since the model never saw them."
        )
    sections["calibration"] = f"""
<p>Are the forecasts honest? Matches are grouped by forecast probability; in a well
calibrated model player 1 wins about as often as forecast, so the points lie on the
diagonal. The Brier score is the mean squared difference between forecast and result
(lower is better; a coin flip scores 0.250) and splits into reliability (miscalibration,
lower is better), resolution (how well forecasts separate wins from losses, higher is
better) and uncertainty (set by the data): Brier ≈ reliability − resolution +
uncertainty. In-sample forecasts are for the matches the model was fitted on, so they
flatter it.{held_text}</p>
{figure("fig-reliability", "Reliability diagram")}
<p class="source">Brier scores: {esc(provenance)}</p>
{_brier_html(result)}
"""
    nav = "".join(f'<a href="#{k}">{esc(v)}</a>' for k, v in SECTIONS.items())
    body = "\n".join(
        f'<section id="{k}"><h2>{esc(SECTIONS[k])}</h2>{sections[k]}</section>' for k in SECTIONS
    )
    in_sample = b.loc["in-sample", "brier"]
    score = f"in-sample Brier score {in_sample:.3f}"
    if "held-out" in b.index:
        score += f", held-out {b.loc['held-out', 'brier']:.3f}"
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts_seen = f"{d['starters']} {st}s" + (f" and {d['specs']} {sp}s" if k else "") + " seen"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)}</title>
<style>{_CSS}</style>
</head>
<body>
<main>
<h1>{esc(title)}</h1>
<p class="summary">{d["matches"]} matches between {d["players"]} players{span};
{parts_seen}; {score}. Generated {stamp} by
skcodex.</p>
<p class="summary">Data: {esc(data_line)}. Model: {esc(model_line)}.</p>
<nav>{nav}</nav>
{body}
</main>
</body>
</html>
"""


def _csv_tables(result: Analyses) -> dict[str, pd.DataFrame]:
    spreads = result.spreads.rename_axis("quantity").reset_index()
    for key in (
        "p_skill_matters_more",
        "p_player_spread_larger",
        "prior_p_skill_matters_more",
        "prior_p_player_spread_larger",
    ):
        p = result.spreads.attrs[key]
        spreads.loc[len(spreads)] = [key, p, np.nan, np.nan]
    nash = result.nash.copy()
    value = result.nash.attrs.get("value")
    if value:
        nash.loc[len(nash)] = ["game value", "P(player 1 wins)", *value.values(), np.nan]
    calibration = pd.concat(
        [t.assign(sample=label) for label, t in result.reliability.items()], ignore_index=True
    )
    return {
        "skills.csv": result.skills.reset_index(),
        "matchups.csv": result.matchups,
        "deck_ranking.csv": result.deck_ranking.reset_index(),
        "nash.csv": nash,
        "skill_versus_decks.csv": spreads,
        "calibration.csv": calibration[["sample", *calibration.columns[:-1]]],
        "brier.csv": result.brier.reset_index(),
    }


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
    for name, table in _csv_tables(result).items():
        table.to_csv(folder / name, index=False)
    return page
