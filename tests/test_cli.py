"""The ``skcodex`` command: fit, predict and demo, and one-line errors."""

import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from skcodex.cli import MODEL_FILE, load_model, main
from skcodex.cli._parser import build_parser
from skcodex.cli._tables import read_matches
from skcodex.report import CSV_FILES

from command_process import in_process as run  # isort: skip

FIXTURES = Path(__file__).parent / "fixtures"
FAST = ["--draws", "100", "--chains", "2", "--no-progress", "--nash-draws", "10"]


def assert_one_line_error(code, err, pattern):
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("skcodex") and "error:" in lines[0]
    assert "Traceback" not in err
    assert re.search(pattern, lines[0]), lines[0]


@pytest.fixture(scope="module")
def match_csv(small_matches, tmp_path_factory):
    """The small synthetic series as a match-table CSV with a winner column."""
    X, y = small_matches.X, small_matches.y
    table = X.assign(winner=np.where(y == 1, X["player1"], X["player2"]))
    path = tmp_path_factory.mktemp("data") / "matches.csv"
    table.to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def fitted_dir(match_csv, tmp_path_factory):
    out = tmp_path_factory.mktemp("fit")
    # the static model: `known_model` below sets its skills by hand
    static = ["--no-time-varying", "--no-debut"]
    code = main(["fit", str(match_csv), "--out", str(out), "--no-holdout", *static, *FAST])
    assert code == 0
    return out


# -- fit and predict --------------------------------------------------------------------


def test_fit_writes_model_report_and_tables(fitted_dir):
    assert (fitted_dir / MODEL_FILE).exists()
    assert (fitted_dir / "report.html").exists()
    for name in CSV_FILES:
        assert (fitted_dir / name).exists(), name
    clf = load_model(fitted_dir)
    assert clf.effect_draws_.shape[0] == 200
    brier = pd.read_csv(fitted_dir / "brier.csv")
    assert list(brier["sample"]) == ["in-sample"]  # --no-holdout: no held-out forecasts


def test_fit_prints_what_it_found_as_the_demo_does(match_csv, tmp_path, capsys):
    """Top players with intervals, the spreads, in-sample and held-out Brier; short checks."""
    out = tmp_path / "o"
    argv = ["fit", match_csv, "--out", out, "--top", 3, "--no-time-varying", "--no-debut"]
    code, text, err = run([*argv, *FAST], capsys)
    assert code == 0, err
    lines = text.splitlines()
    start = lines.index("Top 3 players (posterior mean skill, 90% interval):")
    clf = load_model(out)
    from skcodex.analysis import skill_table

    skills = skill_table(clf, read_matches(str(match_csv))[0])
    for line, (player, row) in zip(
        lines[start + 1 : start + 4], skills.head(3).iterrows(), strict=True
    ):
        found = re.fullmatch(
            rf" +(\S+)  {_NUMBER}  \[{_NUMBER}, {_NUMBER}\]  P\(best\) {_NUMBER}", line
        )
        assert found is not None, line
        assert found[1] == player
        want = row[["mean", "lower", "upper", "p_best"]].to_numpy(float)
        np.testing.assert_allclose([float(v) for v in found.groups()[1:]], want, atol=5e-3)
    assert "Skill versus decks (posterior mean, 90% interval):" in lines
    assert re.search(
        r"\n  in-sample \(400 matches\) 0\.\d{3}   held-out \(tournament T5, \d+ matches\) "
        r"0\.\d{3}\n",
        text,
    )
    # 2 chains of 100 draws fail the ESS checks: a few short lines, not one long one
    assert "  Convergence checks failed (" in text
    assert "  Forecasts: the win probabilities of " in text
    assert max(len(line) for line in lines) < 200
    assert "ConvergenceWarning" not in text + err


def test_predict_prints_probability_and_interval(fitted_dir, small_matches, capsys):
    row = small_matches.X.iloc[0]
    code, out, err = run(
        [
            "predict",
            fitted_dir,
            "--p1",
            row["player1"],
            "--deck1",
            row["deck1"],
            "--p2",
            row["player2"],
            "--deck2",
            "MonoRed",
        ],
        capsys,
    )
    assert code == 0, err
    p = float(re.search(r"\) = ([0-9.]+)", out).group(1))
    lower, upper = map(float, re.search(r"90% interval: ([0-9.]+) to ([0-9.]+)", out).groups())
    assert 0 < lower <= p <= upper < 1
    assert "note" not in out


def _printed(out):
    p = float(re.search(r"\) = ([0-9.]+)", out).group(1))
    lower, upper = map(float, re.search(r"% interval: ([0-9.]+) to ([0-9.]+)", out).groups())
    return p, lower, upper


@pytest.mark.parametrize("interval", [None, "0.5"])
def test_predict_prints_the_python_apis_values(fitted_dir, small_matches, capsys, interval):
    """The printed probability and interval are the API's, for the order of players given."""
    from skcodex.analysis import match_forecast

    clf = load_model(fitted_dir)
    a, b = clf.vocabulary_.players[0], clf.vocabulary_.players[7]
    width = 0.9 if interval is None else float(interval)
    extra = [] if interval is None else ["--interval", interval]
    for first, second in ((a, b), (b, a)):
        argv = ["predict", fitted_dir, "--p1", first, "--deck1", "MonoRed"]
        argv += ["--p2", second, "--deck2", "[Demonology]/Anarchy/Law", *extra]
        code, out, err = run(argv, capsys)
        assert code == 0, err
        assert f"{round(100 * width)}% interval" in out
        X = pd.DataFrame(
            {
                "player1": [first],
                "player2": [second],
                "deck1": ["MonoRed"],
                "deck2": ["[Demonology]/Anarchy/Law"],
            }
        )
        want = match_forecast(clf, X, width).iloc[0]
        assert want["mean"] == pytest.approx(clf.predict_proba(X)[0, 1])
        got = _printed(out)
        expected = want[["mean", "lower", "upper"]].to_numpy(dtype=float)
        np.testing.assert_allclose(got, expected, atol=5e-4 + 1e-12)  # printed to 3 places


def test_predict_for_a_new_player_says_so(fitted_dir, capsys):
    code, out, _ = run(
        [
            "predict",
            fitted_dir / MODEL_FILE,
            "--p1",
            "newcomer",
            "--deck1",
            "MonoBlue",
            "--p2",
            "player01",
            "--deck2",
            "[Demonology]/Anarchy/Law",
            "--interval",
            "0.5",
        ],
        capsys,
    )
    assert code == 0
    assert "note: player 'newcomer' was not in the fitted matches; " in out
    assert "50% interval" in out


def test_demo_prints_results_and_writes_the_report(tmp_path, capsys):
    out = tmp_path / "demo"
    code, text, err = run(
        ["demo", "--players", 30, "--matches", 400, "--top", 3, "--out", out, *FAST], capsys
    )
    assert code == 0, err
    assert text.startswith(
        "Synthetic tournament series: 30 players, 400 matches in 8 tournaments. The model is "
        "fitted on every match for the estimates, and on the first 7 to forecast the last.\n"
    )
    assert "Top 3 players" in text
    assert "P(skill matters more than decks)" in text
    assert re.search(
        r"in-sample \(400 matches\) 0\.\d{3}   held-out \(tournament T8, 50 matches\) 0\.\d{3}",
        text,
    )
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "Crosses mark the true skills" in page
    assert "tournament T8" in page
    assert (out / MODEL_FILE).exists()
    # the held-out Brier score is the report's; the oracle's is that of the true probabilities
    from skcodex import brier_score
    from skcodex.datasets import make_matches

    data = make_matches(n_players=30, n_matches=400, n_tournaments=8, random_state=0)
    brier = pd.read_csv(out / "brier.csv").set_index("sample")["brier"]
    pattern = (
        r"held-out \(tournament T8, 50 matches\) (0\.\d+)   true probabilities on the "
        r"held-out matches (0\.\d+)"
    )
    printed = re.search(pattern, text).groups()
    last = (data.X["period"] == "T8").to_numpy()
    oracle = brier_score(data.y[last], data.p_win[last])
    np.testing.assert_allclose([float(v) for v in printed], [brier["held-out"], oracle], atol=5e-4)
    assert f"Open {out / 'report.html'} in a browser to read the report." in text


# -- reading matches --------------------------------------------------------------------


def test_read_matches_from_a_codexdata_folder_or_its_csv():
    X, y, catalogue = read_matches(FIXTURES / "codexdata_small")
    assert len(X) == len(y) > 0 and catalogue is not None
    X2, y2, _ = read_matches(FIXTURES / "codexdata_small" / "matches.csv")
    pd.testing.assert_frame_equal(X[["player1", "player2"]], X2[["player1", "player2"]])
    np.testing.assert_array_equal(y, y2)


def test_read_matches_from_a_match_table_csv(tmp_path, match_csv, small_matches):
    X, y, catalogue = read_matches(match_csv)
    np.testing.assert_array_equal(y, small_matches.y)
    assert catalogue is None and list(X["player1"]) == list(small_matches.X["player1"])
    path = tmp_path / "with_y.csv"
    small_matches.X.assign(y=small_matches.y).to_csv(path, index=False)
    _, y2, _ = read_matches(path)
    np.testing.assert_array_equal(y2, small_matches.y)


# -- errors are one readable line -------------------------------------------------------


def test_missing_matches_file(tmp_path, capsys):
    code, _, err = run(["fit", tmp_path / "nope.csv", "--out", tmp_path / "o"], capsys)
    assert_one_line_error(code, err, "no such file or folder")


def test_missing_model(tmp_path, capsys):
    argv = ["predict", tmp_path, "--p1", "a", "--deck1", "MonoRed", "--p2", "b", "--deck2", "x"]
    code, _, err = run(argv, capsys)
    assert_one_line_error(code, err, "no fitted model")


def test_unreadable_model(tmp_path, capsys):
    bad = tmp_path / "model.skcodex"
    bad.write_text("not a model")
    argv = ["predict", bad, "--p1", "a", "--deck1", "MonoRed", "--p2", "b", "--deck2", "MonoRed"]
    code, _, err = run(argv, capsys)
    assert_one_line_error(code, err, "cannot read a fitted model")


