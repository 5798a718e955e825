"""Lazy re-exports for a package's ``__init__``: a name's module is imported on first use."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any


def lazy_exports(
    package: str, exports: dict[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a package that re-exports names lazily.

    Parameters
    ----------
    package : str
        The package's name, for the error message.
    exports : dict
        Each exported name and the module it is defined in.
    namespace : dict
        The package's ``globals()``.
    """

    def __getattr__(name: str) -> Any:
        if name in exports:
            return getattr(import_module(exports[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted([*namespace, *exports])

    return __getattr__, __dir__
