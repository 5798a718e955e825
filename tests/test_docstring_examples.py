"""Every example in the package's docstrings runs and prints what it says.

The examples are what a user copies first, so each module's ``>>>`` lines are run by
`doctest` here, the way the API reference shows them. A module that needs an optional
extra which is not installed (the plots need matplotlib) is skipped with that reason.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import warnings

import pytest

import skcodex


def _modules_with_examples() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(skcodex.__path__, prefix="skcodex."):
        spec = importlib.util.find_spec(info.name)
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            continue
        with open(spec.origin, encoding="utf-8") as source:
            if ">>> " in source.read():
                names.append(info.name)
    return sorted(names)


MODULES = _modules_with_examples()


def test_the_package_has_examples_to_run():
    # the search above finds the modules whose examples the API reference shows
    assert {"skcodex.analysis._extensions", "skcodex.ratings._elo"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name, monkeypatch):
    # classes registered for saving by earlier tests (the docs pages' own) are not the
    # examples' to know of, and what the examples register is not left to later tests
    from skcodex._format import savable

    monkeypatch.setattr(savable, "_values", {})
    monkeypatch.setattr(savable, "_estimators", {})
    try:
        module = importlib.import_module(name)
    except ImportError as error:  # an optional extra
        pytest.skip(f"{name} needs {error.name}, not installed")
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the examples' quick fits warn about their size
        for test in finder.find(module, name):  # each with its module's names
            runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