def test_bad_deck(fitted_dir, capsys):
    argv = ["predict", fitted_dir, "--p1", "a", "--deck1", "MonoRedd"]
    code, _, err = run([*argv, "--p2", "b", "--deck2", "MonoBlue"], capsys)
    assert_one_line_error(code, err, "--deck1: .*MonoRedd")


def test_same_player_twice(fitted_dir, capsys):
    argv = ["predict", fitted_dir, "--p1", "a", "--deck1", "MonoRed", "--p2", "a"]
    code, _, err = run([*argv, "--deck2", "MonoBlue"], capsys)
    assert_one_line_error(code, err, "same player")


@pytest.mark.parametrize(
    ("argv", "pattern"),
    [
        (
            ["fit", "m.csv", "--out", "o", "--frobnicate"],
            r"skcodex fit: error: unrecognized arguments: --frobnicate \(see skcodex fit --help\)",
        ),
        (["demo", "--bogus", "1"], r"^skcodex demo: .*--bogus 1 \(see skcodex demo --help\)"),
        (["fit", "m.csv"], "required: --out"),
        (["fit", "m.csv", "--out", "o", "--draws", "0"], "at least 1"),
        (["fit", "m.csv", "--out", "o", "--draws", "many"], "whole number"),
        (["predict", "m", "--p1", "a"], "required"),
        (
            [
                "predict",
                "m",
                "--p1",
                "a",
                "--deck1",
                "x",
                "--p2",
                "b",
                "--deck2",
                "y",
                "--interval",
                "2",
            ],
            "between 0 and 1",
        ),
        (["frobnicate"], "invalid choice"),
        ([], "required: COMMAND"),
    ],
)
def test_usage_errors(argv, pattern, capsys):
    code, _, err = run(argv, capsys)
    assert_one_line_error(code, err, pattern)


def test_csv_without_a_result_column(tmp_path, small_matches, capsys):
    path = tmp_path / "m.csv"
    small_matches.X.to_csv(path, index=False)
    code, _, err = run(["fit", path, "--out", tmp_path / "o", *FAST], capsys)
    assert_one_line_error(code, err, "no result column")


def test_csv_with_a_winner_who_did_not_play(tmp_path, small_matches, capsys):
    path = tmp_path / "m.csv"
    small_matches.X.assign(winner="nobody").to_csv(path, index=False)
    code, _, err = run(["fit", path, "--out", tmp_path / "o", *FAST], capsys)
    assert_one_line_error(code, err, "line 2: column 'winner' names 'nobody'")


@pytest.mark.parametrize(
    ("header", "pattern"),
    [
        ("player1,player2,deck1,deck2,y,deck2", "names the column 'deck2' more than once"),
        ("player1,player2,deck1,deck2,period,period,y", "names the column 'period' more than"),
        ("player1;player2;deck1;deck2;y", "is one column, .*separated by semicolons"),
        ("player1\tplayer2\tdeck1\tdeck2\ty", "is one column, .*separated by tabs"),
        ("player1,player2,deck1,y", "missing the column\\(s\\) 'deck2'; it has"),
        ("player1,palyer2,deck1,deck2,y", "did you mean 'palyer2' for 'player2'"),
    ],
)
def test_csv_header_mistakes_are_named(tmp_path, header, pattern):
    from skcodex.cli._errors import CommandError

    path = tmp_path / "m.csv"
    sep = "\t" if "\t" in header else ";" if ";" in header else ","
    cells = {"y": "1", "period": "T1"}
    row = sep.join(cells.get(name, f"{name}x") for name in header.split(sep))
    path.write_text(f"{header}\n{row.replace('deck1x', 'MonoRed').replace('deck2x', 'MonoBlue')}\n")
    with pytest.raises(CommandError, match=pattern):
        read_matches(path)


def test_csv_header_spaces_are_trimmed_and_two_results_refused(tmp_path, small_matches):
    from skcodex.cli._errors import CommandError

    path = tmp_path / "m.csv"
    table = small_matches.X.assign(y=small_matches.y)
    table.to_csv(path, index=False)
    spaced = tmp_path / "spaced.csv"
    lines = path.read_text().splitlines()
    spaced.write_text("\n".join([", ".join(lines[0].split(",")), *lines[1:]]) + "\n")
    X, y, _ = read_matches(spaced)
    np.testing.assert_array_equal(y, small_matches.y)
    assert {"player1", "player2", "deck1", "deck2"} <= set(X.columns)
    winner = np.where(small_matches.y == 1, table["player2"], table["player1"])  # disagrees
    table.assign(winner=winner).to_csv(path, index=False)
    with pytest.raises(CommandError, match="two result columns, 'y' and 'winner'"):
        read_matches(path)


def test_csv_with_a_bad_deck(tmp_path, small_matches, capsys):
    path = tmp_path / "m.csv"
    table = small_matches.X.assign(y=small_matches.y)
    table.loc[3, "deck2"] = "[Anarchy/Bloood]"
    table.to_csv(path, index=False)
    code, _, err = run(["fit", path, "--out", tmp_path / "o", *FAST], capsys)
    assert_one_line_error(code, err, "deck2.*Bloood")


def test_help_exits_cleanly(capsys):
    code, out, _ = run(["--help"], capsys)
    assert code == 0 and "fit" in out and "predict" in out and "demo" in out
    code, out, _ = run(["fit", "--help"], capsys)
    assert code == 0 and "MATCHES" in out and "--no-holdout" in out
    assert build_parser().prog == "skcodex"


# -- the output folder changes as a whole -----------------------------------------------


def _snapshot(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_interrupted_fit_leaves_the_old_outputs(
    fitted_dir, match_csv, tmp_path, capsys, monkeypatch
):
    import shutil

    import skcodex.cli._commands as cli
    import skcodex.report as report

    out = tmp_path / "out"
    shutil.copytree(fitted_dir, out)
    before = _snapshot(out)
    clf = load_model(out)
    monkeypatch.setattr(cli, "_fit", lambda *args, **kwargs: clf)

    def interrupted(clf, X, y, folder, **kwargs):
        (Path(folder) / "report.html").write_text("half a report")
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "write_report", interrupted)
    argv = ["fit", match_csv, "--out", out, "--replace", "--no-holdout", *FAST]
    code, _, err = run(argv, capsys)
    assert code == 130 and "interrupted" in err
    assert _snapshot(out) == before  # the old model and the old report, together
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no staging folder left


def test_completed_fit_replaces_the_outputs_as_a_whole(
    fitted_dir, match_csv, tmp_path, capsys, monkeypatch
):
    import shutil

    import skcodex.cli._commands as cli
    import skcodex.report as report

    out = tmp_path / "out"
    shutil.copytree(fitted_dir, out)
    (out / "brier.csv").write_text("from an older run")
    clf = load_model(out)
    monkeypatch.setattr(cli, "_fit", lambda *args, **kwargs: clf)

    def quick(clf, X, y, folder, **kwargs):
        (Path(folder) / "report.html").write_text("new report")
        return Path(folder) / "report.html"

    monkeypatch.setattr(report, "write_report", quick)
    argv = ["fit", match_csv, "--out", out, "--replace", "--no-holdout", *FAST]
    code, _, _ = run(argv, capsys)
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == [MODEL_FILE, "report.html"]
    assert (out / "report.html").read_text() == "new report"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


@pytest.mark.parametrize("case", ["the data folder", "the working folder", "a folder of CSVs"])
def test_out_never_replaces_the_users_csv_files(match_csv, tmp_path, capsys, monkeypatch, case):
    """A folder holding the input, or any CSV skcodex did not write, is refused before the fit."""
    import skcodex.cli._commands as cli

    def no_fit(*args, **kwargs):
        raise AssertionError("the fit must not start")

    monkeypatch.setattr(cli, "_fit", no_fit)
    data = tmp_path / "data"
    data.mkdir()
    table = data / "matches.csv"
    shutil.copy(match_csv, table)
    if case == "the data folder":  # a codexdata folder used as input and output
        argv, out, pattern = ["fit", table, "--out", data], data, "would replace the input"
    elif case == "the working folder":  # fit ../m.csv --out . with the user's own CSV in .
        work = tmp_path / "work"
        work.mkdir()
        (work / "budget.csv").write_text("rent,100\n")
        monkeypatch.chdir(work)
        argv, out, pattern = ["fit", "../data/matches.csv", "--out", "."], work, "budget.csv"
    else:
        out = tmp_path / "tables"
        out.mkdir()
        (out / "budget.csv").write_text("rent,100\n")
        (out / "skills.csv").write_text("an earlier run's table\n")
        argv, pattern = ["fit", table, "--out", out], "did not write \\(budget.csv\\)"
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    code, _, err = run([*argv, *FAST], capsys)
    assert_one_line_error(code, err, pattern)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before
    assert not list(out.parent.glob(".*.partial"))


@pytest.mark.parametrize("case", ["a file", "foreign files", "unwritable parent"])
def test_out_is_checked_before_the_fit(match_csv, tmp_path, capsys, monkeypatch, case):
    import os

    import skcodex.cli._commands as cli

    def no_fit(*args, **kwargs):
        raise AssertionError("the fit must not start")

    monkeypatch.setattr(cli, "_fit", no_fit)
    if case == "a file":
        out = tmp_path / "out"
        out.write_text("x")
        pattern = "is a file"
    elif case == "foreign files":
        out = tmp_path / "out"
        out.mkdir()
        (out / "thesis.tex").write_text("precious")
        pattern = "holds files skcodex did not write"
    else:
        if os.geteuid() == 0:
            pytest.skip("root can write anywhere")
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        out = locked / "out"
        pattern = "cannot write"
    code, _, err = run(["fit", match_csv, "--out", out, *FAST], capsys)
    assert_one_line_error(code, err, pattern)


# -- predict against known draws ---------------------------------------------------------


