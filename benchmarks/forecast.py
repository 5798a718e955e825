"""Forward-chained forecasts on real tournament data: every baseline against the Bayesian model.

For each of the last 8 tournaments, every model is fitted on the matches that ended
before the tournament started (`skcodex.TournamentSplit`) and forecasts that
tournament. Prints Brier per tournament and pooled, log loss, paired bootstrap
intervals against the best other model, and the in-sample Brier of the Bayesian
model on all matches; writes benchmarks/results/forecast.json.

Whole-History Rating, TrueSkill Through Time and OpenSkill (benchmarks/rating_systems.py)
join the table when their packages are installed (``pip install skcodex[bench]``); the
JSON also holds each model's forecast spread (sd), calibration slope and intercept (the
coefficients of a logistic regression of the outcome on the forecast's log-odds, with
95% intervals: a slope above 1, the forecasts are too timid; below 1, too bold) and
expected calibration error over ten forecast bins (`skcodex.metrics`).

Run: python benchmarks/forecast.py [DATA_FOLDER] [--splits 8] [--draws 1000] [--cache DIR]
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import importlib.util
import inspect
import json
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from rating_systems import OpenSkillClassifier, TTTClassifier, WHRClassifier
from sklearn.dummy import DummyClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegressionCV
from sklearn.model_selection import TimeSeriesSplit
from sklearn.pipeline import make_pipeline

from skcodex import (
    BayesianMatchupClassifier,
    EloClassifier,
    Glicko2Classifier,
    MatchupEncoder,
    TournamentSplit,
    brier_score,
    brier_scorer,
    metrics,
)
from skcodex._classifier import SEED_PRIORS
from skcodex.datasets import load_codex_matches
from skcodex.evaluation import bootstrap_against_best_other, forward_forecasts, score_table

#: The static model: no skill walk, no debut option (the estimator's default before "auto").
STATIC = {"time_varying": False, "debut": False}

#: The seed model: its priors, static skills and no debut option.
SEED_MODEL = {**SEED_PRIORS, **STATIC}

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parents[1] / "shared" / "data" / "codexdata"


def rating_systems() -> dict:
    """The other projects' rating systems whose packages are installed, unfitted."""
    systems = {
        "WHR": ("whr", WHRClassifier(w2=14.0)),
        "TrueSkill Through Time": ("trueskillthroughtime", TTTClassifier(gamma=0.01)),
        "OpenSkill (Plackett-Luce)": ("openskill", OpenSkillClassifier()),
    }
    found = {}
    for name, (package, model) in systems.items():
        if importlib.util.find_spec(package) is None:
            print(f"{name} left out: pip install {package} (or skcodex[bench])")
        else:
            found[name] = model
    return found


def calibration_slope(y: np.ndarray, p: np.ndarray) -> float:
    """Slope of the logistic regression of ``y`` on ``logit(p)`` (1 when well calibrated).

    NaN where no finite slope fits (outcomes all alike, forecasts all equal, or forecasts
    that separate wins from losses perfectly, as a handful of matches can).
    """
    try:
        return float(metrics.calibration_slope(y, p)["slope"])
    except ValueError:
        return float("nan")


def calibration(y: np.ndarray, p: np.ndarray) -> dict[str, float]:
    """A model's forecast sd, calibration slope and intercept (95% intervals) and ECE.

    Forecasts that do not vary (the coin flip, the base rate) have no slope: NaN.
    """
    try:
        fit = metrics.calibration_slope(y, p)
    except ValueError:
        fit = dict.fromkeys(("slope", "slope_lower", "slope_upper", "intercept"), np.nan)
    return {
        "forecast sd": float(np.std(p, ddof=1)),
        "calibration slope": float(fit["slope"]),
        "slope lower": float(fit["slope_lower"]),
        "slope upper": float(fit["slope_upper"]),
        "calibration intercept": float(fit["intercept"]),
        "calibration error": metrics.calibration_error(y, p),
    }


#: The libraries whose versions are part of the code behind a forecast.
LIBRARIES = (
    "pymc",
    "pytensor",
    "numpy",
    "scikit-learn",
    "whr",
    "trueskillthroughtime",
    "openskill",
)


