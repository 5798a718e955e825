"""Draws on the command line: ``skcodex fit`` reads them, ``predict`` and ``simulate`` use them."""

import re

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from skcodex.cli import MODEL_FILE, load_model, main
from skcodex.cli._errors import CommandError
from skcodex.cli._quick import quick_forecast, read_quick_model
from skcodex.cli._tables import read_matches
from skcodex.datasets import make_game_matches
from skcodex.tournament import predict_series, simulate_tournament

from command_process import in_process as run  # isort: skip

FAST = ["--draws", "100", "--tune", "100", "--chains", "2", "--no-progress", "--nash-draws", "10"]
GAME = {"n_players": 10, "n_matches": 240, "n_tournaments": 3, "starters": 3}


def one_line_error(code, err, pattern):
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert re.search(pattern, lines[0]), lines[0]


@pytest.fixture(scope="module")
def drawn_game():
    """A game with draws (about a third of even matches drawn), as a table and outcomes."""
    X, y = make_game_matches(**GAME, draw_threshold=0.8, random_state=0, return_X_y=True)
    assert 0.15 < np.mean(y == 0.5) < 0.45
    return X, y


@pytest.fixture(scope="module")
def drawn_csv(drawn_game, tmp_path_factory):
    X, y = drawn_game
    path = tmp_path_factory.mktemp("draws") / "matches.csv"
    X.assign(y=y).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def drawn_fit(drawn_csv, tmp_path_factory):
    out = tmp_path_factory.mktemp("fit")
    code = main(["fit", str(drawn_csv), "--out", str(out), "--no-holdout", *FAST])
    assert code == 0
    return out


# -- reading the outcomes ------------------------------------------------------------------


def test_y_with_draws_is_read_as_halves(drawn_csv, drawn_game):
    _, y = read_matches(drawn_csv)[:2]
    assert y.dtype == float
    np.testing.assert_array_equal(y, drawn_game[1])


def test_winner_column_says_draw_in_any_case(drawn_game, tmp_path):
    X, y = drawn_game
    winner = np.where(y == 1, X["player1"], np.where(y == 0, X["player2"], "draw")).astype(object)
    winner[np.flatnonzero(y == 0.5)[:3]] = [" Draw", "DRAW", "draw "]
    path = tmp_path / "w.csv"
    X.assign(winner=winner).to_csv(path, index=False)
    np.testing.assert_array_equal(read_matches(path)[1], y)


def test_a_player_named_draw_still_wins(tmp_path):
    table = pd.DataFrame(
        {
            "player1": ["draw", "ann", "ann"],
            "player2": ["ann", "draw", "bob"],
            "deck1": ["a", "b", "a"],
            "deck2": ["b", "a", "b"],
            "winner": ["draw", "draw", "draw"],
        }
    )
    path = tmp_path / "named.csv"
    table.to_csv(path, index=False)
    np.testing.assert_array_equal(read_matches(path)[1], [1.0, 0.0, 0.5])


def test_a_table_without_draws_reads_exactly_as_before(drawn_game, tmp_path):
    X, y = drawn_game
    decided = y != 0.5
    path = tmp_path / "wins.csv"
    X[decided].assign(y=y[decided].astype(int)).to_csv(path, index=False)
    got = read_matches(path)[1]
    assert got.dtype == np.int8 or got.dtype == np.int64  # whole numbers, as before
    np.testing.assert_array_equal(got, y[decided])


@pytest.mark.parametrize(
    ("column", "value", "pattern"),
    [
        (
            "y",
            0.3,
            r"line 5: column 'y' holds 0\.3; give 1 where player1 won, 0 where player2 won, "
            r"or 0\.5 for a draw",
        ),
        ("y", "tie?", r"line 5: column 'y' holds 'tie\?'; give 1 .* or 0\.5 for a draw"),
        (
            "winner",
            "tie?",
            r"line 5: column 'winner' names 'tie\?', who is neither .*'draw' for a drawn match",
        ),
    ],
)
def test_a_bad_outcome_names_its_line_and_the_allowed_values(
    drawn_game, tmp_path, capsys, column, value, pattern
):
    X, y = drawn_game
    table = (
        X.assign(y=y)
        if column == "y"
        else X.assign(winner=np.where(y > 0.5, X["player1"], X["player2"]))
    )
    table[column] = table[column].astype(object)
    table.loc[3, column] = value
    path = tmp_path / "bad.csv"
    table.to_csv(path, index=False)
    with pytest.raises(CommandError, match=pattern):
        read_matches(path)
    code, _, err = run(["fit", path, "--out", tmp_path / "o", *FAST], capsys)
    one_line_error(code, err, pattern)


# -- fit, predict and simulate --------------------------------------------------------------