@pytest.fixture(scope="module")
def known_model(fitted_dir, tmp_path_factory):
    """The fitted model with hand-set draws: known skills, every deck effect zero.

    P(player 1 wins) is then the mean over draws of expit(skill1 - skill2), whatever
    the decks, and swapping the players turns it into one minus itself.
    """
    from scipy.special import expit

    from skcodex._matchup import fitting
    from skcodex.cli import save_model

    clf = load_model(fitted_dir)
    layout = clf.layout_
    spread = np.linspace(1.5, -1.5, layout.n_players)  # players far apart differ clearly
    skills = np.random.default_rng(5).normal(spread, 0.8, (300, layout.n_players))
    theta = np.zeros((300, layout.size))
    theta[:, : layout.n_players] = skills
    clf.idata_ = fitting.from_effect_draws(theta, np.ones((300, len(layout.spreads))), layout)
    out = tmp_path_factory.mktemp("known")
    save_model(clf, out)
    skills = skills.astype(np.float32).astype(float)  # as the posterior stores them
    by_name = dict(zip(clf.vocabulary_.players, skills.T))
    return out, lambda a, b: expit(by_name[a] - by_name[b])


def _predict(model, p1, p2, capsys, *extra, deck1="MonoRed", deck2="[Demonology]/Anarchy/Law"):
    argv = ["predict", model, "--p1", p1, "--deck1", deck1, "--p2", p2, "--deck2", deck2]
    code, out, err = run([*argv, *extra], capsys)
    assert code == 0, err
    return out


@pytest.mark.parametrize("width", [0.9, 0.5, 0.99])
def test_predict_prints_the_known_probability_and_interval(known_model, capsys, width):
    model, p_draws = known_model
    a, b = "player03", "player17"
    extra = [] if width == 0.9 else ["--interval", str(width)]
    out = _predict(model, a, b, capsys, *extra)
    draws = p_draws(a, b)
    tail = (1 - width) / 2
    want = [draws.mean(), np.quantile(draws, tail), np.quantile(draws, 1 - tail)]
    np.testing.assert_allclose(_printed(out), want, atol=5e-4 + 1e-12)
    assert f"\n{round(100 * width)}% interval: " in out
    assert out.startswith(
        f"P({a} with MonoRed, moving first, beats {b} with [Demonology]/Anarchy/Law) = "
    )
    # the other way round: one minus the probability, and the interval mirrored
    swapped = _printed(_predict(model, b, a, capsys, *extra))
    np.testing.assert_allclose(swapped, [1 - want[0], 1 - want[2], 1 - want[1]], atol=1e-3)
    assert abs(want[0] - 0.5) > 0.05  # the two orders differ, so a swap would show


def test_predict_on_known_draws_agrees_with_predict_proba(known_model, capsys):
    model, _ = known_model
    clf = load_model(model)
    X = pd.DataFrame(
        {
            "player1": ["player08"],
            "player2": ["player02"],
            "deck1": ["MonoBlue"],
            "deck2": ["MonoRed"],
        }
    )
    out = _predict(model, "player08", "player02", capsys, deck1="MonoBlue", deck2="MonoRed")
    assert _printed(out)[0] == pytest.approx(clf.predict_proba(X)[0, 1], abs=5e-4 + 1e-12)


@pytest.mark.parametrize("seat", ["--p1", "--p2"])
def test_predict_notes_each_new_player(known_model, capsys, seat):
    model, _ = known_model
    players = {"--p1": "player01", "--p2": "player02", seat: "stranger"}
    out = _predict(model, players["--p1"], players["--p2"], capsys)
    notes = [line for line in out.splitlines() if line.startswith("note:")]
    assert notes == [
        "note: player 'stranger' was not in the fitted matches; their skill is drawn around "
        "the 12 players who joined after the matches' first period, so the interval is wide."
    ]


def test_predict_says_which_name_was_meant(known_model, capsys, tmp_path):
    """A wrong-case or misspelt player or character: a one-line note with a "did you mean"."""
    from skcodex.codex import PlainCatalogue

    model, _ = known_model
    out = _predict(model, "PLAYER01", "plyer02", capsys)
    notes = [line for line in out.splitlines() if line.startswith("note:")]
    assert [n.split(";")[0] for n in notes] == [
        "note: player 'PLAYER01' was not in the fitted matches (did you mean 'player01'?)",
        "note: player 'plyer02' was not in the fitted matches (did you mean 'player02'?)",
    ]
    # another game's character, in the wrong case: a note, not a Python warning
    clf = load_model(model)
    fighters = pd.DataFrame(
        {
            "player1": ["a", "b", "c"] * 4,
            "player2": ["b", "c", "a"] * 4,
            "deck1": ["Ryu", "Ken", "Guile"] * 4,
            "deck2": ["Ken", "Guile", "Ryu"] * 4,
        }
    )
    y = np.array([1, 0, 1, 1, 0, 0] * 2)
    from skcodex import BayesianMatchupClassifier

    game = BayesianMatchupClassifier(
        catalogue=PlainCatalogue(specs_per_deck=0), draws=20, tune=20, chains=1,
        progressbar=False, time_varying=False, debut=False, random_state=0,
    )  # fmt: skip
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        game.fit(fighters, y)
    from skcodex.cli import save_model

    save_model(game, tmp_path)
    del clf
    argv = ["predict", tmp_path, "--p1", "a", "--deck1", "Rye", "--p2", "b", "--deck2", "Ken"]
    code, out, err = run(argv, capsys)
    assert code == 0 and err == ""
    assert (
        "note: starter 'Rye' was not in the fitted matches (did you mean 'Ryu'?); it is "
        "forecast as a new starter"
    ) in out
    # the wrong case is the same character, in an open catalogue as in a listed one
    argv[5] = "ryu"
    code, out, err = run(argv, capsys)
    assert code == 0 and err == "" and "note" not in out
    assert out.startswith("P(a with Ryu, listed first, beats b with Ken) = ")


def test_predict_reads_whole_number_player_names_as_numbers(known_model, capsys, tmp_path):
    """A model fitted on numbered players is asked with the numbers as typed."""
    import dataclasses

    from skcodex.cli import save_model

    model, p_draws = known_model
    clf = load_model(model)
    names = clf.vocabulary_.players
    clf.vocabulary_ = dataclasses.replace(clf.vocabulary_, players=tuple(range(len(names))))
    save_model(clf, tmp_path)
    out = _predict(tmp_path, "3", "12", capsys)
    assert "note" not in out and out.startswith("P(3 with MonoRed")
    assert _printed(out)[0] == pytest.approx(p_draws(names[3], names[12]).mean(), abs=5e-4)
    out = _predict(tmp_path, "-1", "12", capsys)
    assert "note: player -1 was not in the fitted matches" in out
    argv = ["predict", tmp_path, "--p1", "X3", "--deck1", "MonoRed", "--p2", "12"]
    code, _, err = run([*argv, "--deck2", "MonoRed"], capsys)  # a name, beside a number
    assert_one_line_error(code, err, "mix str and int player ids: 'X3' and 12")


def test_predict_reads_decks_against_the_models_catalogue(known_model, capsys, tmp_path):
    """Another game's decks are read (and their names' case fixed) by the fitted catalogue."""
    import dataclasses

    from skcodex.cli import save_model
    from skcodex.codex import PlainCatalogue

    model, p_draws = known_model
    clf = load_model(model)
    vocab = clf.vocabulary_
    starters = tuple(f"Hero{i}" for i in range(len(vocab.starters)))
    parts = tuple(f"Gem{i}" for i in range(len(vocab.specs)))
    catalogue = PlainCatalogue(starters=starters, components=parts, specs_per_deck=3)
    clf.vocabulary_ = dataclasses.replace(vocab, starters=starters, specs=parts, decks=())
    clf.catalogue = clf.catalogue_ = catalogue
    save_model(clf, tmp_path)
    a, b = vocab.players[2], vocab.players[9]
    out = _predict(
        tmp_path, a, b, capsys, deck1="hero1/gem2/gem3/gem4", deck2="Hero0/Gem5/Gem6/Gem7"
    )
    # another game without a first-move effect: player 1 is only the side listed first
    assert out.startswith(f"P({a} with Hero1/Gem2/Gem3/Gem4, listed first, beats {b} with ")
    assert _printed(out)[0] == pytest.approx(p_draws(a, b).mean(), abs=5e-4)


# -- fit passes its options on -----------------------------------------------------------


def test_fit_fits_with_the_options_given(fitted_dir):
    params = load_model(fitted_dir).get_params()
    want = {
        "draws": 100,
        "tune": 100,  # defaults to --draws
        "chains": 2,
        "random_state": 0,
        "progressbar": False,
        "prior": "lognormal",
        "target_accept": 0.8,
        "first_move": False,
        "catalogue": None,
        "newcomer_skill": "late arrivals",
    }
    assert {k: params[k] for k in want} == want


def _newcomer_forecast(model, capsys) -> tuple[float, list[str]]:
    argv = ["predict", model, "--p1", "newcomer", "--deck1", "MonoBlue"]
    code, out, _ = run([*argv, "--p2", "player01", "--deck2", "MonoRed"], capsys)
    assert code == 0
    lines = out.splitlines()
    chance = next(line for line in lines if line.startswith("P(newcomer"))
    return float(chance.rsplit("= ", 1)[1]), [line for line in lines if line.startswith("note:")]


def test_fit_draws_newcomers_around_the_population_when_told(
    fitted_dir, match_csv, tmp_path, capsys
):
    from skcodex.analysis import match_forecast

    late = load_model(fitted_dir).late_arrivals_
    assert late is not None and len(late) > 0  # the table has late arrivals to move newcomers
    out = tmp_path / "population"
    static = ["--no-time-varying", "--no-debut", "--no-holdout", *FAST]
    argv = ["fit", str(match_csv), "--out", str(out), "--newcomer-skill", "population"]
    assert main([*argv, *static]) == 0
    capsys.readouterr()
    model = load_model(out)
    assert model.newcomer_skill == "population"
    X = pd.DataFrame(
        {"player1": ["newcomer"], "player2": ["player01"], "deck1": ["MonoBlue"],
         "deck2": ["MonoRed"]}
    )  # fmt: skip
    chance, notes = _newcomer_forecast(out / MODEL_FILE, capsys)
    assert chance == pytest.approx(match_forecast(model, X)["mean"].iloc[0], abs=5e-4)
    assert notes == [
        "note: player 'newcomer' was not in the fitted matches; their skill is drawn from the "
        "population of players, so the interval is wide."
    ]
    # the same draws, around the late arrivals, move the newcomer by their mean skill
    population = match_forecast(model, X)["mean"].iloc[0]
    model.set_params(newcomer_skill="late arrivals")
    moved = match_forecast(model, X)["mean"].iloc[0]
    shift = model._newcomer_skill_mean().mean()
    assert abs(shift) > 0.01 and np.sign(moved - population) == np.sign(shift)


