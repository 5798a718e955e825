"""The walk's start, judged on forecasts: each record's forward folds with both walks.

Every walk model of `default_rule` (the walk with the debut option, and the walk under
the exponential step prior with and without it) is fitted on each record's forward folds
twice: as it now stands (each player's walk from the first period they played) and with
the walk of earlier versions (every walk from the table's first period, `FromFirstPeriod`
of `walk_anchor`). Prints, per record and model, the Brier score of each and their
paired difference (now minus before) with its standard error.

Writes benchmarks/results/walk_anchor_forecasts.json.

Run: python benchmarks/walk_anchor_forecasts.py [--records codex,nfl,hockey,football]
     [--cache DIR] [--extend] [--markdown]
"""

from __future__ import annotations

import warnings

import numpy as np
from default_rule import (
    EARLIER,
    EXPONENTIAL_WALK,
    EXPONENTIAL_WALK_DEBUT,
    cached_forecasts,
    models,
    record,
    rule_arguments,
    run_records,
)
from walk_anchor import FromFirstPeriod

WALKS = (EARLIER, EXPONENTIAL_WALK, EXPONENTIAL_WALK_DEBUT)


def before(model):
    """The same model with the walk of earlier versions."""
    return FromFirstPeriod(**model.get_params())


def evaluate(name: str, args) -> dict:
    X, y, cv, catalogue = record(name, args)
    chosen = models(catalogue, args.draws)
    out = {}
    for walk in WALKS:
        pair = {"now": chosen[walk], "before": before(chosen[walk])}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            forecasts = cached_forecasts(pair, X, y, cv, args.cache)
        yy = forecasts["y"].to_numpy()
        now, old = ((yy - forecasts[k].to_numpy()) ** 2 for k in ("now", "before"))
        d = now - old
        out[walk] = {
            "matches": len(d),
            "brier now": float(now.mean()),
            "brier before": float(old.mean()),
            "now minus before": float(d.mean()),
            "se": float(d.std(ddof=1) / np.sqrt(len(d))),
            "identical": bool(np.array_equal(forecasts["now"], forecasts["before"])),
        }
    return out


def markdown(result: dict) -> str:
    lines = [
        "| record | model | Brier now | before | now minus before (se) | identical |",
        "|---|---|---:|---:|---|---|",
    ]
    for name, rec in result["records"].items():
        for walk, r in rec.items():
            lines.append(
                f"| {name} | {walk} | {r['brier now']:.4f} | {r['brier before']:.4f} | "
                f"{r['now minus before']:+.5f} ({r['se']:.5f}) | {r['identical']} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    args = rule_arguments(__doc__.splitlines()[0], "walk_anchor_forecasts.json").parse_args(argv)
    return run_records(args, evaluate, markdown)


if __name__ == "__main__":
    main()
