"""The default against WHR on the forum folds, and every judged change on the later half.

Reads the results the rule's benchmarks wrote (nothing is fitted) and prints the two
tables of docs/real-data.md's "The default against WHR, half by half" and "What would
reach WHR on the later half":

- each window's Brier score of the default, the static model and WHR, with the
  default's paired difference from WHR and its 95% bootstrap interval
  (``newcomer_mean.json``, key ``minus WHR``);
- every change judged by the rule (docs/model-choice.md), with its Brier score on the
  later half, on the later half's matches with a newcomer (where the benchmark records
  that split) and on the earlier half, and whether it is at or below WHR on the later
  half. The verdicts are the rule's, as that page's table gives them.

Run: python benchmarks/whr_goal.py
"""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
WHR = "WHR"
STATIC = "skcodex static"
DEFAULT = "skcodex static, newcomers around late arrivals"

#: (row label, results file, the model's name there, the rule's verdict).
CHANGES = [
    (
        "debut + experience",
        "default_rule.json",
        "skcodex debut + experience",
        "loses on the NFL, the Premier League and the NBA",
    ),
    ("walk + debut", "default_rule.json", "skcodex walk + debut", "loses on hockey"),
    (
        "debut",
        "default_rule.json",
        "skcodex debut",
        "loses on the NFL, hockey and the Premier League",
    ),
    (
        "walk, exponential step + debut",
        "default_rule.json",
        "skcodex exponential-step walk + debut",
        "loses on the NFL and hockey",
    ),
    (
        "stacking by forward scores",
        "forward_stacking.json",
        "stacking: static, walk + debut",
        "loses on hockey",
    ),
    (
        "newcomers at a level calibrated on debuts",
        "newcomer_variants.json",
        "level calibrated on debuts",
        "loses on chess",
    ),
    (
        "newcomers around a deconvolved late-arrival mean",
        "newcomer_variants.json",
        "deconvolved late-arrival mean",
        "loses on chess",
    ),
    (
        "newcomers with the late arrivals' spread",
        "newcomer_variants.json",
        "late arrivals' spread",
        "loses on the Premier League, against the default",
    ),
    (
        "**newcomers around the late arrivals (the default)**",
        "newcomer_mean.json",
        DEFAULT,
        "passes",
    ),
    (
        "exponential spec spreads",
        "default_rule.json",
        "skcodex exponential spec spreads",
        "fails point 3: its form changed after a record was scored",
    ),
    (
        '`half_life="auto"`',
        "time_decay.json",
        "half-life chosen by forward evidence",
        "never chosen on the forum folds",
    ),
    (
        "forward evidence",
        "default_rule.json",
        "skcodex forward evidence",
        "loses on the NFL and chess",
    ),
    (
        "walk, exponential step",
        "default_rule.json",
        "skcodex exponential-step walk",
        "loses on the NFL and hockey",
    ),
    (
        "`half_life=8`",
        "time_decay.json",
        "half-life 8 periods",
        "loses on the forum folds and hockey",
    ),
    ("static (the rule's incumbent)", "default_rule.json", STATIC, ""),
    (WHR, "default_rule.json", WHR, None),
]


def _codex(name: str) -> dict:
    return json.loads((RESULTS / name).read_text())["records"]["codex"]


def brier(record: dict, window: str, model: str) -> float:
    """``model``'s Brier score on ``window`` of a record as any of the benchmarks store it."""
    scores = record["windows"][window] if "windows" in record else record["brier"][window]
    return scores["brier"][model] if "brier" in scores else scores[model]


def newcomer_brier(record: dict, model: str) -> float | None:
    """``model``'s Brier score on the later half's matches with a newcomer, if recorded."""
    entry = record.get("newcomers", {}).get("later half", {}).get("with a newcomer")
    return None if entry is None else entry["brier"].get(model)


def half_by_half() -> list[str]:
    record = _codex("newcomer_mean.json")
    lines = [
        "| window | matches | skcodex default | skcodex static | WHR "
        "| default minus WHR [95% interval] |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for window, entry in record["windows"].items():
        d = record["minus WHR"][window]
        lines.append(
            f"| {window} | {entry['matches']} | {entry['brier'][DEFAULT]:.4f} "
            f"| {entry['brier'][STATIC]:.4f} | {entry['brier'][WHR]:.4f} "
            f"| {_signed(d['difference'])} [{_signed(d['lower'])}, {_signed(d['upper'])}] |"
        )
    return lines


def changes() -> list[str]:
    whr = brier(_codex("default_rule.json"), "later half", WHR)
    lines = [
        "| change | later half (267) | with a newcomer (79) | earlier half (315) "
        "| at or below WHR | the rule |",
        "|---|---:|---:|---:|---|---|",
    ]
    for label, name, model, verdict in CHANGES:
        record = _codex(name)
        later = brier(record, "later half", model)
        new = newcomer_brier(record, model)
        cells = [
            f"**{later:.4f}**" if label.startswith("**") else f"{later:.4f}",
            "" if new is None else f"{new:.4f}",
            f"{brier(record, 'earlier half', model):.4f}",
            "" if verdict is None else ("yes" if later <= whr else "no"),
            verdict or "",
        ]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def _signed(x: float) -> str:
    return f"{x:+.4f}".replace("-", "\u2212")


def main() -> str:
    text = "\n".join([*half_by_half(), "", *changes()])
    print(text)
    return text


if __name__ == "__main__":
    main()