class _Stub:
    """Stands in for the classifier: records its parameters, warns, forecasts 0.25."""

    def __init__(self, **params):
        self.params = params
        self.convergence_problems_ = ["R-hat 1.2 for sd_player"]

    def fit(self, X, y):
        import warnings

        from sklearn.exceptions import ConvergenceWarning

        self.n_fitted = len(X)
        warnings.warn("chains disagree", ConvergenceWarning, stacklevel=1)
        warnings.warn("unrelated", UserWarning, stacklevel=1)
        return self

    def predict_proba(self, X):
        return np.tile([0.75, 0.25], (len(X), 1))


class _Unconverged(_Stub):
    """A stub whose fit failed checks of three parameter families."""

    def fit(self, X, y):
        super().fit(X, y)
        self.convergence_problems_ = [
            "R-hat above 1.01 for 2 effect parameter(s) (stst[A, B], stst[B, A]; worst 1.030)",
            "bulk ESS below 400 for 1 spread parameter(s) (log_sd[stst]; lowest 120)",
            "R-hat above 1.01 for 3 effect parameter(s) (spsp[A, B], spsp[B, A], "
            "spsp[C, A]; worst 1.050)",
            "2 divergent transition(s)",
        ]
        return self


def test_fit_builds_the_classifier_from_the_options(monkeypatch, capsys, small_matches):
    import argparse

    import skcodex
    import skcodex._matchup.diagnostics as diagnostics
    import skcodex.cli._commands as commands

    monkeypatch.setattr(skcodex, "BayesianMatchupClassifier", _Unconverged)
    monkeypatch.setattr(
        diagnostics, "forecast_convergence", lambda clf, X: {"sentence": "forecasts checked"}
    )
    args = argparse.Namespace(
        draws=7, tune=3, chains=5, seed=11, no_progress=True, first_move=True,
        prior="balanced", target_accept=0.95,
    )  # fmt: skip
    clf = commands._fit(small_matches.X, small_matches.y, "CAT", args, "on every match")
    assert clf.params == {
        "draws": 7,
        "tune": 3,
        "chains": 5,
        "random_state": 11,
        "progressbar": False,
        "catalogue": "CAT",
        "first_move": True,
        "symmetric": False,
        "debut": "auto",
        "time_varying": "auto",
        "part_selection": "none",
        "half_life": None,
        "newcomer_skill": "late arrivals",
        "prior": "balanced",
        "target_accept": 0.95,
    }
    assert clf.n_fitted == len(small_matches.X)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Fitting on every match: 400 matches, 5 chains of 7 draws, balanced prior ..."
    # the estimate scales with the machine's load: "about N s" or "under a second"
    assert out[1].startswith(("  expected to take about ", "  expected to take under a second"))
    assert re.fullmatch(r"  done in \d+\.\d s\.", out[2])
    # the failed checks grouped by parameter family, one short line each, then their effect
    # on forecasts; no raw warning
    assert out[3:] == [
        "  Convergence checks failed (4), by parameter family:",
        "    spreads: bulk ESS below 400 for 1 (lowest 120)",
        "    deck matchups: R-hat above 1.01 for 5 (worst 1.050)",
        "    sampler: 2 divergent transition(s)",
        "  forecasts checked",
        "  More draws and tuning steps (--draws, --tune) raise ESS and bring R-hat down; "
        "the report lists every failed check.",
    ]
    args.no_progress, args.first_move, args.chains = False, False, 1
    capsys.readouterr()
    clf = commands._fit(small_matches.X, small_matches.y, None, args, "x")
    assert clf.params["progressbar"] is True and clf.params["first_move"] is False
    assert capsys.readouterr().out.startswith("Fitting x: 400 matches, 1 chain of 7 draws,")
    args.debut, args.time_varying = True, True
    clf = commands._fit(small_matches.X, small_matches.y, None, args, "x")
    assert clf.params["debut"] is True and clf.params["time_varying"] is True
    args.debut, args.time_varying = False, False
    clf = commands._fit(small_matches.X, small_matches.y, None, args, "x")
    assert clf.params["debut"] is False and clf.params["time_varying"] is False
    args.newcomer_skill = "population"
    clf = commands._fit(small_matches.X, small_matches.y, None, args, "x")
    assert clf.params["newcomer_skill"] == "population"


@pytest.mark.filterwarnings("ignore:chains disagree", "ignore:unrelated")
def test_held_out_forecasts_the_last_tournament(monkeypatch, capsys, small_matches):
    import argparse

    import skcodex.cli._commands as commands

    calls = []

    def fake_fit(X, y, catalogue, args, what):
        calls.append((len(X), catalogue, what))
        return _Stub().fit(X, y)

    monkeypatch.setattr(commands, "_fit", fake_fit)
    X, y = small_matches.X, small_matches.y
    held = commands._held_out(X, y, "CAT", argparse.Namespace())
    last = (X["period"] == "T5").to_numpy()
    assert held.label == "tournament T5" and held.n_train == (~last).sum()
    np.testing.assert_array_equal(held.y, y[last])
    np.testing.assert_array_equal(held.p_win, np.full(last.sum(), 0.25))
    assert held.problems == ["R-hat 1.2 for sd_player"]
    assert calls == [((~last).sum(), "CAT", "without tournament T5 (to forecast it)")]
    capsys.readouterr()
    assert commands._held_out(X.drop(columns="period"), y, None, argparse.Namespace()) is None
    assert capsys.readouterr().out == "No tournament column: skipping the held-out forecast.\n"
    one = X.assign(period="T1")
    assert commands._held_out(one, y, None, argparse.Namespace()) is None
    assert capsys.readouterr().out.startswith("Skipping the held-out forecast: ")
    assert len(calls) == 1


@pytest.mark.filterwarnings("ignore:chains disagree", "ignore:unrelated")
def test_fit_hands_its_options_to_the_report(monkeypatch, match_csv, tmp_path, capsys):
    import skcodex.cli._commands as commands
    import skcodex.report as report

    seen = {}
    monkeypatch.setattr(commands, "_fit", lambda X, y, cat, args, what: _Stub().fit(X, y))
    monkeypatch.setattr(commands, "print_results", lambda *a, **k: None)
    monkeypatch.setattr(commands, "save_model", lambda clf, folder: seen.setdefault("model", 1))

    def fake_report(clf, X, y, folder, **kwargs):
        seen.update(kwargs, n=len(X), folder=Path(folder))
        (Path(folder) / "report.html").write_text("page")

    monkeypatch.setattr(report, "write_report", fake_report)
    out = tmp_path / "o"
    argv = ["fit", match_csv, "--out", out, "--nash-draws", "13", "--title", "T <1>"]
    code, text, err = run([*argv, "--decks", "MonoRed, MonoBlue"], capsys)
    assert code == 0, err
    assert seen["held_out"].label == "tournament T5" and seen["nash_draws"] == 13
    assert seen["title"] == "T <1>" and seen["decks"] == ["MonoRed", "MonoBlue"]
    assert seen["source"] == str(match_csv) and seen["true_skills"] is None
    assert seen["n"] == 400 and seen["folder"].parent == out.parent
    assert seen["folder"].name.startswith(".o.") and seen["folder"].name.endswith(".partial")
    assert (out / "report.html").read_text() == "page"
    assert f"Wrote {out / MODEL_FILE}\nWrote {out / 'report.html'} and the tables" in text
    code, _, _ = run(["fit", match_csv, "--out", tmp_path / "p", "--no-holdout"], capsys)
    assert code == 0 and seen["held_out"] is None and seen["decks"] is None
    assert seen["nash_draws"] == 500 and seen["title"] is None


@pytest.mark.filterwarnings("ignore:chains disagree", "ignore:unrelated")
def test_fit_holds_out_a_share_of_the_latest_matches(monkeypatch, small_matches, tmp_path, capsys):
    """A tiny last tournament is not a held-out set on its own: at least 15% is held out."""
    import skcodex.cli._commands as commands
    import skcodex.report as report

    X, y = small_matches.X, small_matches.y
    tiny = X.tail(3).assign(period="T6", date=pd.Timestamp(X["date"].max()) + pd.Timedelta(days=9))
    X = pd.concat([X, tiny], ignore_index=True)
    y = np.concatenate([y, y[-3:]])
    path = tmp_path / "tiny_last.csv"
    X.assign(winner=np.where(y == 1, X["player1"], X["player2"])).to_csv(path, index=False)
    seen = {}
    monkeypatch.setattr(commands, "_fit", lambda X, y, cat, args, what: _Stub().fit(X, y))
    monkeypatch.setattr(commands, "print_results", lambda *a, **k: None)
    monkeypatch.setattr(commands, "save_model", lambda clf, folder: None)
    monkeypatch.setattr(report, "write_report", lambda clf, X, y, folder, **kw: seen.update(kw))
    code, text, err = run(["fit", path, "--out", tmp_path / "o"], capsys)
    assert code == 0, err
    held = seen["held_out"]
    n_test = (X["period"].isin(["T5", "T6"])).sum()
    assert len(held.y) == n_test == 83 and n_test >= 0.15 * len(X)
    assert held.label == "the latest 2 tournaments (T5 to T6)"
    assert held.n_train == len(X) - n_test
    assert (
        "Holding out the latest 2 tournaments (T5 to T6): 83 of 403 matches (20.6%), "
        "forecast by a model fitted on the 320 matches that ended before them."
    ) in text
    # a larger share, then a date
    run(["fit", path, "--out", tmp_path / "p", "--holdout-share", "0.4"], capsys)
    assert len(seen["held_out"].y) == 163
    since = str(pd.Timestamp(X.loc[X["period"] == "T6", "date"].min()).date())
    code, text, _ = run(["fit", path, "--out", tmp_path / "q", "--holdout-since", since], capsys)
    assert code == 0 and len(seen["held_out"].y) == 3
    assert "Holding out tournament T6: 3 of 403 matches (0.7%)" in text


