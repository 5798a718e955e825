"""The compile cache: each padded layout's model compiled once, in memory and on disk.

Compiling the model's log-density is the slow part of a first fit, so it is
done as rarely as possible:

- **Data and priors are swapped, not compiled in.** The index matrix, the
  outcomes and the spread priors are ``pm.Data`` containers, so a refit on new
  matches (any number of them) or under other priors reuses the compiled model
  (nutpie: ``with_data``; PyMC: ``pm.set_data``).
- **Vocabulary sizes are padded to buckets** (`skcodex._matchup.padding`), so
  every fit with sizes in the same bucket shares one compiled model.
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
import threading
import warnings
from contextlib import contextmanager
from typing import Any

import numpy as np

from skcodex._matchup.blocks import block_dims
from skcodex._matchup.graph import ROTATED_Z, Layout, build_model
from skcodex._matchup.nutpie_compile import clear_numba_cache, compile_nutpie
from skcodex._matchup.padding import padded_layout

__all__ = [
    "FAST_MATH_UNREPRODUCIBLE_FROM",
    "SAMPLERS",
    "clear_compiled",
    "compile_count",
    "ieee_float_math",
    "precompile",
    "resolve_sampler",
]

SAMPLERS = ("auto", "nutpie", "pymc")

# Compiled models by (sampler, padded layout): built once per process and bucket.
_COMPILED: dict[tuple, Any] = {}
_COMPILE_COUNT: dict[str, int] = {"nutpie": 0, "pymc": 0}
_LOCK = threading.RLock()

#: The first PyTensor version whose fast-math kernels were measured to give other bits
#: when assembled from the disk cache than when compiled from scratch.
FAST_MATH_UNREPRODUCIBLE_FROM = (3,)


def resolve_sampler(name: str) -> str:
    """The sampler to use: ``"auto"`` is nutpie when installed, else PyMC's NUTS."""
    if name not in SAMPLERS:
        raise ValueError(f"sampler must be one of {SAMPLERS}, got {name!r}")
    if name == "auto":
        return "nutpie" if importlib.util.find_spec("nutpie") else "pymc"
    if name == "nutpie" and importlib.util.find_spec("nutpie") is None:
        raise ImportError("sampler='nutpie' needs the nutpie package: pip install 'skcodex[fast]'")
    return name


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
