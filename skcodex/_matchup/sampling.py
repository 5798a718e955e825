"""Posterior sampling for the matchup model: samplers and the compile cache.

Compiling the model's log-density is the slow part of a first fit, so it is
done as rarely as possible:

- **Data and priors are swapped, not compiled in.** The index matrix, the
  outcomes and the spread priors are ``pm.Data`` containers, so a refit on new
  matches (any number of them) or under other priors reuses the compiled model
  (nutpie: ``with_data``; PyMC: ``pm.set_data``).
- **Vocabulary sizes are padded to buckets.** A cross-validation fold usually
  sees fewer players than the whole table, which would change the shape of the
  effect vector and force a new compile. The model is therefore built for a
  padded `Layout` (`padded_layout`: players and rating periods rounded up to a
  power of two, starters and specs to a multiple of four). The extra effects
  are standard normals that no match reads: they leave the posterior of the
  real effects unchanged and are dropped from the returned draws, so every fit
  with sizes in the same bucket shares one compiled model.
- **Compiled models are kept** in a module-level cache for the life of the
  process (`compile_count` counts the compilations), and, with the default
  nutpie sampler, on disk: the log-density and its C-callable wrappers are
  numba functions stored in PyTensor's compile directory
  (``pytensor.config.base_compiledir``, set by ``PYTENSOR_FLAGS``), so a new
  process loads them instead of compiling again.
- **One answer per seed.** A model compiled fresh, one read from the disk
  cache and one already in memory give bit-identical draws for the same seed:
  under PyTensor 3 every compile of the model turns numba's fast-math flags
  off (`ieee_float_math`), which would otherwise let the two differ.

The compiled models are never part of a fitted estimator's state, which
therefore pickles.
"""

from __future__ import annotations

import importlib.util
import multiprocessing
import os
import threading
import warnings
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from skcodex._matchup.blocks import block_dims
from skcodex._matchup.debut import moved_index
from skcodex._matchup.geometry import (
    apply_null_rotation,
    centred_levels,
    choose_centring,
    mean_rotations,
    null_rotation,
    standard_normals,
)
from skcodex._matchup.graph import ROTATED_Z, Layout, SpreadPriors, build_model, walk_data
from skcodex._matchup.layout import collapse_matches
from skcodex._matchup.nutpie_compile import clear_numba_cache, compile_nutpie
from skcodex.data import _kinds as kinds

SAMPLERS = ("auto", "nutpie", "pymc")

# Compiled models by (sampler, padded layout): built once per process and bucket.
_COMPILED: dict[tuple, Any] = {}
_COMPILE_COUNT: dict[str, int] = {"nutpie": 0, "pymc": 0}
_LOCK = threading.RLock()


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
        rows, trials, totals = collapse_matches(self.index, self.outcome)
        draws = None
        if self.layout.options.draws:  # and the draws of each row, in the same row order
            draws = collapse_matches(self.index, self.draw_counts())[2]
        return replace(self, index=rows, outcome=totals, trials=trials, draws=draws)

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


# -- padding -------------------------------------------------------------------


def padded_layout(layout: Layout) -> Layout:
    """The layout the model is compiled for: ``layout`` with its sizes rounded up to buckets.

    Each kind of level is rounded up as its record says
    (`skcodex.data._kinds.KIND_TABLE`: players and rating periods to a power of
    two, at least 32 players and 2 periods; starters and specs to a multiple of
    four), the steps of an integrated skill walk to 4, 5, 6 or 7 times a power of two (at most
    25% more; which cells the steps feed and the gaps they span are data of
    the compiled model, `skcodex._matchup.graph.walk_data`). Layouts in the same
    bucket share one compiled model.

    Parameters
    ----------
    layout : Layout
        The layout of the data being fitted.

    Returns
    -------
    Layout
        A layout at least as large as ``layout`` in every size (a kind with
        no levels stays without), with the same options, specs per deck and
        spreads.
    """
    # each kind of level padded as its record says (a kind with no levels stays without)
    sizes = {k.size: kinds.padded_count(k, layout) for k in kinds.KIND_TABLE if k.size}
    columns = tuple(
        (k.name, kinds.padded_count(k, layout))
        for k in kinds.KIND_TABLE
        if k.column is not None and kinds.count(k, layout)
    )
    walk_steps = layout.walk_steps
    if layout.integrated_walk:
        walk_steps = _quarter_power_of_two(walk_steps, 8)
    padded = replace(layout, **sizes, walk_steps=walk_steps, column_counts=columns)
    if padded.spreads != layout.spreads:  # the compiled model samples the layout's spreads
        raise ValueError(
            f"the padded layout has the spreads {padded.spreads}, the layout {layout.spreads}"
        )
    return padded