# -- the parser --------------------------------------------------------------------------


def test_parser_defaults():
    from skcodex.cli._parser import DEMO_DIR

    parser = build_parser()
    fit = vars(parser.parse_args(["fit", "m.csv", "--out", "o"]))
    fit.pop("run")
    assert fit == {
        "command": "fit",
        "matches": "m.csv",
        "out": "o",
        "replace": False,
        "title": None,
        "catalogue": None,
        "tie_components": False,
        "specs_per_deck": None,
        "first_move": False,
        "symmetric": False,
        "debut": None,
        "time_varying": None,
        "part_selection": "none",
        "half_life": None,
        "newcomer_skill": "late-arrivals",
        "decks": None,
        "top": 10,
        "advise": None,
        "draws": 1000,
        "tune": None,
        "chains": 4,
        "prior": "lognormal",
        "target_accept": 0.8,
        "seed": 0,
        "no_progress": False,
        "no_holdout": False,
        "nash_draws": 500,
        "holdout_share": 0.15,
        "holdout_since": None,
    }
    demo = vars(parser.parse_args(["demo"]))
    demo.pop("run")
    assert demo == {
        "command": "demo",
        "players": 32,
        "matches": 800,
        "top": 10,
        "out": DEMO_DIR,
        "no_report": False,
        "draws": 1000,
        "tune": 500,
        "chains": 4,
        "prior": "lognormal",
        "target_accept": 0.8,
        "seed": 0,
        "no_progress": False,
        "no_holdout": False,
        "nash_draws": 100,
    }
    assert DEMO_DIR == "skcodex-demo"
    argv = ["predict", "m", "--p1", "a", "--deck1", "x", "--p2", "b", "--deck2", "y"]
    predict = vars(parser.parse_args(argv))
    predict.pop("run")
    assert predict == {
        "command": "predict", "model": "m", "p1": "a", "deck1": "x", "p2": "b",
        "deck2": "y", "interval": 0.9, "best_of": 1, "series_rule": "fixed", "pick": "best",
        "set_order": "alternating", "draw_rule": "replay",
    }  # fmt: skip


def test_parser_runs_each_command():
    import skcodex.cli._commands as commands
    import skcodex.cli._series as series

    parser = build_parser()
    assert parser.parse_args(["fit", "m", "--out", "o"]).run is commands._cmd_fit
    argv = ["predict", "m", "--p1", "a", "--deck1", "x", "--p2", "b", "--deck2", "y"]
    # predict runs one game through _cmd_predict, a set (--best-of) through the series
    assert parser.parse_args(argv).run is series.run_predict
    assert parser.parse_args(["demo"]).run is commands._cmd_demo


@pytest.mark.parametrize(
    ("option", "value", "parsed"),
    [
        ("--draws", "1", 1),
        ("--chains", "3", 3),
        ("--tune", "2", 2),
        ("--nash-draws", "1", 1),
        ("--specs-per-deck", "0", 0),
        ("--seed", "4", 4),
        ("--target-accept", "0.95", 0.95),
        ("--target-accept", "1e-3", 0.001),
        ("--prior", "balanced", "balanced"),
        ("--decks", " Most Played ", "most played"),
        ("--decks", "MONOCOLOUR", "monocolour"),
        ("--decks", " MonoRed ,, [Past]/Anarchy/Peace,", ["MonoRed", "[Past]/Anarchy/Peace"]),
        ("--decks", "MonoRed", ["MonoRed"]),
        ("--holdout-share", "0.3", 0.3),
        ("--holdout-since", "2020-03-01", "2020-03-01"),
        ("--newcomer-skill", "population", "population"),
    ],
)
def test_parser_reads_values(option, value, parsed):
    args = build_parser().parse_args(["fit", "m", "--out", "o", option, value])
    assert getattr(args, option[2:].replace("-", "_")) == parsed


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--draws", "0", "argument --draws: expected a number of at least 1, got '0'"),
        ("--chains", "2.5", "argument --chains: expected a whole number, got '2.5'"),
        ("--specs-per-deck", "-1", "expected a number of at least 0, got '-1'"),
        ("--target-accept", "1", "expected a number between 0 and 1, got '1'"),
        ("--target-accept", "0", "expected a number between 0 and 1, got '0'"),
        ("--target-accept", "high", "argument --target-accept: expected a number, got 'high'"),
        ("--decks", " , ,", "argument --decks: expected decks separated by commas"),
        ("--prior", "flat", "argument --prior: invalid choice: 'flat'"),
        ("--holdout-share", "1.5", "expected a number between 0 and 1, got '1.5'"),
        ("--holdout-since", "soon", "expected a date such as 2024-06-01, got 'soon'"),
        ("--newcomer-skill", "late", "argument --newcomer-skill: invalid choice: 'late'"),
    ],
)
def test_parser_refuses_values(option, value, message, capsys):
    code, _, err = run(["fit", "m", "--out", "o", option, value], capsys)
    assert_one_line_error(code, err, re.escape(message))
    assert err.startswith("skcodex fit: error: ") and err.endswith(" (see skcodex fit --help)\n")


def test_interval_must_be_inside_zero_and_one(capsys):
    argv = ["predict", "m", "--p1", "a", "--deck1", "x", "--p2", "b", "--deck2", "y"]
    for value in ("0", "1", "-0.5"):
        code, _, err = run([*argv, "--interval", value], capsys)
        assert_one_line_error(code, err, "expected a number between 0 and 1")


# -- main: the tuning default, exit status and one-line errors ---------------------------


def _main_with(monkeypatch, capsys, argv, behaviour):
    """Run main with the fit command replaced by ``behaviour(args)``."""
    import skcodex.cli._parser as parser_module

    seen = {}

    def command(args):
        seen["args"] = args
        return behaviour(args)

    monkeypatch.setattr(parser_module, "_cmd_fit", command)
    code, _, err = run(argv, capsys)
    return code, err, seen.get("args")


def test_tuning_steps_default_to_the_draws(monkeypatch, capsys):
    base = ["fit", "m", "--out", "o"]
    code, _, args = _main_with(monkeypatch, capsys, [*base, "--draws", "7"], lambda a: 0)
    assert code == 0 and args.tune == 7
    _, _, args = _main_with(
        monkeypatch, capsys, [*base, "--draws", "7", "--tune", "3"], lambda a: 0
    )
    assert args.tune == 3
    code, _, _ = _main_with(monkeypatch, capsys, base, lambda a: 5)
    assert code == 5  # the command's own status


def _raise(error):
    def behaviour(args):
        raise error

    return behaviour


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (
            FileNotFoundError(2, "No such file or directory", "x.csv"),
            "No such file or directory: x.csv",
        ),
        (FileNotFoundError("no fitted model at m"), "no fitted model at m"),
        (KeyError("column 'deck1' is missing"), "column 'deck1' is missing"),
        (KeyError(), "unknown error"),
        (ValueError("two\n   lines  here"), "two lines here"),
        (OSError("disk full"), "disk full"),
        (ImportError("needs nutpie"), "needs nutpie"),
    ],
)
def test_errors_become_one_line(monkeypatch, capsys, error, line):
    code, err, _ = _main_with(monkeypatch, capsys, ["fit", "m", "--out", "o"], _raise(error))
    assert code == 2 and err == f"skcodex: error: {line}\n"


def test_an_empty_error_and_an_interrupt(monkeypatch, capsys):
    from skcodex.cli._errors import CommandError

    argv = ["fit", "m", "--out", "o"]
    code, err, _ = _main_with(monkeypatch, capsys, argv, _raise(CommandError("  ")))
    assert code == 2 and err == "skcodex: error: unknown error\n"
    code, err, _ = _main_with(monkeypatch, capsys, argv, _raise(KeyboardInterrupt()))
    assert code == 130 and err == "skcodex: interrupted\n"
    with pytest.raises(RuntimeError):  # a bug is not dressed up as a user error
        _main_with(monkeypatch, capsys, argv, _raise(RuntimeError("bug")))


# -- reading match tables of other games -------------------------------------------------


def _plain_csv(tmp_path, decks1, decks2, name="games.csv"):
    n = len(decks1)
    table = pd.DataFrame(
        {
            "player1": [f"p{i % 3}" for i in range(n)],
            "player2": [f"q{i % 2}" for i in range(n)],
            "deck1": decks1,
            "deck2": decks2,
            "y": [i % 2 for i in range(n)],
        }
    )
    path = tmp_path / name
    table.to_csv(path, index=False)
    return path


def test_plain_decks_become_an_open_catalogue(tmp_path, capsys):
    path = _plain_csv(tmp_path, ["Ann/red/blue", "Bo/red/green"], ["Bo/blue/green", "Ann/x/y"])
    _, y, catalogue = read_matches(path)
    assert catalogue.specs_per_deck == 2 and type(catalogue).__name__ == "PlainCatalogue"
    np.testing.assert_array_equal(y, [0, 1])
    assert capsys.readouterr().out == (
        f"The decks of {path} are not Codex decks; reading each as a starter followed by 2 "
        "component(s), every name seen a level (give --catalogue FILE to check the names; "
        "its rows starter_word,WORD and component_word,WORD give the report the game's "
        "words, such as character).\n"
    )
    _, _, zero = read_matches(_plain_csv(tmp_path, ["Ann", "Bo"], ["Bo", "Cy"], "zero.csv"))
    assert zero.specs_per_deck == 0


