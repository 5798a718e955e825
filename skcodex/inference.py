"""Posterior sampling for the matchup model: samplers, the compile cache, convergence checks.

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

The compiled models are never part of a fitted estimator's state, which
therefore pickles.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import multiprocessing
import os
import threading
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from skcodex.model import Layout, SpreadPriors, build_model

SAMPLERS = ("auto", "nutpie", "pymc")

# The model's free parameters, under either spread prior.
_FREE_VARIABLES = (
    "log_sd",
    "log_total",
    "skill_share_logit",
    "deck_split_logits",
    "log_sd_extra",
    "z",
)

# Compiled models by (sampler, padded layout): built once per process and bucket.
_COMPILED: dict[tuple, Any] = {}
_COMPILE_COUNT: dict[str, int] = {"nutpie": 0, "pymc": 0}
_LOCK = threading.RLock()


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


# -- padding -------------------------------------------------------------------


def _next_power_of_two(n: int, minimum: int) -> int:
    return max(int(minimum), 1 << max(0, int(n) - 1).bit_length())


def _round_up(n: int, multiple: int) -> int:
    return max(multiple, -(-int(n) // multiple) * multiple)


def padded_layout(layout: Layout) -> Layout:
    """The layout the model is compiled for: ``layout`` with its sizes rounded up to buckets.

    Players and rating periods are rounded up to a power of two (at least 32
    players, 2 periods), starters and specs to a multiple of four. Layouts in
    the same bucket share one compiled model.

    Parameters
    ----------
    layout : Layout
        The layout of the data being fitted.

    Returns
    -------
    Layout
        A layout at least as large as ``layout`` in every size, with the same
        options and specs per deck.
    """
    n_epochs = layout.n_epochs
    if layout.options.time_varying:
        n_epochs = _next_power_of_two(n_epochs, 2)
    return Layout(
        _next_power_of_two(layout.n_players, 32),
        _round_up(layout.n_starters, 4),
        _round_up(layout.n_specs, 4),
        layout.specs_per_deck,
        layout.options,
        n_epochs,
    )


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
    sizes = ("n_players", "n_starters", "n_specs", "n_epochs")
    if any(getattr(padded, s) < getattr(layout, s) for s in sizes) or (
        padded.options != layout.options or padded.specs_per_deck != layout.specs_per_deck
    ):
        raise ValueError(f"{padded} does not contain {layout}")
    where = padded.unflatten(np.arange(padded.size))
    theta_pos = layout.flatten(
        {
            name: where[name][tuple(slice(0, n) for n in layout.shapes[name])]
            for name, _ in layout.blocks
        }
    )
    if not layout.options.time_varying:
        return theta_pos, theta_pos.copy()
    n_static = layout.size - layout.n_players * layout.n_epochs
    padded_static = padded.size - padded.n_players * padded.n_epochs
    steps = np.arange(padded.n_players * (padded.n_epochs - 1)).reshape(
        padded.n_players, padded.n_epochs - 1
    )
    steps = steps[: layout.n_players, : layout.n_epochs - 1].ravel() + padded_static
    return theta_pos, np.concatenate([theta_pos[:n_static], steps])


# -- the compile cache ---------------------------------------------------------


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


def precompile(layout: Layout, sampler: str = "auto") -> None:
    """Compile the model for ``layout``'s bucket now, so that later fits only sample.

    Parameters
    ----------
    layout : Layout
        Any layout in the bucket to compile (see `padded_layout`).
    sampler : {"auto", "nutpie", "pymc"}
    """
    sampler = resolve_sampler(sampler)
    padded = padded_layout(layout)
    width = len(padded.signs)
    _compiled(sampler, padded, np.zeros((1, width), dtype=np.int64), np.zeros(1))


def _compiled(sampler: str, padded: Layout, index: np.ndarray, y: np.ndarray) -> Any:
    """The compiled model for ``padded``, built on first use."""
    key = (sampler, padded)
    with _LOCK:
        found = _COMPILED.get(key)
        if found is None:
            model = build_model(index, y, padded)
            found = _compile_nutpie(model) if sampler == "nutpie" else model
            _COMPILED[key] = found
            _COMPILE_COUNT[sampler] += 1
        return found


def _stored_names(model) -> list[str]:
    """Variables to keep from the sampler: all but the effect blocks (padded; rebuilt later)."""
    from skcodex.model import BLOCK_DIMS

    deterministics = [v.name for v in model.deterministics if v.name not in BLOCK_DIMS]
    return [*(rv.name for rv in model.free_RVs), *deterministics]


def _compile_nutpie(model) -> Any:
    """Compile for nutpie with C-callable wrappers that are cheap to build and disk-cached.

    nutpie's own wrappers around the PyTensor functions take most of a first
    compile and cannot be cached on disk. Ours read the data through a flat
    table of pointers and shapes instead; if they cannot be built (another
    nutpie or PyTensor version), nutpie's own compile is used.
    """
    import nutpie

    var_names = _stored_names(model)
    try:
        return _fast_nutpie_model(model, var_names)
    except Exception as err:
        warnings.warn(
            f"falling back to nutpie's slower compile ({type(err).__name__}: {err})",
            RuntimeWarning,
            stacklevel=4,
        )
        return nutpie.compile_pymc_model(model, var_names=var_names)


_FAST_CLASS: list[type] = []


def _fast_model_class() -> type:
    """A nutpie compiled-model class whose data live in a table of pointers and shapes."""
    if _FAST_CLASS:
        return _FAST_CLASS[0]
    from nutpie.compile_pymc import CompiledPyMCModel

    @dataclass(frozen=True)
    class FastCompiledModel(CompiledPyMCModel):
        shared_names: tuple = ()

        def with_data(self, **updates):
            shared = dict(self.shared_data)
            for name, value in updates.items():
                if name not in shared:
                    raise KeyError(f"Unknown shared variable: {name}")
                old = shared[name]
                new = np.array(value, dtype=old.dtype, order="C", copy=True)
                if new.ndim != old.ndim:
                    raise ValueError(f"Shared variable {name} must have rank {old.ndim}")
                new.flags.writeable = False
                shared[name] = new
            table = _pointer_table(shared, self.shared_names)
            return dataclasses.replace(self, shared_data=shared, user_data=table)

    _FAST_CLASS.append(FastCompiledModel)
    return FastCompiledModel


def _pointer_table(shared: dict[str, np.ndarray], names: tuple) -> np.ndarray:
    """Data pointer then shape of each shared array, as int64: what the wrappers read."""
    table = []
    for name in names:
        arr = shared[name]
        table.append(arr.ctypes.data)
        table.extend(arr.shape)
    return np.array(table or [0], dtype=np.int64)


def _fast_nutpie_model(model, var_names: list[str]):
    from nutpie.compile_pymc import _make_functions, _prepare_dims_and_coords, _wrap_with_lock
    from pymc.initial_point import make_initial_point_fn

    initial_point = make_initial_point_fn(
        model=model,
        default_strategy="support_point",
        jitter_rvs=set(model.free_RVs),
        return_transformed=True,
    )
    n_dim, n_expanded, logp_fn, expand_fn, initial_fn, shape_info = _make_functions(
        model,
        mode="NUMBA",
        compute_grad=True,
        join_expanded=True,
        pymc_initial_point_fn=_wrap_with_lock(initial_point),
        var_names=var_names,
    )
    shared: dict[str, np.ndarray] = {}
    for var in [*logp_fn.get_shared(), *expand_fn.get_shared()]:
        if var.name not in shared:
            arr = np.array(var.get_value(), order="C", copy=True)
            arr.flags.writeable = False
            shared[var.name] = arr
    names = tuple(shared)
    offsets, at = {}, 0
    for name in names:
        offsets[name] = at
        at += 1 + shared[name].ndim
    logp_c = _make_cfunc("logp", logp_fn, n_dim, n_dim, shared, offsets, at)
    expand_c = _make_cfunc("expand", expand_fn, n_dim, n_expanded, shared, offsets, at)
    dims, coords = _prepare_dims_and_coords(model, shape_info)
    cls = _fast_model_class()
    return cls(
        _n_dim=n_dim,
        dims=dims,
        _coords=coords,
        _shapes={name: tuple(shape) for name, _, shape in zip(*shape_info)},
        compiled_logp_func=logp_c,
        compiled_expand_func=expand_c,
        initial_point_func=initial_fn,
        shared_data=shared,
        user_data=_pointer_table(shared, names),
        n_expanded=n_expanded,
        shape_info=shape_info,
        logp_func=logp_fn,
        expand_func=expand_fn,
        shared_names=names,
    )


_LOGP_SOURCE = """
def skcodex_logp(dim, x_, out_, logp_, table_):
    if dim != {n_dim}:
        return -1
    table = numba.carray(table_, ({n_table},), np.int64)
{unpack}
    x = numba.carray(x_, ({n_dim},))
    out = numba.carray(out_, ({n_dim},))
    value, grad = inner({args})
    logp_[0] = value
    finite = True
    for i in range({n_dim}):
        out[i] = grad[i]
        if not np.isfinite(grad[i]):
            finite = False
    if not finite:
        return 3
    if not np.isfinite(value):
        return 4
    return 0
