"""The HTML report: every section, figure and table present, self-contained, readable."""

import base64
import dataclasses
import html
import io
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
from skcodex._compat import posterior as posterior
from skcodex.report import (
    CSV_FILES,
    FIGURES,
    SECTIONS,
    HeldOut,
    analyse,
    render_html,
    write_report,
)
from skcodex.report._page import page_tables


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
    """The static model (a default fit's report: see the last test)."""
    clf = BayesianMatchupClassifier(
        draws=100, tune=100, chains=2, random_state=0, time_varying=False, debut=False
    )
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
    assert "table-extensions" not in page.ids  # the seed model has no optional part


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
    lines = report.parent.joinpath("skills.csv").read_text().splitlines()
    best = str(lines[1].split(",")[0])
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
    extensions = pd.read_csv(folder / "extensions.csv")  # the seed model: its header alone
    assert extensions.empty
    assert list(extensions) == ["name", "what", "scale", "mean", "lower", "upper"]


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


def _simulated_forecasts(slope, n=3000, seed=0):
    from scipy.special import expit

    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 1.5, n)
    return (rng.random(n) < expit(slope * z)).astype(int), expit(z)


@pytest.mark.parametrize("slope", [0.6, 1.0])
def test_calibration_section_finds_overconfident_forecasts(fitted, small_matches, slope):
    """Held-out forecasts too bold at the top are said to be; calibrated ones are not."""
    from skcodex.metrics import calibration_error, calibration_slope

    y, p = _simulated_forecasts(slope)
    held = HeldOut(label="simulated", y=y, p_win=p, n_train=len(small_matches.X))
    out = analyse(fitted, small_matches.X, small_matches.y, held_out=held, nash_draws=5)
    row = out.brier.loc["held-out"]
    assert row["calibration_error"] == pytest.approx(calibration_error(y, p))
    fit = calibration_slope(y, p, interval=out.interval)
    assert row[["slope", "slope_lower", "slope_upper"]].tolist() == pytest.approx(
        fit[["slope", "slope_lower", "slope_upper"]].tolist()
    )
    figs = dict.fromkeys(FIGURES, _tiny_figure())
    section = render_html(out, figs=figs).split('id="calibration"')[1]
    verdict = html.unescape(section.split('class="calibration-verdict">')[1].split("</p>")[0])
    assert "held-out forecasts" in verdict
    if slope < 1:
        assert "come true less often than they say" in verdict and "too bold" in verdict
        assert "overconfident at the top" in verdict
    else:
        assert "come true about as often as they say" in verdict
        assert "overconfident" not in verdict and "its interval holds 1" in verdict
    table = page_tables(out)["brier"]
    assert "calibration error" in table.columns


def test_without_held_out_matches_the_calibration_is_called_in_sample(result):
    figs = dict.fromkeys(FIGURES, _tiny_figure())
    section = render_html(result, figs=figs).split('id="calibration"')[1]
    verdict = html.unescape(section.split('class="calibration-verdict">')[1].split("</p>")[0])
    assert verdict.startswith("No matches were held out, so these are in-sample forecasts")
    assert f"{result.brier.loc['in-sample', 'calibration_error']:.3f}" in verdict


def test_the_report_lists_failed_checks_by_parameter_family(result):
    problems = [
        f"bulk ESS below 400 for {n} effect parameter(s) (stsp[Demonology, Law]; lowest {n}0)"
        for n in range(3, 20)
    ]
    bad = dataclasses.replace(
        result,
        convergence={
            **result.convergence,
            "problems": problems,
            "forecasts": {"sentence": "Forecasts: checked & fine."},
        },
        held_out=None,
    )
    page = render_html(bad, figs=dict.fromkeys(FIGURES, _tiny_figure()))
    box = page.split('class="warning"')[1].split("</div>")[0]
    shown, details = box.split("<details>")
    # seventeen checks of one family: one bullet, then all seventeen folded away
    assert shown.count("<li>") == 1
    assert "<li>deck matchups: bulk ESS below 400 for 187 (lowest 30)</li>" in shown
    assert "Forecasts: checked &amp; fine." in shown
    assert details.count("<li>") == 17 and "Every failed check (17)" in details


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


