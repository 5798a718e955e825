"""The tournament forecast's report: its numbers are the forecast's, its words the game's.

The page's tables and the CSV files are read back and compared with the
`TournamentForecast` they were written from; the Monte Carlo standard errors
are checked against their spread over repeated simulations; a symmetric game
of races gets no turn wording; Chromium renders the page.
"""

from __future__ import annotations

import dataclasses
import warnings
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from test_browser import _Watched, browser  # noqa: F401  (the shared browser fixture)

pytest.importorskip("matplotlib")

from skcodex.tournament import simulate_tournament
from skcodex.tournament._report import (
    TOURNAMENT_CSV_FILES,
    render_tournament_html,
    tournament_tables,
    write_tournament_report,
)

NAMES = ["ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal"]
TURN_WORDS = ("moves first", "moving first", "moved first", "moves second", "turn order")


class _Tables(HTMLParser):
    """Each table's rows of cell text, by table id; and the page's visible text."""

    def __init__(self):
        super().__init__()
        self.tables, self.text = {}, []
        self._table = self._row = self._cell = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self._table = self.tables.setdefault(attrs.get("id"), [])
        elif tag == "tr" and self._table is not None:
            self._row = []
            self._table.append(self._row)
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        self.text.append(data)


def _read(page: str) -> _Tables:
    parser = _Tables()
    parser.feed(page)
    return parser


def _matrix(n, seed=0):
    skill = np.random.default_rng(seed).normal(0, 1, n)
    p = 1 / (1 + np.exp(-(skill[:, None] - skill[None, :] + 0.2)))
    np.fill_diagonal(p, 0.5)
    return p


def _entrants(names=NAMES):
    return pd.DataFrame({"player": names, "deck": [f"deck {k}" for k in range(len(names))]})


@pytest.fixture(scope="module")
def forecast():
    results = pd.DataFrame(
        {
            "round": [1, 1, 1, 1],
            "player1": ["ann", "bob", "cy", "dee"],
            "player2": ["hal", "gus", "fay", "eve"],
            "winner": ["hal", "bob", "cy", None],
        }
    )
    return simulate_tournament(
        "swiss:3+knockout:4",
        _entrants(),
        probabilities=_matrix(8),
        results=results,
        n_simulations=4000,
        random_state=1,
    )


def _pm(p, se):
    return f"{p:.3f}\u00a0±\u00a0{se:.3f}"


def test_page_tables_hold_the_forecasts_numbers(forecast):
    page = _read(render_tournament_html(forecast, source="a test"))
    table = forecast.table()
    rows = page.tables["table-tournament"]
    header, body = rows[0], rows[1:]
    assert [r[1] for r in body] == list(table.index)
    assert header[:3] == ["rank", "player", "P(win) ± s.e."]
    headings = {
        "P(top 2)": "p_top2",
        "P(top 4)": "p_top4",
        "P(in the top-4 knockout)": "p_top4_cut",
        "P(reach the final)": "p_final",
        "expected wins": "expected_wins",
        "expected byes": "expected_byes",
        "expected place": "expected_place",
    }
    no_byes = set() if table["expected_byes"].any() else {"expected byes"}  # shown when any
    assert set(header[3:]) == set(headings) - no_byes
    for row, (_, expected) in zip(body, table.iterrows()):
        assert row[2] == _pm(expected["p_win"], expected["p_win_se"])
        for heading, cell in zip(header[3:], row[3:]):
            column = headings[heading]
            digits = 3 if column.startswith("p_") else 2
            assert cell == f"{expected[column]:.{digits}f}", (heading, cell)
    finals = forecast.likely_final()
    body = page.tables["table-finals"][1:]
    assert len(body) == len(finals) > 0
    for row, (_, f) in zip(body, finals.iterrows()):
        se = np.sqrt(f["p_a_wins"] * (1 - f["p_a_wins"]) / f["n_played"])
        assert row == [
            f"{f['player_a']} v {f['player_b']}",
            f"{f['p_final']:.3f}",
            _pm(f["p_a_wins"], se),
            str(f["n_played"]),
        ]
    assert page.tables["table-entrants"][1:] == [
        [str(k + 1), name, f"deck {k}"] for k, name in enumerate(NAMES)
    ]
    assert page.tables["table-results"][1:] == [
        ["1", "ann", "hal", "hal"],
        ["1", "bob", "gus", "bob"],
        ["1", "cy", "fay", "cy"],
        ["1", "dee", "eve", "not yet played"],
    ]


