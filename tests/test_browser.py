"""The built documentation and a report from ``skcodex fit``, opened in a real browser.

Debian's Chromium (``/usr/bin/chromium``) driven by Playwright: formulas are
typeset (no raw ``\\[`` left), every image loads, the console stays clean and
the report's section links lead to their sections.

The documentation is read from ``site/`` beside this checkout (``mkdocs build
--strict`` makes it; ``$SKCODEX_DOCS_SITE`` points elsewhere). Without a browser,
Playwright or a built site these tests skip, unless ``SKCODEX_REQUIRE_BROWSER=1``
(set by CI), which turns the skip into a failure.
"""

from __future__ import annotations

import functools
import http.server
import os
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("SKCODEX_CHROMIUM", "/usr/bin/chromium")
SITE = Path(os.environ.get("SKCODEX_DOCS_SITE", ROOT / "site"))
FIXTURE = Path(__file__).parent / "fixtures" / "codexdata_variants"
REQUIRED = os.environ.get("SKCODEX_REQUIRE_BROWSER") == "1"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _missing(what: str) -> None:
    if REQUIRED:
        pytest.fail(f"{what} (SKCODEX_REQUIRE_BROWSER=1)")
    pytest.skip(what)


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed")
    if not Path(CHROMIUM).is_file():
        _missing(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


class _Watched:
    """A page whose console errors, uncaught exceptions and failed requests are kept."""

    def __init__(self, browser):
        self.page = browser.new_page()
        self.errors: list[str] = []
        self.page.on(
            "console",
            lambda m: (
                self.errors.append(f"console {m.type}: {m.text}")
                if m.type in ("error", "warning") and "DevTools" not in m.text
                else None
            ),
        )
        self.page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))
        self.page.on("requestfailed", lambda r: self.errors.append(f"failed: {r.url} {r.failure}"))
        self.page.on(
            "response",
            lambda r: self.errors.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None,
        )

    def images(self) -> list[dict]:
        return self.page.eval_on_selector_all(
            "img",
            "els => els.map(e => ({src: e.currentSrc.slice(0, 80), complete: e.complete,"
            " width: e.naturalWidth}))",
        )

    def close(self) -> None:
        self.page.close()


@pytest.fixture(scope="module")
def site_url():
    if not (SITE / "classifier" / "index.html").is_file():
        _missing(f"no built documentation in {SITE} (run: mkdocs build --strict)")
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()  # the listening socket too: an unclosed one warns
    thread.join()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def _typeset(page) -> None:
    page.wait_for_function(
        "() => window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=30_000
    )
    page.evaluate("() => MathJax.startup.promise")


def test_docs_classifier_page_renders_its_math(browser, site_url):
    w = _Watched(browser)
    w.page.goto(f"{site_url}/classifier/", wait_until="load")
    _typeset(w.page)
    typeset = w.page.eval_on_selector_all("mjx-container", "els => els.length")
    source = w.page.eval_on_selector_all(".arithmatex", "els => els.length")
    text = w.page.inner_text("article")
    assert source > 0, "the page has no formulas to check"
    assert typeset >= source, f"{typeset} formulas typeset of {source}"
    assert "\\[" not in text and "\\(" not in text, "raw TeX left on the page"
    # every glyph has its character and a MathJax font that loaded (an unstyled glyph is
    # blank); invisible operators (function application U+2061 to U+2064) have none
    w.page.evaluate("() => document.fonts.ready.then(() => true)")
    blank = w.page.eval_on_selector_all(
        "mjx-c",
        "els => els.filter(e => !/^mjx-c206[1-4]$/.test(e.classList[0])"
        " && ['none', 'normal', '\"\"'].includes(getComputedStyle(e, '::before').content))"
        ".length",
    )
    glyphs = w.page.eval_on_selector_all("mjx-c", "els => els.length")
    assert glyphs > 0 and blank == 0, f"{blank} of {glyphs} glyphs have no character"
    fonts = w.page.evaluate(
        "() => [...document.fonts].filter(f => f.family.startsWith('MJX')"
        " && f.status === 'loaded').length"
    )
    assert fonts >= 2, f"{fonts} MathJax fonts loaded"
    # MathJax came from this site, not from another host
    scripts = w.page.eval_on_selector_all("script[src]", "els => els.map(e => e.src)")
    assert any("vendor/mathjax/tex-chtml.js" in s for s in scripts)
    assert all(s.startswith(site_url) for s in scripts), scripts
    images = w.images()
    assert all(i["complete"] and i["width"] > 0 for i in images), images
    assert w.errors == []
    w.close()


def test_docs_gallery_page_shows_its_figures(browser, site_url):
    w = _Watched(browser)
    w.page.goto(f"{site_url}/gallery/report_demo/", wait_until="load")
    images = w.images()
    assert len(images) >= 5, images
    assert all(i["complete"] and i["width"] > 0 for i in images), images
    assert "Output" in w.page.inner_text("article")
    assert w.errors == []
    w.close()


@pytest.fixture(scope="module")
def fit_report(tmp_path_factory):
    import warnings

    pytest.importorskip("matplotlib")
    from skcodex.cli import main

    out = tmp_path_factory.mktemp("fit")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(
            [
                "fit",
                str(FIXTURE),
                "--out",
                str(out),
                "--draws",
                "100",
                "--chains",
                "2",
                "--nash-draws",
                "20",
                "--no-progress",
            ]
        )
    assert code == 0
    return out / "report.html"


def test_fit_report_in_the_browser(browser, fit_report):
    from skcodex.report import FIGURES, SECTIONS

    w = _Watched(browser)
    w.page.goto(fit_report.resolve().as_uri(), wait_until="load")
    text = w.page.inner_text("body")
    assert "\\[" not in text and "\\(" not in text
    images = w.images()
    assert len(images) == len(FIGURES)
    assert all(i["complete"] and i["width"] > 0 for i in images), images
    # the headline names the prior and the data
    assert "before seeing any" in text and "codexdata_variants" in text
    links = w.page.eval_on_selector_all("nav a", "els => els.map(e => e.getAttribute('href'))")
    assert links == [f"#{k}" for k in SECTIONS]
    for href in links:
        w.page.click(f'nav a[href="{href}"]')
        assert w.page.evaluate("() => location.hash") == href
        top = w.page.evaluate(
            f"() => document.getElementById('{href[1:]}').getBoundingClientRect().top"
        )
        height, at_bottom = w.page.evaluate(
            "() => [innerHeight, scrollY + innerHeight >= document.body.scrollHeight - 2]"
        )
        # the section starts at the top of the view, or lower when the page has ended
        assert abs(top) <= 2 or (at_bottom and 0 <= top < height), (href, top)
    assert w.errors == []
    w.close()
