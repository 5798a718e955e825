"""Names from files never reach the terminal as control sequences: ``skcodex`` in a new process.

An entrants file, a results file or a match table someone posts can hold escape
sequences in its names: OSC 52 sets the clipboard, OSC 0 retitles the window, a
cursor-up and erase-line overwrites a printed row with a fake one. Whatever the
command prints (tables, labels, errors, warnings) shows them escaped.
"""

import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from command_process import skcodex  # isort: skip

ROOT = Path(__file__).resolve().parents[1]

#: Names that act on a terminal printed raw.
HOSTILE = [
    "\x1b]52;c;ZWNobyBwd25lZA==\x07clip",  # OSC 52: set the clipboard
    "\x1b]0;owned\x07title",  # OSC 0: retitle the window
    "fake\x1b[1A\x1b[2K  player01   0.999",  # cursor up, erase the line, print a fake row
    "bell\x07\x08\x08over\x1bc\x9b2J",  # bell, backspaces, reset, C1 erase screen
]

#: Characters no output may hold (the line feed ends lines; nothing else of C0 or C1).
CONTROL = [chr(c) for c in range(32) if c != 10] + [chr(c) for c in range(0x7F, 0xA0)]


def assert_clean(text):
    found = sorted({repr(c) for c in CONTROL if c in text})
    assert not found, (found, text)


@pytest.fixture(scope="module")
def model(small_matches, tmp_path_factory):
    from skcodex import BayesianMatchupClassifier
    from skcodex.cli import save_model

    clf = BayesianMatchupClassifier(
        draws=20, tune=20, chains=1, random_state=0, time_varying=False, debut=False
    )
    clf.fit(small_matches.X, small_matches.y)
    out = tmp_path_factory.mktemp("model")
    save_model(clf, out)
    return out


def test_simulate_prints_hostile_entrant_names_escaped(model, tmp_path):
    entrants = tmp_path / "entrants.csv"
    names = [*HOSTILE, "player01", "player02", "player03", "player04"]
    pd.DataFrame({"player": names, "deck": ["MonoRed"] * len(names)}).to_csv(entrants, index=False)
    argv = ["simulate", model, "--entrants", entrants, "--format", "knockout"]
    code, out, err = skcodex(*argv, "--simulations", 500)
    assert code == 0, err
    assert_clean(out)
    assert_clean(err)
    assert "\\x1b]52;c;ZWNobyBwd25lZA==\\x07clip" in out  # shown, escaped
    assert "fake\\x1b[1A\\x1b[2K" in out


def test_errors_and_paths_print_hostile_names_escaped(model, tmp_path):
    entrants = tmp_path / "entrants.csv"
    pd.DataFrame({"player": ["player01", "player02"], "deck": ["MonoRed"] * 2}).to_csv(
        entrants, index=False
    )
    results = tmp_path / "results.csv"
    pd.DataFrame(
        {"round": [1], "player1": [HOSTILE[0]], "player2": ["player01"], "winner": ["player01"]}
    ).to_csv(results, index=False)
    argv = ["simulate", model, "--entrants", entrants, "--format", "knockout"]
    code, out, err = skcodex(*argv, "--results", results)
    assert code == 2 and out == ""
    assert_clean(err)
    assert "is not an entrant" in err and "\\x1b]52" in err
    # a path or a value typed on the command line, in an argument error
    code, _, err = skcodex(*argv, "--simulations", "\x1b]0;x\x07")
    assert code == 2
    assert_clean(err)
    table = tmp_path / "t\x1b[2Kx.csv"
    code, out, err = skcodex(*argv, "--simulations", 100, "--table", table)
    assert code == 0, err
    assert_clean(out)
    assert "t\\x1b[2Kx.csv" in out


def test_fit_prints_the_held_out_tournaments_escaped(small_matches, tmp_path):
    X = small_matches.X.copy()
    periods = sorted(X["period"].unique())
    X["period"] = X["period"].replace({periods[-1]: "\x1b]0;owned\x07" + str(periods[-1])})
    table = tmp_path / "matches.csv"
    X.assign(y=small_matches.y).to_csv(table, index=False)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    argv = [sys.executable, "-m", "skcodex.cli", "fit", str(table), "--out", str(tmp_path / "o")]
    proc = subprocess.Popen(
        [*argv, "--no-progress"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 120
    lines = []
    try:
        # The label is printed before the held-out fit starts: read up to it, then stop.
        while not any(line.startswith("Holding out") for line in lines):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            lines.append(proc.stdout.readline())
    finally:
        proc.kill()
        proc.communicate()
    printed = "".join(lines)
    assert_clean(printed)
    assert "\\x1b]0;owned\\x07" in printed
