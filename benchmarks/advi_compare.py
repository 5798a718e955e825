"""Mean-field ADVI three ways on the large-data benchmark: skcodex's, plain PyMC, pathfinder.

The data are those of ``benchmarks/large_data.py``: a synthetic tournament
series drawn from the model (`skcodex.datasets.make_matches`, 200,000
matches, 5,000 players, 20 tournaments), the last tournament held out, and a
random subsample of the training matches (10,000 by default) on which NUTS
gives a reference posterior. Each fit runs in a fresh process, so its peak
memory can be read:

- ``own``: ``BayesianMatchupClassifier(method="advi")``, skcodex's ADVI
  (`skcodex._matchup.approximation`: PyMC's ``pm.fit`` on the model of
  `skcodex._matchup.graph.build_model` with ``pm.Minibatch`` data, minibatches of
  10,000 matches, 6,000 steps, learning rate 0.02, every parameter starting at
  sd 0.14, the parameters averaged over the last third of the steps);
- ``pymc``: plain ``pm.fit(method="advi")`` on a minimal version of the same
  model (``log sd ~ N(0, 0.5)``, ``z ~ N(0, 1)``, ``theta = z * sd[group]``,
  Bernoulli outcomes with logit ``q``) written with ``pm.Minibatch`` data and
  ``total_size``, with the same minibatch size, number of steps and Adam
  learning rate, PyMC's default start and no averaging (the last iterate);
- ``pathfinder``: pymc-extras' ``fit(method="pathfinder")`` (its defaults:
  four L-BFGS paths, importance resampling) on the full-data model of
  `skcodex._matchup.graph.build_model`;
- ``nuts``: ``method="nuts"`` on the subsample only, the reference.

Every method gives the same number of posterior draws (``draws * chains``).
The PyMC and pathfinder draws are handed to a `BayesianMatchupClassifier`
through `skcodex._matchup.fitting.from_effect_draws`, so held-out predictions (unseen
players included) go through exactly the same code for every method.

For each run the script reports the fit's wall-clock time (model building,
compilation and drawing included), the peak resident memory of the process,
the Brier score on the held-out tournament, the posterior means of the four
spreads (truth 0.8, 0.4, 0.25, 0.15) and, on the subsample, how far the
posterior means of the effects and the held-out probabilities lie from the
NUTS ones. The Brier score of the true probabilities is the floor.

Run ``python benchmarks/advi_compare.py`` (``--quick`` for a small smoke run;
``--repeats`` for medians over repeated fits). It prints a Markdown table and
writes ``benchmarks/results/advi_compare.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results" / "advi_compare.json"

# Run in a child process: fit one model, predict the held-out matches, report.
_CHILD = r"""
import json, resource, sys, time, warnings
import numpy as np, pandas as pd

def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

folder, kind, method, draws, tune, chains, seed, steps, batch, lr, tag = sys.argv[1:12]
draws, tune, chains, seed, steps, batch = map(int, (draws, tune, chains, seed, steps, batch))
lr = float(lr)
X = pd.read_pickle(f"{folder}/X.pkl")
y = np.load(f"{folder}/y.npy")
test = np.load(f"{folder}/test.npy")
rows = np.load(f"{folder}/{kind}.npy")
from skcodex import BayesianMatchupClassifier
from skcodex._matchup import fitting
from skcodex.data import Vocabulary, check_match_table, encode
from skcodex._matchup.graph import Layout, build_model
import arviz, pymc as pm, pytensor, pytensor.tensor as pt
if method == "pathfinder":
    import pymc_extras
try:
    import nutpie
except ImportError:
    pass
Xtr, ytr = X.iloc[rows], y[rows]
n_draws = draws * chains


def encoded(clf):
    vocab = Vocabulary.from_table(check_match_table(Xtr))
    codes = encode(check_match_table(Xtr), vocab)
    layout = Layout(*vocab.sizes, vocab.specs_per_deck, clf.options)
    return vocab, layout, layout.index_matrix(codes)


def as_classifier(clf, vocab, layout, log_sd, z):
    sd = np.exp(log_sd)
    theta = z * sd[:, layout.group]
    clf.idata_ = fitting.from_effect_draws(theta, sd, layout)
    clf.vocabulary_, clf.layout_, clf._unseen_seed = vocab, layout, seed + 1
    clf.classes_ = np.array([0, 1])
    return clf