# -- the words follow the fitted options ------------------------------------------------

#: Phrases of "How this works", each stated only for the options that call for it.
PHRASES = {
    "nuts": "No-U-Turn sampler",
    "advi": "variational inference (ADVI)",
    "walk": "skill walks between rating periods",
    "static": "Player skill does not change over time",
    "synergy": "adds a synergy effect",
    "no synergy": "do not interact with each other",
    "first move": "first-move effect",
    "familiarity": "familiarity effect",
    "debut": "A debut offset, the same for every player",
    "period offset": "shifted in each rating period by an offset of its own",
    "balanced": "Under the balanced prior",
    "seed": "the seed model's priors",
    "default": "the package's default priors",
    "custom": "log-normal priors set for this fit",
}

#: Options, and the phrases the report must state for them (every other phrase absent).
CASES = {
    "the seed model": ({}, {"nuts", "static", "no synergy", "default"}),
    "advi": ({"method": "advi"}, {"advi", "static", "no synergy", "default"}),
    "skill walk": ({"time_varying": True}, {"nuts", "walk", "no synergy", "default"}),
    "synergy": ({"synergy": True}, {"nuts", "static", "synergy", "default"}),
    "first move": ({"first_move": True}, {"nuts", "static", "no synergy", "first move", "default"}),
    "familiarity": (
        {"familiarity": True},
        {"nuts", "static", "no synergy", "familiarity", "default"},
    ),
    "debut": ({"debut": True}, {"nuts", "static", "no synergy", "debut", "default"}),
    "period offset": (
        {"period_offset": True},
        {"nuts", "static", "no synergy", "period offset", "default"},
    ),
    "balanced prior": ({"prior": "balanced"}, {"nuts", "static", "no synergy", "balanced"}),
    "seed priors": ("seed", {"nuts", "static", "no synergy", "seed"}),
    "custom prior": ({"log_sd_stst_loc": -0.5}, {"nuts", "static", "no synergy", "custom"}),
}


def _refitted_as(fitted, **params):
    """The fitted classifier as if fitted with ``params``: its layout carries their structure."""
    import copy

    clf = copy.copy(fitted).set_params(**params)
    epochs = 5 if clf.options.time_varying else 1
    clf.layout_ = dataclasses.replace(fitted.layout_, options=clf.options, n_epochs=epochs)
    return clf


def _section(page, section):
    return page.split(f'<section id="{section}">')[1].split("</section>")[0]


@pytest.mark.parametrize("case", list(CASES))
def test_how_this_works_states_the_fitted_options(result, fitted, case):
    from skcodex._classifier import SEED_PRIORS
    from skcodex.report import describe_model

    params, stated = CASES[case]
    clf = _refitted_as(fitted, **(SEED_PRIORS if params == "seed" else params))
    model = describe_model(clf)
    page = render_html(
        dataclasses.replace(result, model=model), figs=dict.fromkeys(FIGURES, _tiny_figure())
    )
    methods = " ".join(_section(page, "methods").split())
    for key, phrase in PHRASES.items():
        assert (phrase in methods) == (key in stated), (key, methods)
    headline = html.unescape(_section(page, "skill-versus-decks"))
    assert f"under\n{model['prior_name']} alone" in headline
    assert ("balanced prior alone" in headline) == (case == "balanced prior")
    convergence = _section(page, "convergence")
    assert ("pass almost by construction" in convergence) == (case == "advi")
    assert ("chains agree" in convergence) == (case != "advi")


@pytest.mark.parametrize(
    "params",
    [{"spec_prior": "exponential"}, {"time_varying": True, "step_prior": "exponential"}],
)
def test_an_exponential_spread_prior_is_not_called_log_normal(result, fitted, params):
    from skcodex.report import describe_model

    model = describe_model(_refitted_as(fitted, **params))
    assert model["prior_kind"] == "custom" and model["prior_name"] == "a custom prior"
    page = render_html(
        dataclasses.replace(result, model=model), figs=dict.fromkeys(FIGURES, _tiny_figure())
    )
    methods = " ".join(_section(page, "methods").split())
    assert "The spreads have priors set for this fit" in methods
    assert "log-normal priors set" not in methods and "~ Exponential(mean" in methods
    assert "under\na custom prior alone" in html.unescape(_section(page, "skill-versus-decks"))


