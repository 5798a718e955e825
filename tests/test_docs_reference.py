"""The API reference is generated from the public names, each documented once; the gallery.

The public surface is every module whose dotted name has no ``_`` part, and
each one's ``__all__`` (``tools/api_pages.py``); the implementation lives in
private modules.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

import skcodex

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import api_pages  # noqa: E402


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return api_pages.api_pages()


def test_every_public_namespace_has_a_page_listing_all_its_names(pages):
    for namespace in api_pages.public_namespaces():
        page = pages[api_pages.page_path(namespace)]
        module = importlib.import_module(namespace)
        rows = set(re.findall(r"^\| \[?`(\w+)`", page, re.M))
        assert rows == set(module.__all__) - {"__version__"}, namespace


def test_each_definition_is_documented_once(pages):
    blocks = Counter(m for text in pages.values() for m in re.findall(r"^::: (\S+)", text, re.M))
    twice = {name for name, n in blocks.items() if n > 1}
    assert not twice, f"documented more than once: {sorted(twice)}"
    for entry in api_pages.entries():
        assert blocks[entry.identifier] == 1, (entry.namespace, entry.name)


def test_public_names_resolve_to_their_documented_definitions():
    for entry in api_pages.entries():
        obj = getattr(importlib.import_module(entry.namespace), entry.name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert f"{obj.__module__}.{obj.__qualname__}" == entry.identifier, entry


def test_implementation_modules_are_private():
    public = set(api_pages.public_namespaces())
    for info in pkgutil.walk_packages(skcodex.__path__, "skcodex."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts) or parts[1] == "cli":
            continue
        assert info.name in public, f"{info.name} is public but not an API namespace"


def test_the_public_names_are_declared_once():
    # api_pages reads only __all__; no page of the docs lists API objects by hand
    for page in (ROOT / "docs").rglob("*.md"):
        assert not re.search(r"^::: ", page.read_text(encoding="utf-8"), re.M), page


def test_every_error_and_warning_is_in_skcodex_exceptions():
    import skcodex.exceptions

    defined = set()
    for path in (ROOT / "skcodex").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.name.endswith(("Error", "Warning")):
                if "cli" not in path.relative_to(ROOT / "skcodex").parts:
                    defined.add(node.name)
    assert defined == set(skcodex.exceptions.__all__)
    for name in skcodex.exceptions.__all__:
        assert issubclass(getattr(skcodex.exceptions, name), (ValueError, UserWarning)), name


def test_a_namespace_missing_from_the_page_order_is_refused(monkeypatch):
    monkeypatch.setattr(api_pages, "NAMESPACE_ORDER", api_pages.NAMESPACE_ORDER[:-1])
    with pytest.raises(RuntimeError, match="not in NAMESPACE_ORDER"):
        api_pages.public_namespaces()


def test_every_api_page_and_example_is_in_the_nav():
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)
    nav = str(config["nav"])
    assert "api/index.md" in nav  # the hook fills the section with api_pages.nav()
    assert [next(iter(e.values())) for e in api_pages.nav()] == [
        "api/index.md",
        *(api_pages.page_path(ns) for ns in api_pages.public_namespaces()),
    ]
    for script in (ROOT / "examples").glob("*.py"):
        assert f"gallery/{script.stem}.md" in nav, script.name
