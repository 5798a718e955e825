"""The report of a game of races alone (k = 0), opened in Chromium: the game's own words.

A game without side components and without a first move: the report must not
speak of turn order or of the seed model, must name no prior of spreads the
model does not have, must call a deck by the catalogue's noun ("race"), and
must give the number of matches beside every held-out score. The page is
read as the browser shows it (``innerText``), so hidden markup does not count.
Skips without Chromium or Playwright like the other browser tests.
"""

from __future__ import annotations

import re
import warnings

import pytest
from test_browser import _Watched, browser  # noqa: F401  (the shared browser fixture)

from skcodex import BayesianMatchupClassifier
from skcodex.codex import PlainCatalogue
from skcodex.datasets import make_game_matches
from skcodex.model_selection import latest_share_split
from skcodex.report import HeldOut, write_report

RACES = ("Protoss", "Terran", "Zerg")
TURN_WORDS = ("moves first", "moving first", "moves second", "turn order", "first or second")


def _fit(X, y, catalogue):
    params = {"catalogue": catalogue, "draws": 100, "tune": 100, "chains": 2, "random_state": 0}
    if "symmetric" in BayesianMatchupClassifier().get_params():
        params["symmetric"] = True  # no side moves first in this game
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return BayesianMatchupClassifier(**params).fit(X, y)


@pytest.fixture(scope="module")
def races_report(tmp_path_factory):
    pytest.importorskip("matplotlib")
    data = make_game_matches(
        n_players=16, n_matches=360, n_tournaments=6, starters=list(RACES), random_state=4
    )
    catalogue = PlainCatalogue(starters=RACES, specs_per_deck=0, starter_word="race")
    X, y = data.X, data.y
    train, test = latest_share_split(X, share=0.15)
    held = _fit(X.iloc[train], y[train], catalogue)
    held_out = HeldOut(
        label="the latest tournament",
        y=y[test],
        p_win=held.predict_proba(X.iloc[test])[:, 1],
        n_train=len(train),
    )
    clf = _fit(X, y, catalogue)
    out = tmp_path_factory.mktemp("races")
    page = write_report(clf, X, y, out, held_out=held_out, nash_draws=20, source="races.csv")
    return page, clf, len(test)


def test_report_of_a_game_of_races_in_its_own_words(browser, races_report):  # noqa: F811
    page, clf, n_test = races_report
    w = _Watched(browser)
    w.page.goto(page.resolve().as_uri(), wait_until="load")
    text = w.page.inner_text("body")
    headings = w.page.eval_on_selector_all("h2", "els => els.map(e => e.innerText)")
    w.close()
    assert w.errors == []
    lowered = text.lower()
    for phrase in TURN_WORDS:
        assert phrase not in lowered, phrase
    if "symmetric" in clf.get_params():
        assert "listed first" not in lowered and "(who" not in lowered
    else:  # an ordered fit of a game without a first move: player 1 is the side listed first
        assert "player 1 (listed first)" in text
    assert "seed model" not in lowered
    for absent in ("sd_stsp", "sd_spsp", "deck split"):
        assert absent not in text, absent
    # the catalogue's noun, never "deck" (sd_deck, a quantity's name, aside)
    assert "Race matchups" in headings and "Race rankings" in headings
    assert "Skill versus races" in headings
    assert re.search(r"\bdecks?\b", text, flags=re.IGNORECASE) is None
    assert "3 races seen" in text
    # every held-out score has its number of matches beside it
    scores = list(re.finditer(r"held-out (\d\.\d{3})", text))
    assert scores
    for found in scores:
        assert text[found.end() :].startswith(f" (on {n_test} matches"), found.group(0)
    assert re.search(r"in-sample Brier score \d\.\d{3} \(on 360 matches\)", text)