def test_page_states_format_simulations_errors_and_conditioning(forecast):
    text = " ".join("".join(_read(render_tournament_html(forecast)).text).split())
    assert "3 rounds of Swiss + single elimination (top 4), 8 entrants" in text
    assert "4,000 simulated tournaments" in text
    assert "Conditioned on results: the 3 recorded results of round 1 and 1 pairing" in text
    errors = forecast.standard_errors()
    p_columns = [c for c in errors.columns if c.startswith("p_")]
    assert f"at most {errors[p_columns].to_numpy().max():.3f} in this table" in text
    assert f"at most {errors['expected_wins'].max():.2f} for expected wins" in text
    top = forecast.table().iloc[0]
    assert f"P(win) = {_pm(top['p_win'], top['p_win_se'])}".replace("\u00a0", " ") in text
    final = forecast.likely_final().iloc[0]
    assert f"The most likely final is {final['player_a']} v {final['player_b']}" in text
    assert "Who moves first in each match is decided by a coin flip" in text


def test_csv_files_equal_the_forecast_and_its_errors(forecast, tmp_path):
    page = write_tournament_report(forecast, tmp_path / "made" / "here")
    folder = page.parent
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["report.html", *TOURNAMENT_CSV_FILES]
    )
    written = pd.read_csv(folder / "tournament_forecast.csv", index_col="player")
    table, errors = forecast.table(), forecast.standard_errors()
    assert list(written.index) == list(table.index)
    for column in table.columns:
        np.testing.assert_allclose(written[column], table[column], rtol=1e-12)
    for column in errors.columns:
        np.testing.assert_allclose(written[f"{column}_se"], errors[column], rtol=1e-12)
    finals = pd.read_csv(folder / "tournament_finals.csv")
    expected = forecast.likely_final()
    assert list(finals["player_a"]) == list(expected["player_a"])
    np.testing.assert_allclose(finals["p_a_wins"], expected["p_a_wins"], rtol=1e-12)
    np.testing.assert_allclose(finals["p_b_wins"], 1 - expected["p_a_wins"], rtol=1e-12)
    results = pd.read_csv(folder / "tournament_results.csv", keep_default_na=False)
    assert results["winner"].tolist() == ["hal", "bob", "cy", ""]
    entrants = pd.read_csv(folder / "tournament_entrants.csv")
    assert entrants["player"].tolist() == NAMES


def test_standard_errors_are_the_independent_formulas(forecast):
    n = forecast.n_simulations
    errors = forecast.standard_errors()
    order = [forecast.entrants.index(name) for name in errors.index]
    p_top4 = (forecast.place <= 4).mean(axis=0)[order]
    np.testing.assert_allclose(errors["p_top4"], np.sqrt(p_top4 * (1 - p_top4) / n))
    wins = forecast.wins[:, order]
    manual = np.array([np.std(wins[:, k], ddof=1) for k in range(wins.shape[1])]) / np.sqrt(n)
    np.testing.assert_allclose(errors["expected_wins"], manual)
    assert "p_win_se" not in errors.columns
    np.testing.assert_allclose(errors["p_win"], forecast.table()["p_win_se"])


