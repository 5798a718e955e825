"""No file the user has is lost: ``skcodex`` run in a fresh process, as a user runs it.

Each command replaces only what it writes itself, never an input, never a folder
named like one of its outputs, never the shell's working folder, and ``fit`` never
replaces an earlier model unless asked to.
"""

import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from command_process import skcodex  # isort: skip

from skcodex.cli import MODEL_FILE

ROOT = Path(__file__).resolve().parents[1]


def one_line_error(code, err, *words):
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for word in words:
        assert word in lines[0], lines[0]


def snapshot(folder):
    """Every file and folder under ``folder`` with its bytes (None for a folder)."""
    return {
        p.relative_to(folder): (None if p.is_dir() else p.read_bytes())
        for p in sorted(Path(folder).rglob("*"))
    }


@pytest.fixture(scope="module")
def fit_folder(small_matches, tmp_path_factory):
    """A folder as ``skcodex fit --out`` leaves it: the model, its page and a table."""
    from skcodex import BayesianMatchupClassifier
    from skcodex.cli import save_model

    clf = BayesianMatchupClassifier(
        draws=20, tune=20, chains=1, random_state=0, time_varying=False, debut=False
    )
    clf.fit(small_matches.X, small_matches.y)
    out = tmp_path_factory.mktemp("fitted") / "model"
    out.mkdir()
    save_model(clf, out)
    (out / "report.html").write_text("<p>the fit's report</p>")
    (out / "skills.csv").write_text("player,skill\nplayer01,0.1\n")
    return out


@pytest.fixture()
def work(fit_folder, tmp_path):
    """A working folder: the fitted model, an entrants file and a results file."""
    model = tmp_path / "model"
    shutil.copytree(fit_folder, model)
    entrants = tmp_path / "entrants.csv"
    players = ["player01", "player02", "player03", "player04"]
    pd.DataFrame({"player": players, "deck": ["MonoRed"] * 4}).to_csv(entrants, index=False)
    results = tmp_path / "results.csv"
    pd.DataFrame(
        {"round": [1], "player1": ["player01"], "player2": ["player04"], "winner": ["player01"]}
    ).to_csv(results, index=False)
    return tmp_path, model, entrants, results


def simulate_argv(model, entrants, *extra):
    fixed = ["simulate", model, "--entrants", entrants, "--format", "knockout"]
    return [*fixed, "--simulations", 200, *extra]


@pytest.mark.parametrize("flag", ["--table", "--plot"])
@pytest.mark.parametrize(
    "target", ["entrants", "results", "model file", "model folder's file", "a hard link"]
)
def test_table_or_plot_on_an_input_is_refused(work, flag, target):
    root, model, entrants, results = work
    if target == "a hard link":  # another name of the entrants file
        os.link(entrants, root / "same.csv")
    path = {
        "entrants": entrants,
        "results": results,
        "model file": model / MODEL_FILE,
        "model folder's file": Path(os.path.relpath(model / MODEL_FILE, root)),
        "a hard link": root / "same.csv",
    }[target]
    argv = simulate_argv(model, entrants, "--results", results, flag, path)
    if target == "model file":  # the model given as its file
        argv[1] = model / MODEL_FILE
    before = snapshot(root)
    code, out, err = skcodex(*argv, cwd=root)
    one_line_error(code, err, flag, "is the input")
    assert out == "" and snapshot(root) == before


def test_table_and_plot_on_one_file_is_refused(work):
    root, model, entrants, _ = work
    code, _, err = skcodex(*simulate_argv(model, entrants, "--table", "x", "--plot", "x"), cwd=root)
    one_line_error(code, err, "same file")
    assert not (root / "x").exists()


def test_table_inside_a_subfolder_of_out_is_refused(work):
    root, model, entrants, _ = work
    cup = root / "cup"
    (cup / "old").mkdir(parents=True)
    for flag in ("--table", "--plot"):
        target = cup / "old" / "forecast.csv"
        argv = simulate_argv(model, entrants, "--out", cup, flag, target)
        code, _, err = skcodex(*argv, cwd=root)
        one_line_error(code, err, flag, "is inside --out")
        argv = simulate_argv(model, entrants, "--out", cup, flag, cup)
        code, _, err = skcodex(*argv, cwd=root)
        one_line_error(code, err, flag, "is inside --out")
    assert snapshot(cup) == {Path("old"): None}


