"""The report's page: its tables as text, the templates' context, and the CSV frames.

`render_page` renders the templates of ``skcodex/templates`` (Jinja2, HTML
autoescaped) with the numbers and words of the analyses; `page_tables` turns
the analyses of `skcodex.report.analyse` into the tables the page shows
(numbers rounded and intervals written out, as text the templates escape);
`csv_tables` gives the same analyses unrounded, as the CSV files
`skcodex.report.write_report` writes beside the page.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from skcodex._diagnostics import grouped_problems
from skcodex.analysis import PRIOR_DRAWS

if TYPE_CHECKING:
    from skcodex.report import Analyses

__all__ = [
    "TOP_PLAYERS",
    "Table",
    "csv_tables",
    "fmt",
    "interval_text",
    "page_tables",
    "render_page",
    "render_template",
]

#: The skill figure shows at most this many players (the table shows all).
TOP_PLAYERS = 60


@dataclass(frozen=True)
class Table:
    """One table of the page: its element id, column headings and rows of text."""

    id: str
    columns: list[str]
    rows: list[list[Any]]

    @classmethod
    def from_columns(cls, table_id: str, columns: dict[str, Any]) -> Table:
        """A table from its columns, each a heading and the column's values."""
        values = [list(v) for v in columns.values()]
        return cls(table_id, list(columns), [list(row) for row in zip(*values)])


def fmt(value: Any, digits: int = 2) -> str:
    """A number as the page prints it: ``–`` for a missing one, integers whole."""
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "–"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return f"{float(value):.{digits}f}"


def interval_text(lower: float, upper: float, digits: int = 2) -> str:
    """An interval as the page prints it, ``lower to upper``."""
    return f"{lower:.{digits}f} to {upper:.{digits}f}"


def _intervals(frame: pd.DataFrame) -> list[str]:
    return [interval_text(lo, hi) for lo, hi in zip(frame["lower"], frame["upper"])]


def _skills(result: Analyses) -> Table:
    s = result.skills
    columns = {
        "rank": range(1, len(s) + 1),
        "player": [str(p) for p in s.index],
        "skill": [fmt(v) for v in s["mean"]],
        "interval": _intervals(s),
        "P(best)": [fmt(v) for v in s["p_best"]],
        "likely ranks": [
            f"{int(lo)}–{int(hi)}" for lo, hi in zip(s["rank_lower"], s["rank_upper"])
        ],
    }
    for name in ("matches", "wins"):
        if name in s.columns:
            columns[name] = s[name].tolist()
    return Table.from_columns("table-skills", columns)


def _deck_word(result: Analyses) -> str:
    return str(result.data.get("deck_word", "deck"))


def _matchups(result: Analyses) -> Table:
    m = result.matchups
    deck, player1 = _deck_word(result), result.data.get("player1", "who moves first")
    first = {"who moves first": " (first)", "listed first": " (listed first)"}.get(player1, "")
    columns = {
        f"player 1's {deck}{first}": m["deck1"].astype(str),
        f"player 2's {deck}": m["deck2"].astype(str),
        "P(player 1 wins)": [fmt(v) for v in m["mean"]],
        "interval": _intervals(m),
        "P(player 1 favoured)": [fmt(v) for v in m["p_favoured"]],
    }
    return Table.from_columns("table-matchups", columns)


def _decks(result: Analyses) -> Table:
    d = result.deck_ranking
    columns = {
        _deck_word(result): [str(x) for x in d.index],
        "P(win) v the field": [fmt(v) for v in d["mean"]],
        "interval": _intervals(d),
        "P(best)": [fmt(v) for v in d["p_best"]],
        "mean rank": [fmt(v, 1) for v in d["rank_mean"]],
        "times played": d["played"].tolist(),
    }
    return Table.from_columns("table-decks", columns)


def _nash(result: Analyses) -> Table:
    n = result.nash
    columns: dict[str, Any] = {}
    for role in dict.fromkeys(n["role"]):
        part = n[n["role"] == role].set_index("deck")
        columns["deck"] = [str(deck) for deck in part.index]
        columns[role] = [
            f"{m:.2f} ({interval_text(lo, hi)}; in {100 * p:.0f}%)"
            for m, lo, hi, p in zip(part["mean"], part["lower"], part["upper"], part["p_played"])
        ]
    deck = columns.pop("deck", [])
    return Table.from_columns("table-nash", {_deck_word(result): deck, **columns})