"""

_EXPAND_SOURCE = """
def skcodex_expand(dim, expanded, x_, out_, table_):
    if dim != {n_dim} or expanded != {n_out}:
        return -1
    table = numba.carray(table_, ({n_table},), np.int64)
{unpack}
    x = numba.carray(x_, ({n_dim},))
    out = numba.carray(out_, ({n_out},))
    (values,) = inner({args})
    for i in range({n_out}):
        out[i] = values[i]
    return 0
"""


def _make_cfunc(kind, fn, n_dim, n_out, shared, offsets, n_table):
    """A C-callable numba wrapper around a compiled PyTensor function, disk-cached if possible."""
    import numba
    from numba import types
    from nutpie.compile_pymc import address_as_void_pointer
    from pytensor.link.numba.cache import CACHED_SRC_FUNCTIONS, compile_numba_function_src

    inner = fn.vm.jit_fn
    unpack, args = [], ["x"]
    for i, var in enumerate(fn.get_shared()):
        arr, at = shared[var.name], offsets[var.name]
        shape = "".join(f"table[{at + 1 + d}], " for d in range(arr.ndim))
        unpack.append(
            f"    s{i} = numba.carray(as_pointer(table[{at}]), ({shape}), np.{arr.dtype.name})"
        )
        args.append(f"s{i}")
    template = _LOGP_SOURCE if kind == "logp" else _EXPAND_SOURCE
    source = template.format(
        n_dim=n_dim,
        n_out=n_out,
        n_table=max(n_table, 1),
        unpack="\n".join(unpack),
        args=", ".join(args),
    )
    double = types.CPointer(types.double)
    if kind == "logp":
        signature = types.int64(types.uint64, double, double, double, types.voidptr)
    else:
        signature = types.int64(types.uint64, types.uint64, double, double, types.voidptr)
    inner_key = CACHED_SRC_FUNCTIONS.get(inner.py_func)
    # numba keys its disk cache on bytecode, which leaves out the constants (sizes) in
    # the source, so the key names the source itself as well as the inner function.
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    key = None if inner_key is None else f"skcodex-{kind}-{digest}-{inner_key}"
    env = {
        "__name__": __name__,
        "numba": numba,
        "np": np,
        "as_pointer": address_as_void_pointer,
        "inner": inner,
    }
    func = compile_numba_function_src(source, f"skcodex_{kind}", env, cache_key=key)
    if key is not None:
        try:
            return numba.cfunc(signature, cache=True)(func)
        except Exception:
            pass
    return numba.cfunc(signature)(func)


# -- sampling ------------------------------------------------------------------


def _data(index: np.ndarray, y: np.ndarray, priors: SpreadPriors) -> dict[str, np.ndarray]:
    return {
        "index": np.asarray(index, dtype=np.int64),
        "y": np.asarray(y, dtype=float),
        "prior_loc": np.asarray(priors.loc, dtype=float),
        "prior_scale": np.asarray(priors.scale, dtype=float),
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
    )


def _sample_pymc(model, data: dict, options: SamplingOptions):
    import pymc as pm

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
            var_names=_stored_names(model),
            mp_ctx="fork" if os.name == "posix" else None,
        )


def _posterior_in_layout(idata, layout: Layout, z_pos: np.ndarray):
    """The padded model's draws restricted to ``layout``, with its effect blocks."""
    import arviz as az
    import xarray as xr

    from skcodex.model import BLOCK_DIMS

    post = idata.posterior
    keep = [v for v in post.data_vars if v not in BLOCK_DIMS and v != "z" and "__" not in v]
    out = post[keep].copy()
    z = np.asarray(post["z"])[..., z_pos]
    out["z"] = xr.DataArray(z, dims=("chain", "draw", "z_dim_0"))
    out = out.assign_coords(spread=list(layout.spreads))
    theta = layout.theta(z, np.asarray(post["sd"]))
    sizes = {
        "player": layout.n_players,
        "starter1": layout.n_starters,
        "starter2": layout.n_starters,
        "spec1": layout.n_specs,
        "spec2": layout.n_specs,
        "epoch": layout.n_epochs,
    }
    for name, block in layout.unflatten(theta).items():
        dims = BLOCK_DIMS[name]
        out[name] = xr.DataArray(
            block, dims=("chain", "draw", *dims), coords={d: np.arange(sizes[d]) for d in dims}
        )
    out.attrs = dict(post.attrs)
    groups = {"posterior": out}
    stats = getattr(idata, "sample_stats", None)
    if stats is not None:
        groups["sample_stats"] = stats
    return az.InferenceData(**groups)


