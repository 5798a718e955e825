"""``skcodex simulate``: a tournament forecast from a saved model, on known draws."""

import re

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from skcodex.cli import main

N_SIMS = 20_000


def run(argv, capsys):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def known_model(small_matches, tmp_path_factory):
    """A saved model whose draws hold known skills and no deck effects."""
    from skcodex import BayesianMatchupClassifier, fitting
    from skcodex.cli import save_model

    clf = BayesianMatchupClassifier(draws=20, tune=20, chains=1, random_state=0)
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
