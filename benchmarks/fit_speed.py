"""Fit speed: skcodex's default fit against Stan and a plain PyMC model of the same model.

Three implementations of the seed model, run side by side in one script on the
same data with the same number of draws (4 chains x 1,000 tuning + 1,000 kept
draws, chains in parallel on up to 2 cores):

- **skcodex**: ``BayesianMatchupClassifier(**STATIC).fit``: its defaults on the static
  model the other two write (no skill walk, no debut option; nutpie, the numba
  log-density of `skcodex._matchup.graph.build_model`, padded layout);
- **Stan**: the reference program `STAN_PROGRAM` below, run with PyStan;
- **PyMC plain**: the model written the obvious way, one variable per effect
  block and advanced indexing per component, sampled by ``pm.sample()``.

Data: the 771 default-filtered codexdata matches, and 10,000 synthetic matches
(``make_matches`` defaults). Reported per implementation: compile time,
sampling time, minimum bulk ESS over all free parameters, ESS per second of
sampling and of compile + sampling, the largest R-hat, divergences, and the
agreement of every posterior mean (spreads and effects) between skcodex and
Stan: ``|mean_a - mean_b| / sqrt(mcse_a^2 + mcse_b^2)``, which should stay
below 4. Also: the cost of skcodex's layout padding (the exact layout against
the padded one) and a scaling table over 1k-50k synthetic matches.

skcodex's compile time is given three ways: *cold* (an empty compile cache,
a first fit on a new machine, measured in a subprocess with its own PyTensor
compile directory), *disk* (a new process that finds the cache on disk) and,
for comparison, nutpie's own ``compile_pymc_model`` (not disk-cacheable).
The whole first fit from cold caches is timed as well: a new process with
empty PyTensor, numba and skcodex cache folders (set through
``PYTENSOR_FLAGS``, ``NUMBA_CACHE_DIR`` and ``XDG_CACHE_HOME``) runs one default
``fit``. Per leapfrog step, both samplers' cost is the sampling time over the
steps taken (2 cores running the 4 chains); Stan's own estimate of one gradient
(printed when each chain starts) is recorded beside it.

Usage::

    python benchmarks/fit_speed.py                    # everything (about 1-2 hours)
    python benchmarks/fit_speed.py --sections real    # one section
    python benchmarks/fit_speed.py --sections scaling --update  # keep the others
    python benchmarks/fit_speed.py --quick            # tiny draws, a smoke test
    python benchmarks/fit_speed.py --sections firstfit --repeats 2  # cold first fits only

Writes ``benchmarks/results/fit_speed.json`` and prints Markdown tables.
Timings are wall-clock seconds on a shared machine: compare ratios within
one run, not absolute numbers across runs.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import warnings
from importlib import metadata
from pathlib import Path

import numpy as np

from skcodex._compat import posterior as skposterior

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
CODEXDATA = HERE.parents[1] / "shared" / "data" / "codexdata"

# The seed model in Stan, non-centred like skcodex's: every effect is z * sd of its
# block, z ~ N(0, 1), log sd ~ N(loc, scale) with skcodex's default priors passed as
# data. The effects sit in one vector (skill, stst, stsp, spst, spsp, row-major, as in
# skcodex._matchup.graph.Layout), and a match reads its 18 entries through a column-major
# index array, so q is built from 18 vectorised gathers; the likelihood is one
# vectorised bernoulli_logit.
STAN_PROGRAM = """
data {
  int<lower=0> N;                      // matches
  int<lower=1> T;                      // effects
  int<lower=1> D;                      // effects read per match (18)
  array[D, N] int<lower=1, upper=T> idx;
  vector[D] sgn;                       // -1 for player 2's skill, +1 elsewhere
  array[T] int<lower=1, upper=4> grp;  // the spread of each effect
  array[N] int<lower=0, upper=1> y;
  vector[4] prior_loc;
  vector<lower=0>[4] prior_scale;
}
parameters {
  vector[4] log_sd;
  vector[T] z;
}
model {
  vector[T] theta = z .* exp(log_sd)[grp];
  vector[N] q = sgn[1] * theta[idx[1]];
  for (j in 2:D) {
    q += sgn[j] * theta[idx[j]];
  }
  log_sd ~ normal(prior_loc, prior_scale);
  z ~ std_normal();
  y ~ bernoulli_logit(q);
}
"""


# -- shared helpers (also used by cv_speed.py and predict_speed.py) ------------------


def load_real(path: Path = CODEXDATA):
    """The default-filtered codexdata matches (771), their outcomes and the catalogue."""
    from skcodex.datasets import load_codex_matches

    X, y = load_codex_matches(path, return_X_y=True)
    return X, np.asarray(y), X.attrs.get("catalogue")


def load_synthetic(n_matches: int, seed: int = 0):
    """``make_matches`` with its defaults (40 players, 10 tournaments) and ``n_matches``."""
    from skcodex.datasets import make_matches

    data = make_matches(n_matches=n_matches, random_state=seed)
    return data.X, np.asarray(data.y), None


def load(name: str):
    """``"real"`` or ``"synthetic<n>"``."""
    if name == "real":
        return load_real()
    return load_synthetic(int(name.removeprefix("synthetic")))


def encoded(X, y, catalogue=None):
    """Index matrix, outcomes and layout of a match table, as the classifier builds them."""
    from skcodex._matchup.graph import Layout
    from skcodex.data import Vocabulary, check_match_table, encode

    table = check_match_table(X, catalogue)
    vocab = Vocabulary.from_table(table)
    layout = Layout(*vocab.sizes, vocab.specs_per_deck)
    return layout.index_matrix(encode(table, vocab)), np.asarray(y, dtype=float), layout


class Timer:
    """``with Timer() as t: ...``; then ``t.seconds``."""

    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start


def machine() -> dict:
    """What the numbers were measured on."""
    versions = {}
    for name in ("numpy", "pymc", "pytensor", "nutpie", "numba", "pystan", "httpstan", "arviz"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "cpus": os.cpu_count(),
        "processor": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "load_average_at_start": list(os.getloadavg()),
        "versions": versions,
    }


def write_results(name: str, results: dict) -> Path:
    """Write ``results`` to ``benchmarks/results/<name>.json``."""
    RESULTS.mkdir(exist_ok=True)
    results.setdefault("machine", {})["load_average_at_end"] = list(os.getloadavg())
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(results, indent=2, default=_plain))
    return path


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"cannot write {type(value).__name__} to JSON")


def markdown(rows: list[dict], columns: list[tuple[str, str, str]]) -> str:
    """A Markdown table; ``columns`` are (key, header, format), format "" for text."""
    lines = [
        "| " + " | ".join(h for _, h, _ in columns) + " |",
        "|" + "|".join("---:" if f else "---" for _, _, f in columns) + "|",
    ]
    for row in rows:
        cells = []
        for key, _, fmt in columns:
            value = row.get(key)
            if value is None or (isinstance(value, float) and np.isnan(value)):
                cells.append("-")
            else:
                cells.append(format(value, fmt) if fmt else str(value))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def median(values) -> float:
    values = [v for v in values if v is not None]
    return float(np.median(values)) if values else float("nan")


# -- diagnostics ---------------------------------------------------------------------


def diagnostics(draws: dict[str, np.ndarray], divergences: int) -> dict:
    """Min bulk ESS, max R-hat over the free parameters; ``draws`` are (chain, draw, ...).

    Computed by `skcodex._matchup.diagnostics` (equal to ArviZ's rank-normalised split
    R-hat and bulk ESS), the same on either ArviZ line.
    """
    from skcodex._matchup.convergence_stats import convergence_statistics

    stats = [
        convergence_statistics(np.asarray(v).reshape(v.shape[0], v.shape[1], -1))
        for v in draws.values()
    ]
    return {
        "min_ess": float(min(np.nanmin(s["ess_bulk"]) for s in stats)),
        "max_rhat": float(max(np.nanmax(s["rhat"]) for s in stats)),
        "divergences": int(divergences),
    }


def summary_of(layout, log_sd: np.ndarray, z: np.ndarray) -> dict:
    """Posterior mean and its Monte Carlo standard error of every spread and effect."""
    import arviz as az

    sd = np.exp(log_sd)
    theta = z * sd[..., layout.group]
    values = np.concatenate([log_sd, sd, theta], axis=-1)
    mcse = az.mcse(az.convert_to_dataset({"x": values}), method="mean")["x"]
    names = [f"log_sd[{s}]" for s in layout.spreads] + [f"sd[{s}]" for s in layout.spreads]
    for block, shape in layout.shapes.items():
        names += [f"{block}[{','.join(map(str, i))}]" for i in np.ndindex(*shape)]
    return {"names": names, "mean": values.mean(axis=(0, 1)), "mcse": np.asarray(mcse)}


def agreement(a: dict, b: dict) -> dict:
    """|mean_a - mean_b| in units of the Monte Carlo standard error of the difference."""
    z = np.abs(a["mean"] - b["mean"]) / np.hypot(a["mcse"], b["mcse"])
    worst = np.argsort(z)[::-1][:5]
    return {
        "n_parameters": len(z),
        "n_beyond_4_mcse": int(np.sum(z > 4)),
        "max_z": float(z.max()),
        "share_within_2_mcse": float(np.mean(z <= 2)),
        "worst": [(a["names"][i], float(z[i])) for i in worst],
        "beyond_4": [a["names"][i] for i in np.flatnonzero(z > 4)],
    }


#: Cores the chains share (the benchmark machine's two).
CORES = 2


def step_ms(sample_s: float, n_steps: float, *, chains: int, iterations: int) -> float:
    """Milliseconds of one core per leapfrog step: sampling time over the steps taken.

    ``n_steps`` is the mean number of steps per kept draw, taken for tuning
    draws too; the chains run ``min(chains, CORES)`` at a time.
    """
    return 1e3 * sample_s * min(chains, CORES) / (chains * iterations * n_steps)


def rates(row: dict) -> dict:
    """Add ESS per second of sampling and of compile + sampling."""
    row["ess_per_s"] = row["min_ess"] / row["sample_s"]
    if row.get("compile_s") is not None:
        row["ess_per_s_total"] = row["min_ess"] / (row["compile_s"] + row["sample_s"])
    return row


#: The static model, the one the Stan program and the plain PyMC model write: at the
#: estimator's default ``"auto"`` a table of periods would add the walk and debut option.
STATIC = {"time_varying": False, "debut": False}

# -- skcodex -------------------------------------------------------------------------


def skcodex_fit(X, y, catalogue, *, draws, tune, seed):
    """One default fit (the model already compiled): sampling time and diagnostics."""
    from sklearn.exceptions import ConvergenceWarning

    from skcodex import BayesianMatchupClassifier

    clf = BayesianMatchupClassifier(
        draws=draws, tune=tune, random_state=seed, catalogue=catalogue, **STATIC
    )
    cpu = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with Timer() as t:
            clf.fit(X, y)
    cpu = time.process_time() - cpu
    from skcodex._matchup.diagnostics import monitored_draws

    # The standard normals behind the effects: each effect over its spread, in layout order.
    monitored = monitored_draws(clf.idata_)
    log_sd = monitored.pop("log_sd")
    z = np.concatenate(list(monitored.values()), axis=-1)
    stats = skposterior.group(clf.idata_, "sample_stats")
    row = {
        "sample_s": t.seconds,
        "cpu_s": cpu,
        "load_average": os.getloadavg()[0],
        **diagnostics({"log_sd": log_sd, "z": z}, stats["diverging"].sum()),
    }
    row["n_steps"] = float(np.asarray(stats["n_steps"]).mean())
    chains = log_sd.shape[0]
    row["step_ms"] = step_ms(t.seconds, row["n_steps"], chains=chains, iterations=draws + tune)
    return row, summary_of(clf.layout_, log_sd, z)


def _cold_env(folder: str) -> dict:
    """Environment of a new process with empty PyTensor, numba and skcodex caches."""
    root = Path(folder)
    for sub in ("pytensor", "numba", "xdg"):
        (root / sub).mkdir(exist_ok=True)
    return dict(
        os.environ,
        PYTENSOR_FLAGS=f"base_compiledir={root / 'pytensor'}",
        NUMBA_CACHE_DIR=str(root / "numba"),
        XDG_CACHE_HOME=str(root / "xdg"),
        PYTHONPATH=str(HERE.parent),
    )


def first_fit_in_subprocess(dataset: str, draws: int, tune: int) -> dict:
    """One default fit in a new process whose compile caches are all empty.

    Returns the seconds of the ``fit`` call (compile included), of the whole
    process (Python and library imports included) and the process's CPU seconds.
    """
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, __file__, "--first-fit-only", dataset, str(draws), str(tune)]
        with Timer() as t:
            out = subprocess.run(
                cmd, env=_cold_env(tmp), capture_output=True, text=True, check=True
            )
    row = json.loads(out.stdout.strip().splitlines()[-1])
    row["process_s"] = t.seconds
    return row


def _first_fit_only(dataset: str, draws: str, tune: str) -> None:
    from sklearn.exceptions import ConvergenceWarning

    from skcodex import BayesianMatchupClassifier

    X, y, catalogue = load(dataset)
    clf = BayesianMatchupClassifier(draws=int(draws), tune=int(tune), catalogue=catalogue, **STATIC)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with Timer() as t:
            clf.fit(X, y)
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime
    print(json.dumps({"fit_s": t.seconds, "cpu_s": cpu, "load_average": os.getloadavg()[0]}))


def compile_in_subprocess(dataset: str, compiledir: str) -> float:
    """Seconds to compile the model in a new process with its own PyTensor compile directory."""
    env = dict(os.environ, PYTENSOR_FLAGS=f"base_compiledir={compiledir}")
    out = subprocess.run(
        [sys.executable, __file__, "--compile-only", dataset],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1])["compile_s"])


def _compile_only(dataset: str) -> None:
    X, y, catalogue = load(dataset)
    _, _, layout = encoded(X, y, catalogue)
    from skcodex._matchup.compile_cache import precompile

    with Timer() as t:
        precompile(layout)
    print(json.dumps({"compile_s": t.seconds}))


def nutpie_own_compile(index, y, layout) -> float:
    """Seconds for nutpie's own ``compile_pymc_model`` of the same (padded) model."""
    import nutpie

    from skcodex._matchup.graph import build_model
    from skcodex._matchup.padding import embedding, padded_layout

    padded = padded_layout(layout)
    theta_pos, _ = embedding(layout, padded)
    model = build_model(theta_pos[index], y, padded)
    with Timer() as t:
        nutpie.compile_pymc_model(model, var_names=["log_sd", "z", "sd"])
    return t.seconds


