"""The report's tables as the page prints them, the CSV frames beside it, and each section's words.

Each function takes the `Analyses` of `skcodex.report.analyse`: the ``*_table``
ones give a `Table` of text (numbers rounded, intervals written out, escaped by
the templates), the ``*_csv`` ones a frame unrounded, and the ``*_words`` ones
what a section's template reads besides its tables.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from skcodex._pages.text import Table, fmt, interval_text

if TYPE_CHECKING:
    from skcodex.report._analyses import Analyses

#: The skill figure shows at most this many players (the table shows all).
TOP_PLAYERS = 60


def _intervals(frame: pd.DataFrame) -> list[str]:
    return [interval_text(lo, hi) for lo, hi in zip(frame["lower"], frame["upper"])]


def skills_table(result: Analyses) -> Table:
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


def matchups_table(result: Analyses) -> Table:
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


def decks_table(result: Analyses) -> Table:
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


def nash_table(result: Analyses) -> Table:
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


def spreads_table(result: Analyses) -> Table:
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


def brier_table(result: Analyses) -> Table:
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


def convergence_table(result: Analyses) -> Table:
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


def extensions_table(result: Analyses) -> Table:
    e = _extension_frame(result)
    deck = _deck_word(result)  # "debut deck factor" in the game's own word
    columns = {
        "quantity": [re.sub(r"\bdeck\b", deck, str(what)) for what in e["what"]],
        "scale": list(e["scale"]),
        "posterior mean": [fmt(v) for v in e["mean"]],
        "interval": _intervals(e),
    }
    return Table.from_columns("table-extensions", columns)


def _evidence_frame(result: Analyses, name: str = "part_evidence") -> pd.DataFrame:
    """`Analyses.part_evidence` (or ``name``), or its empty table (analyses made before it)."""
    from skcodex._matchup.part_choice import EVIDENCE_COLUMNS

    evidence = getattr(result, name, None)
    if evidence is None:
        return pd.DataFrame(columns=list(EVIDENCE_COLUMNS))
    return evidence


def _evidence_table(e: pd.DataFrame, table_id: str) -> Table:
    """A table of forward evidence: each candidate against the first (the simplest)."""
    columns = {
        "candidate": list(e["candidate"]),
        "matches forecast": [str(int(n)) for n in e["matches"]],
        "forward log score": [fmt(v, 4) for v in e["log score"]],
        "forward Brier": [fmt(v, 4) for v in e["brier"]],
        f"log score minus {e['candidate'].iloc[0] if len(e) else 'static'} (se)": [
            "" if i == 0 else f"{fmt(d, 2)} ({fmt(se, 2)})"
            for i, (d, se) in enumerate(zip(e["log score - simplest"], e["se"]))
        ],
        "chosen": ["yes" if c else "" for c in e["chosen"]],
    }
    return Table.from_columns(table_id, columns)


def part_evidence_table(result: Analyses) -> Table:
    return _evidence_table(_evidence_frame(result), "table-part-evidence")


def half_life_evidence_table(result: Analyses) -> Table:
    return _evidence_table(
        _evidence_frame(result, "half_life_evidence"), "table-half-life-evidence"
    )


def spreads_csv(result: Analyses) -> pd.DataFrame:
    """The spreads, with the probabilities that skill matters more (posterior and prior)."""
    spreads = result.spreads.rename_axis("quantity").reset_index()
    for key in (
        "p_skill_matters_more",
        "p_player_spread_larger",
        "prior_p_skill_matters_more",
        "prior_p_player_spread_larger",
    ):
        p = result.spreads.attrs[key]
        spreads.loc[len(spreads)] = [key, p, np.nan, np.nan]
    return spreads


def nash_csv(result: Analyses) -> pd.DataFrame:
    """The Nash weights, with the game's value as a last row."""
    nash = result.nash.copy()
    value = result.nash.attrs.get("value")
    if value:
        nash.loc[len(nash)] = ["game value", "P(player 1 wins)", *value.values(), np.nan]
    return nash


def calibration_csv(result: Analyses) -> pd.DataFrame:
    """Every sample's reliability table, one below the other."""
    calibration = pd.concat(
        [t.assign(sample=label) for label, t in result.reliability.items()], ignore_index=True
    )
    return calibration[["sample", *calibration.columns[:-1]]]


def extensions_csv(result: Analyses) -> pd.DataFrame:
    """The fitted values of the optional parts."""
    return _extension_frame(result).rename_axis("name").reset_index()


def part_evidence_csv(result: Analyses) -> pd.DataFrame:
    """How the ``"auto"`` parts were decided."""
    return _evidence_frame(result)


def half_life_evidence_csv(result: Analyses) -> pd.DataFrame:
    """How an ``"auto"`` half-life was decided."""
    return _evidence_frame(result, "half_life_evidence")


def skills_words(result: Analyses) -> dict[str, Any]:
    """The skills section's headline and figure caption."""
    caption = f"Player skills: posterior mean and {round(100 * result.interval)}% interval"
    if len(result.skills) > TOP_PLAYERS:
        caption += f" (the {TOP_PLAYERS} highest of {len(result.skills)} players)"
    return {
        "skills": {
            "best": str(result.skills.index[0]),
            "p_best": result.skills["p_best"].iloc[0],
            "n": len(result.skills),
            "caption": caption,
            "truth": result.true_skills is not None,
        }
    }


def decks_words(result: Analyses) -> dict[str, Any]:
    """The deck ranking's headline."""
    return {"decks": {"top": str(result.deck_ranking.index[0]), "n": len(result.deck_ranking)}}


def nash_words(result: Analyses) -> dict[str, Any]:
    """The Nash section's numbers: decks, draws and the game's value."""
    value, nan = result.nash.attrs.get("value", {}), float("nan")
    return {
        "nash": {
            "n_decks": result.nash["deck"].nunique(),
            "n_draws": result.nash.attrs.get("n_draws", "the"),
            "value": value.get("mean", nan),
            "value_interval": interval_text(value.get("lower", nan), value.get("upper", nan)),
        }
    }


def spreads_words(result: Analyses) -> dict[str, Any]:
    """The spreads section's probabilities and the formula of the deck spread."""
    d, s, nan = result.data, result.spreads.attrs, float("nan")
    k, n_eff = d.get("specs_per_deck", 3), d.get("n_deck_effects", 16)
    if k == 0:
        formula = "sd_deck = sd_stst, its one component"
    else:
        terms = f"{2 * k} sd_stsp² + {k * k} sd_spsp²" if k > 1 else "2 sd_stsp² + sd_spsp²"
        formula = f"sd_deck = √(sd_stst² + {terms}), from its {n_eff} components"
    return {
        "spreads": {
            "p_more": s.get("p_skill_matters_more", nan),
            "p_spread": s.get("p_player_spread_larger", nan),
            "prior_more": s.get("prior_p_skill_matters_more", nan),
            "prior_spread": s.get("prior_p_player_spread_larger", nan),
            "formula": formula,
        }
    }


def calibration_section_words(result: Analyses) -> dict[str, Any]:
    """The calibration section's verdict (`calibration_words`)."""
    return {"calibration_words": calibration_words(result)}


def advice_section_words(result: Analyses) -> dict[str, Any]:
    """What the advice section reads (`skcodex.report._advice.advice_words`); none without it."""
    advice = result.extra.get("advice")
    if advice is None:
        return {}
    from skcodex.report._advice import advice_words

    words = result.data
    symmetric = bool(result.model.get("symmetric", False))
    deck = str(words.get("deck_word", "deck"))
    return {"advice": advice_words(advice, deck_word=deck, symmetric=symmetric)}
