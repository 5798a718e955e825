"""Stacking the candidates by their forward scores, judged by the rule for changing a default.

Stacking (Yao, Vehtari, Simpson and Gelman 2018) forecasts with a weighted mix of the
candidates' predictive distributions, the weights chosen to maximise the mix's log score
on forecasts made before the outcomes were known. Here those are the record's own
forward folds: fold ``f`` is forecast by

    w_static * P_static + w_walk+debut * P_walk+debut   (+ w_debut * P_debut)

with the weights that maximise the summed log score of the mix over every match of the
folds before ``f`` (and the static model alone for the first fold, which has no earlier
forecasts): `skcodex.evaluation.forward_stacking`. Every weight and the fold forecasts
come from fits made before the fold began, so each fold's forecast is a forward forecast.

Two methods, both fixed before any of them was scored:

- ``stacking: static, walk + debut``: the two candidates of the earlier ``"auto"``;
- ``stacking: static, debut, walk + debut``: with the debut option alone as a third.

Each is judged by the rule of docs/model-choice.md against the static model, on the
shared forum data and every public record of `default_rule` (whose forecasts it reuses,
from ``--cache`` when fitted before).

Run: python benchmarks/forward_stacking.py [--records codex,nfl,hockey,football,chess] [--extend]
     [--cache DIR] [--out benchmarks/results/forward_stacking.json] [--markdown]
"""

from __future__ import annotations

import warnings

from default_rule import (
    DEBUT,
    EARLIER,
    STATIC_NAME,
    cached_forecasts,
    halves,
    models,
    record,
    rule,
    rule_arguments,
    run_records,
    verdict_lines,
)

from skcodex import brier_score
from skcodex.evaluation import forward_stacking

#: The rating system the forum data's later half is compared with (when installed).
REFERENCE = "WHR"
#: Each method's candidates, the static model first.
METHODS = {
    "stacking: static, walk + debut": (STATIC_NAME, EARLIER),
    "stacking: static, debut, walk + debut": (STATIC_NAME, DEBUT, EARLIER),
}


def evaluate(name: str, args) -> dict:
    X, y, cv, catalogue = record(name, args)
    wanted = {c for cands in METHODS.values() for c in cands} | {REFERENCE}
    chosen = {m: model for m, model in models(catalogue, args.draws).items() if m in wanted}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        forecasts = cached_forecasts(chosen, X, y, cv, args.cache)
    out = {"matches": len(forecasts), "folds": int(forecasts["split"].nunique())}
    for method, candidates in METHODS.items():
        forecasts = forward_stacking(forecasts, list(candidates), name=method)
        out[f"rule: {method} against static"] = rule(forecasts, method, STATIC_NAME)
        weights = forecasts.attrs["stacking_weights"].round(3)
        out[f"weights: {method}"] = weights.reset_index().to_dict(orient="records")
    out[f"rule: {EARLIER} against static"] = rule(forecasts, EARLIER, STATIC_NAME)
    names = [STATIC_NAME, EARLIER, *METHODS, *([REFERENCE] if REFERENCE in forecasts else [])]
    out["brier"] = {
        window: {m: brier_score(part["y"], part[m]) for m in names}
        for window, part in halves(forecasts).items()
    }
    return out


def markdown(result: dict) -> str:
    lines = [
        "| change against the static model | record | all folds (se) | earlier half "
        "| later half | last fold's weights |",
        "|---|---|---:|---:|---:|---|",
    ]
    for name, rec in result["records"].items():
        for key in [k for k in rec if k.startswith("rule:")]:
            parts = rec[key]["parts"]
            method = key[6:].removesuffix(" against static")
            weights = rec.get(f"weights: {method}", [{}])[-1]
            w = ", ".join(f"{v:.2f}" for k, v in weights.items() if k != "split")
            lines.append(
                f"| {method} | {name} | {parts['all folds']['difference']:+.4f} "
                f"({parts['all folds']['se']:.4f}) | {parts['earlier half']['difference']:+.4f} "
                f"| {parts['later half']['difference']:+.4f} | {w} |"
            )
    lines += [
        "\n| Brier score | record | all folds | earlier half | later half |",
        "|---|---|---:|---:|---:|",
    ]
    for name, rec in result["records"].items():
        for m in rec["brier"]["all folds"]:
            cells = " | ".join(f"{rec['brier'][w][m]:.4f}" for w in rec["brier"])
            lines.append(f"| {m} | {name} | {cells} |")
    lines += ["", *verdict_lines(result.get("verdicts", {}))]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    args = rule_arguments(__doc__.splitlines()[0], "forward_stacking.json").parse_args(argv)
    return run_records(args, evaluate, markdown)


if __name__ == "__main__":
    main()
