"""The HTML report: every section, figure and table present, self-contained, readable."""

import base64
import dataclasses
import re
import shutil
import subprocess
import warnings
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from skcodex import BayesianMatchupClassifier
from skcodex.report import (
    CSV_FILES,
    FIGURES,
    SECTIONS,
    HeldOut,
    analyse,
    render_html,
    write_report,
)


class _Page(HTMLParser):
    """Collects element ids, image sources, open/close balance and scripts."""

    VOID = frozenset({"meta", "img", "br", "hr", "link", "input"})

    def __init__(self):
        super().__init__()
        self.ids, self.images, self.stack, self.errors = {}, {}, [], []
        self.tags = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if "id" in attrs:
            self.ids[attrs["id"]] = tag
            self.current = attrs["id"]
        if tag == "img":
            self.images[getattr(self, "current", None)] = attrs.get("src", "")
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}> (open: {self.stack[-3:]})")
        else:
            self.stack.pop()


@pytest.fixture(scope="module")
def fitted(small_matches):
    clf = BayesianMatchupClassifier(draws=100, tune=100, chains=2, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(small_matches.X, small_matches.y)
    return clf


@pytest.fixture(scope="module")
def report(fitted, small_matches, tmp_path_factory):
    X, y = small_matches.X, small_matches.y
    last = (X["period"] == X["period"].iloc[-1]).to_numpy()
    held = HeldOut(
        label="tournament T5",
        y=y[last],
        p_win=fitted.predict_proba(X[last])[:, 1],
        n_train=int((~last).sum()),
        problems=["1 divergent transition(s)"],
    )
    folder = tmp_path_factory.mktemp("report") / "made" / "here"  # created on the way
    page = write_report(
        fitted,
        X,
        y,
        folder,
        title="Test <report>",
        held_out=held,
        nash_draws=20,
        true_skills=small_matches.params["skill"],
    )
    return page


def _parse(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    page.close()
    return page


def test_report_has_every_section_and_figure(report):
    text = report.read_text(encoding="utf-8")
    page = _parse(text)
    assert page.errors == [] and page.stack == []
    for section in SECTIONS:
        assert page.ids.get(section) == "section", section
    for figure, section in FIGURES.items():
        assert page.ids.get(figure) == "figure", figure
        src = page.images[figure]
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1]).startswith(b"\x89PNG")
        # each figure sits inside its section
        start = text.index(f'<section id="{section}"')
        end = text.index("</section>", start)
        assert start < text.index(f'id="{figure}"') < end
    for table in ("skills", "matchups", "decks", "nash", "spreads", "brier", "convergence"):
        assert page.ids.get(f"table-{table}") == "table", table


def test_report_is_self_contained_and_escaped(report):
    text = report.read_text(encoding="utf-8")
    page = _parse(text)
    assert "script" not in page.tags
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", text)
    assert "<title>Test &lt;report&gt;</title>" in text


def test_report_content_for_a_reader(report, fitted, small_matches):
    text = report.read_text(encoding="utf-8")
    assert "400 matches between 30 players in 5 tournaments" in text
    assert "held-out" in text and "tournament T5" in text
    assert "held-out model: 1 divergent transition(s)" in text  # problems are listed
    best = str(report.parent.joinpath("skills.csv").open().readlines()[1].split(",")[0])
    assert f"<strong>{best}</strong>" in text
    assert "Crosses mark the true skills" in text
    for number in ("R-hat", "ESS", "divergent"):
        assert number in text


def test_report_writes_the_tables_as_csv(report, small_matches):
    folder = report.parent
    assert sorted(p.name for p in folder.glob("*.csv")) == sorted(CSV_FILES)
    skills = pd.read_csv(folder / "skills.csv")
    assert {"player", "mean", "lower", "upper", "p_best", "matches", "wins"} <= set(skills)
    assert len(skills) == 30
    matchups = pd.read_csv(folder / "matchups.csv")
    assert len(matchups) == 8**2  # the eight most played decks, both turn orders
    nash = pd.read_csv(folder / "nash.csv")
    assert set(nash["role"]) == {"player 1", "player 2", "both", "game value"}
    spreads = pd.read_csv(folder / "skill_versus_decks.csv").set_index("quantity")
    assert 0 <= spreads.loc["p_skill_matters_more", "mean"] <= 1
    brier = pd.read_csv(folder / "brier.csv").set_index("sample")
    assert list(brier.index) == ["in-sample", "held-out"]
    calibration = pd.read_csv(folder / "calibration.csv")
    assert calibration.groupby("sample")["count"].sum().to_dict() == {
        "in-sample": len(small_matches.X),
        "held-out": int(brier.loc["held-out", "n"]),
    }


@pytest.fixture(scope="module")
def result(fitted, small_matches):
    return analyse(fitted, small_matches.X, small_matches.y, nash_draws=5)


def test_convergence_section_reports_success_or_problems(result):
    fine = dataclasses.replace(
        result, convergence={**result.convergence, "problems": []}, held_out=None
    )
    figs = dict.fromkeys(FIGURES, _tiny_figure())
    assert "All convergence checks passed" in render_html(fine, figs=figs)
    bad = dataclasses.replace(
        result, convergence={**result.convergence, "problems": ["R-hat above 1.01 <x>"]}
    )
    page = render_html(bad, figs=figs)
    assert "Some checks failed" in page and "R-hat above 1.01 &lt;x&gt;" in page
    assert (
        "held-out"
        not in render_html(fine, figs=figs).split('id="calibration"')[1].split("<table")[0]
    )


def test_player_names_are_escaped(result):
    skills = result.skills.rename(index={result.skills.index[0]: "<b>Eve</b>"})
    page = render_html(
        dataclasses.replace(result, skills=skills), figs=dict.fromkeys(FIGURES, _tiny_figure())
    )
    assert "<b>Eve</b>" not in page and "&lt;b&gt;Eve&lt;/b&gt;" in page


def _tiny_figure():
    from matplotlib.figure import Figure

    fig = Figure(figsize=(1, 1))
    fig.add_subplot().plot([0, 1], [0, 1])
    return fig


def _chromium() -> str | None:
    for name in ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.mark.skipif(_chromium() is None, reason="Chromium is not installed")
def test_report_renders_in_headless_chromium_without_console_errors(report, tmp_path):
    result = subprocess.run(
        [
            _chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            report.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    dom = result.stdout
    for section in SECTIONS:
        assert f'id="{section}"' in dom
    assert dom.count("data:image/png;base64,") == len(FIGURES)
    console = [
        line
        for line in result.stderr.splitlines()
        if "CONSOLE" in line or "Uncaught" in line or "Failed to load" in line
    ]
    assert console == [], console


def test_report_numbers_match_the_analyses(fitted, small_matches, report):
    skills = pd.read_csv(report.parent / "skills.csv").set_index("player")
    top = skills.index[0]
    column = fitted.vocabulary_.players.index(top)
    assert skills.loc[top, "mean"] == pytest.approx(fitted.effect_draws_[:, column].mean())
    assert np.isclose(skills["p_best"].sum(), 1.0)


def test_write_report_creates_the_folder(report):
    assert report.name == "report.html" and report.parent.name == "here"
    assert isinstance(report, Path)