def fit_pymc(clf):
    vocab, layout, index = encoded(clf)
    priors = clf.priors
    with pm.Model():
        idx_mb, y_mb = pm.Minibatch(index, ytr.astype(np.int32), batch_size=batch)
        log_sd = pm.Normal("log_sd", np.asarray(priors.loc), np.asarray(priors.scale),
                           shape=len(layout.spreads))
        z = pm.Normal("z", 0.0, 1.0, shape=layout.n_free)
        theta = layout.theta(z, pt.exp(log_sd), pt)
        q = (theta[idx_mb] * pt.as_tensor_variable(layout.signs)).sum(axis=1)
        pm.Bernoulli("outcome", logit_p=q, observed=y_mb, total_size=len(ytr))
        approx = pm.fit(n=steps, method="advi", obj_optimizer=pm.adam(learning_rate=lr),
                        random_seed=seed, progressbar=False)
        idata = approx.sample(n_draws, random_seed=seed + 2)
    post = idata.posterior
    return as_classifier(clf, vocab, layout,
                         post["log_sd"].values.reshape(n_draws, -1),
                         post["z"].values.reshape(n_draws, -1))


def fit_pathfinder(clf):
    vocab, layout, index = encoded(clf)
    model = build_model(index, ytr.astype(float), layout, clf.priors)
    idata = pymc_extras.fit(method="pathfinder", model=model, num_draws=n_draws,
                            random_seed=seed, concurrent=None, progressbar=False,
                            display_summary=False)
    post = idata.posterior
    return as_classifier(clf, vocab, layout,
                         post["log_sd"].values.reshape(n_draws, -1),
                         post["z"].values.reshape(n_draws, -1))


before = rss_mb()
start = time.perf_counter()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    if method in ("own", "nuts"):
        # the static model in every method (ADVI has no walk; "auto" would add it to NUTS)
        model = BayesianMatchupClassifier(
            method="advi" if method == "own" else "nuts", time_varying=False, debut=False,
            draws=draws, tune=tune, chains=chains, random_state=seed)
        model.fit(Xtr, ytr)
    elif method == "pymc":
        model = fit_pymc(BayesianMatchupClassifier(random_state=seed, time_varying=False))
    else:
        model = fit_pathfinder(BayesianMatchupClassifier(random_state=seed, time_varying=False))
    theta = model.effect_draws_
fit_seconds = time.perf_counter() - start
peak = rss_mb()
p = model.predict_proba(X.iloc[test])[:, 1]
np.save(f"{folder}/p_{tag}.npy", p)
np.save(f"{folder}/mean_{tag}.npy", theta.mean(axis=0))
np.save(f"{folder}/sd_{tag}.npy", theta.std(axis=0))
out = {"fit_seconds": fit_seconds, "rss_before_mb": before, "peak_rss_mb": peak,
       "n_draws": int(theta.shape[0]),
       "n_skill": int(model.layout_.n_players),
       "spread_mean": model.spread_draws_.mean(axis=0).tolist(),
       "spread_sd": model.spread_draws_.std(axis=0).tolist(),
       "warnings": sorted({f"{w.category.__name__}: {str(w.message)[:160]}" for w in caught
                           if w.category.__name__ in ("ConvergenceWarning", "UserWarning")})}
