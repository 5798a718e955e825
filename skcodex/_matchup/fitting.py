"""Running a fit: one call from a `FitProblem` to the named posterior, NUTS or ADVI.

`run` takes the `skcodex._matchup.sampling.FitProblem` the estimator's ``fit`` builds
once (the index matrix and outcomes of the training matches, their `Layout`,
the spread priors, the sampling options, the inference method and the names
of the levels) and returns the posterior object of the installed ArviZ (see
`skcodex._compat.posterior`) with the groups

``posterior``
    The spread parameters as sampled, ``sd`` (dimension ``spread``) and one
    variable per effect block with named coordinates (``player``,
    ``starter1``, ``starter2``, ``spec1``, ``spec2``, ``epoch``). The
    standard normals behind the effects are not kept: each effect is its
    standard normal times its spread. Draws are stored in single precision,
    seven significant digits, far finer than their Monte Carlo error.
``sample_stats``
    Per-draw sampler statistics (NUTS only).
``observed_data``, ``constant_data``
    The outcomes fitted (``outcome``) and what each match reads (``index``,
    ``signs``), from which the log-likelihood is recomputed.
``log_likelihood``
    Each match's log-likelihood per draw (``outcome``), for PSIS-LOO, when
    draws x matches fits in memory (`skcodex._matchup.readers.MAX_LOG_LIKELIHOOD`). It
    is derived from the other groups, so a saved model does not store it.

Which sampler runs is decided here: ``sampler="auto"`` takes nutpie when it
is installed, except under the balanced prior, whose model nutpie's numba
backend takes minutes to build and PyMC's C backend seconds.

What is read from a fit afterwards (effect draws, forecasts' current
effects, the log-likelihood) is in `skcodex._matchup.readers`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import xarray as xr

from skcodex._compat import posterior
from skcodex._matchup.blocks import level_kind
from skcodex._matchup.graph import Layout
from skcodex._matchup.readers import add_log_likelihood
from skcodex._matchup.sampling import (
    FitProblem,
    SamplingOptions,
    check_draws_fit_in_memory,
    sample_posterior,
)
from skcodex.data import Vocabulary
from skcodex.data import _kinds as kinds

__all__ = ["from_effect_draws", "level_names", "run"]

#: Precision the posterior draws are stored in.
DRAW_DTYPE = np.float32


def _sampling_policy(options: SamplingOptions, layout: Layout) -> SamplingOptions:
    if options.sampler == "auto" and layout.options.prior == "balanced":
        return dataclasses.replace(options, sampler="pymc")
    return options


def _sample(problem: FitProblem) -> dict[str, xr.Dataset]:
    if problem.method == "nuts":
        # one binomial term per distinct index row, not one per match
        policy = _sampling_policy(problem.sampling, problem.layout)
        return sample_posterior(dataclasses.replace(problem.collapsed(), sampling=policy))
    # ADVI keeps one row per match: its minibatches draw matches, not rows
    from skcodex._matchup.approximation import fit_approximate

    return fit_approximate(problem)


def _labels(names: list) -> Any:
    """Level names as a coordinate: text as an object array, which holds each name once.

    A list of str would become a fixed-width text array, every entry as wide
    as the longest name: one 50,000-character name among 3,000 players would
    take 600 MB. Other labels (numbers, dates, a mix) are left to xarray.
    """
    if names and all(isinstance(name, str) for name in names):
        out = np.empty(len(names), dtype=object)
        out[:] = names
        return out
    return names


def _named(groups: dict[str, xr.Dataset], coords: dict[str, list]) -> dict[str, xr.Dataset]:
    """Effect blocks labelled with level names, and draws in single precision."""
    post = groups["posterior"]
    present = {k: _labels(v) for k, v in coords.items() if k in post.dims}
    post = post.assign_coords(present)
    for var in post.data_vars:
        if post[var].dtype.kind == "f":
            post[var] = post[var].astype(DRAW_DTYPE)
    return {**groups, "posterior": post}


def from_effect_draws(
    theta: np.ndarray,
    sd: np.ndarray,
    layout: Layout,
    coords: dict[str, list] | None = None,
    n_chains: int = 1,
):
    """A posterior object holding given effect and spread draws, as `run` lays one out.

    For simulation studies and tests: a classifier whose ``idata_`` is set to
    it (with ``vocabulary_``, ``layout_`` and ``classes_``) predicts and
    analyses with these draws.

    Parameters
    ----------
    theta : ndarray of shape (n_draws, layout.size)
    sd : ndarray of shape (n_draws, n_spreads)
    layout : Layout
    coords : dict, optional
        Level names per dimension, as `FitProblem.level_names`.
    n_chains : int, default 1
        The draws are split into this many chains of equal length.

    Returns
    -------
    arviz.InferenceData or xarray.DataTree
    """
    theta = np.asarray(theta, dtype=float)
    sd = np.asarray(sd, dtype=float)
    n = theta.shape[0] // n_chains
    data = {"sd": (("chain", "draw", "spread"), sd.reshape(n_chains, n, -1))}
    dims = {b.name: b.dims for b in layout.declared}
    for name, block in layout.unflatten(theta).items():
        data[name] = (
            ("chain", "draw", *dims[name]),
            block.reshape(n_chains, n, *block.shape[1:]),
        )
    post = xr.Dataset(data, coords={"chain": np.arange(n_chains), "draw": np.arange(n)})
    post = post.assign_coords(spread=list(layout.spreads))
    return posterior.from_groups(_named({"posterior": post}, coords or {}))


def run(problem: FitProblem):
    """Fit the model to encoded matches and return its named posterior.

    Parameters
    ----------
    problem : FitProblem
        The training matches (one index row each), layout, priors, sampling
        options, inference method and level names, as the estimator's
        ``fit`` builds them.

    Returns
    -------
    arviz.InferenceData or xarray.DataTree
        The groups listed in the module docstring.
    """
    layout = problem.layout
    check_draws_fit_in_memory(problem.sampling, layout)  # before compiling or sampling
    groups = _named(_sample(problem), dict(problem.level_names))
    # How it was sampled, kept with the draws: the report describes the fit from these,
    # not from parameters that set_params may have changed since.
    sampling = problem.sampling
    groups["posterior"].attrs.update(
        fitted_tune=int(sampling.tune),
        fitted_target_accept=float(sampling.target_accept),
        fitted_seed=int(sampling.seed),
    )
    groups["observed_data"] = xr.Dataset({"outcome": ("match", problem.outcome)})
    groups["constant_data"] = xr.Dataset(
        {
            "index": (("match", "column"), problem.index.astype(np.int32)),
            "signs": ("column", np.asarray(layout.signs, dtype=float)),
        }
    )
    return add_log_likelihood(posterior.from_groups(groups), layout)


def level_names(vocab: Vocabulary, layout: Layout, periods: list) -> dict[str, list]:
    """The names of the posterior's dimensions, from the vocabulary and the periods.

    Every kind of level with names (`skcodex.data._kinds.KIND_TABLE`) is named
    from the vocabulary, and each side of a matchup (``"starter1"``) as its kind.
    ``periods`` are the table's ``period`` labels in the order they began
    (`skcodex.data.period_labels`; empty without periods): the walk's epochs.
    """
    names = kinds.level_names(vocab)
    for block in layout.declared:
        for dim in block.dims:
            names.setdefault(dim, names.get(level_kind(dim), []))
    names["spread"] = list(layout.spreads)
    if layout.options.time_varying:
        labels = [*periods, *(f"epoch {i}" for i in range(layout.n_epochs))]
        names["epoch"] = labels[: layout.n_epochs]
    return names
