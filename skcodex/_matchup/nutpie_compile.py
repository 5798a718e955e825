"""Compiling the model for nutpie: the public path, and a faster one on tested versions.

This is the one module of skcodex that uses private names of other libraries
(nutpie's ``compile_pymc`` internals and PyTensor's numba source cache). It
uses them only when the installed nutpie and PyTensor are versions this code
was tested with (`FAST_PATH_VERSIONS`), and falls back to nutpie's public
``compile_pymc_model`` whenever they are not, or when anything on the fast
path fails: a library upgrade may make the first fit slower, never make it
fail. Setting the environment variable ``SKCODEX_NUTPIE_COMPILE=public``
forces the public path.

Why a fast path at all: nutpie's own C-callable wrappers around the PyTensor
functions take most of a first compile and cannot be cached on disk. Ours
read the data through a flat table of pointers and shapes, are cached on
disk by numba beside PyTensor's own kernels, and keep nutpie's public
``with_data`` contract (new data of the same rank, no recompilation).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import warnings
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "FAST_PATH_VERSIONS",
    "clear_numba_cache",
    "compile_nutpie",
    "fast_path_supported",
]

#: Versions the fast path was tested with: [lowest, first untested) per library.
FAST_PATH_VERSIONS = {
    "nutpie": ((0, 13), (0, 17)),
    "pytensor": ((2, 26), (3, 4)),
}


def _version_tuple(name: str) -> tuple[int, ...] | None:
    try:
        text = version(name)
    except PackageNotFoundError:
        return None
    parts = []
    for piece in text.split(".")[:3]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def fast_path_supported() -> tuple[bool, str]:
    """Whether the fast compile path will be tried, and why not when it will not."""
    if os.environ.get("SKCODEX_NUTPIE_COMPILE", "").lower() == "public":
        return False, "SKCODEX_NUTPIE_COMPILE=public"
    for name, (low, high) in FAST_PATH_VERSIONS.items():
        found = _version_tuple(name)
        if found is None or not (low <= found[: len(low)] < high):
            return False, f"{name} {version(name) if found else 'missing'} is untested"
    return True, ""


def compile_nutpie(model: Any, var_names: list[str]) -> Any:
    """A nutpie compiled model for ``model``, storing ``var_names``.

    The result supports nutpie's ``with_data`` for every ``pm.Data`` of the
    model, whichever path built it.
    """
    import nutpie

    supported, _ = fast_path_supported()
    if supported:
        try:
            return _fast_nutpie_model(model, var_names)
        except Exception as err:  # any change in the private API: use the public path
            warnings.warn(
                f"using nutpie's slower public compile ({type(err).__name__}: {err})",
                RuntimeWarning,
                stacklevel=3,
            )
    return nutpie.compile_pymc_model(model, var_names=var_names)


def numba_cache_dir() -> Path | None:
    """Where PyTensor keeps numba's on-disk cache of compiled kernels (ours included)."""
    try:
        import pytensor

        return Path(pytensor.config.base_compiledir) / "numba"
    except Exception:  # pragma: no cover - PyTensor without this setting
        return None


def clear_numba_cache() -> int:
    """Delete numba's cache files under PyTensor's compile directory; return how many.

    Called when compiling fails, in case the failure came from a damaged
    cache (a truncated index or kernel file, which numba does not recover
    from on its own); the next compile rebuilds what it needs.
    """
    folder = numba_cache_dir()
    if folder is None or not folder.is_dir():
        return 0
    removed = 0
    for path in folder.rglob("*"):
        if path.suffix in (".nbi", ".nbc") and path.is_file():
            try:
                path.unlink()
                removed += 1
            except OSError:
                pass
    return removed


# -- the fast path (private API of nutpie and PyTensor) ----------------------------


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
    made = _make_functions(
        model,
        mode="NUMBA",
        compute_grad=True,
        join_expanded=True,
        pymc_initial_point_fn=_wrap_with_lock(initial_point),
        var_names=var_names,
    )
    # nutpie 0.16.9 added the names of reparameterised variables as a seventh item.
    n_dim, n_expanded, logp_fn, expand_fn, initial_fn, shape_info = made[:6]
    extra = {}
    cls = _fast_model_class()
    fields = {f.name for f in dataclasses.fields(cls)}
    if len(made) > 6:
        reparameterized = made[6]
        dims, coords = _prepare_dims_and_coords(model, shape_info, reparameterized)
        extra["reparameterized_names"] = reparameterized
    else:
        dims, coords = _prepare_dims_and_coords(model, shape_info)
    shared = _shared_arrays(logp_fn, expand_fn)
    names = tuple(shared)
    offsets, at = {}, 0
    for name in names:
        offsets[name] = at
        at += 1 + shared[name].ndim
    logp_c = _make_cfunc("logp", logp_fn, n_dim, n_dim, shared, offsets, at)
    expand_c = _make_cfunc("expand", expand_fn, n_dim, n_expanded, shared, offsets, at)
    if "shared_var_keys" in fields:
        extra["shared_var_keys"] = {}
    _check_fields_set(cls, extra)
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
        **extra,
    )


def _shared_arrays(logp_fn, expand_fn) -> dict[str, np.ndarray]:
    """The compiled functions' shared variables by name, each once, as read-only C arrays."""
    shared: dict[str, np.ndarray] = {}
    for var in [*logp_fn.get_shared(), *expand_fn.get_shared()]:
        if var.name not in shared:
            arr = np.array(var.get_value(), order="C", copy=True)
            arr.flags.writeable = False
            shared[var.name] = arr
    return shared


#: The fields of nutpie's compiled model that `_fast_nutpie_model` always sets.
_FIELDS_SET = frozenset(
    {
        "_n_dim",
        "dims",
        "_coords",
        "_shapes",
        "compiled_logp_func",
        "compiled_expand_func",
        "initial_point_func",
        "shared_data",
        "user_data",
        "n_expanded",
        "shape_info",
        "logp_func",
        "expand_func",
    }
)


def _check_fields_set(cls: type, extra: dict) -> None:
    """Refuse a compiled-model class with a required field `_fast_nutpie_model` does not set."""
    unknown = {
        f.name
        for f in dataclasses.fields(cls)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    } - {*_FIELDS_SET, *extra}
    if unknown:
        raise TypeError(f"nutpie's compiled model needs fields this code does not set: {unknown}")


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
    # the source, so the key names the source itself as well as the inner function, and
    # this module (a cache written where the module lived before is not read).
    digest = hashlib.sha256(f"{__name__}\n{source}".encode()).hexdigest()[:16]
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
