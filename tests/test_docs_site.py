"""The built documentation says what the code says, and its Markdown rendered as meant.

Read from ``site/`` beside this checkout (``mkdocs build --strict`` makes it;
``$SKCODEX_DOCS_SITE`` points elsewhere). Without a built site these tests skip,
unless ``SKCODEX_REQUIRE_BROWSER=1`` (set by CI, which builds the site first) turns
the skip into a failure.

- The API reference's Default column equals ``inspect.signature`` for every
  parameter of every public estimator, and names every parameter once.
- No page shows raw LaTeX: no TeX command outside formulas, and no command
  inside a formula's text (``\\texttt{a\\_b}``), which MathJax prints as typed.
- No page shows a list that Markdown did not see as one (``- item`` lines
  inside a paragraph), nor a link left pointing at a ``.md`` file, nor a
  ``docs/....md`` path as text.
- The API index links every name it lists.
"""

from __future__ import annotations

import ast
import html
import inspect
import os
import re
from pathlib import Path

import pytest

import skcodex

ROOT = Path(__file__).resolve().parents[1]
SITE = Path(os.environ.get("SKCODEX_DOCS_SITE", ROOT / "site"))
REQUIRED = os.environ.get("SKCODEX_REQUIRE_BROWSER") == "1"

ESTIMATORS = [
    name
    for name in skcodex.__all__
    if name != "__version__" and inspect.isclass(getattr(skcodex, name))
]

# Macros whose argument MathJax typesets as text: a backslash there is printed as typed.
_TEXT_MACRO = re.compile(r"\\(?:text|texttt|textrm|textit|textbf|textsf|mbox)\{([^{}]*)\}")
_TEX_COMMAND = re.compile(r"\\(?:[A-Za-z]+|[_{}$%&#])")
_MATH = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.S)
_LIST_LINE = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+\S")


@pytest.fixture(scope="module")
def site() -> Path:
    if not (SITE / "index.html").is_file():
        if REQUIRED:
            pytest.fail(f"no built documentation in {SITE} (SKCODEX_REQUIRE_BROWSER=1)")
        pytest.skip(f"no built documentation in {SITE} (run: mkdocs build --strict)")
    return SITE


def _pages(site: Path) -> dict[str, str]:
    """Each page's article (its own content, without the theme's navigation)."""
    out = {}
    for path in sorted(site.rglob("*.html")):
        rel = path.relative_to(site).as_posix()
        if rel.startswith(("vendor/", "assets/")) or rel == "404.html":
            continue
        text = path.read_text(encoding="utf-8")
        found = re.search(r"<article[^>]*>(.*)</article>", text, re.S)
        if found:
            out[rel] = found[1]
    return out


def _without(markup: str, *tags: str) -> str:
    for tag in tags:
        markup = re.sub(rf"<{tag}\b[^>]*>.*?</{tag}>", " ", markup, flags=re.S)
    return markup