def sample_posterior(
    index: np.ndarray,
    y: np.ndarray,
    layout: Layout,
    priors: SpreadPriors,
    options: SamplingOptions,
):
    """Sample the model's posterior and return it as ArviZ InferenceData.

    The model is compiled for ``padded_layout(layout)`` (or taken from the
    cache); the returned draws are those of ``layout``'s effects only.

    Parameters
    ----------
    index : ndarray of int, shape (n_matches, n_columns)
        ``layout.index_matrix(codes)``.
    y : ndarray of float, shape (n_matches,)
        Outcomes (1 where player 1 won) or luck-adjusted outcomes.
    layout : Layout
    priors : SpreadPriors
    options : SamplingOptions

    Returns
    -------
    arviz.InferenceData
        Group ``posterior`` with the free parameters, ``sd``, ``z`` (dimension
        ``z_dim_0``, length ``layout.n_free``) and one variable per effect
        block; group ``sample_stats`` as the sampler reports it.
    """
    sampler = resolve_sampler(options.sampler)
    padded = padded_layout(layout)
    theta_pos, z_pos = embedding(layout, padded)
    index = np.asarray(index, dtype=np.int64)
    data = _data(theta_pos[index] if index.size else index, y, priors)
    compiled = _compiled(sampler, padded, data["index"], data["y"])
    if sampler == "nutpie":
        idata = _sample_nutpie(compiled, data, options)
    else:
        idata = _sample_pymc(compiled, data, options)
    return _posterior_in_layout(idata, layout, z_pos)


