"""``skcodex simulate``: a tournament forecast from a saved model, on known draws."""

import re

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from command_process import in_process as run  # isort: skip

N_SIMS = 20_000


@pytest.fixture(scope="module")
def known_model(small_matches, tmp_path_factory):
    """A saved model whose draws hold known skills and no deck effects."""
    from skcodex import BayesianMatchupClassifier
    from skcodex._matchup import fitting
    from skcodex.cli import save_model

    clf = BayesianMatchupClassifier(
        draws=20, tune=20, chains=1, random_state=0, time_varying=False, debut=False
    )
    clf.fit(small_matches.X, small_matches.y)
    layout = clf.layout_
    skills = np.random.default_rng(3).normal(
        np.linspace(1, -1, layout.n_players), 0.7, (200, layout.n_players)
    )
    theta = np.zeros((200, layout.size))
    theta[:, : layout.n_players] = skills
    clf.idata_ = fitting.from_effect_draws(theta, np.ones((200, len(layout.spreads))), layout)
    out = tmp_path_factory.mktemp("model")
    save_model(clf, out)
    skills = skills.astype(np.float32).astype(float)
    return out, dict(zip(clf.vocabulary_.players, skills.T))


def _entrants(tmp_path, players):
    path = tmp_path / "entrants.csv"
    pd.DataFrame({"player": players, "deck": ["MonoRed"] * len(players)}).to_csv(path, index=False)
    return path


def test_simulate_prints_the_known_chances_and_writes_files(known_model, tmp_path, capsys):
    model, skill = known_model
    a, b = "player02", "player20"
    table, plot = tmp_path / "forecast.csv", tmp_path / "forecast.png"
    argv = ["simulate", model, "--entrants", _entrants(tmp_path, [a, b]), "--format", "knockout"]
    argv += ["--simulations", N_SIMS, "--table", table, "--plot", plot]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    # One posterior draw per tournament: P(a wins) is the mean over draws of expit(sa - sb).
    exact = expit(skill[a] - skill[b]).mean()
    found = float(re.search(rf"^  {a}\s+([0-9.]+)", out, re.M).group(1))
    assert abs(found - exact) <= 4 * np.sqrt(exact * (1 - exact) / N_SIMS) + 5e-4
    assert "Most likely final: player02 v player20" in out
    written = pd.read_csv(table, index_col="player")
    assert written["p_win"].sum() == pytest.approx(1.0)
    assert plot.stat().st_size > 0


def test_simulate_after_results(known_model, tmp_path, capsys):
    model, _ = known_model
    players = ["player01", "player02", "player03", "player04"]
    results = tmp_path / "results.csv"
    pd.DataFrame(
        {"round": [1], "player1": ["player04"], "player2": ["player01"], "winner": ["player04"]}
    ).to_csv(results, index=False)
    argv = ["simulate", model, "--entrants", _entrants(tmp_path, players), "--format", "knockout"]
    code, out, err = run([*argv, "--results", results, "--simulations", 2000], capsys)
    assert code == 0, err
    assert "after 1 recorded matches" in out
    assert re.search(r"^  player01\s+0\.000", out, re.M)