def test_fit_learns_the_draw_model_and_says_so(drawn_fit):
    clf = load_model(drawn_fit)
    assert list(clf.classes_) == [0.0, 0.5, 1.0]
    assert clf.layout_.options.draws
    truth = np.tanh(0.8 / 2)  # the simulated chance of a draw between equal sides
    rate = clf.draw_.loc["draw_rate_even"]
    assert rate["lower"] - 0.05 < truth < rate["upper"] + 0.05
    # the report's methods say the fitted threshold and draw rate, as draw_ gives them
    page = " ".join((drawn_fit / "report.html").read_text(encoding="utf-8").split())
    c = clf.draw_.loc["threshold"]
    assert f"<code>c</code> = {c['mean']:.3f} (90% interval {c['lower']:.3f} to" in page
    assert f"equal sides draw {100 * rate['mean']:.1f}% of the time" in page


def test_fit_prints_the_draw_rate_and_the_expected_score_brier(drawn_csv, tmp_path, capsys):
    code, out, err = run(["fit", drawn_csv, "--out", tmp_path / "o", "--no-holdout", *FAST], capsys)
    assert code == 0, err
    clf = load_model(tmp_path / "o")
    X, y = read_matches(drawn_csv)[:2]
    from skcodex.metrics import brier_score, ranked_probability_score

    p = clf.predict_proba(X)
    expected = p[:, 2] + 0.5 * p[:, 1]
    assert f"in-sample (240 matches) {brier_score(y, expected):.3f}" in out
    assert f"{np.mean(y == 0.5):.1%} of the fitted matches were drawn" in out
    rate = clf.draw_.loc["draw_rate_even"]
    assert f"chance {rate['mean']:.3f} [{rate['lower']:.3f}, {rate['upper']:.3f}]" in out
    assert "Ranked probability score, in-sample (three outcomes; lower is better): " in out
    assert f"{ranked_probability_score(y, p):.3f}" in out


def test_the_report_scores_the_expected_score_of_a_draw_model(drawn_fit, drawn_game):
    """The calibration table reads P(win) + P(draw) / 2, never P(draw) alone (column 1)."""
    from skcodex.report import analyse

    X, y = drawn_game
    clf = load_model(drawn_fit)
    result = analyse(clf, X, y, nash_draws=5)
    p = clf.predict_proba(X)
    from skcodex.metrics import brier_score

    got = result.brier.loc["in-sample", "brier"]
    assert got == pytest.approx(brier_score(y, p[:, 2] + 0.5 * p[:, 1]), rel=1e-12)


def _printed(out):
    return [float(v) for v in re.findall(r"(?:= |interval: |to )([01]\.\d{3})", out)]


def test_predict_prints_p_draw_beside_p_win(drawn_fit, capsys):
    clf = load_model(drawn_fit)
    argv = ["predict", drawn_fit, "--p1", "player05", "--deck1", "char1", "--p2", "player06"]
    code, out, err = run([*argv, "--deck2", "char2"], capsys)
    assert code == 0, err
    table = pd.DataFrame(
        {"player1": ["player05"], "player2": ["player06"], "deck1": ["char1"], "deck2": ["char2"]}
    )
    p = clf.predict_outcome_draws(table)[:, 0]  # (draws, [player 2, draw, player 1])
    want = []
    for column in (2, 1):
        want += [p[:, column].mean(), *np.quantile(p[:, column], [0.05, 0.95])]
    np.testing.assert_allclose(_printed(out)[:6], want, atol=5e-4 + 1e-12)
    assert "\nP(draw) = " in out
    m = p.mean(axis=0)
    assert f"outcomes: player 1 wins {m[2]:.3f}, a draw {m[1]:.3f}, player 2 wins {m[0]:.3f}" in out


def test_the_quick_path_leaves_a_draw_model_to_the_estimator(drawn_fit):
    """The model file round-trips; the quick reader reads it and hands the forecast over."""
    quick = read_quick_model(drawn_fit / MODEL_FILE)
    assert quick is not None and quick.layout_.options.draws
    table = pd.DataFrame(
        {"player1": ["player05"], "player2": ["player06"], "deck1": ["char1"], "deck2": ["char2"]}
    )
    assert quick_forecast(quick, table, 0.9) is None
    again = load_model(drawn_fit)
    np.testing.assert_array_equal(again.classes_, [0.0, 0.5, 1.0])


def test_predict_without_draws_prints_no_draw_line(drawn_game, tmp_path, capsys):
    X, y = drawn_game
    decided = y != 0.5
    path = tmp_path / "wins.csv"
    X[decided].assign(y=y[decided].astype(int)).to_csv(path, index=False)
    out_dir = tmp_path / "fit"
    code, out, err = run(["fit", path, "--out", out_dir, "--no-holdout", *FAST], capsys)
    assert code == 0, err
    assert "Draws:" not in out and "Ranked probability" not in out
    assert list(load_model(out_dir).classes_) == [0, 1]
    argv = ["predict", out_dir, "--p1", "player05", "--deck1", "char1"]
    code, out, err = run([*argv, "--p2", "player06", "--deck2", "char2"], capsys)
    assert code == 0 and "P(draw)" not in out and "outcomes:" not in out