def _quarter_power_of_two(n: int, minimum: int) -> int:
    """The smallest of 4, 5, 6 or 7 times a power of two that is >= n (at most 25% more)."""
    n = max(int(n), int(minimum))
    power = 1 << max(0, (n - 1).bit_length() - 3)
    return min(m * power for m in (4, 5, 6, 7, 8) if m * power >= n)


def embedding(layout: Layout, padded: Layout) -> tuple[np.ndarray, np.ndarray]:
    """Where ``layout``'s effects and standard normals sit in a larger ``padded`` layout.

    Each block of ``layout`` occupies the leading corner of the same block of
    ``padded`` (level codes are kept; the extra levels come after them).

    Parameters
    ----------
    layout, padded : Layout
        ``padded`` must be at least as large as ``layout`` in every size.

    Returns
    -------
    theta_pos : ndarray of int, shape (layout.size,)
        ``theta_pos[i]`` is the position in the padded ``theta`` of entry ``i``
        of ``layout``'s ``theta``; so ``theta_pos[index]`` is the padded index matrix.
    z_pos : ndarray of int, shape (layout.n_free,)
        The same for the standard normals ``z``; ``z_padded[..., z_pos]`` are
        ``layout``'s ``z``.
    """
    counts, padded_counts = layout.level_counts, padded.level_counts
    if (
        any(padded_counts[kind] < n for kind, n in counts.items())
        or padded.options != layout.options
        or padded.specs_per_deck != layout.specs_per_deck
        or padded.integrated_walk != layout.integrated_walk
        or (layout.integrated_walk and padded.walk_steps < layout.walk_steps)
    ):
        raise ValueError(f"{padded} does not contain {layout}")
    where = padded.unflatten(np.arange(padded.size))
    theta_pos = layout.flatten(
        {
            name: where[name][tuple(slice(0, n) for n in layout.shapes[name])]
            for name, _ in layout.blocks
        }
    )
    z_parts = []
    for block in layout.declared:
        if block.form == "walk" and layout.integrated_walk:  # its steps come first in padded
            start = padded.free_offsets[block.name]
            z_parts.append(start + np.arange(layout.walk_steps))
            continue
        owner = np.full(padded.shapes[block.name], -1, dtype=np.int64)
        cells = padded.free_cells(block)
        start = padded.free_offsets[block.name]
        owner[cells] = (start + np.arange(padded.n_free_cells(block))).reshape(owner[cells].shape)
        z_parts.append(np.atleast_1d(owner[layout.free_cells(block)]))
    return theta_pos, np.concatenate(z_parts).astype(np.int64)


# -- the compile cache ---------------------------------------------------------


#: The first PyTensor version whose fast-math kernels were measured to give other bits
#: when assembled from the disk cache than when compiled from scratch.
FAST_MATH_UNREPRODUCIBLE_FROM = (3,)


@contextmanager
def ieee_float_math():
    """Compile PyTensor's numba kernels without fast-math flags while in this block.

    PyTensor compiles its numba kernels with LLVM's fast-math flags by default
    (``pytensor.config.numba__fastmath``), which let LLVM reassociate sums and
    fuse multiply-adds as its optimiser sees fit. Under PyTensor 3 the optimiser
    does not see the same code when a model is compiled from scratch as when it
    is assembled from kernels read from the disk cache, and the two were
    measured to differ in the last bits of the log-density: enough to send NUTS
    down another path, so one seed gave two posteriors. With IEEE semantics
    every kernel computes exactly what its code says, however it is compiled or
    linked, and the gradient was measured no slower. PyTensor keys its disk
    cache on the flag, so kernels compiled with fast-math elsewhere are not
    reused here.

    Under PyTensor 2 the fresh and the cached model give the same bits with
    fast-math on (``tests/test_determinism.py`` checks it on both lines), and
    turning it off made the gradient about 3.5 times slower, so the flags are
    left as they are there (`FAST_MATH_UNREPRODUCIBLE_FROM`).
    """
    import pytensor

    major = tuple(int(p) for p in pytensor.__version__.split(".")[:1] if p.isdigit())
    if major < FAST_MATH_UNREPRODUCIBLE_FROM:
        yield
        return
    with pytensor.config.change_flags(numba__fastmath=False):
        yield