#: What the spreads table calls each quantity.
_SPREAD_NAMES = {
    "sd_player": "spread of player skills, sd_player",
    "sd_skill_difference": "spread of the skill difference, √2·sd_player",
    "sd_deck": "spread of the {deck} matchup, sd_deck",
    "ratio": "ratio sd_player / sd_deck",
    "skill_share": "skill share of the log-odds variance",
    "sd_familiarity": "spread of the player-{deck} familiarity part",
}


def _spreads(result: Analyses) -> Table:
    s = result.spreads
    columns = {
        "quantity": [_SPREAD_NAMES.get(k, k).format(deck=_deck_word(result)) for k in s.index],
        "posterior mean": [fmt(v) for v in s["mean"]],
        "posterior interval": _intervals(s),
    }
    prior = result.prior_spread_draws
    if prior is not None:
        tail = (1 - result.interval) / 2
        columns["prior interval"] = [
            interval_text(*np.quantile(prior[k], [tail, 1 - tail])) if k in prior else "–"
            for k in s.index
        ]
    return Table.from_columns("table-spreads", columns)


def _brier(result: Analyses) -> Table:
    b = result.brier
    columns = {
        "forecasts": list(b.index),
        "matches": b["n"].astype(int).tolist(),
        "Brier score": [fmt(v, 3) for v in b["brier"]],
        **{name: [fmt(v, 4) for v in b[name]] for name in ("reliability", "resolution")},
        "uncertainty": [fmt(v, 4) for v in b["uncertainty"]],
    }
    if "calibration_error" in b:
        columns["calibration error"] = [fmt(v, 3) for v in b["calibration_error"]]
        pct = f"{round(100 * result.interval)}%"
        columns[f"calibration slope ({pct} interval)"] = [
            "–" if not np.isfinite(v) else f"{v:.2f} ({interval_text(lo, hi)})"
            for v, lo, hi in zip(b["slope"], b["slope_lower"], b["slope_upper"])
        ]
    return Table.from_columns("table-brier", columns)


def calibration_words(result: Analyses) -> list[str]:
    """The calibration section's verdict in plain words, on the fairest forecasts there are.

    The held-out forecasts when there are any, else the in-sample ones, said
    to flatter the model. The slope and the favourites' check are judged by
    their intervals, not their points.
    """
    b = result.brier
    if "calibration_error" not in b:
        return []
    label = "held-out" if result.held_out is not None and "held-out" in b.index else "in-sample"
    row = b.loc[label]
    pct = f"{round(100 * result.interval)}%"
    ece = f"{row['calibration_error']:.3f}"
    if label == "held-out":
        words = [
            "Judged on the held-out forecasts, for matches the model did not see, the "
            f"expected calibration error is {ece}."
        ]
    else:
        words = [
            "No matches were held out, so these are in-sample forecasts, for matches the "
            "model was fitted on: they look better calibrated than forecasts of new matches "
            "would, and a model that is overconfident on new matches can look calibrated "
            f"here. Their expected calibration error is {ece}."
        ]
    if np.isfinite(row["slope"]):
        lo, hi = row["slope_lower"], row["slope_upper"]
        said = f"The calibration slope is {row['slope']:.2f}"
        said += f" ({pct} interval {interval_text(lo, hi)})"
        if hi < 1:
            said += ": below 1, the forecasts are too bold (too far from 50%)."
        elif lo > 1:
            said += ": above 1, the forecasts are too timid (too close to 50%)."
        else:
            said += ": its interval holds 1, as calibrated forecasts' does."
        words.append(said)
    top = result.confident.get(label)
    if top is not None and top["count"] > 0:
        cut = f"{round(100 * top['threshold'])}%"
        n = int(top["count"])
        detail = (
            f"favourites given more than {cut} ({n} matches, {top['mean_forecast']:.0%} on "
            f"average) won {top['observed']:.0%} of them ({pct} interval "
            f"{top['lower']:.0%} to {top['upper']:.0%})"
        )
        if top["overconfident"]:
            words.append(
                f"Forecasts above {cut} come true less often than they say: the {detail}, "
                "so the model is overconfident at the top."
            )
        elif top["underconfident"]:
            words.append(f"Forecasts above {cut} come true more often than they say: the {detail}.")
        else:
            words.append(
                f"Forecasts above {cut} come true about as often as they say: the {detail}."
            )
    return words


