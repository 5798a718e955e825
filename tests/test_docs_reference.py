"""The API reference covers every public module, and the example gallery every script."""

from __future__ import annotations

import pkgutil
import re
from pathlib import Path

import yaml

import skcodex

ROOT = Path(__file__).resolve().parents[1]


def _public_modules() -> set[str]:
    names = set()
    for info in pkgutil.walk_packages(skcodex.__path__, "skcodex."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts) or info.ispkg:
            continue
        names.add(info.name)
    return names


def _documented() -> set[str]:
    found = set()
    for page in (ROOT / "docs" / "api").glob("*.md"):
        found |= set(re.findall(r"^::: (skcodex[\w.]*)\s*$", page.read_text(), re.M))
    return found


def test_every_public_module_is_in_the_api_reference():
    documented = _documented()
    # a package documented whole covers its modules
    covered = {
        m for m in _public_modules() if any(m == d or m.startswith(d + ".") for d in documented)
    }
    # the command line has its own page (docs/command-line.md)
    command_line = {m for m in _public_modules() if m.split(".")[:2] == ["skcodex", "cli"]}
    missing = _public_modules() - covered - command_line
    assert not missing, f"not in docs/api/: {sorted(missing)}"


def test_every_api_page_and_example_is_in_the_nav():
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)
    nav = str(config["nav"])
    for page in (ROOT / "docs" / "api").glob("*.md"):
        assert f"api/{page.name}" in nav, page.name
    for script in (ROOT / "examples").glob("*.py"):
        assert f"gallery/{script.stem}.md" in nav, script.name