def compile_count(sampler: str | None = None) -> int:
    """How many models this process has compiled (for one sampler, or for all).

    A refit that reuses a compiled model does not count. Useful to check that a
    cross-validation loop or a grid search does not recompile.
    """
    with _LOCK:
        if sampler is None:
            return sum(_COMPILE_COUNT.values())
        return _COMPILE_COUNT[resolve_sampler(sampler)]


def clear_compiled() -> None:
    """Forget every compiled model of this process (the disk cache is kept)."""
    with _LOCK:
        _COMPILED.clear()


def precompile(layout: Layout, sampler: str = "auto", rotated: bool = False) -> None:
    """Compile the model for ``layout``'s bucket now, so that later fits only sample.

    Parameters
    ----------
    layout : Layout
        Any layout in the bucket to compile (see `padded_layout`).
    sampler : {"auto", "nutpie", "pymc"}
    rotated : bool
        Compile the model with the change of coordinates that data-rich tables
        take (`skcodex._matchup.geometry.null_rotation`) rather than without it.
    """
    sampler = resolve_sampler(sampler)
    padded = padded_layout(layout)
    width = len(padded.signs)
    _compiled(sampler, padded, np.zeros((1, width), dtype=np.int64), np.zeros(1), rotated)


def _compiled(
    sampler: str, padded: Layout, index: np.ndarray, y: np.ndarray, rotated: bool = False
) -> Any:
    """The compiled model for ``padded``, built on first use.

    ``rotated``: with the null-direction change of coordinates
    (`skcodex._matchup.geometry.null_rotation`), whose data are set at sampling.
    """
    key = (sampler, padded, rotated)
    with _LOCK:
        found = _COMPILED.get(key)
        if found is None:
            try:
                found = _build(sampler, padded, index, y, rotated)
            except Exception as err:
                # A damaged on-disk cache (truncated kernel or index files) makes every
                # compile fail until it is removed: remove it and compile afresh once.
                if sampler != "nutpie" or not clear_numba_cache():
                    raise
                warnings.warn(
                    "the on-disk compile cache was damaged "
                    f"({type(err).__name__}: {str(err)[:80]}); it was cleared and the "
                    "model compiled afresh",
                    RuntimeWarning,
                    stacklevel=4,
                )
                found = _build(sampler, padded, index, y, rotated)
            _COMPILED[key] = found
            _COMPILE_COUNT[sampler] += 1
        return found


def _build(
    sampler: str, padded: Layout, index: np.ndarray, y: np.ndarray, rotated: bool = False
) -> Any:
    # placeholder rotation data (the identity); the fit's own replace them
    placeholder = (np.zeros(1, dtype=np.int64), np.zeros((1, 1)), np.zeros((1, 1)))
    placeholder = placeholder if rotated else None
    model = build_model(index, y, padded, null_rotation=placeholder)
    if sampler != "nutpie":
        return model  # PyMC compiles in pm.sample (under ieee_float_math too)
    with ieee_float_math():
        return compile_nutpie(model, _stored_names(model))


def _stored_names(model) -> list[str]:
    """Variables to keep from the sampler: all but the effect blocks (padded; rebuilt later).

    With a null rotation, ``z`` is kept in the sampler's coordinates only
    (`skcodex._matchup.graph.ROTATED_Z`, which nutpie stores in any case) and turned back
    afterwards: one copy of the draws rather than two.
    """
    effects = block_dims()
    free = [rv.name for rv in model.free_RVs]
    drop = {*effects, "z"} if ROTATED_Z in free else set(effects)
    deterministics = [v.name for v in model.deterministics if v.name not in drop]
    return [*free, *deterministics]


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
        data["index"], data["trials"], padded, problem.priors.loc, options.parameterisation
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