@functools.cache
def package_fingerprint() -> str:
    """A hash of every source file of the package and of the libraries' versions."""
    import importlib.metadata

    import skcodex

    digest = hashlib.sha256()
    for source in sorted(Path(skcodex.__file__).resolve().parent.rglob("*.py")):
        digest.update(source.name.encode() + source.read_bytes())
    for library in LIBRARIES:
        try:
            digest.update(f"{library}={importlib.metadata.version(library)}".encode())
        except importlib.metadata.PackageNotFoundError:
            continue
    return digest.hexdigest()


def code_fingerprint(model) -> str:
    """A hash of the code that makes a model's forecasts.

    The package (`package_fingerprint`) and the files defining the model's class and the
    class of every estimator inside it (a benchmark's wrapper, a tuned rating system): a
    change to any is a change to the forecasts, even where the parameters stay the same.
    """
    inner = [v for v in model.get_params(deep=True).values() if hasattr(v, "get_params")]
    files = sorted({inspect.getfile(type(m)) for m in (model, *inner)})
    code = b"".join(Path(f).read_bytes() for f in files)
    return hashlib.sha256(package_fingerprint().encode() + code).hexdigest()


def cache_key(model, X, y, cv) -> str:
    """A name for a model's forecasts: its class, parameters and code, the data, the split."""
    params = sorted(model.get_params(deep=True).items(), key=str)
    return forecast_key(model, params, X, y, cv)


def forecast_key(model, params, X, y, cv) -> str:
    """The hash of a model's class, ``params``, code, the data's values and the split."""
    rows = pd.util.hash_pandas_object(X.astype(str), index=False).to_numpy()
    data = hashlib.sha256(rows.tobytes() + np.asarray(y, dtype=float).tobytes()).hexdigest()
    code = code_fingerprint(model)
    what = (type(model).__name__, params, data, repr(cv), code)
    return hashlib.sha256(repr(what).encode()).hexdigest()[:16]


def cached_forecasts(models: dict, X, y, cv, cache: Path | None) -> pd.DataFrame:
    """`forward_forecasts` of each model, read from ``cache`` when fitted before.

    The cache key is the model's parameters, the code behind it (`code_fingerprint`),
    the data and the splitter, so a changed model, code, data set or split is fitted again.
    """
    parts = []
    for name, model in models.items():
        key = cache_key(model, X, y, cv)
        path = cache / f"{key}.pkl" if cache else None
        if path is not None and path.exists():
            part = pd.read_pickle(path)
        else:
            part = forward_forecasts({name: model}, X, y, cv)
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                part.to_pickle(path)
        parts.append(part.rename(columns={part.columns[-1]: name}))
    out = parts[0].drop(columns=parts[0].columns[-1])
    out.attrs["convergence"] = {}
    for name, part in zip(models, parts):
        out[name] = part[name].to_numpy()
        out.attrs["convergence"][name] = sum(part.attrs.get("convergence", {}).values())
    return out


def baselines(catalogue, draws: int) -> dict:
    """The models compared, each unfitted."""
    return {
        "coin flip": DummyClassifier(strategy="uniform"),
        "player-1 base rate": DummyClassifier(strategy="prior"),
        "logistic L2": make_pipeline(
            MatchupEncoder(catalogue=catalogue),
            LogisticRegressionCV(
                Cs=np.logspace(-3, 1, 12), cv=TimeSeriesSplit(4), scoring=brier_scorer
            ),
        ),
        "Elo": EloClassifier(),
        "Glicko-2": Glicko2Classifier(),
        "Bayesian (seed model)": BayesianMatchupClassifier(
            catalogue=catalogue, draws=draws, tune=draws, random_state=0, **SEED_MODEL
        ),
        "Bayesian (default)": BayesianMatchupClassifier(
            catalogue=catalogue, draws=draws, tune=draws, random_state=0
        ),
    }


def per_tournament_lines(scores: pd.DataFrame) -> list[str]:
    """The Markdown table of each tournament's Brier score by model, the best in bold."""
    models = [c for c in scores.columns if c != "matches"]
    lines = [
        "| tournament | matches | " + " | ".join(models) + " |",
        "|---|---:|" + "---:|" * len(models),
    ]
    for label, row in scores.iterrows():
        best = row[models].astype(float).idxmin()
        cells = [f"**{row[m]:.4f}**" if m == best else f"{row[m]:.4f}" for m in models]
        lines.append(f"| {label} | {int(row['matches'])} | " + " | ".join(cells) + " |")
    return lines