def _block(fc, start, stop):
    """The simulated tournaments ``start:stop`` of a forecast, as a forecast of their own."""
    return dataclasses.replace(
        fc,
        place=fc.place[start:stop],
        wins=fc.wins[start:stop],
        byes=fc.byes[start:stop],
        reached=[(r[start:stop], size) for r, size in fc.reached],
        final=None if fc.final is None else tuple(x[start:stop] for x in fc.final),
    )


def test_standard_errors_match_the_spread_of_repeated_simulations():
    """Known truth: the spread of a figure over independent runs is its standard error.

    With one matrix of probabilities the simulated tournaments are independent,
    so 200 blocks of 400 from one call are 200 independent runs of 400.
    """
    n_runs, size = 200, 400
    fc = simulate_tournament(
        "knockout",
        NAMES[:4],
        probabilities=_matrix(4, seed=5),
        n_simulations=n_runs * size,
        random_state=0,
    )
    runs = [_block(fc, k * size, (k + 1) * size) for k in range(n_runs)]
    tables = [r.table().sort_index() for r in runs]
    errors = [r.standard_errors().sort_index() for r in runs]
    for column in ("p_win", "p_top2", "expected_wins"):
        values = np.array([t[column] for t in tables])
        stated = np.array([e[column] for e in errors]).mean(axis=0)
        observed = values.std(axis=0, ddof=1)
        # 200 runs pin a standard deviation down to about 5% (1 / sqrt(2 * 199)).
        np.testing.assert_allclose(observed, stated, rtol=0.2)


def test_a_format_without_final_and_no_results(tmp_path):
    fc = simulate_tournament(
        "round-robin", NAMES[:5], probabilities=_matrix(5), n_simulations=500, random_state=0
    )
    page = _read(render_tournament_html(fc))
    text = " ".join("".join(page.text).split())
    assert "This format has no final" in text
    assert "No results were given: this is the forecast before the tournament starts" in text
    assert "table-finals" not in page.tables and "table-results" not in page.tables
    assert page.tables["table-entrants"][0] == ["seed", "player"]  # given without decks
    write_tournament_report(fc, tmp_path)
    finals = pd.read_csv(tmp_path / "tournament_finals.csv")
    results = pd.read_csv(tmp_path / "tournament_results.csv")
    assert len(finals) == 0 and len(results) == 0
    assert list(results.columns) == ["round", "player1", "player2", "winner"]


def test_swiss_elimination_has_its_last_two_as_final():
    fc = simulate_tournament(
        "losses:3", NAMES, probabilities=_matrix(8), n_simulations=1000, random_state=0
    )
    page = _read(render_tournament_html(fc))
    text = " ".join("".join(page.text).split())
    final = fc.likely_final().iloc[0]
    assert f"The most likely final is {final['player_a']} v {final['player_b']}" in text
    assert "In Swiss elimination the final is the last two standing" in text
    assert len(page.tables["table-finals"]) == len(fc.likely_final()) + 1


def test_names_are_escaped_on_the_page_and_safe_in_spreadsheets(tmp_path):
    names = ["=HYPERLINK(1)", "<b>bold</b>", "-minus", "@at"]
    entrants = _entrants(names)
    before = entrants.copy()
    fc = simulate_tournament(
        "knockout", entrants, probabilities=_matrix(4), n_simulations=200, random_state=0
    )
    write_tournament_report(fc, tmp_path, title="<i>cup</i>")
    pd.testing.assert_frame_equal(entrants, before)  # nothing passed in is changed
    html = (tmp_path / "report.html").read_text()
    assert "<b>bold</b>" not in html and "<i>cup</i>" not in html
    page = _read(html)
    assert {r[1] for r in page.tables["table-entrants"][1:]} == set(names)
    for name in TOURNAMENT_CSV_FILES[:3]:
        frame = pd.read_csv(tmp_path / name, dtype=str, keep_default_na=False)
        cells = [c for col in frame.columns for c in frame[col]]
        assert not any(c.startswith(("=", "+", "-", "@")) for c in cells), name
    written = pd.read_csv(tmp_path / "tournament_entrants.csv")
    assert written["player"].tolist() == ["'=HYPERLINK(1)", "<b>bold</b>", "'-minus", "'@at"]