def test_simulate_never_replaces_a_fit_folder(work):
    root, model, entrants, _ = work
    before = snapshot(root)
    code, _, err = skcodex(*simulate_argv(model / MODEL_FILE, entrants, "--out", model), cwd=root)
    one_line_error(code, err, "--out", "would replace the input")
    # the fit's folder as the output of a simulation of another model
    other = root / "other"
    shutil.copytree(model, other)
    before = snapshot(root)
    code, _, err = skcodex(*simulate_argv(model, entrants, "--out", other), cwd=root)
    one_line_error(code, err, "did not write", MODEL_FILE)
    assert snapshot(root) == before


@pytest.mark.parametrize("command", ["fit", "simulate"])
def test_a_folder_named_like_an_output_is_never_deleted(work, small_matches, command):
    root, model, entrants, _ = work
    out = root / "out"
    name = "skills.csv" if command == "fit" else "tournament_forecast.csv"
    (out / name).mkdir(parents=True)
    (out / name / "notes.txt").write_text("my notes")
    (out / "report.html").write_text("an earlier page")
    before = snapshot(root)
    if command == "fit":
        table = root / "matches.csv"
        X, y = small_matches.X, small_matches.y
        X.assign(y=y).to_csv(table, index=False)
        before = snapshot(root)
        code, _, err = skcodex("fit", table, "--out", out, "--no-holdout", cwd=root)
    else:
        code, _, err = skcodex(*simulate_argv(model, entrants, "--out", out), cwd=root)
    one_line_error(code, err, "did not write", name)
    assert snapshot(root) == before


def test_out_as_the_working_folder_stays_where_it_is(work):
    root = work[0]
    results = root / "results"
    results.mkdir()
    inode = results.stat().st_ino
    argv = simulate_argv(Path("..") / "model", Path("..") / "entrants.csv", "--out", ".")
    for _ in range(2):  # a second identical command works too
        code, _, err = skcodex(*argv, cwd=results)
        assert code == 0, err
        assert results.stat().st_ino == inode  # the same folder, not a new one in its place
        assert (results / "report.html").is_file()
    assert [p.name for p in root.iterdir() if p.name.startswith(".")] == []


def test_a_second_fit_keeps_the_first_model(work, small_matches):
    root, model, _, _ = work
    table = root / "matches.csv"
    small_matches.X.assign(y=small_matches.y).to_csv(table, index=False)
    before = snapshot(root)
    code, _, err = skcodex("fit", table, "--out", model, "--no-holdout", cwd=root)
    one_line_error(code, err, "already holds a fitted model", "--replace")
    assert snapshot(root) == before


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"--entrants": "/dev/zero"}, ["/dev/zero", "device"]),
        ({"--results": "/dev/zero"}, ["/dev/zero", "device"]),
        ({"--format": "losses:1000000000"}, ["losses", "1,000"]),
        ({"--format": "swiss:1000000000"}, ["Swiss rounds", "1,000"]),
        ({"--format": "round-robin:100000000"}, ["legs", "1,000"]),
        ({"--simulations": "10000000000"}, ["at most 10,000,000"]),
    ],
)
def test_simulate_refuses_endless_work_at_once(work, change, words):
    root, model, entrants, _ = work
    argv = simulate_argv(model, entrants)
    for flag, value in change.items():
        if flag in argv:
            argv[argv.index(flag) + 1] = value
        else:
            argv += [flag, value]
    code, out, err = skcodex(*argv, cwd=root)
    one_line_error(code, err, *words)
    assert out == ""


@pytest.mark.parametrize(
    ("round_", "words"),
    [
        ("abc", ["results row 2 (line 3 of the file)", "'abc' is not a number"]),
        ("1e300", ["results row 2", "whole number from 1 to 1,000,000", "1e+300"]),
        ("99999999999999999999", ["results row 2", "whole number from 1 to 1,000,000"]),
    ],
)
def test_a_results_file_with_a_bad_round_is_one_line(work, round_, words):
    root, model, entrants, results = work
    results.write_text(
        "round,player1,player2,winner\n1,player01,player04,player01\n"
        f"{round_},player02,player03,player02\n"
    )
    code, _, err = skcodex(*simulate_argv(model, entrants, "--results", results), cwd=root)
    one_line_error(code, err, *words)
