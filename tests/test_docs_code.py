"""Every code block of the docs runs as shown.

The Python blocks of a page run in order in one namespace, as a reader would run
them one after another; the ``skcodex`` commands of its shell blocks run in the
same folder. Where the docs read the codexdata records (``codexdata/data-raw``,
the data folder of a clone of that repository) the folder holds a link to the
shared copy (`CODEXDATA`), and the page is skipped when there is none. Fits are
run with fewer draws (`FEW_DRAWS`), so the numbers differ from the ones the docs
show: what is checked is that each block runs. A fast test checks every page
statically: each block compiles, uses only names defined on its page, and imports
no private module of skcodex.
"""

from __future__ import annotations

import ast
import builtins
import doctest
import os
import re
import shlex
import subprocess
import sys
import types
from pathlib import Path

import pytest
from conftest import CODEXDATA
from sklearn.exceptions import ConvergenceWarning

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([*(ROOT / "docs").glob("*.md"), ROOT / "README.md"])

#: Sampling settings the executed blocks use in place of each fit's own.
FEW_DRAWS = {"draws": 60, "tune": 60, "chains": 2}

#: Shell lines not run, each with its reason (matched at the start of the command).
SHELL_NOT_RUN = {
    "pip ": "installs packages: the test runs in the environment it was given",
    "pytest": "runs the test suite itself",
    "mkdocs": "builds the site (tests/test_docs_site.py reads a built one)",
    "SKCODEX_GALLERY=": "builds the site (tests/test_docs_site.py reads a built one)",
    "python benchmarks/": "benchmarks run for minutes and write results",
    "python examples/": "the examples run as the gallery runs them (tests/test_examples.py)",
    "python tools/": "tools rewrite the repository's own files",
    "git ": "changes the checkout",
    "apt-get": "installs system packages",
    "playwright": "installs a browser",
}

#: Python blocks not run, found by a text they hold, each with its reason.
PYTHON_NOT_RUN = {
    "scheduler.example.org": "connects to a cluster's scheduler at a placeholder address",
    "ray.init(": "connects to a running Ray cluster (Ray is no dependency of skcodex)",
}

_FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.M | re.S)


def code_blocks(page: Path) -> list[tuple[str, str, int]]:
    """``(language, code, line)`` of every fenced block of ``page``."""
    text = page.read_text(encoding="utf-8")
    return [
        (m[1], m[2], text.count("\n", 0, m.start()) + 1)
        for m in _FENCE.finditer(text)
        if m[1] in ("python", "bash", "console", "sh")
    ]


def python_source(code: str) -> str:
    """A block's Python: doctest-style (``>>>``) blocks give their source lines."""
    if code.lstrip().startswith(">>>"):
        return "".join(ex.source for ex in doctest.DocTestParser().get_examples(code))
    return code


def shell_commands(code: str) -> list[str]:
    """The commands of a shell block: ``$``-prompted lines (console) or every line, joined."""
    lines = code.splitlines()
    if any(line.startswith("$ ") for line in lines):
        commands, current = [], None
        for line in lines:
            if line.startswith("$ "):
                current = line[2:]
                commands.append(current)
            elif current is not None and commands[-1].endswith("\\"):
                commands[-1] = commands[-1][:-1] + " " + line.strip()
        return commands
    joined = re.sub(r"\\\n\s*", " ", code)
    return [line.strip() for line in joined.splitlines() if line.strip()]


