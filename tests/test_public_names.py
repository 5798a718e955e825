"""Every public name still imports: each name of each public namespace's ``__all__``.

A public namespace is a module of the package with no part of its name starting
with an underscore and an ``__all__`` (``skcodex``, ``skcodex.analysis``, ...; the
command line's modules, which are being made private, declare none). Moving the private
modules must leave every one of their names where users import it from.
"""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import skcodex


def _namespaces() -> list[str]:
    names = ["skcodex"]
    for info in pkgutil.walk_packages(skcodex.__path__, "skcodex."):
        parts = info.name.split(".")[1:]
        if not any(p.startswith("_") for p in parts):
            if hasattr(importlib.import_module(info.name), "__all__"):
                names.append(info.name)
    return names


NAMESPACES = _namespaces()


def test_the_namespaces_are_found():
    assert {"skcodex", "skcodex.analysis", "skcodex.data", "skcodex.tournament"} <= set(NAMESPACES)


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_every_name_of_a_namespace_imports(namespace):
    module = importlib.import_module(namespace)
    names = module.__all__
    missing = [name for name in names if not hasattr(module, name)]
    assert missing == []
    for name in names:  # as a user writes it
        exec(f"from {namespace} import {name}", {})
