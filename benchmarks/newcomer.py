"""The debut offset on the forward folds, beside the other projects' rating systems.

Same folds as benchmarks/forecast.py: the last 8 tournaments of the shared data, each
forecast by models fitted on every match that ended before it started. Compared: the
Bayesian model with the estimator's defaults (on these tables the debut option and the
skill walk), the static model with and without the debut option, the defaults with the
per-period offset, the model with each set of parameters named on the command line,
Whole-History Rating, TrueSkill Through Time and OpenSkill
(benchmarks/rating_systems.py, settings as in benchmarks/forecast.py). Prints the Brier
score per tournament and pooled, the pooled log loss, the Brier of the matches with a
newcomer (a player never seen in training) and between players both seen, and a paired
bootstrap interval over matches of each model's pooled Brier minus WHR's. In the
matches of one newcomer against a seen player it also gives how often the newcomer won,
each model's calibration slope there (of P(newcomer wins)), and each model's Brier in
the matches between two newcomers. With more than eight folds it also gives each model's
pooled Brier over all folds, the last eight and the folds before them, with a paired
bootstrap interval of its difference from the default in each. ``--newcomer-rule MODEL``
adds a forecast rule that takes MODEL's forecast for the matches with a newcomer (known
before the match) and the default's for the rest.

Writes benchmarks/results/newcomer.json (``--out``); ``--markdown`` prints the docs'
table (docs/real-data.md) from it.

Run: python benchmarks/newcomer.py [--splits 8] [--draws 1000] [--chains 4] [--cache DIR]
     [--variant NAME=PARAM:VALUE,...] [--newcomer-rule MODEL]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import forecast
import numpy as np
import pandas as pd
from forecast import (
    DEFAULT_DATA,
    HERE,
    STATIC,
    cached_forecasts,
    calibration_slope,
    forecast_key,
    rating_systems,
)
from forecast_player_part import newcomers

from skcodex import BayesianMatchupClassifier, TournamentSplit, brier_score
from skcodex.datasets import load_codex_matches
from skcodex.evaluation import paired_bootstrap, score_table

#: Models compared with the defaults (on these tables the debut option and the skill walk),
#: by the name they carry in the table: the static model without debut (the seed's
#: structure, the estimator's default before "auto"), the debut option with static skills,
#: and the defaults plus the per-period offset.
VARIANTS = {
    "skcodex static": STATIC,
    "skcodex static + debut": {"time_varying": False},
    "skcodex + period offset": {"period_offset": True},
}

REFERENCE = "WHR"


def parse_variant(text: str) -> tuple[str, dict]:
    """``"name=param:value,param:value"`` as a name and estimator parameters."""
    name, _, spec = text.partition("=")
    params = {}
    for item in filter(None, spec.split(",")):
        key, _, value = item.partition(":")
        params[key] = json.loads(value)
    return name, params


def cache_key(model, X, y, cv) -> str:
    """A name for a model's forecasts: its class, the parameters it sets away from their
    defaults, its code, the data and the split; so a parameter added later with a default
    that changes nothing keeps the forecasts of the same code."""
    defaults = type(model)().get_params(deep=False)
    params = {k: v for k, v in model.get_params(deep=False).items() if defaults.get(k) != v}
    return forecast_key(model, sorted(params.items(), key=str), X, y, cv)


def bayesian(params: dict, draws: int, chains: int, catalogue) -> BayesianMatchupClassifier:
    """The Bayesian model with ``params`` on top of the defaults, sampled as asked."""
    return BayesianMatchupClassifier(
        catalogue=catalogue, draws=draws, tune=draws, chains=chains, random_state=0, **params
    )


def newcomer_split(forecasts: pd.DataFrame, new: np.ndarray, models: list[str]) -> dict:
    """Each model's Brier over the matches with a newcomer and over those between seen players."""
    y = forecasts["y"].to_numpy()
    with_new = new.any(axis=1)
    return {
        m: {
            "with a newcomer": brier_score(y[with_new], forecasts[m].to_numpy()[with_new]),
            "seen players": brier_score(y[~with_new], forecasts[m].to_numpy()[~with_new]),
        }
        for m in models
    }


#: The two sides' player columns.
PLAYERS = ("player1", "player2")

#: Groups of the seen player's rating periods in training, in a match against a newcomer.
SEEN_PERIODS = {"1 period": (1, 1), "2-3 periods": (2, 3), "4 or more": (4, np.inf)}