@pytest.mark.parametrize("draw_rule", ["replay", "points"])
def test_predict_a_set_with_draws_prints_the_python_apis_chance(drawn_fit, capsys, draw_rule):
    clf = load_model(drawn_fit)
    argv = ["predict", drawn_fit, "--p1", "player05", "--deck1", "char1", "--p2", "player06"]
    code, out, err = run(
        [*argv, "--deck2", "char2", "--best-of", "3", "--draw-rule", draw_rule], capsys
    )
    assert code == 0, err
    table = pd.DataFrame(
        {"player1": ["player05"], "player2": ["player06"], "deck1": ["char1"], "deck2": ["char2"]}
    )
    row = predict_series(clf, table, 3, draw_rule=draw_rule).iloc[0]
    np.testing.assert_allclose(
        _printed(out)[:3], row[["mean", "lower", "upper"]].to_numpy(float), atol=5e-4 + 1e-12
    )
    said = {"replay": "a drawn game is replayed", "points": "a draw is half a point"}[draw_rule]
    assert said in out


@pytest.mark.parametrize(
    ("fmt", "draw_rule"), [("swiss:3+knockout:4", "replay"), ("knockout:4:bo3", "points")]
)
def test_simulate_with_a_draw_model_is_the_python_forecast(
    drawn_fit, tmp_path, capsys, fmt, draw_rule
):
    entrants = pd.DataFrame(
        {
            "player": ["player05", "player04", "player01", "player03", "player07", "player02"],
            "deck": ["char1", "char0", "char2", "char1", "char0", "char2"],
        }
    )
    entrants = entrants.iloc[:4] if fmt.startswith("knockout") else entrants
    path = tmp_path / "entrants.csv"
    entrants.to_csv(path, index=False)
    table = tmp_path / "forecast.csv"
    argv = ["simulate", drawn_fit, "--entrants", path, "--format", fmt, "--simulations", "3000"]
    code, out, err = run([*argv, "--draw-rule", draw_rule, "--table", table], capsys)
    assert code == 0, err
    assert "The model has draws" in out
    clf = load_model(drawn_fit)
    python = simulate_tournament(
        fmt,
        entrants,
        clf,
        n_simulations=3000,
        random_state=0,
        draw_rule=draw_rule,
        first_move="random",
    )
    printed = pd.read_csv(table).set_index("player")
    np.testing.assert_allclose(printed["p_win"], python.table()["p_win"], atol=1e-12)


# -- the worked example of docs/classifier.md ------------------------------------------------


def test_the_documented_commands_run_as_shown(tmp_path, capsys, monkeypatch):
    """docs/classifier.md's shell example, on the chess-like game its Python example draws."""
    import shlex
    from pathlib import Path

    page = (Path(__file__).parents[1] / "docs" / "classifier.md").read_text(encoding="utf-8")
    section = page.split("### Draws from the command line")[1]
    python = section.split("```python\n")[1].split("```")[0]
    block = section.split("```bash\n")[1].split("```")[0]
    commands = [shlex.split(line) for line in block.strip().splitlines()]
    assert [c[:2] for c in commands] == [
        ["skcodex", "fit"],
        ["skcodex", "predict"],
        ["skcodex", "simulate"],
    ]
    # the page's chess-like game, as its Python example above draws it
    chess = make_game_matches(
        n_players=16, n_matches=600, n_tournaments=4, starters=4, draw_threshold=0.8, random_state=2
    )
    monkeypatch.chdir(tmp_path)
    exec(python, {"X": chess.X, "y": chess.y})  # writes chess.csv and entrants.csv
    outputs = []
    for command in commands:
        extra = ["--no-progress"] if command[1] == "fit" else []
        code, out, err = run([*command[1:], *extra], capsys)
        assert code == 0, err
        outputs.append(out)
    fit, predict, simulate = outputs
    clf = load_model("chess")
    rate = clf.draw_.loc["draw_rate_even"]
    assert f"chance {rate['mean']:.3f} [{rate['lower']:.3f}, {rate['upper']:.3f}]" in fit
    table = pd.DataFrame(
        {"player1": ["player03"], "player2": ["player07"], "deck1": ["char1"], "deck2": ["char2"]}
    )
    p = clf.predict_outcome_draws(table)[:, 0]
    assert f"P(draw) = {p[:, 1].mean():.3f}" in predict
    assert f"= {p[:, 2].mean():.3f}\n" in predict
    assert "The model has draws" in simulate and "replayed" in simulate
