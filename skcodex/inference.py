"""Posterior sampling for the matchup model: samplers, the compile cache, convergence checks.

One compiled model serves every fit with the same vocabulary sizes: the data
(index matrix, outcomes) and the spread priors are ``pm.Data`` containers, so
a cross-validation loop or a grid search over priors swaps them in instead of
compiling again (nutpie's ``with_data``; PyMC's ``pm.set_data``).
"""

from __future__ import annotations

import importlib.util
import multiprocessing
import os
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from skcodex.model import Layout, SpreadPriors, build_model

SAMPLERS = ("auto", "nutpie", "pymc")

# Compiled models by (sampler, layout): built once per process and vocabulary shape.
_COMPILED: dict[tuple, Any] = {}


@dataclass(frozen=True)
class SamplingOptions:
    """How to sample: the estimator's sampling parameters."""

    draws: int = 1000
    tune: int = 1000
    chains: int = 4
    target_accept: float = 0.8
    sampler: str = "auto"
    seed: int = 0
    progressbar: bool = False
    cores: int | None = None


def resolve_sampler(name: str) -> str:
    """The sampler to use: ``"auto"`` is nutpie when installed, else PyMC's NUTS."""
    if name not in SAMPLERS:
        raise ValueError(f"sampler must be one of {SAMPLERS}, got {name!r}")
    if name == "auto":
        return "nutpie" if importlib.util.find_spec("nutpie") else "pymc"
    if name == "nutpie" and importlib.util.find_spec("nutpie") is None:
        raise ImportError("sampler='nutpie' needs the nutpie package: pip install 'skcodex[fast]'")
    return name


def _cores(options: SamplingOptions) -> int:
    if options.cores is not None:
        return max(1, int(options.cores))
    return max(1, min(options.chains, os.cpu_count() or 1))


def _data(index: np.ndarray, y: np.ndarray, priors: SpreadPriors) -> dict[str, np.ndarray]:
    return {
        "index": np.asarray(index, dtype=np.int64),
        "y": np.asarray(y, dtype=float),
        "prior_loc": np.asarray(priors.loc, dtype=float),
        "prior_scale": np.asarray(priors.scale, dtype=float),
    }


def _sample_nutpie(data: dict, layout: Layout, options: SamplingOptions):
    import nutpie

    key = ("nutpie", layout)
    compiled = _COMPILED.get(key)
    if compiled is None:
        model = build_model(data["index"], data["y"], layout)
        compiled = _COMPILED[key] = nutpie.compile_pymc_model(model)
    compiled = compiled.with_data(**data)
    return nutpie.sample(
        compiled,
        draws=options.draws,
        tune=options.tune,
        chains=options.chains,
        cores=_cores(options),
        seed=options.seed,
        progress_bar=options.progressbar,
        target_accept=options.target_accept,
        save_warmup=False,
    )


def _sample_pymc(data: dict, layout: Layout, options: SamplingOptions):
    import pymc as pm

    key = ("pymc", layout)
    model = _COMPILED.get(key)
    if model is None:
        model = _COMPILED[key] = build_model(data["index"], data["y"], layout)
    cores = _cores(options)
    in_worker = multiprocessing.current_process().daemon
    with model:
        pm.set_data(data)
        return pm.sample(
            draws=options.draws,
            tune=options.tune,
            chains=options.chains,
            cores=1 if in_worker else cores,
            target_accept=options.target_accept,
            random_seed=options.seed,
            progressbar=options.progressbar,
            compute_convergence_checks=False,
            mp_ctx="fork" if os.name == "posix" else None,
        )


def sample_posterior(
    index: np.ndarray,
    y: np.ndarray,
    layout: Layout,
    priors: SpreadPriors,
    options: SamplingOptions,
):
    """Sample the model's posterior and return it as ArviZ InferenceData."""
    data = _data(index, y, priors)
    sampler = resolve_sampler(options.sampler)
    if sampler == "nutpie":
        return _sample_nutpie(data, layout, options)
    return _sample_pymc(data, layout, options)


def convergence_problems(idata, min_ess: float = 400.0, max_rhat: float = 1.01) -> list[str]:
    """Plain-language descriptions of every failed convergence check (empty when all pass)."""
    import arviz as az

    post = idata.posterior[["log_sd", "z"]]
    problems = []
    n_chains = post.sizes["chain"]
    names = {"log_sd": "spread", "z": "effect"}
    if n_chains > 1:
        rhat = az.rhat(post)
        for var in ("log_sd", "z"):
            values = np.asarray(rhat[var]).ravel()
            bad = np.flatnonzero(values > max_rhat)
            if len(bad):
                problems.append(
                    f"R-hat above {max_rhat} for {len(bad)} {names[var]} parameter(s) "
                    f"({var}[{', '.join(map(str, bad[:5]))}{', ...' if len(bad) > 5 else ''}]; "
                    f"worst {values[bad].max():.3f})"
                )
    ess = az.ess(post, method="bulk")
    for var in ("log_sd", "z"):
        values = np.asarray(ess[var]).ravel()
        bad = np.flatnonzero(values < min_ess)
        if len(bad):
            problems.append(
                f"bulk ESS below {min_ess:g} for {len(bad)} {names[var]} parameter(s) "
                f"({var}[{', '.join(map(str, bad[:5]))}{', ...' if len(bad) > 5 else ''}]; "
                f"lowest {values[bad].min():.0f})"
            )
    stats = getattr(idata, "sample_stats", None)
    if stats is not None and "diverging" in stats:
        n_div = int(np.asarray(stats["diverging"]).sum())
        if n_div:
            problems.append(f"{n_div} divergent transition(s)")
    return problems


def warn_if_not_converged(idata) -> list[str]:
    """Issue one ConvergenceWarning naming every failed check and what to do."""
    problems = convergence_problems(idata)
    if problems:
        warnings.warn(
            "the posterior sample may not be reliable: "
            + "; ".join(problems)
            + ". Increase draws and tune (more draws raise ESS), raise target_accept "
            "towards 0.95 (fewer divergences), or tighten the spread priors.",
            ConvergenceWarning,
            stacklevel=3,
        )
    return problems
