"""numba's compiled kernels cached on disk in the user's cache folder, and rebuilt if damaged.

The prediction kernels (`prediction.py`) and the likelihood's kernel
(`loglik_op.py`) are compiled by numba once and cached in skcodex's per-user
cache folder (`kernel_cache_dir`), never beside the installed package; a
damaged cache is removed and the kernel compiled afresh (`compile_cached_kernel`).
"""

from __future__ import annotations

import inspect
import os
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = [
    "compile_cached_kernel",
    "compile_kernel",
    "kernel_cache_dir",
    "recovering",
    "remove_numba_cache",
]


def kernel_cache_dir() -> Path | None:
    """The folder numba caches the compiled prediction kernels in, or None for no disk cache.

    numba's own ``NUMBA_CACHE_DIR`` when it is set, else ``numba`` in skcodex's
    per-user cache folder (platformdirs' ``user_cache_dir("skcodex")``:
    ``~/.cache/skcodex/numba`` on Linux). Never beside the installed package,
    so ``pip uninstall skcodex`` leaves nothing behind. When the folder cannot
    be created or written (a read-only home, say), the answer is None: the
    kernels are compiled in each process and nothing is cached.

    Returns
    -------
    pathlib.Path or None
        A folder this process can write, or None.
    """
    import platformdirs

    chosen = os.environ.get("NUMBA_CACHE_DIR")
    folder = Path(chosen) if chosen else Path(platformdirs.user_cache_dir("skcodex")) / "numba"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError:
        return None
    return folder


def compile_cached_kernel(func: Callable, **options) -> Callable | None:
    """``func`` compiled by numba like the prediction kernels (cached on disk, rebuilt
    if its cache is damaged), or None without numba; ``options`` go to ``numba.njit``."""
    try:
        import numba
    except ImportError:  # pragma: no cover - numba comes with pytensor
        return None
    folder = kernel_cache_dir()
    return recovering(compile_kernel(numba, func, folder, **options), folder)


def compile_kernel(numba: Any, func: Callable, folder: Path | None, **options) -> Callable:
    """``func`` compiled by numba, cached on disk in ``folder`` (not at all when None).

    numba picks a function's cache folder when it is decorated, from its public
    ``config.CACHE_DIR`` setting (``NUMBA_CACHE_DIR``); the setting is ours only
    while our kernels are decorated, so other numba users keep theirs.
    """
    if folder is None:
        return numba.njit(nogil=True, **options)(func)
    previous = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = str(folder)
    try:
        return numba.njit(cache=True, nogil=True, **options)(func)
    except RuntimeError:  # numba finds no cache locator ("no locator available"): no cache
        return numba.njit(nogil=True, **options)(func)
    finally:
        numba.config.CACHE_DIR = previous


def recovering(kernel: Callable, folder: Path | None) -> Callable:
    """``kernel``, rebuilt without its disk cache if loading the cache fails.

    numba does not recover from a damaged cache file (a truncated index
    raises on every later call, in every process); the kernels themselves
    raise nothing on the arrays this module passes them. So a failure on
    first use means a damaged cache: the kernel's files under ``folder`` are
    removed, the kernel compiled afresh for this process, and the next
    process writes a good cache again.
    """
    state = {"kernel": kernel}

    def call(*args):
        try:
            return state["kernel"](*args)
        except Exception as err:
            if state["kernel"] is not kernel:
                raise
            remove_numba_cache(kernel, folder)
            warnings.warn(
                f"numba's cache of skcodex's compiled kernels was damaged "
                f"({type(err).__name__}); it was removed and the kernels compiled afresh",
                RuntimeWarning,
                stacklevel=3,
            )
            import numba

            state["kernel"] = numba.njit(nogil=True)(kernel.py_func)
            return state["kernel"](*args)

    return call


def remove_numba_cache(kernel: Callable, folder: Path | None) -> None:
    """Delete the cache files of one of this module's kernels under ``folder`` (best effort)."""
    name = getattr(getattr(kernel, "py_func", None), "__qualname__", "")
    if folder is None or not name:
        return
    module = Path(inspect.getfile(kernel.py_func)).stem
    stem = f"{module}.{name.replace('<locals>', 'locals')}"
    for path in Path(folder).rglob(f"{stem}-*.nb[ic]"):
        try:
            path.unlink()
        except OSError:
            pass