def _convergence(result: Analyses) -> Table:
    c = result.convergence
    rhat = fmt(c["max_rhat"], 3) if c["max_rhat"] is not None else "– (one chain)"
    rows = [
        ["chains × draws", f"{c['chains']} × {c['draws']}"],
        ["largest R-hat (want ≤ 1.01)", rhat],
        ["smallest bulk ESS (want ≥ 400)", fmt(c["min_ess_bulk"], 0)],
        ["smallest tail ESS (want ≥ 400)", fmt(c["min_ess_tail"], 0)],
        ["divergent transitions (want 0)", str(c["divergences"])],
    ]
    return Table("table-convergence", ["check", "value"], rows)


def _extension_frame(result: Analyses) -> pd.DataFrame:
    """`Analyses.extensions`, or its empty table for analyses made before it existed."""
    if result.extensions is None:
        return pd.DataFrame(columns=["what", "scale", "mean", "lower", "upper"])
    return result.extensions


def _extensions(result: Analyses) -> Table:
    e = _extension_frame(result)
    deck = _deck_word(result)  # "debut deck factor" in the game's own word
    columns = {
        "quantity": [re.sub(r"\bdeck\b", deck, str(what)) for what in e["what"]],
        "scale": list(e["scale"]),
        "posterior mean": [fmt(v) for v in e["mean"]],
        "interval": _intervals(e),
    }
    return Table.from_columns("table-extensions", columns)


def _evidence_frame(result: Analyses) -> pd.DataFrame:
    """`Analyses.part_evidence`, or its empty table (analyses made before it existed)."""
    from skcodex._part_choice import EVIDENCE_COLUMNS

    if result.part_evidence is None:
        return pd.DataFrame(columns=list(EVIDENCE_COLUMNS))
    return result.part_evidence


def _part_evidence(result: Analyses) -> Table:
    e = _evidence_frame(result)
    columns = {
        "candidate": list(e["candidate"]),
        "matches forecast": [str(int(n)) for n in e["matches"]],
        "forward log score": [fmt(v, 4) for v in e["log score"]],
        "forward Brier": [fmt(v, 4) for v in e["brier"]],
        "log score minus static (se)": [
            "" if i == 0 else f"{fmt(d, 2)} ({fmt(se, 2)})"
            for i, (d, se) in enumerate(zip(e["log score - simplest"], e["se"]))
        ],
        "chosen": ["yes" if c else "" for c in e["chosen"]],
    }
    return Table.from_columns("table-part-evidence", columns)


#: What the page says of a model whose options were not recorded (``Analyses.model`` empty).
_UNRECORDED_MODEL = {
    "method": "nuts",
    "sampler": None,
    "time_varying": False,
    "synergy": False,
    "familiarity": False,
    "first_move": False,
    "debut": False,
    "period_offset": False,
    "experience": False,
    "symmetric": False,
    "n_epochs": 0,
    "prior_kind": "unrecorded",
    "prior_name": "its prior",
    "prior_text": "prior not recorded",
}


def page_tables(result: Analyses) -> dict[str, Table]:
    """Every table of the page by name, as text.

    Parameters
    ----------
    result : skcodex.report.Analyses

    Returns
    -------
    dict of str to Table
        ``skills``, ``matchups``, ``decks``, ``nash``, ``spreads``, ``brier``,
        ``convergence``, ``extensions`` (the fitted values of the model's
        optional parts, `skcodex.analysis.extension_table`; no rows for the
        seed model) and ``part_evidence`` (how the ``"auto"`` parts were
        decided, `skcodex.analysis.part_evidence`; no rows when none was);
        each table's id is ``table-`` and its name.
    """
    makers = {
        "skills": _skills,
        "matchups": _matchups,
        "decks": _decks,
        "nash": _nash,
        "spreads": _spreads,
        "brier": _brier,
        "convergence": _convergence,
        "extensions": _extensions,
        "part_evidence": _part_evidence,
    }
    return {name: make(result) for name, make in makers.items()}


def csv_tables(result: Analyses) -> dict[str, pd.DataFrame]:
    """The analyses as the CSV files beside the page, by file name (unrounded).

    Parameters
    ----------
    result : skcodex.report.Analyses

    Returns
    -------
    dict of str to pandas.DataFrame
        One frame per name of `skcodex.report.CSV_FILES`.
    """
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
        "extensions.csv": _extension_frame(result).rename_axis("name").reset_index(),
        "part_evidence.csv": _evidence_frame(result),
    }


