"""Posterior sampling for the matchup model: what a fit is given, and NUTS.

`FitProblem` holds everything a fit is given; `sample_posterior` samples it
with NUTS (nutpie or PyMC) on the model compiled for its padded layout
(`skcodex._matchup.padding`, `skcodex._matchup.compile_cache`) and returns the
draws of the fit's own effects. Sampling refuses, before it starts, draws that
cannot fit in the memory available (`check_draws_fit_in_memory`).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from skcodex._matchup.blocks import block_dims
from skcodex._matchup.compile_cache import (
    SAMPLERS,
    _compiled,
    _stored_names,
    ieee_float_math,
    resolve_sampler,
)
from skcodex._matchup.debut import moved_index
from skcodex._matchup.geometry import (
    apply_null_rotation,
    centred_levels,
    choose_centring,
    mean_rotations,
    null_rotation,
    signed_spreads,
    standard_normals,
)
from skcodex._matchup.graph import ROTATED_Z, Layout, SpreadPriors, walk_data
from skcodex._matchup.layout import collapse_matches
from skcodex._matchup.padding import embedding, padded_layout

__all__ = [
    "SAMPLERS",
    "FitProblem",
    "SamplingOptions",
    "available_memory",
    "check_draws_fit_in_memory",
    "draws_bytes",
    "resolve_sampler",
    "sample_posterior",
]


@dataclass(frozen=True)
class SamplingOptions:
    """How to sample: the estimator's sampling parameters.

    ``parameterisation`` is how NUTS samples the effects (`skcodex._matchup.geometry`):
    ``"auto"`` centres each level the data pin down and turns a differenced
    block's mean apart; ``"noncentred"`` samples every effect's standard normal
    as earlier versions did; ``"centred"`` centres every level some match
    reads. ``low_rank_mass_matrix`` turns on nutpie's low-rank modified
    mass-matrix adaptation (nutpie only).
    """

    draws: int = 1000
    tune: int = 1000
    chains: int = 4
    target_accept: float = 0.8
    sampler: str = "auto"
    seed: int = 0
    progressbar: bool = False
    cores: int | None = None
    parameterisation: str = "auto"
    low_rank_mass_matrix: bool = False


@dataclass(frozen=True, eq=False)
class FitProblem:
    """Everything a fit is given, built once by the estimator's ``fit``.

    The matches as the model reads them, the model's layout and priors, how to
    sample and what to call the levels: the one argument of
    `skcodex._matchup.fitting.run`, `sample_posterior` and
    `skcodex._matchup.approximation.fit_approximate`.

    Parameters
    ----------
    index : ndarray of int, shape (n_rows, n_columns)
        ``layout.index_matrix(codes)`` of the training matches: one row per
        match, or one per distinct row with ``trials`` (`collapsed`).
    outcome : ndarray of float, shape (n_rows,)
        1 where player 1 won, 0 where player 2 won, or luck-adjusted
        outcomes; with ``trials``, the sum over the matches behind each row.
    layout : Layout
        The effect blocks sampled.
    priors : SpreadPriors
        The spread priors.
    sampling : SamplingOptions
        Draws, chains, sampler and seed.
    method : {"nuts", "advi"}, default "nuts"
        The inference method.
    level_names : mapping, optional
        Names of the levels per dimension of the posterior (``player``,
        ``starter1``, ``starter2``, ``spec1``, ``spec2``, ``epoch``,
        ``spread``); integer positions where absent.
    trials : ndarray of float, shape (n_rows,), optional
        The number of matches behind each row of a `collapsed` problem; None
        when each row is one match.
    draws : ndarray of float, shape (n_rows,), optional
        The draws behind each row of a `collapsed` problem of a model with
        draws (`skcodex._matchup.draws`); None when each row is one match (a draw
        where its outcome is 0.5) or the model has none.
    weights : ndarray of float, shape (n_rows,), optional
        How much each match counts (``sample_weight``; None: 1 each), taken
        into ``trials``, the outcomes and the draws when `collapsed`.
    """

    index: np.ndarray
    outcome: np.ndarray
    layout: Layout
    priors: SpreadPriors
    sampling: SamplingOptions = field(default_factory=SamplingOptions)
    method: str = "nuts"
    level_names: Mapping[str, list] = field(default_factory=dict)
    trials: np.ndarray | None = None
    draws: np.ndarray | None = None
    weights: np.ndarray | None = None

    def __post_init__(self) -> None:
        index = np.asarray(self.index, dtype=np.int64)
        outcome = np.asarray(self.outcome, dtype=float)
        if index.ndim != 2 or outcome.shape != (len(index),):
            raise ValueError(
                f"a fit needs one outcome per index row, got index of shape {index.shape} "
                f"and outcomes of shape {outcome.shape}"
            )
        if self.trials is not None and np.shape(self.trials) != outcome.shape:
            raise ValueError(
                f"trials must hold one count per index row, got {np.shape(self.trials)}"
            )
        if self.weights is not None and np.shape(self.weights) != outcome.shape:
            raise ValueError(
                f"weights must hold one number per index row, got {np.shape(self.weights)}"
            )
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "outcome", outcome)

    @property
    def n_rows(self) -> int:
        """The rows of ``index``: matches, or distinct rows of a `collapsed` problem."""
        return len(self.index)

    def collapsed(self) -> FitProblem:
        """The same problem with one row per distinct index row and its counts.

        Matches that read the same index row add one binomial term
        (`skcodex._matchup.layout.collapse_matches`): NUTS then costs one term per
        distinct row, not one per match.
        """
        rows, trials, totals = collapse_matches(self.index, self.outcome, self.weights)
        draws = None
        if self.layout.options.draws:  # and the draws of each row, in the same row order
            draws = collapse_matches(self.index, self.draw_counts(), self.weights)[2]
        return replace(self, index=rows, outcome=totals, trials=trials, draws=draws, weights=None)

    def draw_counts(self) -> np.ndarray:
        """The draws behind each row (`draws`, or 1 where one match's outcome is 0.5)."""
        if self.draws is not None:
            return np.asarray(self.draws, dtype=float)
        return (self.outcome == 0.5).astype(float)


def available_memory() -> int | None:
    """Bytes of memory a process can still allocate, or None where this cannot be read.

    Linux's ``MemAvailable`` (free memory plus what the kernel can reclaim),
    else the machine's physical memory, else None.
    """
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        return None


def draws_bytes(options: SamplingOptions, layout: Layout) -> int:
    """The memory the kept draws of a fit take: ``chains * draws * values * 8`` bytes.

    ``values`` is every number the sampler keeps per draw: each effect of the
    model as compiled (`padded_layout`) and its standard normal, plus the
    spreads and their logs, in float64.
    """
    values = 2 * (padded_layout(layout).size + len(layout.spreads))
    return int(options.chains) * int(options.draws) * values * 8


def check_draws_fit_in_memory(options: SamplingOptions, layout: Layout) -> None:
    """Refuse, before sampling, draws that cannot fit in the memory available.

    A sampler asked for more draws than memory holds may abort the whole
    interpreter (nutpie's native code cannot raise a Python error) or push the
    machine into swap; this refuses them at once with the figures.

    Raises
    ------
    ValueError
        If `draws_bytes` exceeds `available_memory`.
    """
    needed, available = draws_bytes(options, layout), available_memory()
    if available is not None and needed > available:
        raise ValueError(
            f"chains={options.chains} x draws={options.draws} would keep "
            f"{needed / 2**30:,.1f} GiB of posterior draws, more than the "
            f"{available / 2**30:,.1f} GiB of memory available; lower draws or chains"
        )


def _cores(options: SamplingOptions) -> int:
    if options.cores is not None:
        return max(1, int(options.cores))
    return max(1, min(options.chains, os.cpu_count() or 1))


# -- sampling ------------------------------------------------------------------


def _data(index: np.ndarray, y: np.ndarray, priors: SpreadPriors, trials=None) -> dict:
    y = np.asarray(y, dtype=float)
    return {
        "index": np.asarray(index, dtype=np.int64),
        "y": y,
        "trials": np.ones(len(y)) if trials is None else np.asarray(trials, dtype=float),
        "prior_loc": np.asarray(priors.loc, dtype=float),
        "prior_scale": np.asarray(priors.scale, dtype=float),
        "prior_family": priors.exponential,
    }


def _sample_nutpie(compiled, data: dict, options: SamplingOptions):
    import nutpie

    return nutpie.sample(
        compiled.with_data(**data),
        draws=options.draws,
        tune=options.tune,
        chains=options.chains,
        cores=_cores(options),
        seed=options.seed,
        progress_bar=options.progressbar,
        target_accept=options.target_accept,
        save_warmup=False,
        low_rank_modified_mass_matrix=options.low_rank_mass_matrix,
    )


def _sample_pymc(model, data: dict, options: SamplingOptions):
    import pymc as pm

    cores = _cores(options)
    in_worker = multiprocessing.current_process().daemon
    with model, ieee_float_math():
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
            var_names=_stored_names(model),
            mp_ctx="fork" if os.name == "posix" else None,
        )


