"""``skcodex advise``: candidates ranked from a saved model, as the Python function ranks them."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

from skcodex.cli import load_model

from command_process import in_process as run  # isort: skip


@pytest.fixture(scope="module")
def model(small_matches, tmp_path_factory):
    from skcodex import BayesianMatchupClassifier
    from skcodex.cli import save_model

    clf = BayesianMatchupClassifier(draws=40, tune=40, chains=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # a short chain
        clf.fit(small_matches.X, small_matches.y)
    out = tmp_path_factory.mktemp("model")
    save_model(clf, out)
    return out


def _csv(path, **columns):
    pd.DataFrame(columns).to_csv(path, index=False)
    return path


def test_advise_prints_and_writes_the_functions_table(model, tmp_path, capsys):
    from skcodex.analysis import deck_advice

    field = _csv(
        tmp_path / "field.csv",
        player=["player02", "player03", "someone new"],
        deck=["MonoRed", "[Demonology]/Anarchy/Law", "MonoBlue"],
    )
    table, page = tmp_path / "advice.csv", tmp_path / "advice.html"
    argv = ["advise", model, "--player", "player01", "--candidates", "MonoBlack,MonoGreen"]
    argv += ["--field", field, "--format", "round-robin", "--simulations", 400, "--table", table]
    argv += ["--html", page]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert "'someone new' was not in the fitted matches" in out
    assert "P(win event)" in out and "Bring " in out
    written = pd.read_csv(table)
    expected = deck_advice(
        load_model(model), "player01", ["MonoBlack", "MonoGreen"],
        pd.read_csv(field, dtype=object), format="round-robin", n_simulations=400,
        random_state=0,
    )  # fmt: skip
    assert list(written["deck"]) == list(expected["deck"])
    for column in ("win_rate", "win_rate_lower", "p_best_win_rate", "p_event", "p_best_event"):
        np.testing.assert_allclose(written[column], expected[column], rtol=1e-9)
    assert f"Bring {expected['deck'].iloc[0]}." in out
    html = page.read_text(encoding="utf-8")
    assert f"Bring <strong>{expected['deck'].iloc[0]}</strong>" in html
    assert f"<td>{expected['win_rate'].iloc[0]:.3f}</td>" in html
    assert "<script" not in html


def test_the_html_page_escapes_names(model, tmp_path, capsys):
    field = _csv(tmp_path / "field.csv", player=["<b>x</b>"], deck=["MonoRed"])
    page = tmp_path / "advice.html"
    argv = ["advise", model, "--player", "<script>p</script>", "--candidates", "MonoBlack"]
    code, _, err = run([*argv, "--field", field, "--html", page, "--title", "<i>T</i>"], capsys)
    assert code == 0, err
    html = page.read_text(encoding="utf-8")
    assert "<script>" not in html and "&lt;script&gt;p&lt;/script&gt;" in html
    assert "<i>T</i>" not in html


def test_table_and_html_must_be_different_files(model, tmp_path, capsys):
    field = _csv(tmp_path / "field.csv", player=["player02"], deck=["MonoRed"])
    same = tmp_path / "out.csv"
    argv = ["advise", model, "--player", "player01", "--candidates", "MonoBlack"]
    code, _, err = run([*argv, "--field", field, "--table", same, "--html", same], capsys)
    assert code == 2 and "--table and --html name the same file" in err
    code, _, err = run([*argv, "--field", field, "--html", field], capsys)
    assert code == 2 and "is the input" in err


def test_advise_against_shares_without_a_format(model, tmp_path, capsys):
    field = _csv(tmp_path / "shares.csv", deck=["MonoRed", "MonoBlue"], share=[0.75, 0.25])
    argv = ["advise", model, "--player", "player05", "--candidates", "MonoBlack, MonoWhite"]
    code, out, err = run([*argv, "--field", field], capsys)
    assert code == 0, err
    assert "against a field of shares of decks" in out and "P(win event)" not in out


@pytest.mark.parametrize(
    "field, extra, message",
    [
        ({"who": ["a"]}, [], "needs a deck column"),
        ({"player": ["player01"], "deck": ["MonoRed"]}, [], "the player being advised"),
        ({"deck": ["MonoRed", "MonoBlue"], "share": [0.5, 0.4]}, [], "sum to 0.9"),
        ({"deck": ["MonoRed"], "share": [1.0]}, ["--format", "swiss:3"], "--entrants"),
        ({"player": ["player02"], "deck": ["MonoRed"]}, ["--candidates", "[Nope]/A/B"], "Nope"),
        ({"player": ["player02"], "deck": ["MonoRed"]}, ["--format", "swiss:x"], "swiss"),
    ],
)
def test_advise_errors_are_one_line(model, tmp_path, capsys, field, extra, message):
    path = _csv(tmp_path / "field.csv", **field)
    argv = ["advise", model, "--player", "player01", "--candidates", "MonoBlack", "--field", path]
    code, _, err = run([*argv, *extra], capsys)
    assert code == 2
    assert err.startswith("skcodex: error:") and err.count("\n") == 1, err
    assert message in err


def test_advise_entrants_option_maps_to_n_entrants(model, tmp_path, capsys):
    field = _csv(tmp_path / "shares.csv", deck=["MonoRed", "MonoBlue"], share=[0.5, 0.5])
    argv = ["advise", model, "--player", "player05", "--candidates", "MonoBlack,MonoWhite"]
    argv += ["--field", field, "--format", "knockout:8", "--entrants", 8, "--player-seed", 8]
    code, out, err = run([*argv, "--simulations", 200, "--posterior-draws", 20], capsys)
    assert code == 0, err
    assert "knockout:8 with 8 entrants" in out