def _stored_names(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
            names.update(a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg))
        elif isinstance(node, ast.Lambda):
            names.update(a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def _loaded_names(tree: ast.AST) -> set[str]:
    return {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }


def _page_id(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_python_block_compiles_and_defines_what_it_uses(page):
    defined = set(dir(builtins))
    for language, code, line in code_blocks(page):
        if language != "python":
            continue
        source = python_source(code)
        tree = compile(source, f"{_page_id(page)}:{line}", "exec", ast.PyCF_ONLY_AST)
        defined |= _stored_names(tree)
        missing = sorted(_loaded_names(tree) - defined)
        assert missing == [], f"{_page_id(page)}, line {line}: {missing} are not defined"
        for node in ast.walk(tree):
            modules = []
            if isinstance(node, ast.ImportFrom) and node.module:
                modules = [node.module]
            elif isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            private = [m for m in modules if m.startswith("skcodex") and "._" in m]
            assert private == [], f"{_page_id(page)}, line {line}: imports {private}"


def test_the_block_reader_reads_prompts_and_continuations():
    code = "$ skcodex fit a.csv --out o \\\n    --no-holdout\nFitting ...\n$ skcodex demo\n"
    assert shell_commands(code) == ["skcodex fit a.csv --out o  --no-holdout", "skcodex demo"]
    assert shell_commands('pip install ".[fast]" && skcodex demo\n') == [
        'pip install ".[fast]" && skcodex demo'
    ]
    assert python_source(">>> x = 1\n>>> x + 1\n2\n") == "x = 1\nx + 1\n"


# -- running the blocks ------------------------------------------------------------------


def _few_draws(monkeypatch):
    """Every Bayesian fit samples `FEW_DRAWS`; the demo and fit commands too."""
    from skcodex import BayesianMatchupClassifier

    fit = BayesianMatchupClassifier.fit

    def quick_fit(self, X, y, **kwargs):
        if self.method == "nuts":
            for name, value in FEW_DRAWS.items():
                setattr(self, name, min(getattr(self, name), value))
        return fit(self, X, y, **kwargs)

    monkeypatch.setattr(BayesianMatchupClassifier, "fit", quick_fit)


def _run_shell(command: str, cwd: Path) -> None:
    """Run one documented shell command, its ``skcodex`` parts with few draws."""
    for part in command.split("&&"):
        part = part.strip()
        if any(part.startswith(prefix) for prefix in SHELL_NOT_RUN):
            continue
        words = shlex.split(part)
        assert words[0] == "skcodex", f"a shell command the test does not know: {part}"
        if words[1] in ("fit", "demo"):
            words += ["--draws", "60", "--tune", "60", "--chains", "2", "--nash-draws", "10"]
            words += ["--no-progress"]
        if words[1] == "simulate" and "--simulations" not in words:
            words += ["--simulations", "500"]
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        done = subprocess.run(
            [sys.executable, "-m", "skcodex.cli", *words[1:]],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        assert done.returncode == 0, f"{part}\n{done.stderr[-2000:]}"


@pytest.mark.slow
# the blocks run with few draws (FEW_DRAWS), whose chains the checks rightly find short
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_code_block_runs(page, tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    blocks = code_blocks(page)
    if not blocks:
        pytest.skip("no code blocks")
    text = page.read_text(encoding="utf-8")
    if "codexdata/data-raw" in text:
        if not (CODEXDATA / "matches.csv").exists():
            pytest.skip(f"real data not found at {CODEXDATA}")
        (tmp_path / "codexdata").mkdir()
        (tmp_path / "codexdata" / "data-raw").symlink_to(CODEXDATA)
    monkeypatch.chdir(tmp_path)
    _few_draws(monkeypatch)
    page_module = types.ModuleType("docs_page")  # a module, as classes defined there need
    monkeypatch.setitem(sys.modules, page_module.__name__, page_module)
    namespace = page_module.__dict__
    for language, code, line in blocks:
        where = f"{_page_id(page)}:{line}"
        if language == "python":
            if any(marker in code for marker in PYTHON_NOT_RUN):
                continue
            try:
                exec(compile(python_source(code), where, "exec"), namespace)
            except ConvergenceWarning:
                # a block that makes the warning an error, on the test's short chains
                if 'simplefilter("error", ConvergenceWarning)' not in code:
                    raise
        else:
            for command in shell_commands(code):
                _run_shell(command, tmp_path)