# Sampler statistics kept per draw (others, such as per-parameter arrays, are dropped).
_KEPT_STATS = (
    "diverging",
    "energy",
    "energy_error",
    "step_size",
    "n_steps",
    "tree_depth",
    "depth",
    "lp",
    "logp",
    "acceptance_rate",
    "mean_tree_accept",
    "reached_max_treedepth",
    "maxdepth_reached",
)


def _posterior_in_layout(
    sampled, layout: Layout, z_pos: np.ndarray, path=None, geometry=None
) -> dict:
    """The padded model's draws restricted to ``layout``: named effect blocks, no ``z``.

    ``path`` is the integrated walk's `skcodex._matchup.walk.WalkPath` for ``layout``;
    ``geometry`` is ``(centring, rotations, padded, null)``: how the model was
    sampled (`skcodex._matchup.geometry`) in the ``padded`` layout, ``null`` the
    `skcodex._matchup.geometry.NullRotation` the draws of ``z`` are turned back by (None:
    ``z`` was stored as it is) (geometry None: non-centred,
    no rotations); the levels sampled centred are recorded per block in the
    attributes ``centred_<block>``.

    Returns ``{"posterior": Dataset, "sample_stats": Dataset}``; the effect blocks
    carry integer coordinates (the estimator names them).
    """
    import xarray as xr

    from skcodex._compat import posterior

    post = posterior.group(sampled, "posterior")
    effects = block_dims()
    sampled_z = {"z", ROTATED_Z}
    keep = [v for v in post.data_vars if v not in effects and v not in sampled_z and "__" not in v]
    out = xr.Dataset({v: post[v] for v in keep})
    n_chains, n_draws = post.sizes["chain"], post.sizes["draw"]
    out = out.assign_coords(chain=np.arange(n_chains), draw=np.arange(n_draws))
    out = out.assign_coords(spread=list(layout.spreads))
    null = None if geometry is None else geometry[3]
    if ROTATED_Z in post.data_vars and null is not None:  # z = Q x, turned back here
        z = apply_null_rotation(post[ROTATED_Z].transpose("chain", "draw", ...).to_numpy(), null)
    else:
        z = post["z"].transpose("chain", "draw", ...).to_numpy()
    sd = post["sd"].transpose("chain", "draw", ...).to_numpy()
    if geometry is not None:  # the sampled coordinates back to standard normals
        centring, rotations, padded, _ = geometry
        z = standard_normals(z, sd, centring, padded, rotations)
    theta = layout.theta(z[..., z_pos], sd, path=path)
    for name, block in layout.unflatten(theta).items():
        out[name] = xr.DataArray(block, dims=("chain", "draw", *effects[name]))
    out.attrs = {k: v for k, v in post.attrs.items() if isinstance(v, (str, int, float))}
    if geometry is not None:
        for name, n in centred_levels(centring[z_pos], layout).items():
            out.attrs[f"centred_{name}"] = n
    groups = {"posterior": out}
    stats = posterior.group(sampled, "sample_stats")
    if stats is not None:
        kept = [
            v
            for v in stats.data_vars
            if v in _KEPT_STATS and set(stats[v].dims) == {"chain", "draw"}
        ]
        groups["sample_stats"] = xr.Dataset({v: stats[v] for v in kept}).assign_coords(
            chain=np.arange(n_chains), draw=np.arange(n_draws)
        )
    return groups