def test_the_walk_and_first_move_enter_the_formula_and_the_skills(result, fitted):
    from skcodex.report import describe_model

    figs = dict.fromkeys(FIGURES, _tiny_figure())
    clf = _refitted_as(fitted, time_varying=True, first_move=True)
    page = render_html(dataclasses.replace(result, model=describe_model(clf)), figs=figs)
    assert "+ matchup + first move</code>" in page
    assert "rating periods (5 of them)" in page
    assert "0 is an average player of the latest period" in page
    plain = render_html(result, figs=figs)
    assert "+ matchup</code>" in plain and "latest period" not in plain


@pytest.mark.parametrize("sampler", ["pymc", "nutpie"])
def test_the_sampler_is_named(result, fitted, sampler):
    from skcodex.report import describe_model

    model = describe_model(_refitted_as(fitted, sampler=sampler))
    page = render_html(
        dataclasses.replace(result, model=model), figs=dict.fromkeys(FIGURES, _tiny_figure())
    )
    name = {"pymc": "PyMC", "nutpie": "nutpie"}[sampler]
    assert f"No-U-Turn sampler of {name}, 2 chains of 100 draws" in page
    assert f"NUTS ({sampler} sampler), 2 chains of 100 draws after 100 tuning steps" in page


def test_the_model_described_is_the_one_fitted(fitted):
    """Parameters changed after the fit do not change what the report says was fitted."""
    import copy

    from skcodex.report import describe_model

    changed = copy.copy(fitted).set_params(synergy=True, time_varying=True, first_move=True)
    model = describe_model(changed)
    assert not (model["synergy"] or model["time_varying"] or model["first_move"])
    assert model["extensions"] == "none (the seed model)" and model["n_epochs"] == 0


def test_the_sampling_described_is_the_one_fitted(fitted):
    """chains, draws, tuning, target, seed and symmetry changed after the fit are not the fit."""
    import copy

    from skcodex.report import describe_model

    before = describe_model(fitted)["fitting"]
    assert "2 chains of 100 draws after 100 tuning steps, target acceptance 0.8, seed 0" in before
    changed = copy.copy(fitted).set_params(
        chains=8, draws=5000, tune=3, target_accept=0.99, random_state=7, symmetric=True
    )
    model = describe_model(changed)
    assert model["fitting"] == before.replace("seed 0", "seed changed after the fit")
    assert model["symmetric"] is False and "symmetric" not in model["extensions"]
    # the seed given back as fitted reads as fitted again
    assert describe_model(changed.set_params(random_state=0))["fitting"] == before