print("RESULT " + json.dumps(out))
"""


def _run(folder: str, kind: str, method: str, tag: str, args: argparse.Namespace) -> dict:
    cmd = [
        sys.executable,
        "-c",
        _CHILD,
        folder,
        kind,
        method,
        *(str(v) for v in (args.draws, args.tune, args.chains, args.seed)),
        *(str(v) for v in (args.steps, args.batch_size, args.learning_rate)),
        tag,
    ]
    timeout = args.pathfinder_timeout if method == "pathfinder" else args.timeout
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"failed": f"no result within {timeout:.0f} s"}
    if proc.returncode != 0:
        return {"failed": proc.stderr.strip().splitlines()[-1][:300]}
    line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT "))
    out = json.loads(line[len("RESULT ") :])
    out["process_seconds"] = time.perf_counter() - start
    return out


def paired_brier(y: np.ndarray, p: np.ndarray, p_own: np.ndarray) -> tuple[float, float]:
    """Brier score of ``p`` minus that of ``p_own`` on the same matches, and its standard error.

    The per-match differences of squared errors are paired, so their mean's
    standard error (their standard deviation over the square root of their
    number) says whether two methods' held-out scores differ beyond chance.
    """
    d = (p - y) ** 2 - (p_own - y) ** 2
    return float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d)))


def _median(values: list[float]) -> float:
    return float(statistics.median(values))


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-matches", type=int, default=200_000)
    parser.add_argument("--n-players", type=int, default=5_000)
    parser.add_argument("--n-tournaments", type=int, default=20)
    parser.add_argument("--subsample", type=int, default=10_000, help="matches NUTS is fitted on")
    parser.add_argument("--draws", type=int, default=500, help="draws per chain (every method)")
    parser.add_argument("--tune", type=int, default=500, help="NUTS tuning steps per chain")
    parser.add_argument("--chains", type=int, default=2)
    parser.add_argument("--steps", type=int, default=6_000, help="PyMC ADVI steps")
    parser.add_argument("--batch-size", type=int, default=10_000, help="PyMC ADVI minibatch")
    parser.add_argument("--learning-rate", type=float, default=0.02, help="PyMC ADVI Adam rate")
    parser.add_argument("--repeats", type=int, default=1, help="fits per method and data")
    parser.add_argument("--methods", default="own,pymc,pathfinder")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds allowed per fit")
    parser.add_argument(
        "--pathfinder-timeout", type=float, default=900, help="seconds allowed per pathfinder fit"
    )
    parser.add_argument("--data", default="subsample,full", help="which training sets")
    parser.add_argument("--no-nuts", action="store_true", help="skip the NUTS reference")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="20,000 matches, 500 players")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if args.quick:
        args.n_matches, args.n_players, args.n_tournaments = 20_000, 500, 10
        args.subsample, args.draws, args.tune = 4_000, 200, 200
    methods = [m for m in args.methods.split(",") if m]

    import pandas as pd
    from large_data import benchmark_data

    from skcodex._matchup.graph import SPREADS
    from skcodex.metrics import brier_score

    data, test, train, sub, oracle, generate_seconds = benchmark_data(args)
    X, y = data.X, data.y
    truth = [float(data.params["sd"][k]) for k in SPREADS]
    print(
        f"{len(X):,} matches among {args.n_players:,} players in {args.n_tournaments} "
        f"tournaments; held out: the last tournament, {len(test):,} matches; "
        f"subsample: {len(sub):,} matches; {args.draws * args.chains} draws per fit.",
        flush=True,
    )

    # Pathfinder last: it is the slowest, and its fits are cut off at --pathfinder-timeout.
    order = sorted(methods, key=lambda m: m == "pathfinder")
    kinds = [k for k in ("subsample", "full") if k in args.data.split(",")]
    plan = [(m, k) for k in kinds for m in order if m != "pathfinder"]
    plan += [(m, k) for m in order if m == "pathfinder" for k in kinds]
    if not args.no_nuts:
        plan.insert(0, ("nuts", "subsample"))
    with tempfile.TemporaryDirectory(prefix="skcodex-advi-") as folder:
        pd.to_pickle(X, os.path.join(folder, "X.pkl"))
        np.save(os.path.join(folder, "y.npy"), y)
        np.save(os.path.join(folder, "test.npy"), test)
        np.save(os.path.join(folder, "full.npy"), train)
        np.save(os.path.join(folder, "subsample.npy"), sub)
        # Repeats interleaved (every method once, then again), so that the load of a
        # shared machine falls alike on each method.
        fits: dict[tuple[str, str], list[dict]] = {key: [] for key in plan}
        for r in range(args.repeats):
            for method, kind in plan:
                if method == "nuts" and r > 0:
                    continue
                tag = f"{method}_{kind}_{r}"
                print(f"fitting {method} on the {kind} (repeat {r + 1}) ...", flush=True)
                out = _run(folder, kind, method, tag, args)
                if "failed" not in out:
                    p = np.load(os.path.join(folder, f"p_{tag}.npy"))
                    out["brier"] = brier_score(y[test], p)
                    out["p"] = p
                    out["mean"] = np.load(os.path.join(folder, f"mean_{tag}.npy"))
                    out["sd"] = np.load(os.path.join(folder, f"sd_{tag}.npy"))
                    print(
                        f"  {out['fit_seconds']:.0f} s, {out['peak_rss_mb']:.0f} MB, "
                        f"Brier {out['brier']:.4f}",
                        flush=True,
                    )
                else:
                    print(f"  failed: {out['failed']}", flush=True)
                fits[method, kind].append(out)
        results = [(method, kind, fits[method, kind]) for method, kind in plan]

    ref = next((f[0] for m, k, f in results if m == "nuts"), {"failed": "not run"})
    rows = []
    for method, kind, fits in results:
        ok = [f for f in fits if "failed" not in f]
        row = {
            "method": method,
            "data": kind,
            "n_train": int(len(sub) if kind == "subsample" else len(train)),
            "repeats": len(fits),
            "succeeded": len(ok),
        }
        if not ok:
            row["failed"] = fits[0]["failed"]
            rows.append(row)
            continue
        row.update(
            fit_seconds=_median([f["fit_seconds"] for f in ok]),
            fit_seconds_all=[f["fit_seconds"] for f in ok],
            peak_rss_mb=_median([f["peak_rss_mb"] for f in ok]),
            fit_rss_mb=_median([f["peak_rss_mb"] - f["rss_before_mb"] for f in ok]),
            brier=_median([f["brier"] for f in ok]),
            brier_all=[f["brier"] for f in ok],
            spread_mean=np.median([f["spread_mean"] for f in ok], axis=0).tolist(),
            spread_sd=np.median([f["spread_sd"] for f in ok], axis=0).tolist(),
            n_draws=ok[0]["n_draws"],
            warnings=sorted({w for f in ok for w in f["warnings"]}),
        )
        if kind == "subsample" and "failed" not in ref and method != "nuts":
            # Effects' posterior means against NUTS: in NUTS posterior sds (RMS over the
            # effects), and the players' skills alone; held-out P(win) against NUTS.
            ns = ref["n_skill"]
            z = [(f["mean"] - ref["mean"]) / ref["sd"] for f in ok]
            row["effect_mean_vs_nuts_rms_z"] = _median([np.sqrt(np.mean(d**2)) for d in z])
            row["skill_mean_vs_nuts_rms_z"] = _median([np.sqrt(np.mean(d[:ns] ** 2)) for d in z])
            row["effect_mean_vs_nuts_rms"] = _median(
                [np.sqrt(np.mean((f["mean"] - ref["mean"]) ** 2)) for f in ok]
            )
            row["sd_ratio_vs_nuts"] = _median([np.median(f["sd"] / ref["sd"]) for f in ok])
            row["p_vs_nuts_mean_abs"] = _median([np.mean(np.abs(f["p"] - ref["p"])) for f in ok])
        own = next((f for m, k, f in results if m == "own" and k == kind), None)
        own_ok = [f for f in own or [] if "failed" not in f]
        if own_ok and method != "own":
            diff, se = paired_brier(y[test], ok[0]["p"], own_ok[0]["p"])
            row["brier_minus_own"], row["brier_minus_own_se"] = diff, se
        rows.append(row)

    def fmt(v, spec):
        return "—" if v is None else format(v, spec)

    lines = [
        "| method | data | matches | fit (s) | peak MB | Brier | sd player | sd stst "
        "| sd stsp | sd spsp | effects vs NUTS (RMS, NUTS sds) | skills vs NUTS "
        "| sd / NUTS sd | P vs NUTS |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if "failed" in r:
            lines.append(
                f"| {r['method']} | {r['data']} | {r['n_train']:,} | failed: {r['failed']} "
                "| | | | | | | | | | |"
            )
            continue
        s = r["spread_mean"]
        lines.append(
            f"| {r['method']} | {r['data']} | {r['n_train']:,} | {r['fit_seconds']:.0f} "
            f"| {r['peak_rss_mb']:.0f} | {r['brier']:.4f} | {s[0]:.3f} | {s[1]:.3f} "
            f"| {s[2]:.3f} | {s[3]:.3f} | {fmt(r.get('effect_mean_vs_nuts_rms_z'), '.3f')} "
            f"| {fmt(r.get('skill_mean_vs_nuts_rms_z'), '.3f')} "
            f"| {fmt(r.get('sd_ratio_vs_nuts'), '.2f')} "
            f"| {fmt(r.get('p_vs_nuts_mean_abs'), '.4f')} |"
        )
    lines.append(
        f"| truth | | | | | {oracle:.4f} | {truth[0]:.3f} | {truth[1]:.3f} | {truth[2]:.3f} "
        f"| {truth[3]:.3f} | | | | |"
    )
    table = "\n".join(lines)
    print()
    print(table)
    for r in rows:
        for w in r.get("warnings", []):
            print(f"- {r['method']}, {r['data']}: {w}")

    import pymc

    import skcodex

    try:
        import pymc_extras

        extras_version = pymc_extras.__version__
    except ImportError:
        extras_version = None
    report = {
        "benchmark": "advi_compare",
        "skcodex_version": skcodex.__version__,
        "pymc_version": pymc.__version__,
        "pymc_extras_version": extras_version,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "n_matches": args.n_matches,
        "n_players": args.n_players,
        "n_tournaments": args.n_tournaments,
        "n_test": len(test),
        "subsample": len(sub),
        "draws": args.draws,
        "tune": args.tune,
        "chains": args.chains,
        "pymc_advi": {
            "steps": args.steps,
            "batch_size": args.batch_size,
            "learning_rate": args.learning_rate,
        },
        "repeats": args.repeats,
        "generate_seconds": generate_seconds,
        "oracle_brier": oracle,
        "true_spreads": dict(zip(SPREADS, truth)),
        "runs": rows,
        "table": table,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwrote {args.output}")
    return report


if __name__ == "__main__":
    main()