# -- convergence checks ----------------------------------------------------------


def free_parameter_draws(idata) -> dict[str, np.ndarray]:
    """The sampled (free) parameters' draws, each as a (chains, draws, n) array."""
    post = idata.posterior
    out = {}
    for var in _FREE_VARIABLES:
        if var in post:
            values = np.asarray(post[var])
            out[var] = values.reshape(values.shape[0], values.shape[1], -1)
    return out


def convergence_problems(idata, min_ess: float = 400.0, max_rhat: float = 1.01) -> list[str]:
    """Plain-language descriptions of every failed convergence check (empty when all pass)."""
    from skcodex import diagnostics

    problems = []
    for var, draws in free_parameter_draws(idata).items():
        kind = "effect" if var == "z" else "spread"
        found = []
        stats = diagnostics.convergence_statistics(draws)
        rhat, ess = stats["rhat"], stats["ess_bulk"]
        if draws.shape[0] > 1:
            bad = np.flatnonzero(rhat > max_rhat)
            if len(bad):
                found.append((f"R-hat above {max_rhat:g}", bad, f"worst {rhat[bad].max():.3f}"))
        bad = np.flatnonzero(ess < min_ess)
        if len(bad):
            found.append((f"bulk ESS below {min_ess:g}", bad, f"lowest {ess[bad].min():.0f}"))
        for what, bad, extreme in found:
            shown = ", ".join(map(str, bad[:5])) + (", ..." if len(bad) > 5 else "")
            problems.append(
                f"{what} for {len(bad)} {kind} parameter(s) ({var}[{shown}]; {extreme})"
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