def test_bad_inputs_are_named(forecast, tmp_path):
    with pytest.raises(TypeError, match=r"needs the TournamentForecast.*got DataFrame"):
        write_tournament_report(forecast.table(), tmp_path)
    with pytest.raises(TypeError, match="got dict"):
        tournament_tables({})
    afile = tmp_path / "file.txt"
    afile.write_text("x")
    with pytest.raises(NotADirectoryError, match="is a file, not a folder"):
        write_tournament_report(forecast, afile)
    for top in (0, 1.5, True):
        with pytest.raises(ValueError, match="top must be a whole number"):
            render_tournament_html(forecast, top=top)


# -- a fitted model of a symmetric game of races, and the page in a browser -------------


@pytest.fixture(scope="module")
def races_forecast():
    from skcodex import BayesianMatchupClassifier
    from skcodex.codex import PlainCatalogue
    from skcodex.datasets import make_game_matches

    races = ("Protoss", "Terran", "Zerg")
    data = make_game_matches(
        n_players=10, n_matches=200, n_tournaments=3, starters=list(races), random_state=2
    )
    catalogue = PlainCatalogue(starters=races, specs_per_deck=0, starter_word="race")
    clf = BayesianMatchupClassifier(
        catalogue=catalogue, symmetric=True, draws=50, tune=50, chains=1, random_state=0
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(data.X, data.y)
    players = list(clf.vocabulary_.players[:6])
    entrants = pd.DataFrame({"player": players, "deck": ["Zerg;Terran", *["Protoss"] * 5]})
    fc = simulate_tournament(
        "swiss:2+knockout:4",
        entrants,
        clf,
        deck_rule="uniform",
        n_simulations=1000,
        random_state=0,
    )
    return fc, clf


def test_a_symmetric_game_gets_its_own_words(races_forecast):
    fc, clf = races_forecast
    page = _read(render_tournament_html(fc, estimator=clf))
    text = " ".join("".join(page.text).split())
    lowered = text.lower()
    for phrase in (*TURN_WORDS, "coin flip", "player 1"):
        assert phrase not in lowered, phrase
    assert "An entrant with several races picks one per match uniformly at random" in text
    assert page.tables["table-entrants"][0] == ["seed", "player", "races"]
    assert page.tables["table-entrants"][1][2] == "Zerg; Terran"
    assert "takes one of 50 posterior draws" in text


def test_chromium_renders_the_report(browser, races_forecast, tmp_path):  # noqa: F811
    fc, clf = races_forecast
    page = write_tournament_report(fc, tmp_path, estimator=clf, source="races.csv")
    w = _Watched(browser)
    w.page.goto(page.resolve().as_uri(), wait_until="load")
    images = w.images()
    rows = w.page.eval_on_selector_all("#table-tournament tbody tr", "els => els.length")
    visible = w.page.is_visible("#fig-tournament img")
    links = w.page.eval_on_selector_all("nav a", "els => els.map(e => e.getAttribute('href'))")
    targets = [w.page.eval_on_selector_all(h, "els => els.length") for h in links]
    w.page.click("nav a[href='#tournament-entrants']")
    w.page.wait_for_function("() => window.scrollY > 0")
    seen = w.page.evaluate(
        "() => { const r = document.querySelector('#tournament-entrants')"
        ".getBoundingClientRect(); return r.top >= 0 && r.top < window.innerHeight; }"
    )
    w.close()
    assert w.errors == []
    assert len(images) == 1 and images[0]["complete"] and images[0]["width"] > 300
    assert visible and rows == len(fc.entrants)
    assert links == ["#tournament", "#tournament-final", "#tournament-entrants"]
    assert targets == [1, 1, 1]
    assert seen