def test_report_of_a_tiny_advi_fit_with_extensions(small_matches, tmp_path):
    """A real (tiny) ADVI fit with synergy, first move and the balanced prior, end to end.

    The debut option asked for, which the data's tournaments can hold; ADVI has no
    skill walk."""
    options = {"synergy": True, "first_move": True, "prior": "balanced", "debut": True}
    clf = BayesianMatchupClassifier(method="advi", draws=50, chains=1, random_state=0, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(small_matches.X, small_matches.y)
    page = write_report(clf, small_matches.X, small_matches.y, tmp_path, nash_draws=5)
    methods = " ".join(_section(page.read_text(encoding="utf-8"), "methods").split())
    stated = {"advi", "static", "synergy", "first move", "balanced", "debut"}
    for key, phrase in PHRASES.items():
        assert (phrase in methods) == (key in stated), (key, methods)
    assert "50 independent draws" in methods
    # the fitted values of the two optional parts, in their table in the same section
    extensions = page_tables(analyse(clf, small_matches.X, small_matches.y, nash_draws=5))
    assert [row[0] for row in extensions["extensions"].rows] == [
        "first-move advantage",
        "debut offset (a player's first rating period)",
        "debut deck factor (times the deck matchup in a match where a side debuts)",
        "spread of the within-deck pair effects",
    ]
    assert 'id="table-extensions"' in _section(page.read_text(encoding="utf-8"), "methods")
    written = pd.read_csv(tmp_path / "extensions.csv").set_index("name")
    assert list(written.index) == ["first_move", "debut", "debut_deck_factor", "sd_syn"]
    first_move = posterior.group(clf.idata_, "posterior")["first_move"].to_numpy()
    assert written.loc["first_move", "mean"] == pytest.approx(first_move.mean(), rel=1e-6)
    # the posterior records the approximation, whatever the parameters say since
    import copy

    from skcodex.report import describe_model

    assert describe_model(copy.copy(clf).set_params(method="nuts"))["method"] == "advi"


def test_a_model_not_recorded_is_not_described(result):
    """Analyses made by hand without the model's options: the page claims no prior."""
    page = render_html(
        dataclasses.replace(result, model={}), figs=dict.fromkeys(FIGURES, _tiny_figure())
    )
    methods = " ".join(_section(page, "methods").split())
    for key in ("balanced", "seed", "default", "custom"):
        assert PHRASES[key] not in methods
    assert "prior not recorded" in page


# -- names from the data: spreadsheet formulas and maths --------------------------------

FORMULA_NAMES = ['=HYPERLINK("http://x","y")', "+1+2", "-2+3", "@SUM(A1)"]
MATH_NAMES = [r"$\fakecommand$", "$_$", "$$", "$^_^$", "Ca$h$", "$money$"]
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """A tiny fit of another game whose players, starters and components have hostile names."""
    from skcodex.codex import PlainCatalogue

    players = [*FORMULA_NAMES, *MATH_NAMES, "plain"]
    decks = ["=Go/-Neg", "=Go/@At", "$x$/+Plus", "$x$/-Neg", "Safe/@At"]
    rng = np.random.default_rng(0)
    n = 300
    p1 = rng.integers(0, len(players), n)
    p2 = (p1 + rng.integers(1, len(players), n)) % len(players)
    X = pd.DataFrame(
        {
            "player1": [players[i] for i in p1],
            "player2": [players[i] for i in p2],
            "deck1": [decks[i] for i in rng.integers(0, len(decks), n)],
            "deck2": [decks[i] for i in rng.integers(0, len(decks), n)],
            "period": np.repeat(["=T1", "$T2$", "-T3"], n // 3),
        }
    )
    y = rng.integers(0, 2, n)
    clf = BayesianMatchupClassifier(
        method="advi", draws=50, chains=1, random_state=0, catalogue=PlainCatalogue()
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)
    last = (X["period"] == "-T3").to_numpy()
    held = HeldOut(
        label="tournament $T3$",
        y=y[last],
        p_win=clf.predict_proba(X[last])[:, 1],
        n_train=int((~last).sum()),
        problems=[],
    )
    folder = tmp_path_factory.mktemp("hostile")
    options = {"held_out": held, "nash_draws": 5, "decks": decks}
    write_report(clf, X, y, folder, **options)  # must not fail in matplotlib's maths parser
    return {
        "clf": clf,
        "X": X,
        "y": y,
        "folder": folder,
        "players": players,
        "decks": decks,
        "options": options,
    }


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def test_no_csv_cell_can_start_a_formula(hostile):
    import csv

    for name in CSV_FILES:
        with open(hostile["folder"] / name, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
        for row in rows:
            for cell in row:
                assert _is_number(cell) or not cell.startswith(FORMULA_STARTS), (name, cell)
    skills = pd.read_csv(hostile["folder"] / "skills.csv")
    # OWASP's neutralisation: a leading single quote, the rest as typed
    assert set(skills["player"]) == {
        ("'" + p if p.startswith(FORMULA_STARTS) else p) for p in hostile["players"]
    }
    assert skills["mean"].dtype == float and (skills["mean"] < 0).any()  # numbers stay numbers
    matchups = pd.read_csv(hostile["folder"] / "matchups.csv")
    assert "'=Go/-Neg" in set(matchups["deck1"]) and "$x$/-Neg" in set(matchups["deck2"])
    assert matchups["mean"].dtype == float
    nash = pd.read_csv(hostile["folder"] / "nash.csv")
    assert "'=Go/@At" in set(nash["deck"])
    ranking = pd.read_csv(hostile["folder"] / "deck_ranking.csv")
    assert "'=Go/-Neg" in set(ranking.iloc[:, 0])


def test_spreadsheet_safe_neutralises_text_only():
    from skcodex.report import spreadsheet_safe

    table = pd.DataFrame(
        {
            "name": ["=1+2", "+a", "-b", "@c", "\tt", "\rr", "ok", "a=b"],
            "value": [-0.5, 1.0, -2.0, 3.0, 0.0, -1.0, 2.0, 1.5],
            "-col": [1, 2, 3, 4, 5, 6, 7, 8],
        }
    )
    before = table.copy()
    safe = spreadsheet_safe(table)
    assert list(safe["name"]) == ["'=1+2", "'+a", "'-b", "'@c", "'\tt", "'\rr", "ok", "a=b"]
    assert list(safe.columns) == ["name", "value", "'-col"]
    assert safe["value"].tolist() == table["value"].tolist() and safe["value"].dtype == float
    pd.testing.assert_frame_equal(table, before)


def test_figures_draw_names_as_typed(hostile):
    """Every name from the data is shown exactly as typed; no text is parsed as maths."""
    from matplotlib.text import Text

    from skcodex.report import figures

    result = analyse(hostile["clf"], hostile["X"], hostile["y"], **hostile["options"])
    shown = []
    for fig in figures(result).values():
        fig.savefig(io.BytesIO(), format="png", dpi=30)  # rendering does not raise
        for text in fig.findobj(Text):
            raw = text.get_text()
            drawn, is_math = text._preprocess_math(raw)  # what matplotlib will draw
            assert not is_math, raw
            shown.append(drawn)
    for player in hostile["players"]:
        assert any(s.startswith(f"{player} (") for s in shown), player  # skill plot labels
    for deck in ("=Go/-Neg", "$x$/+Plus", "$x$/-Neg"):
        assert deck in shown, deck  # matchup and Nash labels
    # a sample's label in the reliability legend, too
    from skcodex.plotting import plot_reliability

    fig = plot_reliability({"tournament $T3$": result.reliability["in-sample"]})
    fig.savefig(io.BytesIO(), format="png", dpi=30)
    legend = [t._preprocess_math(t.get_text()) for t in fig.axes[0].get_legend().get_texts()]
    assert legend[1] == (f"tournament $T3$ ({len(hostile['y'])} matches)", False)


def test_a_fit_with_walk_and_debut_reports_them(small_matches, tmp_path):
    """A table of tournaments fitted with the skill walk and the debut option: the report
    says so and gives their values."""
    clf = BayesianMatchupClassifier(
        draws=60, tune=60, chains=2, random_state=0, time_varying=True, debut=True
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(small_matches.X, small_matches.y)
    assert clf.layout_.options.time_varying and clf.layout_.options.debut
    page = write_report(clf, small_matches.X, small_matches.y, tmp_path, nash_draws=5)
    methods = " ".join(_section(page.read_text(encoding="utf-8"), "methods").split())
    for key in ("walk", "debut", "default", "nuts"):
        assert PHRASES[key] in methods, key
    assert PHRASES["static"] not in methods
    written = pd.read_csv(tmp_path / "extensions.csv").set_index("name")
    assert list(written.index) == ["debut", "debut_deck_factor", "sd_step"]


def test_the_data_and_model_line_is_given_once(result):
    """The long data-and-model line heads the page; figures and tables name their data in short."""
    from skcodex.report._page import _context

    page = render_html(result, figs=dict.fromkeys(FIGURES, _tiny_figure()))
    context = _context(result, "t", {}, {})
    full = f"Data: {context['data_line']}. Model: {context['model_line']}."
    assert page.count(html.escape(full, quote=False)) == 1
    short = html.escape(context["provenance"], quote=False)
    assert page.count(short) >= 3 and len(context["provenance"]) < len(full)