def test_plain_decks_of_different_sizes_are_refused(tmp_path):
    from skcodex.cli._errors import CommandError

    path = _plain_csv(tmp_path, ["Ann/red", "Bo/red/green", "Cy"], ["Bo/red", "Ann/a", "Cy"])
    with pytest.raises(CommandError) as info:
        read_matches(path)
    assert str(info.value) == (
        f"{path}: the decks are not Codex decks, and read as starter/component/... they hold "
        "different numbers of components after the starter ('Cy' has 0; 'Ann/red' has 1; "
        "'Bo/red/green' has 2); give every deck the same number, or name the parts with "
        "--catalogue FILE"
    )


def test_mostly_codex_decks_get_the_codex_error(tmp_path):
    from skcodex.cli._errors import CommandError

    path = _plain_csv(tmp_path, ["MonoRed", "MonoBlue", "MonoRedd"], ["MonoGreen"] * 3)
    with pytest.raises(CommandError, match=rf"^{re.escape(str(path))}: .*MonoRedd"):
        read_matches(path)


def test_components_per_deck_given_or_from_a_catalogue(tmp_path, capsys):
    from skcodex.cli._errors import CommandError

    path = _plain_csv(tmp_path, ["Ann/red", "Bo/blue"], ["Bo/red", "Ann/blue"])
    _, _, catalogue = read_matches(path, specs_per_deck=1)
    assert catalogue.specs_per_deck == 1 and capsys.readouterr().out == ""
    with pytest.raises(CommandError, match="has 1 component"):
        read_matches(path, specs_per_deck=2)
    names = tmp_path / "names.csv"
    names.write_text("kind,name\nstarter,Ann\nstarter,Bo\ncomponent,red\ncomponent,blue\n")
    _, _, catalogue = read_matches(path, catalogue_file=names)
    assert set(catalogue.starters) == {"Ann", "Bo"} and catalogue.specs_per_deck == 1
    names.write_text("kind,name\nstarter,Ann\ncomponent,red\ncomponent,blue\n")
    with pytest.raises(CommandError, match=rf"^{re.escape(str(path))}: .*'Bo'"):
        read_matches(path, catalogue_file=names)


@pytest.mark.parametrize("option", ["catalogue_file", "specs_per_deck"])
@pytest.mark.parametrize("where", ["folder", "matches.csv"])
def test_codexdata_refuses_other_games_options(option, where):
    from skcodex.cli._errors import CommandError

    path = FIXTURES / "codexdata_small"
    path = path if where == "folder" else path / "matches.csv"
    value = {"catalogue_file": "names.csv", "specs_per_deck": 2}[option]
    with pytest.raises(CommandError) as info:
        read_matches(path, **{option: value})
    assert str(info.value) == (
        "--catalogue, --specs-per-deck and --tie-components are for match-table CSVs of "
        f"other games; {path} is codexdata, which carries its own Codex catalogue"
    )


@pytest.mark.parametrize(
    ("content", "pattern"),
    [
        (b"", "m.csv is empty: a CSV file starts with a header line"),
        (b"\xff\xfe\x00bad", "m.csv: line 1 is not UTF-8 text .*: save it as UTF-8"),
        (b'player1,player2\n"a,b\n', "cannot read .* as CSV"),
    ],
)
def test_unreadable_csv(tmp_path, content, pattern):
    from skcodex.cli._errors import CommandError

    path = tmp_path / "m.csv"
    path.write_bytes(content)
    with pytest.raises(CommandError, match=pattern):
        read_matches(path)
    with pytest.raises(CommandError, match=pattern):  # also when asked for another game
        read_matches(path, specs_per_deck=1)


def test_results_as_y_or_winner_agree(tmp_path, small_matches):
    X, y = small_matches.X, small_matches.y
    path = tmp_path / "w.csv"
    X.assign(winner=np.where(y == 1, X["player1"], X["player2"])).to_csv(path, index=False)
    table, from_winner, _ = read_matches(path)
    assert from_winner.dtype == np.int64 and "winner" not in table.columns
    np.testing.assert_array_equal(from_winner, y)
    X.assign(y=y).to_csv(path, index=False)
    table, from_y, _ = read_matches(path)
    assert "y" not in table.columns
    np.testing.assert_array_equal(from_y, y)
    X.assign(y=np.where(y == 1, 1, 2)).to_csv(path, index=False)
    from skcodex.cli._errors import CommandError

    with pytest.raises(CommandError, match=r"w\.csv, line 2: column 'y' holds 2; give 1 where"):
        read_matches(path)


def test_numbered_players_are_read_as_names(tmp_path):
    path = _plain_csv(tmp_path, ["Ann/red", "Bo/blue"], ["Bo/red", "Ann/blue"])
    table = pd.read_csv(path).assign(player1=["007", "12"], player2=["12", "007"])
    table = table.drop(columns="y").assign(winner=["007", "007"])
    table.to_csv(path, index=False)
    X, y, _ = read_matches(path, specs_per_deck=1)
    assert list(X["player1"]) == ["007", "12"]
    np.testing.assert_array_equal(y, [1, 0])


# -- the output folder -------------------------------------------------------------------


def test_output_folder_in_a_new_parent(tmp_path):
    from skcodex.cli._output import prepare_output, publish_output

    out = tmp_path / "a" / "b" / "out"
    staging = prepare_output(out)
    assert staging.parent == out.parent and staging.is_dir()
    assert staging.name.startswith(".out.") and staging.name.endswith(".partial")
    (staging / "report.html").write_text("new")
    publish_output(staging, out)
    assert (out / "report.html").read_text() == "new" and not staging.exists()
    assert sorted(p.name for p in out.parent.iterdir()) == ["out"]
    # a second run replaces it, the old outputs gone once the new are in
    staging = prepare_output(out)
    (staging / "model.skcodex").write_text("m")
    publish_output(staging, out)
    assert sorted(p.name for p in out.iterdir()) == ["model.skcodex"]
    assert sorted(p.name for p in out.parent.iterdir()) == ["out"]


def test_output_folder_under_a_file(tmp_path):
    from skcodex.cli._errors import CommandError
    from skcodex.cli._output import prepare_output

    (tmp_path / "file").write_text("x")
    out = tmp_path / "file" / "sub" / "out"
    with pytest.raises(CommandError, match=r"^--out .*out: cannot create .*sub: "):
        prepare_output(out)


def test_output_folder_of_earlier_outputs_is_accepted(tmp_path):
    from skcodex.cli._errors import CommandError
    from skcodex.cli._output import prepare_output

    out = tmp_path / "out"
    out.mkdir()
    for name in (MODEL_FILE, "report.html", *CSV_FILES):
        (out / name).write_text("old")
    assert prepare_output(out).is_dir()
    (out / "notes").mkdir()
    with pytest.raises(CommandError, match=r"holds files skcodex did not write \(notes\)"):
        prepare_output(out)


def test_a_failed_swap_puts_the_old_outputs_back(tmp_path, monkeypatch):
    import os

    from skcodex.cli._output import prepare_output, publish_output

    out = tmp_path / "out"
    out.mkdir()
    (out / "report.html").write_text("old")
    staging = prepare_output(out)
    (staging / "report.html").write_text("new")
    real = os.replace

    def failing(src, dst):
        if Path(src) == staging:
            raise OSError("disk full")
        real(src, dst)

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(OSError, match="disk full"):
        publish_output(staging, out)
    assert (out / "report.html").read_text() == "old"


def test_load_model_refuses_other_objects(tmp_path):
    from skcodex import EloClassifier
    from skcodex.cli._errors import CommandError

    elo = EloClassifier().fit(
        pd.DataFrame(
            {"player1": ["a", "b"], "player2": ["b", "a"], "deck1": "MonoRed", "deck2": "MonoRed"}
        ),
        np.array([1, 0]),
    )
    path = elo.save(tmp_path / MODEL_FILE)
    with pytest.raises(CommandError, match=rf"^{re.escape(str(path))} does not hold a fitted"):
        load_model(tmp_path)


_NUMBER = r"([+-]?\d+\.\d\d)"


def test_demo_prints_the_estimates_beside_the_truth(fitted_dir, tmp_path, capsys, monkeypatch):
    """The printed table is the fitted model's, and the truth is the generated series'."""
    import skcodex.cli._commands as commands
    from skcodex import brier_score
    from skcodex.analysis import skill_table, skill_versus_decks
    from skcodex.datasets import make_matches

    clf = load_model(fitted_dir)
    calls = []
    monkeypatch.setattr(commands, "_fit", lambda X, *a: calls.append(len(X)) or clf)
    monkeypatch.chdir(tmp_path)
    argv = ["demo", "--players", 30, "--matches", 400, "--seed", 3, "--top", 4, "--no-report"]
    code, text, err = run([*argv, "--no-holdout", "--prior", "balanced"], capsys)
    assert code == 0, err
    assert list(tmp_path.iterdir()) == [] and calls == [400]  # one fit, nothing written
    data = make_matches(n_players=30, n_matches=400, n_tournaments=8, random_state=3)
    lines = text.splitlines()
    assert lines[0] == (
        "Synthetic tournament series: 30 players, 400 matches in 8 tournaments. The model is "
        "fitted on every match for the estimates."
    )
    start = lines.index("Top 4 players (posterior mean skill, 90% interval; true skill):")
    skills = skill_table(clf, data.X)
    pattern = (
        rf"  +(\S+)  {_NUMBER}  \[{_NUMBER}, {_NUMBER}\]  P\(best\) {_NUMBER}   true {_NUMBER}"
    )
    for line, (player, row) in zip(lines[start + 1 : start + 5], skills.iterrows(), strict=False):
        name, *values = re.fullmatch(pattern, line).groups()
        assert name == player
        want = [*row[["mean", "lower", "upper", "p_best"]], data.params["skill"][player]]
        np.testing.assert_allclose([float(v) for v in values], want, atol=5e-3 + 1e-12)
    assert lines[start + 5] == ""
    spreads = skill_versus_decks(clf)
    sd = data.params["sd"]
    truth = {
        "sd_player": sd["player"],
        "sd_deck": np.sqrt(sd["stst"] ** 2 + 6 * sd["stsp"] ** 2 + 9 * sd["spsp"] ** 2),
    }
    start = lines.index("Skill versus decks (posterior mean, 90% interval; true value):")
    for line, name in zip(lines[start + 1 : start + 3], truth, strict=True):
        pattern = rf" +{name}  {_NUMBER}  \[{_NUMBER}, {_NUMBER}\]   true {_NUMBER}"
        values = [float(v) for v in re.fullmatch(pattern, line).groups()]
        want = [*spreads.loc[name, ["mean", "lower", "upper"]], truth[name]]
        np.testing.assert_allclose(values, want, atol=5e-3 + 1e-12)
    found = re.fullmatch(
        rf"  P\(skill matters more than decks\) = {_NUMBER} \(prior alone: {_NUMBER}, "
        r"balanced prior\)",
        lines[start + 3],
    )
    want = [spreads.attrs["p_skill_matters_more"], spreads.attrs["prior_p_skill_matters_more"]]
    np.testing.assert_allclose([float(v) for v in found.groups()], want, atol=5e-3 + 1e-12)
    in_sample = brier_score(data.y, clf.predict_proba(data.X)[:, 1])
    assert lines[-2] == "Brier score (lower is better; a coin flip scores 0.250):"
    assert lines[-1] == f"  in-sample ({len(data.y)} matches) {in_sample:.3f}"
    assert "Open" not in text and "Writing" not in text