def sample_posterior(problem: FitProblem):
    """Sample the model's posterior and return it as ArviZ InferenceData.

    The model is compiled for ``padded_layout(problem.layout)`` (or taken from
    the cache); the returned draws are those of the layout's effects only.

    Parameters
    ----------
    problem : FitProblem
        The matches (one row each, or `FitProblem.collapsed` with their
        counts), layout, priors and sampling options; ``method`` and
        ``level_names`` are not read here.

    Returns
    -------
    dict of str to xarray.Dataset
        Group ``posterior`` with ``sd`` and the other free parameters and one
        variable per effect block (integer coordinates); group
        ``sample_stats`` as the sampler reports it.
    """
    layout, options = problem.layout, problem.sampling
    sampler = resolve_sampler(options.sampler)
    padded = padded_layout(layout)
    theta_pos, z_pos = embedding(layout, padded)
    index = problem.index
    data = _data(
        theta_pos[index] if index.size else index, problem.outcome, problem.priors, problem.trials
    )
    data.update(walk_data(padded, data["index"]))
    if layout.options.draws:  # the model's third outcome (`skcodex._matchup.draws`)
        data["draws"] = problem.draw_counts()
    data["centring"] = choose_centring(
        data["index"],
        data["trials"],
        padded,
        problem.priors.loc,
        options.parameterisation,
        signed_spreads(padded, problem.priors.exponential),
    )
    data["rotations"] = mean_rotations(data["index"], data["trials"], padded)
    if options.parameterisation == "noncentred":
        data["rotations"][:] = 0.0
    found = null_rotation(
        data["index"], data["trials"], padded, data["centring"], problem.priors.loc
    )
    if found is not None:
        data["null_positions"], data["null_basis"], data["null_core"] = found[:3]
    compiled = _compiled(sampler, padded, data["index"], data["y"], found is not None)
    data["index"] = moved_index(padded, data["index"])  # what the model reads (debut.py)
    if sampler == "nutpie":
        sampled = _sample_nutpie(compiled, data, options)
    else:
        sampled = _sample_pymc(compiled, data, options)
    path = layout.walk_path(index) if layout.integrated_walk else None
    geometry = (data["centring"], data["rotations"], padded, found)
    groups = _posterior_in_layout(sampled, layout, z_pos, path, geometry)
    groups["posterior"].attrs["null_directions"] = 0 if found is None else found.directions
    return groups