# -- Stan ----------------------------------------------------------------------------


def default_priors():
    """The spread priors of skcodex's default fit, used by all three implementations."""
    from skcodex import BayesianMatchupClassifier

    return BayesianMatchupClassifier(**STATIC).priors


def stan_build(index, y, layout, seed, program):
    """Build (or, for a program text built before, reuse) the Stan model for these data."""
    import aiohttp.client
    import stan

    # PyStan talks to httpstan over aiohttp, whose default 5-minute total timeout a
    # C++ build on a busy machine can exceed: no time limit for the benchmark.
    aiohttp.client.DEFAULT_TIMEOUT = aiohttp.ClientTimeout(total=None, sock_connect=60)

    priors = default_priors()
    data = {
        "N": len(y),
        "T": layout.size,
        "D": index.shape[1],
        "idx": (index.T + 1).tolist(),
        "sgn": layout.signs.tolist(),
        "grp": (layout.group + 1).tolist(),
        "y": np.asarray(y, dtype=int).tolist(),
        "prior_loc": list(priors.loc),
        "prior_scale": list(priors.scale),
    }
    with Timer() as t:
        posterior = stan.build(program, data=data, random_seed=seed)
    return posterior, t.seconds


def _stan_draws(fit, name: str, chains: int) -> np.ndarray:
    """A Stan parameter's draws as (chain, draw, n), from PyStan's (n, draws * chains) array."""
    values = np.asarray(fit[name])
    values = values.reshape(-1, values.shape[-1])  # (n, draws * chains), chains interleaved
    n, total = values.shape
    return values.reshape(n, total // chains, chains).transpose(2, 1, 0)


#: Stan's own estimate of one gradient, printed as each chain starts.
STAN_GRADIENT = re.compile(r"Gradient evaluation took ([0-9.eE+-]+) seconds")


def stan_fit(posterior, layout, *, draws, tune, chains):
    messages = io.StringIO()
    with Timer() as t, contextlib.redirect_stderr(messages):
        fit = posterior.sample(num_chains=chains, num_samples=draws, num_warmup=tune)
    sys.stderr.write(messages.getvalue())
    gradients = [float(v) for v in STAN_GRADIENT.findall(messages.getvalue())]
    log_sd = _stan_draws(fit, "log_sd", chains)
    z = _stan_draws(fit, "z", chains)
    divergences = int(np.sum(fit["divergent__"]))
    row = {
        "sample_s": t.seconds,
        "load_average": os.getloadavg()[0],
        **diagnostics({"log_sd": log_sd, "z": z}, divergences),
    }
    row["n_steps"] = float(np.mean(fit["n_leapfrog__"]))
    row["step_ms"] = step_ms(t.seconds, row["n_steps"], chains=chains, iterations=draws + tune)
    row["stan_gradient_ms"] = 1e3 * median(gradients) if gradients else None
    return row, summary_of(layout, log_sd, z)


def stan_forget(posterior) -> None:
    """Delete a forced build from httpstan's cache."""
    try:
        import httpstan.cache

        httpstan.cache.delete_model_directory(posterior.model_name)
    except Exception:
        pass


def stan_in_other_python(python, index, y, layout, seed, program, *, draws, tune, chains):
    """Build and sample the Stan program in another interpreter that has PyStan.

    PyStan's httpstan has no build for every Python (none for 3.13 yet), and
    Stan's speed does not depend on the Python that drives it; the timings are
    taken inside that interpreter, exactly as `stan_build` and `stan_fit` take
    them in this one. Returns ``(build_s, row, summary)``.
    """
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "spec.npz"
        out = Path(tmp) / "out.json"
        sizes = [layout.n_players, layout.n_starters, layout.n_specs, layout.specs_per_deck]
        np.savez(spec, index=index, y=y, sizes=np.array(sizes), seed=np.array(seed))
        (Path(tmp) / "program.stan").write_text(program)
        settings = json.dumps({"draws": draws, "tune": tune, "chains": chains})
        cmd = [python, __file__, "--stan-worker", tmp, settings]
        # STAN_PYTHONPATH: where that interpreter finds PyStan, when not in its own site
        path = os.pathsep.join(
            p for p in (str(HERE.parent), os.environ.get("STAN_PYTHONPATH")) if p
        )
        subprocess.run(cmd, check=True, env={**os.environ, "PYTHONPATH": path})
        result = json.loads(out.read_text())
    summary = {k: np.asarray(v) if k != "names" else v for k, v in result["summary"].items()}
    row = {**result["row"], "stan_python": result["machine"]}
    return result["build_s"], row, summary


def _stan_worker(folder: str, settings: str) -> None:
    """The other side of `stan_in_other_python`."""
    from skcodex._matchup.graph import Layout

    spec = np.load(Path(folder) / "spec.npz")
    layout = Layout(*(int(v) for v in spec["sizes"]))
    program = (Path(folder) / "program.stan").read_text()
    options = json.loads(settings)
    posterior, build_s = stan_build(spec["index"], spec["y"], layout, int(spec["seed"]), program)
    row, summary = stan_fit(posterior, layout, **options)
    summary = {k: (v if k == "names" else np.asarray(v).tolist()) for k, v in summary.items()}
    result = {"build_s": build_s, "row": row, "summary": summary, "machine": machine()}
    (Path(folder) / "out.json").write_text(json.dumps(result, default=_plain))


# -- plain PyMC ----------------------------------------------------------------------


def pymc_plain_fit(X, y, catalogue, *, draws, tune, chains, seed):
    """The model written the obvious way and sampled by ``pm.sample()`` (PyMC's NUTS)."""
    import pymc as pm
    import pytensor.tensor as pt

    from skcodex._matchup.graph import Layout
    from skcodex.data import Vocabulary, check_match_table, encode

    table = check_match_table(X, catalogue)
    vocab = Vocabulary.from_table(table)
    c = encode(table, vocab)
    P, S, K = vocab.sizes
    f, s, g, t, h, u = c.player1, c.player2, c.starter1, c.starter2, c.specs1, c.specs2
    priors = default_priors()
    with pm.Model():
        log_sd = pm.Normal("log_sd", np.array(priors.loc), np.array(priors.scale), shape=4)
        sd = pt.exp(log_sd)
        z_skill = pm.Normal("z_skill", 0.0, 1.0, shape=P)
        z_stst = pm.Normal("z_stst", 0.0, 1.0, shape=(S, S))
        z_stsp = pm.Normal("z_stsp", 0.0, 1.0, shape=(S, K))
        z_spst = pm.Normal("z_spst", 0.0, 1.0, shape=(K, S))
        z_spsp = pm.Normal("z_spsp", 0.0, 1.0, shape=(K, K))
        skill, stst = z_skill * sd[0], z_stst * sd[1]
        stsp, spst, spsp = z_stsp * sd[2], z_spst * sd[2], z_spsp * sd[3]
        q = (
            skill[f]
            - skill[s]
            + stst[g, t]
            + stsp[g[:, None], u].sum(axis=1)
            + spst[h, t[:, None]].sum(axis=1)
            + spsp[h[:, :, None], u[:, None, :]].sum(axis=(1, 2))
        )
        pm.Bernoulli("y", logit_p=q, observed=np.asarray(y, dtype=int))
        with Timer() as total:
            idata = pm.sample(
                draws=draws,
                tune=tune,
                chains=chains,
                cores=min(chains, 2),
                random_seed=seed,
                progressbar=False,
                compute_convergence_checks=False,
            )
    post = skposterior.group(idata, "posterior")
    stats = skposterior.group(idata, "sample_stats")
    sample_s = float(post.attrs["sampling_time"])
    blocks = ["z_skill", "z_stst", "z_stsp", "z_spst", "z_spsp"]
    z = np.concatenate([np.asarray(post[b]).reshape(chains, draws, -1) for b in blocks], axis=-1)
    log_sd_draws = np.asarray(post["log_sd"])
    divergences = int(stats["diverging"].sum())
    row = {
        "compile_s": total.seconds - sample_s,
        "sample_s": sample_s,
        **diagnostics({"log_sd": log_sd_draws, "z": z}, divergences),
    }
    row["n_steps"] = float(np.asarray(stats["n_steps"]).mean())
    return row, summary_of(Layout(P, S, K), log_sd_draws, z)


# -- sections ------------------------------------------------------------------------


def compare_on(name, X, y, catalogue, args, results):
    """The three implementations side by side on one data set."""
    from skcodex._matchup.compile_cache import precompile

    draws, tune, chains = args.draws, args.tune, 4
    index, yy, layout = encoded(X, y, catalogue)
    section = {"n_matches": len(y), "layout": layout.__repr__(), "n_parameters": layout.size + 4}
    print(f"\n## {name}: {len(y)} matches, {layout.size + 4} free parameters", flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        cold = compile_in_subprocess(name, tmp)
        disk = compile_in_subprocess(name, tmp)
    with Timer() as t:
        precompile(layout)  # this process: from the disk cache (or compiled here)
    section["skcodex_compile"] = {"cold_s": cold, "disk_s": disk, "this_process_s": t.seconds}
    section["skcodex_first_fit_cold"] = first_fit_in_subprocess(name, draws, tune)
    print("skcodex first fit, cold caches:", section["skcodex_first_fit_cold"], flush=True)
    if args.nutpie_own and name == "real":
        section["skcodex_compile"]["nutpie_own_s"] = nutpie_own_compile(index, yy, layout)
    print("skcodex compile:", section["skcodex_compile"], flush=True)

    posterior = None
    # A unique comment makes httpstan compile afresh; later builds of the same text reuse
    # the compiled model, and a new seed per run keeps httpstan from replaying a cached fit.
    program = STAN_PROGRAM + f"// build {time.time_ns()}\n"
    stan_kwargs = {"draws": draws, "tune": tune, "chains": chains}
    if not args.skip_stan and args.stan_python:
        section["stan_python"] = args.stan_python
    elif not args.skip_stan:
        posterior, stan_compile = stan_build(index, yy, layout, args.seed, program)
        section["stan_compile_s"] = stan_compile
        print(f"stan compile: {stan_compile:.1f}s", flush=True)

    runs: dict[str, list] = {"skcodex": [], "stan": [], "pymc_plain": []}
    summaries: dict[str, dict] = {}
    repeats = args.repeats if name == "real" else args.repeats_synthetic
    for rep in range(repeats):
        seed = args.seed + rep
        row, summaries["skcodex"] = skcodex_fit(X, y, catalogue, draws=draws, tune=tune, seed=seed)
        runs["skcodex"].append(row)
        print("skcodex", rep, row, flush=True)
        if not args.skip_stan and args.stan_python:
            build_s, row, summaries["stan"] = stan_in_other_python(
                args.stan_python, index, yy, layout, seed, program, **stan_kwargs
            )
            if rep == 0:  # the first build compiles; later ones reuse httpstan's cache
                section["stan_compile_s"] = build_s
                print(f"stan compile: {build_s:.1f}s", flush=True)
            runs["stan"].append(row)
            print("stan", rep, row, flush=True)
        elif posterior is not None:
            if rep:
                posterior, _ = stan_build(index, yy, layout, seed, program)
            row, summaries["stan"] = stan_fit(posterior, layout, **stan_kwargs)
            runs["stan"].append(row)
            print("stan", rep, row, flush=True)
        if not args.skip_pymc and rep < args.repeats_pymc:
            row, summaries["pymc_plain"] = pymc_plain_fit(
                X, y, catalogue, draws=draws, tune=tune, chains=chains, seed=seed
            )
            runs["pymc_plain"].append(row)
            print("pymc_plain", rep, row, flush=True)
    if posterior is not None:
        stan_forget(posterior)

    table_rows = []
    for impl, rows in runs.items():
        if not rows:
            continue
        keys = ["sample_s", "min_ess", "max_rhat", "divergences", "n_steps", "step_ms"]
        if impl == "stan":
            keys.append("stan_gradient_ms")
        med = {k: median([r[k] for r in rows]) for k in keys}
        med["max_rhat"] = max(r["max_rhat"] for r in rows)
        med["divergences"] = int(max(r["divergences"] for r in rows))
        med["min_ess"] = median([r["min_ess"] for r in rows])
        if impl == "skcodex":
            med["compile_s"] = section["skcodex_compile"]["cold_s"]
        elif impl == "stan":
            med["compile_s"] = section["stan_compile_s"]
        else:
            med["compile_s"] = median([r["compile_s"] for r in rows])
        med = rates(med)
        if impl == "skcodex":
            disk = section["skcodex_compile"]["disk_s"]
            med["ess_per_s_total_disk"] = med["min_ess"] / (disk + med["sample_s"])
        med.update(implementation=impl, repeats=len(rows))
        table_rows.append(med)
    section["runs"] = runs
    section["table"] = table_rows
    if "stan" in summaries:
        section["agreement_skcodex_stan"] = agreement(summaries["skcodex"], summaries["stan"])
    if "pymc_plain" in summaries:
        section["agreement_skcodex_pymc_plain"] = agreement(
            summaries["skcodex"], summaries["pymc_plain"]
        )
    by = {r["implementation"]: r for r in table_rows}
    if "stan" in by:
        section["ratio_ess_per_s_vs_stan"] = by["skcodex"]["ess_per_s"] / by["stan"]["ess_per_s"]
        section["first_fit_s"] = {
            "skcodex_cold": by["skcodex"]["compile_s"] + by["skcodex"]["sample_s"],
            "stan": by["stan"]["compile_s"] + by["stan"]["sample_s"],
        }
    results[name] = section
    print(render_fit_table(name, section), flush=True)


def render_fit_table(name, section) -> str:
    cols = [
        ("implementation", "implementation", ""),
        ("repeats", "runs", "d"),
        ("compile_s", "compile s", ".1f"),
        ("sample_s", "sampling s (median)", ".1f"),
        ("min_ess", "min bulk ESS", ".0f"),
        ("ess_per_s", "ESS/s sampling", ".1f"),
        ("ess_per_s_total", "ESS/s compile+sampling", ".1f"),
        ("ess_per_s_total_disk", "same, compile from disk cache", ".1f"),
        ("max_rhat", "max R-hat", ".3f"),
        ("divergences", "divergences", "d"),
        ("n_steps", "leapfrog steps/draw", ".1f"),
        ("step_ms", "ms per leapfrog step and core", ".3f"),
        ("stan_gradient_ms", "Stan's own gradient estimate (ms)", ".3f"),
    ]
    out = [f"\n### {name}\n", markdown(section["table"], cols)]
    comp = section["skcodex_compile"]
    out.append(
        f"\nskcodex compile: cold {comp['cold_s']:.1f} s, from disk cache {comp['disk_s']:.1f} s"
        + (f", nutpie's own compile {comp['nutpie_own_s']:.1f} s" if "nutpie_own_s" in comp else "")
    )
    if "skcodex_first_fit_cold" in section:
        ff = section["skcodex_first_fit_cold"]
        out.append(
            f"first fit with empty caches: fit {ff['fit_s']:.1f} s, whole process "
            f"{ff['process_s']:.1f} s, CPU {ff['cpu_s']:.1f} s (load {ff['load_average']:.1f})"
        )
    if "ratio_ess_per_s_vs_stan" in section:
        out.append(f"ESS/s ratio skcodex / Stan: {section['ratio_ess_per_s_vs_stan']:.2f}")
        ff = section["first_fit_s"]
        out.append(
            f"first fit incl. compile: skcodex (cold) {ff['skcodex_cold']:.1f} s, "
            f"Stan {ff['stan']:.1f} s"
        )
    for key in ("agreement_skcodex_stan", "agreement_skcodex_pymc_plain"):
        if key in section:
            a = section[key]
            out.append(
                f"{key}: {a['n_beyond_4_mcse']} of {a['n_parameters']} parameters beyond 4 MCSE "
                f"(max {a['max_z']:.2f}; {100 * a['share_within_2_mcse']:.1f}% within 2); "
                f"worst {a['worst'][:3]}"
            )
    return "\n".join(out)


def padding_cost(X, y, catalogue, args, results):
    """skcodex with its padded layout against the exact layout, side by side."""
    from skcodex._matchup import compile_cache, padding, sampling

    exact = {}
    rows: dict[str, list] = {"padded": [], "exact": []}
    original = padding.padded_layout
    users = (sampling, compile_cache)  # the modules that pad: the sampler and the cache
    for rep in range(args.repeats):
        for kind in ("padded", "exact"):
            for module in users:
                module.padded_layout = original if kind == "padded" else (lambda layout: layout)
            try:
                if kind == "exact" and not exact:
                    _, _, layout = encoded(X, y, catalogue)
                    compile_cache.precompile(layout)
                    exact["done"] = True
                row, _ = skcodex_fit(
                    X, y, catalogue, draws=args.draws, tune=args.tune, seed=args.seed + rep
                )
            finally:
                for module in users:
                    module.padded_layout = original
            rows[kind].append(rates(row))
            print("padding", kind, rep, row, flush=True)
    _, _, layout = encoded(X, y, catalogue)
    padded = padding.padded_layout(layout)
    table_rows = []
    for kind, rs in rows.items():
        table_rows.append(
            {
                "layout": kind,
                "n_parameters": (padded.size if kind == "padded" else layout.size) + 4,
                "sample_s": median([r["sample_s"] for r in rs]),
                "min_ess": median([r["min_ess"] for r in rs]),
                "ess_per_s": median([r["ess_per_s"] for r in rs]),
                "n_steps": median([r["n_steps"] for r in rs]),
            }
        )
    results["padding"] = {"runs": rows, "table": table_rows}
    cols = [
        ("layout", "layout", ""),
        ("n_parameters", "parameters sampled", "d"),
        ("sample_s", "sampling s", ".1f"),
        ("min_ess", "min bulk ESS (real effects)", ".0f"),
        ("ess_per_s", "ESS/s", ".1f"),
        ("n_steps", "leapfrog steps/draw", ".1f"),
    ]
    print("\n### padding cost (real data)\n\n" + markdown(table_rows, cols), flush=True)


def scaling(args, results):
    """Fit time against the number of synthetic matches (one run each)."""
    from skcodex._matchup.compile_cache import compile_count, precompile

    table_rows = []
    for n in args.scaling:
        X, y, _ = load_synthetic(n)
        _, _, layout = encoded(X, y)
        before = compile_count()
        with Timer() as t:
            precompile(layout)
        row, _ = skcodex_fit(X, y, None, draws=args.draws, tune=args.tune, seed=args.seed)
        row = rates(row)
        row.update(n_matches=n, compile_s=t.seconds, compiles=compile_count() - before)
        table_rows.append(row)
        print("scaling", row, flush=True)
    results["scaling"] = {"repeats": 1, "table": table_rows}
    cols = [
        ("n_matches", "matches", "d"),
        ("compiles", "new compiles", "d"),
        ("compile_s", "compile s", ".1f"),
        ("sample_s", "sampling s", ".1f"),
        ("min_ess", "min bulk ESS", ".0f"),
        ("ess_per_s", "ESS/s", ".1f"),
        ("max_rhat", "max R-hat", ".3f"),
        ("divergences", "divergences", "d"),
        ("n_steps", "leapfrog steps/draw", ".1f"),
    ]
    print("\n### scaling (skcodex, one run each)\n\n" + markdown(table_rows, cols), flush=True)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sections", default="real,synthetic,padding,scaling")
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--tune", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=2, help="runs on the real data")
    parser.add_argument("--repeats-synthetic", type=int, default=1)
    parser.add_argument("--repeats-pymc", type=int, default=1)
    parser.add_argument("--synthetic", type=int, default=10_000)
    parser.add_argument("--scaling", type=int, nargs="+", default=[1000, 5000, 20_000, 50_000])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-stan", action="store_true")
    parser.add_argument("--skip-pymc", action="store_true")
    parser.add_argument("--no-nutpie-own", dest="nutpie_own", action="store_false")
    parser.add_argument("--quick", action="store_true", help="tiny draws: a smoke test")
    parser.add_argument("--output", default="fit_speed")
    parser.add_argument(
        "--update", action="store_true", help="keep the other sections of an earlier result file"
    )
    parser.add_argument(
        "--stan-python",
        help="run Stan in this interpreter (one with PyStan), for Pythons PyStan lacks",
    )
    parser.add_argument("--compile-only", help=argparse.SUPPRESS)
    parser.add_argument("--first-fit-only", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--stan-worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.compile_only:
        _compile_only(args.compile_only)
        return
    if args.first_fit_only:
        _first_fit_only(*args.first_fit_only)
        return
    if args.stan_worker:
        _stan_worker(*args.stan_worker)
        return
    if args.quick:
        args.draws, args.tune, args.repeats, args.scaling = 100, 100, 1, [1000, 2000]
        args.synthetic = 2000
    sections = set(args.sections.split(","))
    results = {"machine": machine(), "settings": vars(args), "stan_program": STAN_PROGRAM}
    earlier = RESULTS / f"{args.output}.json"
    if args.update and earlier.exists():
        kept = json.loads(earlier.read_text())
        results = {**kept, **results, "earlier_settings": kept.get("settings")}
    if {"real", "padding"} & sections:
        X, y, catalogue = load_real()
    if "real" in sections:
        compare_on("real", X, y, catalogue, args, results)
        write_results(args.output, results)
    if "synthetic" in sections:
        Xs, ys, _ = load_synthetic(args.synthetic)
        compare_on(f"synthetic{args.synthetic}", Xs, ys, None, args, results)
        write_results(args.output, results)
    if "padding" in sections:
        padding_cost(X, y, catalogue, args, results)
        write_results(args.output, results)
    if "scaling" in sections:
        scaling(args, results)
    if "firstfit" in sections:  # only the first fit from empty caches, --repeats times
        results["first_fit_cold"] = [
            first_fit_in_subprocess("real", args.draws, args.tune) for _ in range(args.repeats)
        ]
        print("first fit, empty caches:", results["first_fit_cold"], flush=True)
    print("\nwrote", write_results(args.output, results))


if __name__ == "__main__":
    main()
