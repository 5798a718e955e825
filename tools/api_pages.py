"""The API reference, generated from the package's public names.

The public surface of skcodex is every module or package whose dotted name has
no part starting with ``_`` (the command line, documented on its own page,
aside), and the public names of each are its ``__all__``: that list is the only
place a name is declared public. This module turns it into the pages under
``api/``: one page per public namespace, each with a table of its names and
their one-line summaries, then each object documented in full.

A name exported by several namespaces (``deck_label`` is importable from
`skcodex.codex` and from `skcodex.analysis`) is documented once, on the page
of the first namespace in `NAMESPACE_ORDER` that exports it; the other pages'
tables link there.

`api_pages` returns ``{page path: Markdown}``; the MkDocs hook
(``tools/docs_hooks.py``) adds them to the site, and the tests read the same
function.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # the checkout's package, not another installed copy
    sys.path.insert(0, str(ROOT))

import skcodex  # noqa: E402

#: The order of the namespaces' pages; each namespace found must be listed here.
NAMESPACE_ORDER = (
    "skcodex",
    "skcodex.metrics",
    "skcodex.model_selection",
    "skcodex.preprocessing",
    "skcodex.ratings",
    "skcodex.evaluation",
    "skcodex.data",
    "skcodex.datasets",
    "skcodex.codex",
    "skcodex.analysis",
    "skcodex.plotting",
    "skcodex.report",
    "skcodex.tournament",
    "skcodex.luck",
    "skcodex.exceptions",
)

#: Namespaces with a page of their own elsewhere in the docs.
DOCUMENTED_ELSEWHERE = ("skcodex.cli",)


def public_namespaces() -> list[str]:
    """Every public module and package of skcodex, in page order.

    Raises
    ------
    RuntimeError
        When a public namespace is missing from `NAMESPACE_ORDER`, has no
        ``__all__``, or `NAMESPACE_ORDER` names one that is not public.
    """
    found = {"skcodex"}
    for info in pkgutil.walk_packages(skcodex.__path__, "skcodex."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts):
            continue
        if any(info.name == d or info.name.startswith(d + ".") for d in DOCUMENTED_ELSEWHERE):
            continue
        found.add(info.name)
    unlisted = found - set(NAMESPACE_ORDER)
    stale = set(NAMESPACE_ORDER) - found
    if unlisted or stale:
        raise RuntimeError(
            f"public namespaces not in NAMESPACE_ORDER: {sorted(unlisted)}; "
            f"listed but not public: {sorted(stale)}"
        )
    for name in NAMESPACE_ORDER:
        if not hasattr(importlib.import_module(name), "__all__"):
            raise RuntimeError(f"{name} has no __all__: its public names are not declared")
    return list(NAMESPACE_ORDER)


@dataclass(frozen=True)
class Entry:
    """One public name of a namespace, and where it is documented in full."""

    namespace: str
    name: str
    home: str  # the namespace whose page documents it
    identifier: str  # the dotted path of its definition: the anchor on the home page
    summary: str
    documented_here: bool
    constant: bool  # a constant (shown with its value)


def _inherited_option(identifier: str) -> list[str]:
    """The option that shows a class's public members defined on its private skcodex bases.

    ``BayesianMatchupClassifier`` takes its forecasts and options from mixins in
    ``skcodex._matchup`` and ``save`` from ``skcodex._format``: its page lists them as
    its own. Members of scikit-learn's bases are left to scikit-learn's documentation.
    """
    module, _, name = identifier.rpartition(".")
    try:
        obj = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return []
    if not inspect.isclass(obj):
        return []
    names = []
    for base in obj.__mro__[1:]:
        if not base.__module__.startswith("skcodex."):
            continue
        names += [m for m in vars(base) if not m.startswith("_") and m not in vars(obj)]
    names = sorted(set(names))
    return [f"      inherited_members: {names}"] if names else []


def _definition(namespace: str, name: str):
    """The griffe object of the definition of ``namespace.name`` (through re-exports)."""
    module = importlib.import_module(namespace)
    where = getattr(module, "_EXPORTS", {}).get(name, namespace)  # a lazily re-exported name
    inside = where.removeprefix("skcodex").lstrip(".")
    member = _static_package()[f"{inside}.{name}" if inside else name]
    while member.is_alias:
        member = member.final_target
    lazy = getattr(importlib.import_module(member.parent.path), "_EXPORTS", {})
    if member.name in lazy and lazy[member.name] != member.parent.path:
        return _definition(member.parent.path, member.name)
    return member


@functools.cache
def _static_package():
    """The package as read from its source (griffe), to find where constants are defined."""
    import griffe

    return griffe.load("skcodex", search_paths=[str(ROOT)])


def _summary(member) -> str:
    """The first paragraph of a definition's docstring, or a constant's value."""
    text = ""
    if member.docstring is not None and member.docstring.value.strip():
        text = member.docstring.value.strip().split("\n\n")[0].replace("\n", " ")
    if member.is_attribute and member.value is not None:
        value = str(member.value)
        value = value if len(value) <= 60 else value[:57] + "..."
        text = f"{text} `{member.name} = {value}`".strip()
    return text.replace("|", "\\|")


def entries() -> list[Entry]:
    """Every public name of every public namespace, each with its home page."""
    homes: dict[str, str] = {}
    out = []
    for namespace in public_namespaces():
        module = importlib.import_module(namespace)
        for name in sorted(n for n in module.__all__ if n != "__version__"):
            definition = _definition(namespace, name)
            identifier = definition.path
            first = identifier not in homes
            homes.setdefault(identifier, namespace)
            summary = _summary(definition)
            out.append(
                Entry(
                    namespace,
                    name,
                    homes[identifier],
                    identifier,
                    summary,
                    first,
                    definition.is_attribute,
                )
            )
    return out


def page_path(namespace: str) -> str:
    """Where a namespace's page sits in the site: ``api/skcodex.analysis.md``."""
    return f"api/{namespace}.md"


