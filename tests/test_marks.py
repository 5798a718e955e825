"""A pytest mark sits on a test: one on a helper marks nothing and is lost without a word.

``@pytest.mark.slow`` on a helper function leaves the test after it unmarked, so the
quick test line (``-m "not slow"``) runs a slow test; this reads every test module and
finds any mark on a function or class whose name pytest does not collect.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _marked_non_tests(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        collected = node.name.startswith("Test" if isinstance(node, ast.ClassDef) else "test")
        for deco in node.decorator_list:
            target = deco.func if isinstance(deco, ast.Call) else deco
            text = ast.unparse(target)
            if text.startswith("pytest.mark.") and not collected:
                found.append(f"{path.name}:{node.lineno} {node.name} has @{text}")
    return found


def test_marks_sit_on_tests():
    found = [hit for path in sorted(TESTS.glob("*.py")) for hit in _marked_non_tests(path)]
    assert found == []


def test_a_mark_on_a_helper_is_found(tmp_path):
    module = tmp_path / "test_x.py"
    module.write_text(
        "import pytest\n\n@pytest.mark.slow\ndef _helper():\n    pass\n\n"
        "@pytest.mark.slow\ndef test_real():\n    pass\n"
    )
    assert _marked_non_tests(module) == ["test_x.py:4 _helper has @pytest.mark.slow"]