def _text(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def raw_latex(article: str) -> list[str]:
    """TeX the reader would see as typed: commands outside formulas or in a formula's text."""
    problems = []
    for _, formula in _MATH.findall(article):
        for argument in _TEXT_MACRO.findall(html.unescape(formula)):
            if "\\" in argument:
                problems.append(f"TeX command inside a text macro: {argument!r}")
    prose = _text(_without(_MATH.sub(" ", article), "pre", "code", "script", "style"))
    problems += [f"TeX outside a formula: {m!r}" for m in _TEX_COMMAND.findall(prose)]
    return problems


def collapsed_lists(article: str) -> list[str]:
    """Paragraphs holding lines that were meant as list items."""
    problems = []
    for paragraph in re.findall(r"<p>(.*?)</p>", _without(article, "pre", "code"), re.S):
        lines = _text(paragraph).splitlines()
        problems += [
            f"list item inside a paragraph: {line.strip()[:60]!r}"
            for line in lines
            if _LIST_LINE.match(line)
        ]
    return problems


def unresolved_links(article: str) -> list[str]:
    """Links left pointing at Markdown files, and ``docs/*.md`` paths shown as text."""
    hrefs = re.findall(r'href="([^"#?]+\.md)(?:[#?][^"]*)?"', article)
    prose = _text(_without(article, "pre", "code", "script", "style"))
    shown = re.findall(r"\bdocs/[\w./-]+\.md\b", prose)
    return [f"link to {h}" for h in hrefs] + [f"path as text: {s}" for s in shown]


def test_no_page_shows_raw_latex_collapsed_lists_or_markdown_paths(site):
    pages = _pages(site)
    assert len(pages) > 20, sorted(pages)
    problems = {
        name: found
        for name, article in pages.items()
        if (found := raw_latex(article) + collapsed_lists(article) + unresolved_links(article))
    }
    assert not problems, problems


def test_the_checks_catch_each_defect():
    texttt = '<p>prior <span class="arithmatex">\\(N(\\texttt{first\\_move\\_loc}, 1)\\)</span></p>'
    assert raw_latex(texttt) == ["TeX command inside a text macro: 'first\\\\_move\\\\_loc'"]
    assert raw_latex("<p>a \\frac{1}{2} b</p>") == ["TeX outside a formula: '\\\\frac'"]
    fine = '<p>a <span class="arithmatex">\\(\\frac{1}{2}\\)</span> <code>\\n</code></p>'
    assert raw_latex(fine) == []
    collapsed = "<ul><li>one</li></ul><p>rest of it\n- After every fit\n- A player</p>"
    assert len(collapsed_lists(collapsed)) == 2
    assert collapsed_lists("<ul><li>one</li><li>two</li></ul><p>a - b</p>") == []
    assert unresolved_links('<p>see docs/model-choice.md and <a href="luck.md">luck</a></p>') == [
        "link to luck.md",
        "path as text: docs/model-choice.md",
    ]


# -- the API reference ------------------------------------------------------------------


def parameter_table(site: Path, name: str) -> tuple[str, list[tuple[str, str]]]:
    """The page and the (parameter, rendered default) rows documenting estimator ``name``."""
    for path in sorted((site / "api").rglob("index.html")):
        text = path.read_text(encoding="utf-8")
        heading = re.search(rf'id="(skcodex(?:\.\w+)*\.{name})"', text)
        if not heading:
            continue
        start = text.index("<table>", heading.end())
        table = text[start : text.index("</table>", start)]
        header = [_text(h).strip() for h in re.findall(r"<th>(.*?)</th>", table, re.S)]
        assert header == ["Name", "Type", "Description", "Default"], (name, header)
        rows = []
        for row in re.findall(r'<tr class="doc-section-item">(.*?)</tr>', table, re.S):
            cells = [_text(c).strip() for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
            rows.append((cells[0], cells[-1]))
        return path.relative_to(site).as_posix(), rows
    raise AssertionError(f"{name} is not in the API reference")


@pytest.mark.parametrize("name", ESTIMATORS)
def test_api_reference_defaults_equal_the_signature(site, name):
    signature = inspect.signature(getattr(skcodex, name))
    page, rows = parameter_table(site, name)
    assert [row[0] for row in rows] == list(signature.parameters), page
    for parameter, shown in rows:
        default = signature.parameters[parameter].default
        value = ast.literal_eval(shown)
        assert value == default and type(value) is type(default), (page, parameter, shown)


def test_api_index_links_every_name_it_lists(site):
    article = _pages(site)["api/index.html"]
    items = re.findall(r"<li>(.*?)</li>", article, re.S)
    assert items
    for item in items:  # each item starts with a linked name (its summary may quote code)
        assert re.match(r"\s*<a [^>]*>\s*<code>", item), f"an unlinked name: {_text(item)!r}"
    linked = set(re.findall(r"<a [^>]*>\s*<code>([\w.]+)</code>\s*</a>", article))
    missing = {n for n in skcodex.__all__ if n != "__version__"} - linked
    assert not missing, f"the API index does not link {sorted(missing)}"


# -- the gallery --------------------------------------------------------------------------


def interleaved(article: str) -> bool:
    """Whether a gallery page shows code after output and after figures (not all at the end).

    Each output on a page is an ``Output:`` paragraph and its text block; any other
    block is code. So code follows a point when more blocks than outputs follow it.
    """
    tokens = re.findall(r"<p>Output:</p>|<img\b|<div class=\"highlight\">", article)

    def code_after(i: int) -> bool:
        rest = tokens[i + 1 :]
        return rest.count('<div class="highlight">') > rest.count("<p>Output:</p>")

    outputs = [i for i, t in enumerate(tokens) if t == "<p>Output:</p>"]
    figures = [i for i, t in enumerate(tokens) if t == "<img"]
    return len(outputs) >= 2 and code_after(outputs[0]) and (not figures or code_after(figures[0]))


def test_gallery_pages_interleave_code_output_and_figures(site):
    pages = _pages(site)
    scripts = sorted(p.stem for p in (ROOT / "examples").glob("*.py"))
    for stem in scripts:
        article = pages[f"gallery/{stem}/index.html"]
        assert interleaved(article), f"gallery/{stem}: code, then all output and figures"
    assert any("<img" in pages[f"gallery/{stem}/index.html"] for stem in scripts)


def test_the_interleaving_check_fails_on_source_then_output_then_figures():
    block, output, figure = '<div class="highlight">', "<p>Output:</p>", "<img "
    assert not interleaved(block + output + block + figure + figure)
    assert interleaved(block + output + block + figure + block + output + block)
    assert not interleaved(block + output + block + block + output + block + figure)
