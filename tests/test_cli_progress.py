"""What ``skcodex fit`` says about how long a fit will take, and its progress off a terminal."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from skcodex.cli import _progress as progress
from skcodex.datasets import make_matches

from command_process import skcodex  # isort: skip


def _table(rows):
    return pd.DataFrame(rows, columns=["player1", "player2", "deck1", "deck2"])


def test_the_work_counts_distinct_pairings_steps_and_chains_at_once():
    X = _table([("a", "b", "MonoRed", "MonoBlue")] * 5 + [("b", "a", "MonoRed", "MonoBlue")])
    # two distinct rows; 4 chains on 2 cores run two at a time
    assert progress.fit_work(X, 100, 50, 4, cores=2) == 2 * 150 * 4 / 2
    assert progress.fit_work(X, 100, 50, 1, cores=8) == 2 * 150
    assert progress.fit_work(X.iloc[:0], 100, 50, 1) == 0
    seconds = progress.expected_fit_seconds(X, 100, 50, 4, cores=2)
    # 2 players; the starters Red and Blue and their 6 specs: 4 + 2 x 2 x 6 + 36 deck cells
    assert progress.effect_count(X) == 2 + 4 + 24 + 36
    # each row reads the two skills and (1 + 3)^2 deck cells: Codex decks hold 3 specs
    assert progress.cells_per_row(X) == 18
    per_row = progress.SECONDS_PER_ROW + 18 * progress.SECONDS_PER_CELL
    variable = per_row * 600 + progress.SECONDS_PER_EFFECT * 66 * 300
    assert seconds == pytest.approx(progress.FIXED_SECONDS + variable)
    # twice the draws, twice the variable part
    longer = progress.expected_fit_seconds(X, 200, 100, 4, cores=2)
    assert longer - progress.FIXED_SECONDS == pytest.approx(2 * (seconds - progress.FIXED_SECONDS))


def test_the_estimate_line_names_the_time_its_range_and_its_basis(monkeypatch):
    X = _table([(f"p{i}", f"q{i}", "MonoRed", "MonoBlue") for i in range(1000)])
    monkeypatch.setattr(progress, "FIXED_SECONDS", 10.0)
    monkeypatch.setattr(progress, "SECONDS_PER_ROW", 1e-4)
    monkeypatch.setattr(progress, "SECONDS_PER_CELL", 0.0)
    monkeypatch.setattr(progress, "SECONDS_PER_EFFECT", 0.0)
    monkeypatch.setattr(progress.os, "cpu_count", lambda: 2)
    # 10 + 1e-4 * 1000 rows * 1000 steps * 2 chains / 2 at once = 110 s on idle processors
    line = progress.fit_estimate(X, 500, 500, 2, load=0.0)
    assert line == (
        "  expected to take about 1 min 50 s (55 s to 3 min 40 s, not counting a first "
        "compile), from 1,000 distinct pairings and 2,064 effects x 1,000 steps x 2 chains"
    )
    # six other programs' worth of load: each of the 2 chains gets a quarter of a processor
    assert progress.slowdown(2, load=6.0) == 4.0
    busy = progress.fit_estimate(X, 500, 500, 2, load=6.0)
    assert busy.startswith(
        "  expected to take about 7 min 20 s (3 min 40 s to 14 min 40 s, not counting a first "
        "compile; 1 min 50 s on idle processors, 4 times longer at the current load), "
    )
    assert progress.slowdown(2, load=0.5) == 1.25  # never faster than idle
    assert progress.slowdown(1, load=0.0) == 1.0
    assert [progress.duration(s) for s in (45, 200, 3900)] == ["45 s", "3 min 20 s", "1 h 5 min"]


@pytest.mark.parametrize("kind", ["codex", "two components", "characters"])
def test_the_effects_counted_are_those_a_fit_samples_and_reads(kind):
    from skcodex import BayesianMatchupClassifier
    from skcodex.datasets import make_game_matches

    if kind == "codex":
        data = make_matches(n_players=12, n_matches=100, random_state=0)
    else:
        k = 2 if kind == "two components" else 0
        comps = [f"c{i}" for i in range(7)] if k else ()
        data = make_game_matches(
            n_players=12, n_matches=100, n_tournaments=2, starters=3, components=comps,
            specs_per_deck=k, random_state=0,
        )  # fmt: skip
    catalogue = data.get("catalogue")  # None: base Codex
    clf = BayesianMatchupClassifier(draws=20, tune=20, chains=1, catalogue=catalogue)
    with warnings.catch_warnings():  # 20 draws do not converge; the layout is what is checked
        warnings.simplefilter("ignore")
        clf.fit(data.X, data.y)
    assert progress.effect_count(data.X, catalogue) == clf.layout_.size
    # the effects a row reads: one column of the model's index matrix each
    cells = progress.cells_per_row(data.X, catalogue)
    assert (
        cells == len(clf.layout_.column_blocks) == {"codex": 18, "two components": 11}.get(kind, 3)
    )


def test_many_side_components_lengthen_the_estimate():
    from skcodex.datasets import make_game_matches

    def game(n_components):
        return make_game_matches(
            n_players=30, n_matches=300, n_tournaments=2, starters=4, specs_per_deck=1,
            components=[f"c{i}" for i in range(n_components)], decks_per_player=4, random_state=0,
        )  # fmt: skip

    few, many = game(5), game(100)
    assert progress.effect_count(many.X, many.catalogue) > 10 * progress.effect_count(
        few.X, few.catalogue
    )
    longer = progress.expected_fit_seconds(many.X, 1000, 1000, 4, catalogue=many.catalogue)
    assert longer > 2 * progress.expected_fit_seconds(few.X, 1000, 1000, 4, catalogue=few.catalogue)


def test_fit_says_how_long_it_expects_and_draws_no_progress_bar_off_a_terminal(tmp_path):
    data = make_matches(n_players=10, n_matches=80, random_state=0)
    data.X.assign(y=data.y).to_csv(tmp_path / "m.csv", index=False)
    code, out, err = skcodex(
        "fit", tmp_path / "m.csv", "--out", tmp_path / "o", "--draws", "30", "--tune", "30",
        "--chains", "1", "--no-holdout",
    )  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Fitting on every match"))
    # the line of `fit_estimate`, whatever the machine's load
    assert re.fullmatch(
        r"  expected to take (under a second|about .+ not counting a first compile.*), "
        r"from 75 distinct pairings and [\d,]+ effects x 60 steps x 1 chain",
        lines[at + 1],
    )
    assert lines[at + 2].startswith("  done in ")
    # the progress bar is drawn on a terminal only: none of it reaches a pipe
    assert "\r" not in err and "Remaining" not in err and "Draws" not in err


def test_a_table_that_cannot_be_read_counts_players_and_skills_alone():
    X = _table([("a", "b", "NoSuchDeck", "MonoBlue"), ("c", "a", "MonoRed", "MonoBlue")])
    assert progress.effect_count(X) == 3
    assert progress.cells_per_row(X) == 2
    assert progress.expected_fit_seconds(X, 10, 10, 1) > progress.FIXED_SECONDS


def test_forward_evidence_is_estimated_as_its_short_fits_of_each_folds_matches(monkeypatch):
    from skcodex import BayesianMatchupClassifier

    data = make_matches(n_players=12, n_matches=200, n_tournaments=5, random_state=11)
    X, y = data.X, np.asarray(data.y)
    clf = BayesianMatchupClassifier(time_varying=False, part_selection="forward")
    rows, candidates, sampling = clf._forward_fits(X, y)
    assert sampling == {"chains": 2, "draws": 250, "tune": 250}
    assert len(rows) == 3 and candidates == 2  # static and debut, on each of 3 folds
    monkeypatch.setattr(progress.os, "cpu_count", lambda: 2)
    one_each = sum(progress.expected_fit_seconds(X.iloc[r], 250, 250, 2) for r in rows)
    line = progress.evidence_estimate(clf, X, y, load=0.0)
    expected = progress.duration(2 * one_each) if 2 * one_each >= 1 else "under a second"
    assert line.startswith(
        "  first the forward evidence, 6 short fits (2 candidates on the matches before each "
        f"of the last 3 periods, 2 chains of 250 draws): {'about ' if 2 * one_each >= 1 else ''}"
        + expected
    )
    # nothing is decided by evidence: without forward selection, or with draws in y
    assert progress.evidence_estimate(clf.set_params(part_selection="none"), X, y) is None
    drawn = np.where(np.arange(len(y)) == 0, 0.5, y)
    assert progress.evidence_estimate(clf.set_params(part_selection="forward"), X, drawn) is None