def _module_summary(namespace: str) -> str:
    doc = inspect.getdoc(importlib.import_module(namespace)) or ""
    return doc.strip().split("\n\n")[0]


def api_pages() -> dict[str, str]:
    """The Markdown of every API page, the index first, keyed by page path."""
    all_entries = entries()
    pages = {}
    index = [
        "# API reference",
        "",
        "Generated from the package: one page per public namespace, and on it every name "
        "of the namespace's `__all__` with its one-line summary. Each object is documented "
        "once, on the first page that exports it; the other pages link there. Modules whose "
        "names start with `_` are the implementation and not part of the API.",
        "",
        "The names importable from `skcodex` itself:",
        "",
    ]
    for e in all_entries:
        if e.namespace == "skcodex":
            index.append(f"- [`{e.name}`][{e.identifier}]: {e.summary}")
    index += ["", "The namespaces:", ""]
    for namespace in public_namespaces():
        index.append(f"- [`{namespace}`]({namespace}.md): {_module_summary(namespace)}")
    index += ["", "Every error and warning is also importable from `skcodex.exceptions`."]
    pages["api/index.md"] = "\n".join(index) + "\n"

    for namespace in public_namespaces():
        mine = [e for e in all_entries if e.namespace == namespace]
        lines = [f"# `{namespace}`", "", _module_summary(namespace), ""]
        lines += ["| Name | Summary |", "|---|---|"]
        for e in mine:
            where = "" if e.documented_here else f" (documented under `{e.home}`)"
            lines.append(f"| [`{e.name}`][{e.identifier}] | {e.summary}{where} |")
        lines.append("")
        for e in mine:
            if not e.documented_here:
                continue
            lines += [
                f"::: {e.identifier}",
                "    options:",
                "      show_root_full_path: false",
                "      heading_level: 2",
                # a constant is shown with its value even without a docstring of its own
                *(["      show_if_no_docstring: true"] if e.constant else []),
                *_inherited_option(e.identifier),
                "",
            ]
        pages[page_path(namespace)] = "\n".join(lines)
    return pages


def nav() -> list[dict[str, str]]:
    """The site navigation's API section: the index, then a page per namespace."""
    return [{"Index": "api/index.md"}, *({ns: page_path(ns)} for ns in public_namespaces())]