@functools.cache
def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("skcodex", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


def render_page(result: Analyses, title: str, images: dict[str, str], sections: dict) -> str:
    """The page's HTML from the templates (``skcodex/templates``, autoescaped).

    Parameters
    ----------
    result : skcodex.report.Analyses
    title : str
    images : dict of str to str
        Each figure's PNG, base64-encoded, by figure id.
    sections : dict of str to str
        The page's sections in order, id to heading.

    Returns
    -------
    str
    """
    return render_template("report.html.j2", _context(result, title, images, sections))


def render_template(name: str, context: dict[str, Any]) -> str:
    """One template of ``skcodex/templates`` rendered (autoescaped) with ``context``."""
    return _environment().get_template(name).render(context)


def _context(result: Analyses, title: str, images: dict, sections: dict) -> dict[str, Any]:
    """What the templates read: the analyses' numbers and words, and the figures."""
    d, c, m = result.data, result.convergence, result.model
    data_line = f"{d['source']}, {d['matches']} matches"
    model_line = (
        f"{m.get('prior_text', 'prior not recorded')}; extensions: "
        f"{m.get('extensions', 'not recorded')}; {m.get('fitting', 'fitting not recorded')}"
    )
    k, n_eff = d.get("specs_per_deck", 3), d.get("n_deck_effects", 16)
    if k == 0:
        formula = "sd_deck = sd_stst, its one component"
    else:
        terms = f"{2 * k} sd_stsp² + {k * k} sd_spsp²" if k > 1 else "2 sd_stsp² + sd_spsp²"
        formula = f"sd_deck = √(sd_stst² + {terms}), from its {n_eff} components"
    s, value = result.spreads.attrs, result.nash.attrs.get("value", {})
    caption = f"Player skills: posterior mean and {round(100 * result.interval)}% interval"
    if len(result.skills) > TOP_PLAYERS:
        caption += f" (the {TOP_PLAYERS} highest of {len(result.skills)} players)"
    held = result.held_out
    problems = list(c["problems"])
    deck = _deck_word(result)  # the family of matchup effects in the game's own word
    groups = grouped_problems(problems, deck)
    if held is not None:
        problems += [f"held-out model: {p}" for p in held.problems]
        groups += [f"held-out model, {g}" for g in grouped_problems(list(held.problems), deck)]
    forecasts = c.get("forecasts")
    nan = float("nan")
    return {
        "title": title,
        "sections": sections,
        "images": images,
        "d": d,
        "c": c,
        "m": {**_UNRECORDED_MODEL, **m},
        "k": k,
        "st": d.get("starter_word", "starter"),
        "sp": d.get("spec_word", "spec"),
        "dk": d.get("deck_word", "deck"),
        "p1": d.get("player1", "who moves first"),
        "turns": d.get("player1", "who moves first") == "who moves first",
        "codex": d.get("codex", True),
        "pct": f"{round(100 * result.interval)}%",
        "prior_draws": f"{PRIOR_DRAWS:,}",
        "data_line": data_line,
        "model_line": model_line,
        # the whole data-and-model line is given once, at the top; figures and tables
        # name their data in short
        "provenance": f"Data: {data_line}; model as described at the top of the page.",
        "stamp": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "calibration_words": calibration_words(result),
        "brier": result.brier["brier"].to_dict(),
        "brier_n": {k: int(v) for k, v in result.brier["n"].items()},
        "tables": page_tables(result),
        "problems": problems,
        "problem_groups": groups,
        "forecast_check": None if forecasts is None else forecasts["sentence"],
        "skills": {
            "best": str(result.skills.index[0]),
            "p_best": result.skills["p_best"].iloc[0],
            "n": len(result.skills),
            "caption": caption,
            "truth": result.true_skills is not None,
        },
        "decks": {"top": str(result.deck_ranking.index[0]), "n": len(result.deck_ranking)},
        "nash": {
            "n_decks": result.nash["deck"].nunique(),
            "n_draws": result.nash.attrs.get("n_draws", "the"),
            "value": value.get("mean", nan),
            "value_interval": interval_text(value.get("lower", nan), value.get("upper", nan)),
        },
        "spreads": {
            "p_more": s.get("p_skill_matters_more", nan),
            "p_spread": s.get("p_player_spread_larger", nan),
            "prior_more": s.get("prior_p_skill_matters_more", nan),
            "prior_spread": s.get("prior_p_player_spread_larger", nan),
            "formula": formula,
        },
        "held": None
        if held is None
        else {"label": held.label, "n": len(np.asarray(held.y)), "n_train": held.n_train},
    }
