"""The rule's scripts over records (benchmarks/default_rule.py): adding records to a run."""

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from default_rule import run_records


def _record(loses: bool) -> dict:
    """One record's entry as `evaluate` writes it: a change that wins or loses there."""
    part = {"difference": 0.001 if loses else -0.001, "se": 0.002}
    parts = {"all folds": part, "earlier half": part, "later half": part}
    return {
        "rule: walk against static": {
            "parts": parts,
            "wins pooled": not loses,
            "halves hold": True,
            "does not lose": not loses,
        }
    }


def _args(tmp_path, records: str, extend: bool, draws: int = 1000) -> argparse.Namespace:
    out = tmp_path / "rule.json"
    return argparse.Namespace(markdown=False, extend=extend, out=out, draws=draws, records=records)


def _run(args, outcomes: dict) -> dict:
    return run_records(args, lambda name, _: _record(outcomes[name]), lambda result: "")


def test_extend_keeps_the_records_run_before_and_judges_them_all(tmp_path):
    outcomes = {"codex": False, "nfl": False, "hockey": False, "chess": True}
    first = _run(_args(tmp_path, "codex,nfl,hockey", extend=False), outcomes)
    assert first["verdicts"]["rule: walk against static"]["passes"]
    before = json.loads((tmp_path / "rule.json").read_text())

    added = _run(_args(tmp_path, "chess", extend=True), outcomes)
    assert list(added["records"]) == ["codex", "nfl", "hockey", "chess"]
    for name in ("codex", "nfl", "hockey"):
        assert added["records"][name] == before["records"][name]
    verdict = added["verdicts"]["rule: walk against static"]
    assert verdict["other records"] == {"nfl": True, "hockey": True, "chess": False}
    assert not verdict["passes"]

    # without --extend a run starts afresh
    alone = _run(_args(tmp_path, "chess", extend=False), outcomes)
    assert list(alone["records"]) == ["chess"]


def test_extend_refuses_a_run_at_other_draws(tmp_path):
    outcomes = {"codex": False, "chess": False}
    _run(_args(tmp_path, "codex", extend=False), outcomes)
    with pytest.raises(SystemExit, match="1000 draws, not 500"):
        _run(_args(tmp_path, "chess", extend=True, draws=500), outcomes)


def test_the_chess_record_of_the_rule_leaves_the_draws_out():
    import importlib.metadata

    try:
        importlib.metadata.distribution("PySimpleGUI-chess")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("PySimpleGUI-chess, which ships the chess record, is not installed")
    import game_records

    X, y, _ = game_records.chess()
    Xd, yd, cv = game_records.RECORDS["chess"]()
    assert set(np.unique(y)) == {0.0, 0.5, 1.0}
    assert set(np.unique(yd)) == {0, 1} and yd.dtype.kind == "i"
    decisive = X[y != 0.5].reset_index(drop=True)
    assert Xd.reset_index(drop=True)[["player1", "player2", "period"]].equals(
        decisive[["player1", "player2", "period"]]
    )
    assert int(yd.sum()) == int((y == 1).sum())
    assert cv.n_splits == 5


def test_the_nba_record_has_one_row_a_game_with_the_home_team_first():
    pytest.importorskip("isapy_data", reason="isapy-data, which ships the NBA record, is absent")
    import game_records

    X, y, cv = game_records.nba()
    assert len(X) == 1080 + 1230 + 1230 + 1225
    assert (X["player1"] != X["player2"]).all()
    assert X["player1"].nunique() == X["player2"].nunique() == 30
    assert X["date"].is_monotonic_increasing and X["period"].nunique() == 27
    # the season's first game: Brooklyn at home beat Golden State 125-99
    assert (X["player1"].iloc[0], X["player2"].iloc[0], y[0]) == ("BKN", "GSW", 1)
    # 2022-23 (the other files' columns): Boston at home beat Philadelphia 126-117
    opener = np.flatnonzero(X["date"] == pd.Timestamp("2022-10-18"))
    pairs = {(X["player1"].iloc[i], X["player2"].iloc[i]): y[i] for i in opener}
    assert pairs[("BOS", "PHI")] == 1
    # the home side wins a little over half its games, as in every NBA season
    assert 0.52 < y.mean() < 0.58
    folds = [X["period"].iloc[test].unique().tolist() for _, test in cv.split(X, y)]
    assert folds == [["2024-11"], ["2024-12"], ["2025-01"], ["2025-02"], ["2025-03"], ["2025-04"]]


def _drifting_league(step: float, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """Ten teams over twelve periods of 45 games, each team's skill stepping by ``step``."""
    rng = np.random.default_rng(seed)
    teams = [f"t{i}" for i in range(10)]
    skill = rng.normal(0, 1, len(teams))
    rows, y = [], []
    for period in range(12):
        skill = skill + rng.normal(0, step, len(teams))
        for _ in range(45):
            a, b = rng.choice(len(teams), size=2, replace=False)
            rows.append((teams[a], teams[b], f"P{period:02d}"))
            y.append(int(rng.random() < 1 / (1 + np.exp(-(skill[a] - skill[b])))))
    X = pd.DataFrame(rows, columns=["player1", "player2", "period"])
    X["start"] = pd.to_datetime("2020-01-01") + pd.to_timedelta(
        X["period"].str[1:].astype(int) * 30, unit="D"
    )
    return X, np.array(y)


def test_the_tuned_whr_drift_follows_a_known_drift():
    """WHR's drift chosen on the last training periods: large for skills that step by a
    log-odds a period, smaller for fixed skills (known truth, three leagues each)."""
    pytest.importorskip("whr")
    from default_rule import DRIFT_GRIDS, ForwardTuned
    from rating_systems import WHRClassifier

    chosen = {}
    for step in (0.0, 1.0):
        chosen[step] = [
            ForwardTuned(WHRClassifier(), DRIFT_GRIDS["WHR"])
            .fit(*_drifting_league(step, seed))
            .best_params_["w2"]
            for seed in range(3)
        ]
    # a log-odds step is about 174 Elo a period (w2 near 30,000): the grid's top end
    assert min(chosen[1.0]) >= 900.0, chosen
    # fixed skills leave the validation scores of the grid close, so the choice is noisy,
    # but in each league it is below the drifting one's
    assert all(a < b for a, b in zip(chosen[0.0], chosen[1.0])), chosen


def test_the_summary_table_has_each_models_pooled_score_on_each_record():
    from default_rule import summary_lines

    def rec(matches, brier, diff):
        return {
            "matches": matches,
            "windows": {
                "all folds": {
                    "brier": {"skcodex static": 0.25, "Elo": brier},
                    "minus static": {"Elo": {"difference": diff, "se": 0.001}},
                }
            },
        }

    lines = summary_lines({"records": {"a": rec(10, 0.24, -0.01), "b": rec(20, 0.26, 0.01)}})
    assert lines[0] == "| model | a (10) | b (20) |"
    assert lines[2] == "| skcodex static | 0.2500 | 0.2500 |"
    assert lines[3] == "| Elo | 0.2400 (-0.0100, se 0.0010) | 0.2600 (+0.0100, se 0.0010) |"
