"""Names a public namespace no longer exports, still importable with a warning."""

from __future__ import annotations

import importlib
import warnings
from typing import Any


def retired_name(package: str, retired: dict[str, tuple[str, str]], name: str) -> Any:
    """``package.name`` from the module it lives in now, with a DeprecationWarning.

    ``retired`` maps each retired name to ``(module it lives in, what to use
    instead)``; any other name raises the AttributeError of a missing attribute.
    Called from a package's module-level ``__getattr__``.
    """
    if name not in retired:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    module, instead = retired[name]
    warnings.warn(
        f"{package}.{name} is no longer public and will be removed; use {instead}",
        DeprecationWarning,
        stacklevel=3,
    )
    return getattr(importlib.import_module(module), name)
