"""The ``skcodex`` command: fit, predict and demo, and one-line errors."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from skcodex.cli import MODEL_FILE, build_parser, load_model, main, read_matches
from skcodex.report import CSV_FILES

FIXTURES = Path(__file__).parent / "fixtures"
FAST = ["--draws", "100", "--chains", "2", "--no-progress", "--nash-draws", "10"]


def run(argv, capsys):
    """Run the command in-process; return (exit status, stdout, stderr)."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


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
    code = main(["fit", str(match_csv), "--out", str(out), "--no-holdout", *FAST])
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
    assert "newcomer was not in the fitted matches" in out
    assert "50% interval" in out


def test_demo_prints_results_and_writes_the_report(tmp_path, capsys):
    out = tmp_path / "demo"
    code, text, err = run(
        ["demo", "--players", 30, "--matches", 400, "--top", 3, "--out", out, *FAST], capsys
    )
    assert code == 0, err
    assert "Top 3 players" in text
    assert "P(skill matters more than decks)" in text
    assert re.search(r"held-out \(tournament T8\) 0\.\d{3}", text)
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "Crosses mark the true skills" in page
    assert "tournament T8" in page
    assert (out / MODEL_FILE).exists()


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
        (["fit", "m.csv", "--out", "o", "--frobnicate"], "unrecognized arguments: --frobnicate"),
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
    assert_one_line_error(code, err, "row 2 names the winner 'nobody'")


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

    import skcodex.cli.commands as cli
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
    code, _, err = run(["fit", match_csv, "--out", out, "--no-holdout", *FAST], capsys)
    assert code == 130 and "interrupted" in err
    assert _snapshot(out) == before  # the old model and the old report, together
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no staging folder left


def test_completed_fit_replaces_the_outputs_as_a_whole(
    fitted_dir, match_csv, tmp_path, capsys, monkeypatch
):
    import shutil

    import skcodex.cli.commands as cli
    import skcodex.report as report

    out = tmp_path / "out"
    shutil.copytree(fitted_dir, out)
    (out / "stale.csv").write_text("from an older run")
    clf = load_model(out)
    monkeypatch.setattr(cli, "_fit", lambda *args, **kwargs: clf)

    def quick(clf, X, y, folder, **kwargs):
        (Path(folder) / "report.html").write_text("new report")
        return Path(folder) / "report.html"

    monkeypatch.setattr(report, "write_report", quick)
    code, _, _ = run(["fit", match_csv, "--out", out, "--no-holdout", *FAST], capsys)
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == [MODEL_FILE, "report.html"]
    assert (out / "report.html").read_text() == "new report"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


@pytest.mark.parametrize("case", ["a file", "foreign files", "unwritable parent"])
def test_out_is_checked_before_the_fit(match_csv, tmp_path, capsys, monkeypatch, case):
    import os

    import skcodex.cli.commands as cli

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