def test_every_option_is_in_the_reference_page():
    """docs/command-line.md says what each command and option is, in the parser's words."""
    import argparse

    page = (Path(__file__).parents[1] / "docs" / "command-line.md").read_text(encoding="utf-8")
    parser = build_parser()
    assert parser.description in page
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help for a in sub._choices_actions}
    assert list(sub.choices) == ["fit", "predict", "demo", "simulate", "advise"]
    for name, command in sub.choices.items():
        section = page.split(f"## `skcodex {name}`")[1].split("\n## ")[0]
        assert f"*{helps[name]}*" in section and command.description in section
        rows = [line for line in section.splitlines() if line.startswith("| `")]
        actions = [a for a in command._actions if not isinstance(a, argparse._HelpAction)]
        assert len(rows) == len(actions), name
        for row, action in zip(rows, actions, strict=True):
            flag = action.option_strings[0] if action.option_strings else action.metavar
            required = " (required)" if action.required and action.option_strings else ""
            # a help text made when shown (the stages of --format) is a function
            words = action.help() if callable(action.help) else action.help
            if not action.option_strings:
                shown = action.metavar
            elif action.nargs == 0:
                shown = flag
            elif action.choices:
                shown = f"{flag} {{{','.join(action.choices)}}}"
            else:
                shown = f"{flag} {action.metavar or action.dest.upper()}"
            assert row == f"| `{shown}` | {words}{required} |"


# -- what the command reads: devices, pipes, encodings, the line of a bad cell -----------


def test_a_device_is_refused_before_any_read(tmp_path, capsys):
    code, _, err = run(["fit", "/dev/zero", "--out", tmp_path / "o", *FAST], capsys)
    assert_one_line_error(code, err, "/dev/zero is not a regular file, a folder or a pipe")
    assert not (tmp_path / "o").exists()


def test_a_pipe_is_read_once(match_csv, tmp_path):
    import os
    import threading

    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(match_csv.read_bytes()))
    writer.start()
    X, y, catalogue = read_matches(fifo)
    writer.join()
    want_X, want_y, want_catalogue = read_matches(match_csv)
    pd.testing.assert_frame_equal(X, want_X)
    assert np.array_equal(y, want_y) and catalogue == want_catalogue


@pytest.mark.parametrize("how", ["a pipe", "a redirected file"])
def test_dev_stdin_is_read_once(match_csv, how):
    import os
    import subprocess
    import sys

    code = (
        "from skcodex.cli import read_matches\n"
        "X, y, _ = read_matches('/dev/stdin')\n"
        "print(len(X), int(y.sum()))"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    if how == "a pipe":
        done = subprocess.run(
            [sys.executable, "-c", code],
            input=match_csv.read_bytes(),
            capture_output=True,
            env=env,
            timeout=120,
        )
    else:
        with open(match_csv, "rb") as stdin:
            done = subprocess.run(
                [sys.executable, "-c", code],
                stdin=stdin,
                capture_output=True,
                env=env,
                timeout=120,
            )
    X, y, _ = read_matches(match_csv)
    assert done.stdout.decode().split() == [str(len(X)), str(int(y.sum()))], done.stderr


def test_a_latin1_csv_names_the_file_the_line_and_the_remedy(tmp_path, capsys):
    path = tmp_path / "latin.csv"
    path.write_bytes(
        "player1,player2,deck1,deck2,y\nann,bob,MonoRed,MonoBlue,1\nZoë,bob,MonoRed,MonoBlue,0\n".encode(
            "latin-1"
        )
    )
    code, _, err = run(["fit", path, "--out", tmp_path / "o", *FAST], capsys)
    assert_one_line_error(
        code,
        err,
        r"latin\.csv: line 3 is not UTF-8 text \(byte 0xeb at byte 3 of the line; .*Latin-1.*"
        r"\): save it as UTF-8",
    )


@pytest.mark.parametrize(
    ("column", "value", "what"),
    [
        ("player1", "\u200b", "player name at row 3"),
        ("player2", "   ", "player name at row 3"),
        ("deck1", "[Anarchy/Bloood]", "deck1"),
        ("deck2", "Lawx", "deck2"),
        ("period", None, "period"),
        ("y", 7, "column 'y' holds 7"),
        ("winner", "nobody", "column 'winner' names 'nobody'"),
    ],
)
def test_a_bad_cell_is_reported_at_its_line_in_the_file(
    tmp_path, small_matches, capsys, column, value, what
):
    """Row 3 of the table is line 5 of the file (line 1 is the header), whatever the column."""
    X, y = small_matches.X, small_matches.y
    table = (
        X.assign(y=y)
        if column != "winner"
        else X.assign(winner=np.where(y == 1, X["player1"], X["player2"]))
    )
    table[column] = table[column].astype(object)
    table.loc[3, column] = value
    path = tmp_path / "m.csv"
    table.to_csv(path, index=False)
    code, _, err = run(["fit", path, "--out", tmp_path / "o", *FAST], capsys)
    assert_one_line_error(code, err, re.escape(what))
    assert "line 5" in err and "line 4" not in err and "line 6" not in err, err


# -- the output folder: links, mount points, SIGTERM, --decks ----------------------------


def _no_fit(monkeypatch):
    import skcodex.cli._commands as cli

    def no_fit(*args, **kwargs):
        raise AssertionError("the fit must not start")

    monkeypatch.setattr(cli, "_fit", no_fit)


@pytest.mark.parametrize("target", ["a folder", "nothing (dangling)"])
def test_out_as_a_symbolic_link_is_refused_before_the_fit(
    match_csv, tmp_path, capsys, monkeypatch, target
):
    _no_fit(monkeypatch)
    real = tmp_path / "real"
    if target == "a folder":
        real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    code, _, err = run(["fit", match_csv, "--out", link, *FAST], capsys)
    assert_one_line_error(code, err, "--out .*link is a symbolic link")
    assert link.is_symlink() and link.readlink() == real
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["link", *(["real"] if target == "a folder" else [])]
    )


def test_a_misspelt_decks_is_refused_before_the_fit(match_csv, tmp_path, capsys, monkeypatch):
    _no_fit(monkeypatch)
    argv = ["fit", match_csv, "--out", tmp_path / "o", "--decks", "MonoRed,[Anarchy/Bloood]"]
    code, _, err = run([*argv, *FAST], capsys)
    assert_one_line_error(code, err, "--decks: .*Bloood")
    assert not (tmp_path / "o").exists()


def test_out_on_a_mount_point_is_updated_in_place(tmp_path, monkeypatch):
    """A folder that cannot be renamed (EBUSY) gets the new outputs copied in, file by file."""
    import errno
    import os

    import skcodex.cli._output as output

    out = tmp_path / "out"
    out.mkdir()
    (out / MODEL_FILE).write_text("old model")
    (out / "nash.csv").write_text("old, not written by the new run")
    staging = output.prepare_output(out)
    (staging / MODEL_FILE).write_text("new model")
    (staging / "report.html").write_text("new page")
    real_replace = os.replace

    def busy(src, dst):
        if Path(src) == out:
            raise OSError(errno.EBUSY, "Device or resource busy", str(src))
        return real_replace(src, dst)

    monkeypatch.setattr(output.os, "replace", busy)
    output.publish_output(staging, out)
    assert {p.name: p.read_text() for p in out.iterdir()} == {
        MODEL_FILE: "new model",
        "report.html": "new page",
    }


@pytest.mark.parametrize("when", ["once the staging folder exists", "while fitting"])
def test_sigterm_during_fit_leaves_no_staging_folder(match_csv, tmp_path, when):
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "out"
    env = {
        **os.environ,
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
        "PYTHONUNBUFFERED": "1",
    }
    argv = [sys.executable, "-m", "skcodex.cli", "fit", str(match_csv), "--out", str(out)]
    proc = subprocess.Popen(
        [*argv, *FAST], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob(".out.*.partial")):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    if when == "while fitting":
        while "Fitting" not in proc.stdout.readline():
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    assert "skcodex: terminated" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


# -- names typed on the command line ---------------------------------------------------


@pytest.mark.parametrize("typed", [" player01 ", "player01\u200b", "\ufeffplayer01\u00ad"])
def test_predict_reads_names_as_the_table_does(known_model, capsys, typed):
    model, truth = known_model
    plain = _predict(model, "player01", "player02", capsys)
    out = _predict(model, typed, "player02", capsys)
    assert "not in the fitted matches" not in out
    assert _printed(out) == _printed(plain)
    assert _printed(out)[0] == pytest.approx(truth("player01", "player02").mean(), abs=5e-4)


# -- the debut option and the skill walk from the command line ------------------------------