@pytest.mark.parametrize(
    ("extra", "pattern"),
    [
        (["--format", "triple"], "unknown tournament format 'triple'"),
        (["--format", "knockout:8"], "best 8 needs at least 8 entrants, got 2"),
    ],
)
def test_simulate_errors_are_one_line(known_model, tmp_path, capsys, extra, pattern):
    model, _ = known_model
    argv = ["simulate", model, "--entrants", _entrants(tmp_path, ["player01", "player02"])]
    code, _, err = run([*argv, *extra], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert re.search(pattern, err), err


def test_simulate_out_writes_the_report_of_the_printed_forecast(known_model, tmp_path, capsys):
    from skcodex.tournament._report import TOURNAMENT_CSV_FILES

    model, _ = known_model
    players = ["player01", "player05", "player09", "player13", "player17", "player21"]
    results = tmp_path / "results.csv"
    pd.DataFrame(
        {"round": [1], "player1": ["player21"], "player2": ["player01"], "winner": ["player21"]}
    ).to_csv(results, index=False)
    table, out = tmp_path / "forecast.csv", tmp_path / "cup"
    argv = ["simulate", model, "--entrants", _entrants(tmp_path, players), "--format"]
    argv += ["swiss:2+knockout:4", "--results", results, "--simulations", 3000]
    argv += ["--table", table, "--out", out, "--title", "Spring cup"]
    code, printed, err = run(argv, capsys)
    assert code == 0, err
    assert f"Wrote {out / 'report.html'}" in printed
    assert sorted(p.name for p in out.iterdir()) == sorted(["report.html", *TOURNAMENT_CSV_FILES])
    written = pd.read_csv(out / "tournament_forecast.csv", index_col="player")
    same = pd.read_csv(table, index_col="player")
    pd.testing.assert_series_equal(written["p_win"], same["p_win"])
    for player, row in written.iterrows():  # the printed table is the written one
        assert re.search(rf"^  {player}\s+{row['p_win']:.3f}\s+{row['p_top2']:.3f}", printed, re.M)
    page = (out / "report.html").read_text()
    assert "<title>Spring cup</title>" in page
    assert f"Model: {model}; entrants: " in page and f"results: {results}" in page
    assert "the 1 recorded result of round 1" in " ".join(page.split())
    assert pd.read_csv(out / "tournament_results.csv")["winner"].tolist() == ["player21"]
    # run again into the same folder: an earlier run's outputs are replaced
    code, _, err = run([*argv[:-2], "--seed", 1], capsys)
    assert code == 0, err


def test_simulate_out_is_checked_before_simulating(known_model, tmp_path, capsys):
    model, _ = known_model
    entrants = _entrants(tmp_path, ["player01", "player02"])
    argv = ["simulate", model, "--entrants", entrants, "--format", "knockout"]
    foreign = tmp_path / "notes"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    code, printed, err = run([*argv, "--out", foreign], capsys)
    assert code == 2 and "holds files skcodex did not write (notes.txt)" in err
    assert printed == "" and (foreign / "notes.txt").read_text() == "mine"
    code, _, err = run([*argv, "--out", model], capsys)
    assert code == 2 and "would replace the input" in err
    code, _, err = run([*argv, "--out", tmp_path], capsys)  # holds the entrants file
    assert code == 2 and "would replace the input" in err
    code, _, err = run(
        [*argv, "--out", tmp_path / "cup", "--table", tmp_path / "cup" / "t.csv"], capsys
    )
    assert code == 2 and "--table" in err and "is inside --out" in err


def test_a_misspelt_entrant_gets_a_did_you_mean(known_model, tmp_path, capsys):
    model, _ = known_model
    entrants = _entrants(tmp_path, ["playerr01", "player02", "Zed Newcomer"])
    argv = ["simulate", model, "--entrants", entrants, "--format", "round-robin"]
    code, out, err = run([*argv, "--simulations", 200], capsys)
    assert code == 0, err
    notes = [line for line in out.splitlines() if line.startswith("note:")]
    assert notes == [
        "note: 'playerr01' was not in the fitted matches (did you mean 'player01'?); their "
        "skill is drawn around the 12 players who joined after the matches' first period in "
        "every simulated tournament.",
        "note: 'Zed Newcomer' was not in the fitted matches; their skill is drawn around the "
        "12 players who joined after the matches' first period in every simulated tournament.",
    ]


def test_an_entrant_without_a_name_is_refused_not_named_nan(known_model, tmp_path, capsys):
    model, _ = known_model
    entrants = tmp_path / "entrants.csv"
    entrants.write_text("player,deck\nplayer01,MonoRed\n,MonoRed\nplayer03,MonoRed\n")
    argv = ["simulate", model, "--entrants", entrants, "--format", "round-robin"]
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert err.strip() == "skcodex: error: entrant number 2 has no name"


@pytest.mark.parametrize(
    ("option", "name", "message"),
    [
        ("--table", "missing/forecast.csv", "the folder .*missing does not exist"),
        ("--plot", "missing/forecast.png", "the folder .*missing does not exist"),
        ("--plot", "forecast.txt", "give a file name ending in one of .png"),
    ],
)
def test_an_output_that_cannot_be_written_is_refused_before_simulating(
    known_model, tmp_path, capsys, option, name, message
):
    model, _ = known_model
    entrants = _entrants(tmp_path, ["player02", "player20"])
    argv = ["simulate", model, "--entrants", entrants, "--format", "knockout"]
    code, out, err = run([*argv, option, tmp_path / name], capsys)
    assert code == 2 and out == ""  # nothing simulated, nothing printed
    assert re.search(f"{option} .*: {message}", err), err
    assert not (tmp_path / "missing").exists()


def test_progress_says_the_share_done_and_the_time_left():
    import io

    from skcodex.cli._progress import duration as _duration
    from skcodex.cli._simulate import Progress

    out = io.StringIO()
    progress = Progress("Solving", stream=out)
    for done in range(0, 101, 5):
        progress(done, 100)
    lines = out.getvalue().splitlines()
    # not a terminal: one line a tenth of the work, the last at 100%
    assert [line.split(" (")[0] for line in lines] == [
        f"Solving: {k} of 100" for k in range(10, 101, 10)
    ]
    assert lines[-1].endswith("so far, about 0 s left")
    assert [_duration(s) for s in (45, 200, 3900)] == ["45 s", "3 min 20 s", "1 h 5 min"]


def test_nash_simulation_reports_its_progress(monkeypatch):
    from skcodex.tournament import _probabilities as probabilities

    calls = []
    monkeypatch.setattr(probabilities, "NASH_PROGRESS", [lambda d, t: calls.append((d, t))])
    slots = np.full((7, 6, 6), 0.5)  # 7 draws; entrants of 2, 2 and 1 decks... and 1
    out = probabilities._nash(slots, offsets=[0, 2, 4, 5], n_decks=[2, 2, 1, 1])
    assert out.shape == (7, 4, 4)
    assert calls == [(7, 7)]  # one pair where both choose, 7 draws


def test_simulate_plays_best_of_three_sets_on_each_draw(known_model, tmp_path, capsys):
    model, skill = known_model
    a, b = "player02", "player20"
    argv = ["simulate", model, "--entrants", _entrants(tmp_path, [a, b])]
    code, out, err = run([*argv, "--format", "knockout:bo3", "--simulations", N_SIMS], capsys)
    assert code == 0, err
    assert out.startswith("single elimination (all), best of 3, 2 entrants")
    # Each draw plays the whole set: P(a wins) is the mean over draws of q^2 (3 - 2q).
    q = expit(skill[a] - skill[b])
    exact = (q**2 * (3 - 2 * q)).mean()
    found = float(re.search(rf"^  {a}\s+([0-9.]+)", out, re.M).group(1))
    assert abs(found - exact) <= 4 * np.sqrt(exact * (1 - exact) / N_SIMS) + 5e-4
    plug_in = q.mean() ** 2 * (3 - 2 * q.mean())
    assert abs(exact - plug_in) > 0.01  # the test tells the two apart