def periods_played(X: pd.DataFrame, y, cv) -> np.ndarray:
    """Per forecast match (in fold order), the periods each side played in training (0: new)."""
    counts = []
    for train, test in cv.split(X, y):
        part = X.iloc[train]
        sides = pd.concat(
            [part[[side, "period"]].set_axis(["player", "period"], axis=1) for side in PLAYERS]
        )
        played = sides.groupby("player")["period"].nunique()
        counts.append(np.column_stack([X[s].iloc[test].map(played).fillna(0) for s in PLAYERS]))
    return np.vstack(counts).astype(int)


def newcomer_detail(
    forecasts: pd.DataFrame, new: np.ndarray, models: list[str], periods: np.ndarray
) -> dict:
    """Each model in the matches of one newcomer against a seen player, and of two newcomers.

    The matches of one newcomer are also split by how many rating periods the seen
    player had played in training (`SEEN_PERIODS`; ``periods`` from `periods_played`).
    """
    y = forecasts["y"].to_numpy()
    one, both = new[:, 0] ^ new[:, 1], new[:, 0] & new[:, 1]
    newcomer_won = np.where(new[one, 0], y[one], 1 - y[one])
    seen = periods.max(axis=1)  # the newcomer's side has 0
    groups = {g: one & (seen >= lo) & (seen <= hi) for g, (lo, hi) in SEEN_PERIODS.items()}
    out = {
        "one newcomer: matches": int(one.sum()),
        "one newcomer: newcomer won": float(newcomer_won.mean()) if one.any() else None,
        "two newcomers: matches": int(both.sum()),
        "one newcomer, by the seen player's periods: matches": {
            g: int(mask.sum()) for g, mask in groups.items()
        },
    }
    for m in models:
        p = forecasts[m].to_numpy()
        p_newcomer = np.where(new[one, 0], p[one], 1 - p[one])
        out[m] = {
            "one newcomer: calibration slope": calibration_slope(newcomer_won, p_newcomer)
            if one.any()
            else None,
            "two newcomers: Brier": brier_score(y[both], p[both]) if both.any() else None,
            "one newcomer, by the seen player's periods: Brier": {
                g: brier_score(y[mask], p[mask]) if mask.any() else None
                for g, mask in groups.items()
            },
        }
    return out


def windows(forecasts: pd.DataFrame, models: list[str], last: int = 8) -> dict:
    """Pooled Brier over all folds, the last ``last`` and the folds before them, and each
    model minus the default in each (paired bootstrap over matches); empty with no earlier
    fold.
    """
    split = forecasts["split"].to_numpy()
    first_of_last = split.max() + 1 - last
    if first_of_last <= split.min():
        return {}
    out = {}
    every = np.ones(len(split), dtype=bool)
    for name, mask in (
        ("all folds", every),
        (f"last {last}", split >= first_of_last),
        ("before", split < first_of_last),
    ):
        part = forecasts[mask]
        out[name] = {
            "matches": int(mask.sum()),
            **{m: brier_score(part["y"], part[m]) for m in models},
            "minus default": {
                m: paired_bootstrap(part, m, "skcodex default")
                for m in models
                if m != "skcodex default"
            },
        }
    return out


def with_newcomer_rule(forecasts: pd.DataFrame, new: np.ndarray, model: str) -> str:
    """Add the rule: ``model``'s forecast where a side is new to training, else the default's."""
    name = f"skcodex default, {model} with a newcomer"
    with_new = new.any(axis=1)
    forecasts[name] = np.where(with_new, forecasts[model], forecasts["skcodex default"])
    return name


