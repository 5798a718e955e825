"""The package's import rules: each folder imports only what its ``__init__`` says, and no cycle.

Every module under ``skcodex/`` is read with `ast`: every import statement,
the ones inside functions included, with relative imports (``from . import x``)
resolved to the module they name. A folder declares its rule in its
``__init__`` docstring, in one line ``May import: skcodex._compat, skcodex.codex``
(the skcodex packages and modules outside itself it may import; ``nothing`` if
none). A listed package allows its modules; the root ``skcodex`` allows only the
root module itself. The modules then form a graph with an edge from each module
to each module it imports, and that graph has no cycle.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "skcodex"

# Folders whose rule this test must find (a rule can never go missing unnoticed).
FOLDERS_WITH_RULES = ("skcodex._compat", "skcodex._format", "skcodex._matchup")

# Import cycles still in the tree, each a set of modules: none.
KNOWN_CYCLES: set[frozenset[str]] = set()

RULE = re.compile(r"^\s*May import:\s*(.+?)\s*$", re.MULTILINE)


def module_files(package: Path) -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its own name)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _owner(name: str, modules: dict) -> str:
    """The module an imported dotted name lives in (``skcodex.x.f`` -> ``skcodex.x``)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name


def imports_of(name: str, path: Path, modules: dict, root: str) -> dict[str, int]:
    """The package's modules that module ``name`` imports, each with the first line that does."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            # ``from p import m`` imports module p.m when there is one, else names of p
            targets = [
                f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source
                for alias in node.names
            ]
        for target in targets:
            if target == root or target.startswith(root + "."):
                owner = _owner(target, modules)
                if owner != name:
                    found.setdefault(owner, node.lineno)
    return found


def import_graph(package: Path) -> dict[str, dict[str, int]]:
    """Each module's imports of the package's modules."""
    modules = module_files(package)
    return {name: imports_of(name, path, modules, package.name) for name, path in modules.items()}


def folder_rules(package: Path) -> dict[str, tuple[str, ...]]:
    """Each folder's declared rule: the names outside itself it may import."""
    rules = {}
    for name, path in module_files(package).items():
        if path.name != "__init__.py":
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        lines = RULE.findall(doc)
        if len(lines) > 1:
            raise AssertionError(f"{name} declares {len(lines)} import rules; one is the rule")
        if lines:
            listed = tuple(item.strip() for item in lines[0].split(","))
            rules[name] = () if listed == ("nothing",) else listed
    return rules


def allowed(target: str, folder: str, listed: tuple[str, ...], root: str) -> bool:
    """Whether a module of ``folder`` may import ``target`` under the rule ``listed``."""
    if target == folder or target.startswith(folder + "."):
        return True
    return any(
        target == entry or (entry != root and target.startswith(entry + ".")) for entry in listed
    )


def rule_breaches(package: Path) -> list[str]:
    """Every import that breaks its folder's rule, as ``module:line imports target``."""
    graph = import_graph(package)
    breaches = []
    for folder, listed in folder_rules(package).items():
        for name, imported in graph.items():
            if name != folder and not name.startswith(folder + "."):
                continue
            for target, line in sorted(imported.items()):
                if not allowed(target, folder, listed, package.name):
                    relative = module_files(package)[name].relative_to(package.parent)
                    breaches.append(f"{relative}:{line} imports {target} ({folder} may not)")
    return breaches


def cycles(graph: dict[str, dict[str, int]]) -> dict[frozenset[str], list[str]]:
    """Each group of modules that import each other, with one cycle path through it.

    The groups are the strongly connected components of the graph (Tarjan's algorithm);
    the path is the shortest way from the group's first module back to itself.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return {frozenset(group): _path_within(group, graph) for group in groups}


def _path_within(group: set[str], graph: dict) -> list[str]:
    """A closed path through a group of modules that import each other, first module last too."""
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:  # breadth first: the shortest way back to the start
        nxt_frontier = []
        for node in frontier:
            for nxt in sorted(graph[node]):
                if nxt == start:
                    return [*paths[node], start]
                if nxt in group and nxt not in paths:
                    paths[nxt] = [*paths[node], nxt]
                    nxt_frontier.append(nxt)
        frontier = nxt_frontier
    raise AssertionError(f"no cycle through {start}")  # a strongly connected group has one


def test_the_folders_declare_their_rules():
    rules = folder_rules(PACKAGE)
    assert set(FOLDERS_WITH_RULES) <= set(rules)
    modules = module_files(PACKAGE)
    for folder, listed in rules.items():
        for entry in listed:
            assert entry in modules, f"{folder}'s rule names {entry}, which is no module"


def test_every_import_follows_its_folders_rule():
    assert rule_breaches(PACKAGE) == []


def test_no_module_imports_itself_around_a_cycle():
    found = cycles(import_graph(PACKAGE))
    unexpected = [" -> ".join(path) for group, path in found.items() if group not in KNOWN_CYCLES]
    assert unexpected == [], "import cycles: " + "; ".join(unexpected)
    # a known cycle that is gone is taken off the list
    assert set(found) == KNOWN_CYCLES


def _write(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "pkg"


def test_the_checks_find_a_planted_breach_and_cycle(tmp_path):
    """The checks on a small package with one breach of a rule and one cycle through a function."""
    package = _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/top.py": "import pkg._low.a\n",
            "pkg/_low/__init__.py": '"""Low.\n\nMay import: pkg.base\n"""\n',
            "pkg/_low/a.py": "from . import b\nfrom pkg.base import x\n",
            "pkg/_low/b.py": "def f():\n    from .. import top\n",
            "pkg/base.py": "from pkg._low.a import y\n",
        },
    )
    assert folder_rules(package) == {"pkg._low": ("pkg.base",)}
    graph = import_graph(package)
    assert graph["pkg._low.a"] == {"pkg._low.b": 1, "pkg.base": 2}
    assert graph["pkg._low.b"] == {"pkg.top": 2}  # the import inside a function counts
    assert rule_breaches(package) == ["pkg/_low/b.py:2 imports pkg.top (pkg._low may not)"]
    found = cycles(graph)
    assert found == {
        frozenset({"pkg._low.a", "pkg._low.b", "pkg.top", "pkg.base"}): [
            "pkg._low.a",
            "pkg.base",
            "pkg._low.a",
        ]
    }
    del graph["pkg.base"]["pkg._low.a"]  # one cycle left, through the function's import
    assert cycles(graph) == {
        frozenset({"pkg._low.a", "pkg._low.b", "pkg.top"}): [
            "pkg._low.a",
            "pkg._low.b",
            "pkg.top",
            "pkg._low.a",
        ]
    }
    del graph["pkg._low.b"]["pkg.top"]
    assert cycles(graph) == {}


@pytest.mark.parametrize("entry, target, ok", [("pkg", "pkg", True), ("pkg", "pkg.x", False)])
def test_the_root_in_a_rule_allows_the_root_module_alone(entry, target, ok):
    assert allowed(target, "pkg._low", (entry,), "pkg") is ok
