"""What to bring as a section of the fit report: shown when asked for, absent otherwise."""

from __future__ import annotations

import re
import warnings

import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

pytest.importorskip("matplotlib")

from skcodex import BayesianMatchupClassifier
from skcodex.analysis import deck_advice
from skcodex.datasets import make_game_matches
from skcodex.report import CSV_FILES, SECTIONS, analyse, render_html, write_report

from command_process import in_process as _run  # isort: skip


@pytest.fixture(scope="module")
def fitted():
    data = make_game_matches(
        n_players=10, n_matches=300, n_tournaments=2, starters=3, random_state=0
    )
    clf = BayesianMatchupClassifier(
        draws=100, tune=100, chains=2, random_state=0, catalogue=data.catalogue
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # short chains, on purpose
        clf.fit(data.X, data.y)
    field = pd.DataFrame(
        {"player": ["player02", "player05", "player04"], "deck": ["char1", "char2", "char0"]}
    )
    advice = deck_advice(clf, "player01", ["char0", "char1", "char2"], field, n_draws=50)
    return clf, data.X, data.y, advice


def _section(page: str, section_id: str) -> str:
    match = re.search(rf'<section id="{section_id}".*?</section>', page, re.S)
    return "" if match is None else match.group(0)


def _without_stamp(page: str) -> str:
    """The page without its time stamp and with its images' bytes left out (PNG encodings vary)."""
    page = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "PNG", page)
    return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "STAMP", page)


def test_the_advice_section_shows_the_advice_table(fitted, tmp_path):
    clf, X, y, advice = fitted
    page = write_report(clf, X, y, tmp_path, nash_draws=5, advice=advice).read_text("utf-8")
    section = _section(page, "advice")
    assert "<h2>What to bring</h2>" in section
    assert '<a href="#advice">What to bring</a>' in page
    best = advice.iloc[0]
    assert f"bring <strong>{best['deck']}</strong>" in section and "player01" in section
    assert f"{best['p_best_win_rate']:.0%} of the posterior draws" in section
    assert 'id="table-advice"' in section
    for deck, rate in zip(advice["deck"], advice["win_rate"], strict=True):  # every row, in order
        assert re.search(rf"<td>{deck}</td>\s*<td>{rate:.3f}</td>", section), deck
    # the other sections and files are those of every report
    assert not (set(CSV_FILES) ^ {p.name for p in tmp_path.glob("*.csv")})


def test_a_report_without_advice_is_unchanged(fitted):
    clf, X, y, advice = fitted
    plain = analyse(clf, X, y, nash_draws=5)
    with_advice = analyse(clf, X, y, nash_draws=5, advice=advice)
    from skcodex.report import figures

    figs = figures(plain)  # the same figures on both pages
    page = _without_stamp(render_html(plain, figs=figs))
    assert 'id="advice"' not in page and "What to bring" not in page
    assert [m for m in re.findall(r'<section id="([^"]+)"', page)] == list(SECTIONS)
    both = _without_stamp(render_html(with_advice, figs=figs))
    # the page with the advice is the page without it, plus its link and its section
    stripped = both.replace('<a href="#advice">What to bring</a>', "").replace(
        _section(both, "advice"), ""
    )
    assert stripped.split() == page.split()


def test_a_table_that_is_not_the_advice_is_refused(fitted):
    clf, X, y, advice = fitted
    with pytest.raises(ValueError, match="deck_advice returns"):
        analyse(clf, X, y, nash_draws=5, advice=advice.drop(columns="win_rate"))
    lost = pd.DataFrame(advice)  # a copy keeps attrs; a frame built anew loses them
    lost.attrs = {}
    with pytest.raises(ValueError, match="lost its attrs"):
        analyse(clf, X, y, nash_draws=5, advice=lost)


# -- on the command line: skcodex fit --advise PLAYER ----------------------------------------


@pytest.fixture(scope="module")
def match_csv(tmp_path_factory):
    data = make_game_matches(
        n_players=10, n_matches=300, n_tournaments=2, starters=3, random_state=0
    )
    path = tmp_path_factory.mktemp("advise") / "matches.csv"
    data.X.assign(y=data.y).to_csv(path, index=False)
    return path, data.X


FAST = ["--draws", "100", "--tune", "100", "--chains", "2", "--no-progress", "--nash-draws", "5"]


def test_fit_advise_adds_the_section_for_the_players_own_decks(match_csv, tmp_path, capsys):
    from skcodex.cli import load_model

    path, X = match_csv
    out = tmp_path / "fit"
    argv = ["fit", path, "--out", out, "--no-holdout", "--advise", "player05", *FAST]
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    page = (out / "report.html").read_text("utf-8")
    section = _section(page, "advice")
    assert "<h2>What to bring</h2>" in section and "For player05, bring" in section
    # the candidates: the decks player05 played; the field: the last tournament's decks
    own = set(X.loc[X["player1"] == "player05", "deck1"]) | set(
        X.loc[X["player2"] == "player05", "deck2"]
    )
    shown = set(re.findall(r"<tr>\s*<td>([^<]+)</td>", section))
    assert shown == own
    last = X[X["period"] == X["period"].iloc[-1]]
    played = pd.concat([last["deck1"], last["deck2"]]).value_counts(normalize=True)
    clf = load_model(out)
    field = pd.DataFrame({"deck": played.index, "share": played.to_numpy()})
    want = deck_advice(clf, "player05", sorted(own), field, random_state=0)
    for deck, rate in zip(want["deck"], want["win_rate"], strict=True):
        assert re.search(rf"<td>{deck}</td>\s*<td>{rate:.3f}</td>", section), deck
    assert not (set(CSV_FILES) ^ {p.name for p in out.glob("*.csv")})  # no other file


@pytest.mark.parametrize(
    ("name", "pattern"),
    [
        (
            "playr05",
            r"--advise 'playr05': no such player in the matches \(did you mean 'player05'\?\)",
        ),
    ],
)
def test_fit_advise_refuses_before_the_fit(match_csv, tmp_path, capsys, monkeypatch, name, pattern):
    from skcodex import BayesianMatchupClassifier

    def no_fit(*args, **kwargs):
        raise AssertionError("fitted before the check")

    monkeypatch.setattr(BayesianMatchupClassifier, "fit", no_fit)
    path, _ = match_csv
    code, _, err = _run(["fit", path, "--out", tmp_path / "o", "--advise", name, *FAST], capsys)
    assert code == 2 and re.search(pattern, err), err
    assert not (tmp_path / "o").exists()


def test_fit_advise_needs_two_decks_of_the_players(tmp_path, capsys):
    table = pd.DataFrame(
        {
            "player1": ["ann", "bob", "cy", "ann"],
            "player2": ["bob", "cy", "ann", "cy"],
            "deck1": ["a", "b", "c", "a"],
            "deck2": ["b", "a", "a", "b"],
            "y": [1, 0, 1, 0],
        }
    )
    path = tmp_path / "m.csv"
    table.to_csv(path, index=False)
    code, _, err = _run(["fit", path, "--out", tmp_path / "o", "--advise", "ann", *FAST], capsys)
    assert code == 2 and "they played one deck only" in err, err
