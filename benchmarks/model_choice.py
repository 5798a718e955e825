"""Which model to use: the seed model against its extensions, by out-of-sample evidence.

For each configuration: forward-chained Brier by tournament over the last 8
tournaments (`skcodex.TournamentSplit`), pooled, with a paired bootstrap interval
against the seed model; and PSIS-LOO (ArviZ) on all matches, with the
difference in expected log predictive density from the seed model and its
standard error. Glicko-2 is scored alongside. Prints tables; writes
benchmarks/results/model_choice.json.

Run: python benchmarks/model_choice.py [DATA_FOLDER] [--draws 500] [--configs seed,walk,...]
     python benchmarks/model_choice.py --synthetic   (make_matches data with known truth)
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from skcodex import BayesianMatchupClassifier, Glicko2Classifier, TournamentSplit
from skcodex._compat import posterior
from skcodex.datasets import load_codex_matches, make_matches
from skcodex.evaluation import forward_forecasts, paired_bootstrap, score_table

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parents[1] / "shared" / "data" / "codexdata"

#: Tighter priors on the deck spreads: centred near 0.37 (stst), 0.22 (stsp), 0.14 (spsp).
TIGHT = {"log_sd_stst_loc": -1.0, "log_sd_stsp_loc": -1.5, "log_sd_spsp_loc": -2.0}

CONFIGS = {
    "seed": {},
    "tight": TIGHT,
    "balanced": {"prior": "balanced"},
    "walk": {"time_varying": True},
    "synergy": {"synergy": True},
    "familiarity": {"familiarity": True},
    "walk+tight": {"time_varying": True, **TIGHT},
    "walk+balanced": {"time_varying": True, "prior": "balanced"},
    "walk+tight+synergy+familiarity": {
        "time_varying": True,
        "synergy": True,
        "familiarity": True,
        **TIGHT,
    },
}


def loo_table(fits: dict, reference: str = "seed") -> dict:
    """PSIS-LOO of every fitted model, and its pointwise difference from the reference."""
    import arviz as az

    out = {}
    ref = posterior.group(fits[reference].idata_, "log_likelihood")["outcome"]
    ref_pointwise = None
    for name, clf in fits.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loo = az.loo(clf.idata_, pointwise=True)
        pointwise = np.asarray(loo.loo_i)
        if name == reference:
            ref_pointwise = pointwise
        out[name] = {
            "elpd_loo": float(loo.elpd_loo),
            "se": float(loo.se),
            "p_loo": float(loo.p_loo),
            "pareto_k_above_0.7": int(np.sum(np.asarray(loo.pareto_k) > 0.7)),
            "_pointwise": pointwise,
        }
    assert ref is not None and ref_pointwise is not None
    for name, row in out.items():
        diff = row.pop("_pointwise") - ref_pointwise
        row["elpd_diff_vs_seed"] = float(diff.sum())
        row["elpd_diff_se"] = (
            float(np.sqrt(len(diff)) * diff.std(ddof=1)) if name != reference else 0.0
        )
    return out


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", default=str(DEFAULT_DATA))
    parser.add_argument("--synthetic", action="store_true", help="use make_matches data")
    parser.add_argument("--splits", type=int, default=8)
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--no-loo", action="store_true")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)

    if args.synthetic:
        data = make_matches(n_players=40, n_matches=1500, n_tournaments=12, random_state=3)
        X, y, catalogue = data.X, data.y, None
    else:
        X, y = load_codex_matches(args.data, return_X_y=True)
        catalogue = X.attrs["catalogue"]
    names = [c for c in args.configs.split(",") if c]
    unknown = [c for c in names if c not in CONFIGS]
    if unknown:
        parser.error(f"unknown configuration(s) {unknown}; choose from {list(CONFIGS)}")
    common = {"draws": args.draws, "tune": args.draws, "random_state": 0, "catalogue": catalogue}
    models = {n: BayesianMatchupClassifier(**common, **CONFIGS[n]) for n in names}
    models["Glicko-2"] = Glicko2Classifier()

    start = time.perf_counter()
    forecasts = forward_forecasts(models, X, y, TournamentSplit(n_splits=args.splits), verbose=True)
    cv_seconds = time.perf_counter() - start
    table = score_table(forecasts)
    boot = (
        {n: paired_bootstrap(forecasts, n, "seed") for n in models if n != "seed"}
        if "seed" in models
        else {}
    )

    loo, fit_seconds = {}, {}
    if not args.no_loo and "seed" in names:
        fits = {}
        for n in names:
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                fits[n] = BayesianMatchupClassifier(**common, **CONFIGS[n]).fit(X, y)
            fit_seconds[n] = time.perf_counter() - t0
        loo = loo_table(fits)

    print("\nForward-chained Brier by tournament (lower is better)")
    print(table.round(4).to_string())
    if boot:
        print("\nPooled Brier difference from the seed model (95% paired bootstrap)")
        for n, b in boot.items():
            print(f"  {n:>34}  {b['difference']:+.4f}  [{b['lower']:+.4f}, {b['upper']:+.4f}]")
    if loo:
        print("\nPSIS-LOO on all matches (higher elpd is better)")
        for n, row in loo.items():
            print(
                f"  {n:>34}  elpd {row['elpd_loo']:8.1f} (se {row['se']:.1f})  "
                f"diff vs seed {row['elpd_diff_vs_seed']:+6.1f} (se {row['elpd_diff_se']:.1f})  "
                f"k>0.7: {row['pareto_k_above_0.7']}  fit {fit_seconds[n]:.0f} s"
            )
    print(f"\nconvergence warnings per model: {forecasts.attrs['convergence']}")
    print(f"({cv_seconds:.0f} s of forward-chained fits)")

    result = {
        "data": "make_matches" if args.synthetic else str(args.data),
        "draws": args.draws,
        "configs": {n: CONFIGS[n] for n in names},
        "scores": json.loads(table.to_json(orient="index")),
        "bootstrap_vs_seed": boot,
        "loo": loo,
        "fit_seconds_all_matches": fit_seconds,
        "convergence_warnings": forecasts.attrs["convergence"],
    }
    default = "model_choice_synthetic.json" if args.synthetic else "model_choice.json"
    out = Path(args.out or HERE / "results" / default)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