def _number(value, digits: int) -> str:
    """A number of the JSON (None for NaN: no slope) as the docs' tables print it."""
    return "–" if value is None or not np.isfinite(value) else f"{value:.{digits}f}"


def markdown(result: dict) -> str:
    """The docs' tables (docs/real-data.md) from the benchmark's JSON."""
    scores = pd.DataFrame(result["scores"]).T
    lines = per_tournament_lines(scores)
    lines += [
        "",
        "| model | best other | difference | interval | forecast sd | calibration slope "
        "| calibration error |",
    ]
    lines.append("|---|---|---:|---|---:|---:|---:|")
    for name, b in result["bootstrap"].items():
        sp = result["spread"][name]
        slope = _number(sp["calibration slope"], 2)
        if sp.get("slope lower") is not None:  # results written before them have none
            slope += f" [{sp['slope lower']:.2f}, {sp['slope upper']:.2f}]"
        ece = _number(sp.get("calibration error"), 3)
        lines.append(
            f"| {name} | {b['best other']} | {b['difference']:+.4f} | "
            f"[{b['lower']:+.4f}, {b['upper']:+.4f}] | {sp['forecast sd']:.3f} | "
            f"{slope} | {ece} |"
        )
    return "\n".join(lines).replace("-0.", "\u22120.")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", default=str(DEFAULT_DATA))
    parser.add_argument("--splits", type=int, default=8)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--cache", default=None, help="folder for each model's forecasts")
    parser.add_argument(
        "--markdown", action="store_true", help="print the docs' tables from --out and stop"
    )
    parser.add_argument("--out", default=str(HERE / "results" / "forecast.json"))
    args = parser.parse_args(argv)
    if args.markdown:
        print(markdown(json.loads(Path(args.out).read_text())))
        return {}

    X, y = load_codex_matches(args.data, return_X_y=True)
    catalogue = X.attrs["catalogue"]
    print(f"{len(X)} matches, {X['period'].nunique()} tournaments")
    models = {**baselines(catalogue, args.draws), **rating_systems()}
    start = time.perf_counter()
    cache = Path(args.cache) if args.cache else None
    forecasts = cached_forecasts(models, X, y, TournamentSplit(n_splits=args.splits), cache)
    elapsed = time.perf_counter() - start
    table = score_table(forecasts)
    boot = bootstrap_against_best_other(forecasts)
    outcome = forecasts["y"].to_numpy()
    spread = pd.DataFrame(
        {name: calibration(outcome, forecasts[name].to_numpy()) for name in models}
    ).T

    in_sample = {}
    for name, priors in (("seed model", SEED_MODEL), ("default", {})):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            full = BayesianMatchupClassifier(
                catalogue=catalogue, draws=args.draws, tune=args.draws, random_state=0, **priors
            ).fit(X, y)
        in_sample[name] = brier_score(y, full.predict_proba(X)[:, 1])

    with np.printoptions(precision=4):
        print("\nBrier score by tournament (lower is better)")
        print(table.round(4).to_string())
        print("\nPooled Brier difference from the best other model (95% paired bootstrap)")
        print(boot.round(4).to_string())
        print("\nForecast spread and calibration (pooled)")
        print(spread.round(3).to_string())
    for name, value in in_sample.items():
        print(
            f"In-sample Brier of the Bayesian model ({name}) on all {len(X)} matches: {value:.4f}"
        )
    print(f"Fits that warned about convergence: {forecasts.attrs['convergence']}")
    print(f"({elapsed:.0f} s for the forward-chained fits)")

    result = {
        "data": str(args.data),
        "matches": len(X),
        "splits": args.splits,
        "draws": args.draws,
        "scores": json.loads(table.to_json(orient="index")),
        "bootstrap": json.loads(boot.to_json(orient="index")),
        "spread": json.loads(spread.to_json(orient="index")),
        "in_sample_brier_bayesian": in_sample,
        "convergence_warnings": forecasts.attrs["convergence"],
        "seconds": elapsed,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