def markdown(result: dict) -> str:
    """The per-tournament table and the comparison with WHR, as Markdown."""
    scores = pd.DataFrame(result["scores"]).T
    models = [c for c in scores.columns if c != "matches"]
    lines = forecast.per_tournament_lines(scores)
    lines += [
        "",
        f"| model | Brier with a newcomer | Brier, seen players | minus {REFERENCE} | interval |",
        "|---|---:|---:|---:|---|",
    ]
    for m in models:
        split, boot = result["newcomer split"][m], result["against reference"].get(m)
        diff = "" if boot is None else f"{boot['difference']:+.4f}"
        interval = "" if boot is None else f"[{boot['lower']:+.4f}, {boot['upper']:+.4f}]"
        lines.append(
            f"| {m} | {split['with a newcomer']:.4f} | {split['seen players']:.4f} | "
            f"{diff} | {interval} |"
        )
    detail = result.get("newcomer detail")
    if detail:
        lines += [
            "",
            f"{detail['one newcomer: matches']} matches of one newcomer against a seen "
            f"player (the newcomer won {detail['one newcomer: newcomer won']:.1%}), "
            f"{detail['two newcomers: matches']} between two newcomers:",
            "",
            "| model | calibration slope, one newcomer | Brier, two newcomers |",
            "|---|---:|---:|",
        ]
        for m in models:
            row = detail[m]
            slope, two = row["one newcomer: calibration slope"], row["two newcomers: Brier"]
            lines.append(
                f"| {m} | {'' if slope is None else f'{slope:.2f}'} | "
                f"{'' if two is None else f'{two:.4f}'} |"
            )
    by_periods = detail and detail.get("one newcomer, by the seen player's periods: matches")
    if by_periods:
        key = "one newcomer, by the seen player's periods: Brier"
        head = " | ".join(f"{g} ({n})" for g, n in by_periods.items())
        lines += [
            "",
            "Brier of the matches of one newcomer, by the seen player's periods in training:",
            "",
            f"| model | {head} |",
            "|---|" + "---:|" * len(by_periods),
        ]
        for m in models:
            cells = [detail[m][key][g] for g in by_periods]
            lines.append(
                f"| {m} | " + " | ".join("" if c is None else f"{c:.4f}" for c in cells) + " |"
            )
    periods = result.get("windows")
    if periods:
        head = " | ".join(
            f"{w} ({n['matches']}) | minus default | interval" for w, n in periods.items()
        )
        lines += ["", f"| model | {head} |", "|---|" + "---:|---:|---|" * len(periods)]
        for m in models:
            cells = []
            for window in periods.values():
                boot = window["minus default"].get(m)
                cells += [
                    f"{window[m]:.4f}",
                    "" if boot is None else f"{boot['difference']:+.4f}",
                    "" if boot is None else f"[{boot['lower']:+.4f}, {boot['upper']:+.4f}]",
                ]
            lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return "\n".join(lines).replace("-0.", "\u22120.")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", default=str(DEFAULT_DATA))
    parser.add_argument("--splits", type=int, default=8)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--cache", default=None, help="folder for each model's forecasts")
    parser.add_argument("--variant", action="append", default=[], help="NAME=param:value,...")
    parser.add_argument(
        "--newcomer-rule",
        default=None,
        metavar="MODEL",
        help="add MODEL's forecasts for the matches with a newcomer, the default's for the rest",
    )
    parser.add_argument("--markdown", action="store_true", help="print the docs' table and stop")
    parser.add_argument("--out", default=str(HERE / "results" / "newcomer.json"))
    args = parser.parse_args(argv)
    if args.markdown:
        print(markdown(json.loads(Path(args.out).read_text())))
        return {}

    X, y = load_codex_matches(args.data, return_X_y=True)
    catalogue = X.attrs["catalogue"]
    variants = dict(VARIANTS)
    variants.update(parse_variant(v) for v in args.variant)
    models = {"skcodex default": bayesian({}, args.draws, args.chains, catalogue)}
    for name, params in variants.items():
        models[name] = bayesian(params, args.draws, args.chains, catalogue)
    models.update(rating_systems())
    if args.newcomer_rule and args.newcomer_rule not in models:
        parser.error(f"--newcomer-rule {args.newcomer_rule!r} is not a model of this run")
    cv = TournamentSplit(n_splits=args.splits)
    start = time.perf_counter()
    cache = Path(args.cache) if args.cache else None
    forecast.cache_key = cache_key  # keyed by the parameters set, see cache_key
    forecasts = cached_forecasts(models, X, y, cv, cache)
    seconds = time.perf_counter() - start
    names = list(models)
    new = newcomers(X, y, cv)
    if args.newcomer_rule:
        names.append(with_newcomer_rule(forecasts, new, args.newcomer_rule))
    table = score_table(forecasts)
    result = {
        "data": args.data,
        "matches": len(forecasts),
        "splits": args.splits,
        "draws": args.draws,
        "chains": args.chains,
        "variants": {"skcodex default": {}, **variants},
        "scores": table.drop(index="log loss (pooled)").to_dict(orient="index"),
        "log loss (pooled)": table.loc["log loss (pooled)", names].to_dict(),
        "newcomer split": newcomer_split(forecasts, new, names),
        "newcomer detail": newcomer_detail(forecasts, new, names, periods_played(X, y, cv)),
        "against reference": {
            m: paired_bootstrap(forecasts, m, REFERENCE) for m in names if m != REFERENCE
        }
        if REFERENCE in names
        else {},
        "windows": windows(forecasts, names),
        "forecast sd": {m: float(forecasts[m].std()) for m in names},
        "convergence warnings": forecasts.attrs.get("convergence", {}),
        "seconds": seconds,
    }
    print(markdown(result))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, default=float))
    return result


if __name__ == "__main__":
    main()
