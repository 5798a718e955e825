"""The public surface: every exported name imports, retired names still do (with a warning
that names what to use instead), and no public docstring sends a user to a private module."""

from __future__ import annotations

import importlib
import inspect
import re
import sys
import warnings
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import api_pages

NAMESPACES = [*api_pages.public_namespaces(), "skcodex.cli"]

#: Names retired from a namespace, each with a word of the replacement its warning names.
RETIRED = {
    "skcodex.data": {
        "epochs": "encode",
        "period_labels": "check_match_table",
        "period_times": "check_match_table",
        "time_order": "check_match_table",
    },
    "skcodex.cli": {
        "DEMO_DIR": "skcodex-demo",
        "CommandError": "exit status",
        "build_parser": "main",
        "prepare_output": "main",
        "publish_output": "main",
        "read_matches": "load_codex_matches",
    },
}

#: A private module named in text: ``skcodex._design``, ``skcodex.data._table``, ``_blocks.py``.
PRIVATE = re.compile(r"\bskcodex(?:\.\w+)*\._\w+|\b_[a-z]\w*\.py\b")


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_every_exported_name_imports_without_a_warning(namespace):
    module = importlib.import_module(namespace)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in module.__all__:
            assert getattr(module, name) is not None, (namespace, name)


@pytest.mark.parametrize(
    ("namespace", "name"), [(ns, n) for ns, names in RETIRED.items() for n in names]
)
def test_a_retired_name_still_imports_with_a_warning_naming_the_replacement(namespace, name):
    module = importlib.import_module(namespace)
    assert name not in module.__all__
    with pytest.warns(DeprecationWarning, match=f"{namespace}.{name} is no longer public") as got:
        value = getattr(module, name)
    assert RETIRED[namespace][name] in str(got[0].message)
    with pytest.warns(DeprecationWarning):
        exec(f"from {namespace} import {name} as imported", namespace_dict := {})
    assert namespace_dict["imported"] is value
    assert value is not None


def test_an_unknown_name_is_still_an_attribute_error():
    import skcodex.cli
    import skcodex.data

    for module in (skcodex.data, skcodex.cli):
        with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
            module.nothing_here


def _docstrings():
    """Every public docstring: each namespace's, its names', their public members'."""
    for namespace in NAMESPACES:
        module = importlib.import_module(namespace)
        yield namespace, module.__doc__ or ""
        for name in module.__all__:
            obj = getattr(module, name)
            if not callable(obj):
                continue
            yield f"{namespace}.{name}", inspect.getdoc(obj) or ""
            if not inspect.isclass(obj):
                continue
            for cls in obj.__mro__:
                if not cls.__module__.startswith("skcodex"):
                    continue
                for member, value in vars(cls).items():
                    function = getattr(value, "__func__", getattr(value, "fget", value))
                    if not member.startswith("_") and callable(function):
                        yield f"{namespace}.{name}.{member}", inspect.getdoc(function) or ""


def test_no_public_docstring_names_a_private_module():
    found = {}
    for where, doc in _docstrings():
        # a package's import rule (its "May import:" line) is for the tests, not for users
        text = "\n".join(line for line in doc.splitlines() if not line.startswith("May import:"))
        if PRIVATE.search(text):
            found[where] = sorted(set(PRIVATE.findall(text)))
    assert not found, found


def test_the_private_module_pattern_finds_what_it_should():
    assert PRIVATE.findall("see `skcodex._design.unseen_draws` and skcodex.data._table") == [
        "skcodex._design",
        "skcodex.data._table",
    ]
    assert PRIVATE.findall("declared in _blocks.py") == ["_blocks.py"]
    assert not PRIVATE.search("skcodex.report.write_report and _private_name")