def test_fit_with_debut_and_walk_reports_the_model_it_fitted(match_csv, tmp_path, capsys):
    import skcodex

    out = tmp_path / "walk"
    argv = ["fit", match_csv, "--out", out, "--debut", "--time-varying", "--no-holdout", *FAST]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    clf = skcodex.load(out / MODEL_FILE)
    assert clf.layout_.options.debut and clf.layout_.options.time_varying
    assert "debut_deck_factor" in clf.idata_.posterior
    assert "time_varying, debut" in (out / "report.html").read_text(encoding="utf-8")


def test_a_walk_without_periods_is_refused_naming_the_period_column(match_csv, tmp_path, capsys):
    no_periods = tmp_path / "no_periods.csv"
    pd.read_csv(match_csv).drop(columns=["period", "date"], errors="ignore").to_csv(
        no_periods, index=False
    )
    code, _, err = run(
        ["fit", no_periods, "--out", tmp_path / "o", "--time-varying", "--no-holdout", *FAST],
        capsys,
    )
    assert_one_line_error(code, err, r"time_varying=True needs a 'period' column")
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


# -- a symmetric game's words --------------------------------------------------------------

#: Words about turns: who moves first, turn order. The option names ``--first-move`` are
#: taken out before the search (their help says what they do in other words).
_TURN_WORDS = re.compile(r"\bturns?\b|\bmov(e|es|ed|ing)\b|\bfirst[- ]mover?\b", re.IGNORECASE)


def _turn_wording(text):
    return _TURN_WORDS.findall(text.replace("--first-move", "--OPTION"))


@pytest.mark.parametrize("command", [[], ["fit"], ["predict"], ["demo"], ["simulate"], ["advise"]])
def test_no_help_speaks_of_turns(command, capsys):
    """A symmetric game's user reads every command's help without being told of turns."""
    code, text, err = run([*command, "--help"], capsys)
    assert code == 0, err
    assert "usage: skcodex" in text
    assert _turn_wording(text) == [], text


def test_a_symmetric_fit_prints_no_turn_wording(tmp_path, capsys):
    from skcodex.datasets import make_game_matches

    data = make_game_matches(
        n_players=12, n_matches=200, n_tournaments=4, starters=5, symmetric=True, random_state=2
    )
    csv = tmp_path / "game.csv"
    winner = np.where(data.y == 1, data.X["player1"], data.X["player2"])
    data.X.assign(winner=winner).to_csv(csv, index=False)
    out = tmp_path / "model"
    code, text, err = run(["fit", csv, "--out", out, "--symmetric", *FAST], capsys)
    assert code == 0, err
    assert "held-out (tournament " in text and "Top 10 players" in text
    row = data.X.iloc[0]
    argv = ["predict", out, "--p1", row["player1"], "--deck1", row["deck1"]]
    code, said, err = run([*argv, "--p2", row["player2"], "--deck2", row["deck2"]], capsys)
    assert code == 0, err
    assert _turn_wording(text + err + said) == [], text + said


def test_version(capsys):
    import skcodex

    code, text, _ = run(["--version"], capsys)
    assert code == 0 and text == f"skcodex {skcodex.__version__}\n"


# -- predict's quick path ------------------------------------------------------------------


@pytest.fixture(scope="module")
def walk_model(small_matches, tmp_path_factory):
    """A model with the skill walk and the debut option, saved as the command saves it."""
    import warnings

    from skcodex import BayesianMatchupClassifier
    from skcodex.cli import save_model

    clf = BayesianMatchupClassifier(
        draws=60, tune=60, chains=2, progressbar=False, random_state=1,
        time_varying=True, debut=True,
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(small_matches.X, small_matches.y)
    out = tmp_path_factory.mktemp("walk")
    save_model(clf, out)
    return out


@pytest.mark.parametrize("which", ["fitted_dir", "walk_model"])
def test_predict_quick_path_gives_the_estimators_numbers(which, request, small_matches):
    """The quick path's draws are predict_proba_draws', bit for bit up to rounding."""
    from skcodex.analysis import match_forecast
    from skcodex.cli._quick import quick_forecast, quick_probability_draws, read_quick_model

    folder = request.getfixturevalue(which)
    quick = read_quick_model(folder / MODEL_FILE)
    assert quick is not None
    clf = load_model(folder)
    table = small_matches.X.iloc[::37][["player1", "player2", "deck1", "deck2"]]
    table = table.reset_index(drop=True)
    np.testing.assert_allclose(
        quick_probability_draws(quick, table), clf.predict_proba_draws(table), atol=1e-12
    )
    want = match_forecast(clf, table.iloc[:1], 0.8).iloc[0]
    got = quick_forecast(quick, table.iloc[:1], 0.8)
    np.testing.assert_allclose(got, want[["mean", "lower", "upper"]].to_numpy(float), atol=1e-12)
    # a never-seen player or deck part: the estimator's own way
    new = table.iloc[:1].assign(player1="newcomer")
    assert quick_probability_draws(quick, new) is None


def test_predict_reads_no_estimator_for_a_seen_match(fitted_dir, small_matches, monkeypatch):
    """One forecast between seen players imports neither scikit-learn, ArviZ nor xarray."""
    import subprocess
    import sys

    row = small_matches.X.iloc[0]
    code = (
        "import sys; from skcodex.cli import main; "
        f"main(['predict', {str(fitted_dir)!r}, '--p1', {row['player1']!r}, '--deck1', "
        f"{row['deck1']!r}, '--p2', {row['player2']!r}, '--deck2', {row['deck2']!r}]); "
        "print(sorted(m for m in ('sklearn', 'arviz', 'xarray', 'pymc', 'pytensor', 'scipy', "
        "'matplotlib', 'dask') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"P({row['player1']} with ")
    assert lines[-1] == "[]", done.stdout


# -- predict --best-of ------------------------------------------------------------------


def test_predict_best_of_prints_the_python_apis_set_chance(fitted_dir, capsys):
    from skcodex.tournament import predict_series

    clf = load_model(fitted_dir)
    a, b = clf.vocabulary_.players[0], clf.vocabulary_.players[7]
    decks = ["MonoRed;MonoBlue", "[Demonology]/Anarchy/Law"]
    argv = ["predict", fitted_dir, "--p1", a, "--deck1", decks[0], "--p2", b]
    argv += ["--deck2", decks[1], "--best-of", "5", "--series-rule", "loser may switch"]
    argv += ["--set-order", "loser", "--interval", "0.8"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert "in a best-of-5 set) = " in out
    assert "set: loser may switch, decks picked: best;" in out
    X = pd.DataFrame({"player1": [a], "player2": [b], "deck1": [decks[0]], "deck2": [decks[1]]})
    want = predict_series(
        clf, X, 5, rule="loser may switch", first_move="loser", interval=0.8
    ).iloc[0]
    expected = want[["mean", "lower", "upper"]].to_numpy(dtype=float)
    np.testing.assert_allclose(_printed(out), expected, atol=5e-4 + 1e-12)


def test_predict_best_of_one_equals_the_single_game(fitted_dir, small_matches, capsys):
    row = small_matches.X.iloc[0]
    argv = ["predict", fitted_dir, "--p1", row["player1"], "--deck1", row["deck1"]]
    argv += ["--p2", row["player2"], "--deck2", row["deck2"]]
    code, single, _ = run(argv, capsys)
    assert code == 0
    code, fixed_three, _ = run([*argv, "--best-of", "3"], capsys)
    assert code == 0
    p, _, _ = _printed(single)
    assert "one game alone: " in fixed_three
    alone = float(re.search(r"one game alone: ([0-9.]+)", fixed_three).group(1))
    assert alone == pytest.approx(p, abs=1e-3)


@pytest.mark.parametrize(
    ("extra", "pattern"),
    [
        (["--best-of", "4"], "odd number of games"),
        (["--best-of", "0"], "--best-of"),
        (["--series-rule", "loser switches"], "invalid choice"),
        (["--deck1", "MonoRed;MonoBlue"], "give --best-of N"),
        (["--best-of", "3", "--series-rule", "winner may not repeat"], "at least two decks"),
        (["--best-of", "3", "--deck1", "MonoRed;Nonsense"], "--deck1"),
    ],
)
def test_predict_best_of_bad_options(fitted_dir, capsys, extra, pattern):
    clf = load_model(fitted_dir)
    a, b = clf.vocabulary_.players[0], clf.vocabulary_.players[7]
    argv = ["predict", fitted_dir, "--p1", a, "--deck1", "MonoRed", "--p2", b]
    argv += ["--deck2", "MonoBlue"]
    code, _, err = run([*argv, *extra], capsys)
    assert_one_line_error(code, err, pattern)


def test_predict_set_choices_are_the_tournament_packages():
    from skcodex.cli import _parser as cli_parser
    from skcodex.tournament import (
        SERIES_DRAW_RULES,
        SERIES_FIRST_MOVES,
        SERIES_PICKS,
        SERIES_RULES,
    )

    assert cli_parser.SERIES_RULES == SERIES_RULES
    assert cli_parser.SERIES_PICKS == SERIES_PICKS
    assert cli_parser.SERIES_FIRST_MOVES == SERIES_FIRST_MOVES
    assert cli_parser.SERIES_DRAW_RULES == SERIES_DRAW_RULES


def test_match_counts_read_as_english():
    from skcodex.cli._commands import _matches

    assert [_matches(n) for n in (1, 2, 2000)] == ["1 match", "2 matches", "2,000 matches"]


def test_a_sigterm_whose_raise_was_swallowed_still_stops_before_publishing(tmp_path):
    import os
    import signal

    from skcodex.cli import _output as output
    from skcodex.cli._errors import Terminated

    staging, out = tmp_path / "staging", tmp_path / "out"
    staging.mkdir()
    (staging / MODEL_FILE).write_text("model")
    with pytest.raises(Terminated), output.sigterm_unwinds():
        try:  # as a C callback does: the handler's exception is dropped there
            os.kill(os.getpid(), signal.SIGTERM)
        except Terminated:
            pass
        output.publish_output(staging, out)
    assert not out.exists()
    output.publish_output(staging, out)  # outside the block the flag is gone
    assert (out / MODEL_FILE).read_text() == "model"
