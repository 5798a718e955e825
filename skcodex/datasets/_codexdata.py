"""Read a folder of Codex tournament records in the public codexdata layout.

The layout (the ``data-raw`` folder of the codexdata project) is a folder with

- ``matches.csv``: one row a match, with columns ``start``, ``end`` (dates),
  ``tournament``, ``player1`` (who moved first), ``player2``, ``deck1``,
  ``deck2`` (forum deck notation), ``victor``, ``victory`` (``normal``,
  ``timeout`` or ``forfeit``) and optionally ``map``, ``round`` and others;
- ``specs.csv`` (``spec``, ``starter``), ``starters.csv`` (``starter``) and
  ``nicknames.csv`` (``nickname``, ``starter``, ``spec1``, ``spec2``,
  ``spec3``), each optional, which extend the base Codex catalogue with
  variant specs and starters (``DemonBash``, ``AnarchyP22``, the ``F20``
  edits) and deck nicknames.

`load_codex_matches` turns it into the package's match table and outcomes;
`load_codex_catalogue` builds the catalogue its decks are read against.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

from skcodex.codex import Catalogue, Deck, DeckParseError, parse_deck
from skcodex.data import MatchTableError, check_match_table
from skcodex.datasets._checks import check_flag
from skcodex.datasets._codexdata_catalogue import (
    CodexDataError,
    at_row,
    codex_folder,
    load_codex_catalogue,
    read_codex_csv,
)

__all__ = [
    "REASONS",
    "CodexDataError",
    "LoadSummary",
    "load_codex_catalogue",
    "load_codex_matches",
]

#: Columns ``matches.csv`` must have.
REQUIRED_COLUMNS = (
    "start",
    "end",
    "tournament",
    "player1",
    "player2",
    "deck1",
    "deck2",
    "victor",
    "victory",
)

#: The values of the ``victory`` column.
VICTORY_KINDS = ("normal", "timeout", "forfeit")

#: Reasons a row is left out, in the order a row is attributed to them: a row
#: that fails several rules is counted under the first one in this order.
REASONS = ("incomplete", "timeout", "forfeit", "map", "f20")

_REASON_LABELS = {
    "incomplete": "missing deck or winner",
    "timeout": "timeout",
    "forfeit": "forfeit",
    "map": "map variant",
    "f20": "F20 card-edit variant",
}

#: Suffix of the components of the 2020 card-edit variants in codexdata.
F20_SUFFIX = "F20"

#: Columns of the returned match table, in order.
TABLE_COLUMNS = (
    "player1",
    "player2",
    "deck1",
    "deck2",
    "period",
    "date",
    "start",
    "end",
    "round",
    "victory",
    "map",
    "csv_row",
)


@dataclass(frozen=True)
class LoadSummary:
    """What `load_codex_matches` read, kept and left out, and why.

    Printing it gives a short report.

    Parameters
    ----------
    path : str
        The ``matches.csv`` that was read.
    rows_read : int
        Data rows in the file.
    rows_kept : int
        Rows in the returned match table.
    dropped : dict of str to int
        Rows left out, by reason (keys in `REASONS` order: ``incomplete``,
        ``timeout``, ``forfeit``, ``map``, ``f20``). A row that fails several
        rules is counted once, under the first reason in that order, so the
        counts add up to ``rows_read - rows_kept``. A rule that was switched
        off drops nothing.
    flagged : dict of str to int
        Rows each rule matches on its own, over every row read, whether the
        rule was switched on or not (a timeout played on a map counts under
        both ``timeout`` and ``map``).
    active : dict of str to bool, default every rule on
        Which rules dropped rows (``False`` for the ones switched off).

    Examples
    --------
    >>> from skcodex.datasets import LoadSummary
    >>> s = LoadSummary(
    ...     path="matches.csv", rows_read=10, rows_kept=7,
    ...     dropped={"incomplete": 0, "timeout": 2, "forfeit": 1, "map": 0, "f20": 0},
    ...     flagged={"incomplete": 0, "timeout": 2, "forfeit": 1, "map": 0, "f20": 0},
    ... )
    >>> s.rows_dropped
    3
    >>> print(s)  # doctest: +NORMALIZE_WHITESPACE
    codexdata matches: matches.csv
      rows read     10
      rows kept      7
      rows dropped   3
        missing deck or winner       0
        timeout                      2
        forfeit                      1
        map variant                  0
        F20 card-edit variant        0
    """

    path: str
    rows_read: int
    rows_kept: int
    dropped: Mapping[str, int]
    flagged: Mapping[str, int]
    active: Mapping[str, bool] = field(default_factory=lambda: dict.fromkeys(REASONS, True))

    @property
    def rows_dropped(self) -> int:
        """Rows left out, for any reason."""
        return self.rows_read - self.rows_kept

    def __str__(self) -> str:
        width = len(str(max(self.rows_read, 1)))
        lines = [
            f"codexdata matches: {self.path}",
            f"  rows read     {self.rows_read:>{width}}",
            f"  rows kept     {self.rows_kept:>{width}}",
            f"  rows dropped  {self.rows_dropped:>{width}}",
        ]
        for reason in REASONS:
            label = _REASON_LABELS[reason]
            if self.active.get(reason, True):
                lines.append(f"    {label:<26}{self.dropped.get(reason, 0):>{width}}")
            else:
                lines.append(
                    f"    {label:<26}{0:>{width}}  (filter off; "
                    f"{self.flagged.get(reason, 0)} such rows read)"
                )
        return "\n".join(lines)


# --------------------------------------------------------------------------- matches


def _stripped(frame: pd.DataFrame, column: str) -> pd.Series:
    """A column as stripped text, None where it is empty or absent."""
    if column not in frame.columns:
        return pd.Series([None] * len(frame), index=frame.index, dtype=object)
    text = frame[column].astype(object).str.strip()
    return text.where(text.notna() & text.ne(""), None)


def _dates(frame: pd.DataFrame, column: str, file: str) -> pd.Series:
    text = _stripped(frame, column)
    missing = np.flatnonzero(text.isna().to_numpy())
    if len(missing):
        raise CodexDataError(f"{at_row(file, int(missing[0]))}: the {column} date is missing")
    parsed = pd.to_datetime(text, format="ISO8601", errors="coerce")
    bad = np.flatnonzero(parsed.isna().to_numpy())
    if len(bad):
        pos = int(bad[0])
        raise CodexDataError(
            f"{at_row(file, pos)}: cannot read the {column} date {frame[column].iloc[pos]!r}; "
            "dates must be written year-month-day, e.g. 2019-04-17"
        )
    return parsed


def _read_decks(text: pd.Series, catalogue: Catalogue) -> pd.Series:
    """Each row's deck: a `Deck`, the `DeckParseError` that reading it raised, or None."""

    def read(deck: str) -> Deck | DeckParseError:
        try:
            return parse_deck(deck, catalogue)
        except DeckParseError as err:
            return err

    distinct = text.dropna().unique()
    return text.map(dict(zip(distinct, map(read, distinct)))).astype(object)


def _is_f20(deck: Deck | DeckParseError | None) -> bool:
    if not isinstance(deck, Deck):
        return False
    return deck.starter.endswith(F20_SUFFIX) or any(s.endswith(F20_SUFFIX) for s in deck.specs)


def _raise_first_problem(problems: list[tuple[pd.Series, Callable[[int], str]]]) -> None:
    """Raise for the first row with a problem, naming the first of its problems in list order.

    Each problem is a boolean mask over the rows and the message for a row position.
    """
    firsts = [
        (int(np.argmax(mask.to_numpy())), i)
        for i, (mask, _) in enumerate(problems)
        if mask.to_numpy().any()
    ]
    if firsts:
        pos, i = min(firsts)
        raise CodexDataError(problems[i][1](pos))


def _check_as_match_table(table: pd.DataFrame, catalogue: Catalogue, file: str) -> None:
    """Run the package's match-table checks on the rows that hold both decks."""
    try:
        check_match_table(table.set_index("csv_row"), catalogue, require_rows=False)
    except MatchTableError as err:
        raise CodexDataError(
            f"{file} does not give a valid match table: {err} (the index is the row in "
            f"{file}, header = row 1)"
        ) from None


def _check_rows(raw: pd.DataFrame, cells: dict, parsed: dict, kind: pd.Series, name: str) -> None:
    """Refuse the first row with a missing player, a bad victory, victor or deck."""
    p1, p2, victor = cells["player1"], cells["player2"], cells["victor"]
    at = functools.partial(at_row, name)
    _raise_first_problem(
        [
            (p1.isna(), lambda pos: f"{at(pos)}: player1 is missing"),
            (p2.isna(), lambda pos: f"{at(pos)}: player2 is missing"),
            (p1.eq(p2), lambda pos: f"{at(pos)}: {p1[pos]!r} is both player1 and player2"),
            (cells["tournament"].isna(), lambda pos: f"{at(pos)}: the tournament is missing"),
            (
                ~kind.isin(VICTORY_KINDS),
                lambda pos: (
                    f"{at(pos)}: victory is {raw['victory'].iloc[pos]!r}; expected one "
                    f"of {', '.join(VICTORY_KINDS)}"
                ),
            ),
            (
                victor.notna() & victor.ne(p1) & victor.ne(p2),
                lambda pos: (
                    f"{at(pos)}: the victor {victor[pos]!r} is neither player "
                    f"({p1[pos]!r} vs {p2[pos]!r})"
                ),
            ),
            *(
                (
                    parsed[c].map(lambda d: isinstance(d, DeckParseError)),
                    lambda pos, c=c: (
                        f"{at(pos)}, {c}: cannot read the deck {cells[c][pos]!r}: {parsed[c][pos]}"
                    ),
                )
                for c in ("deck1", "deck2")
            ),
        ]
    )


def _match_frame(cells: dict, kind: pd.Series, start: pd.Series, end: pd.Series) -> pd.DataFrame:
    """Every row read as the match table's columns, in the file's order."""
    p1, p2 = cells["player1"], cells["player2"]
    n = len(p1)
    try:
        rounds = pd.to_numeric(cells["round"]).astype("Int64")
    except (ValueError, TypeError):
        rounds = cells["round"]
    table = pd.DataFrame(
        {
            "player1": p1.to_numpy(),
            "player2": p2.to_numpy(),
            "deck1": cells["deck1"].to_numpy(),
            "deck2": cells["deck2"].to_numpy(),
            "period": cells["tournament"].to_numpy(),
            "date": start,
            "start": start,
            "end": end,
            "round": rounds,
            "victory": kind.to_numpy(),
            "map": cells["map"].to_numpy(),
            "csv_row": np.arange(n) + 2,
        },
        columns=list(TABLE_COLUMNS),
    )
    return table


def _kept(flags: dict, active: dict, n: int) -> tuple[np.ndarray, dict[str, int]]:
    """The rows kept, and how many each active reason dropped (each row counted once)."""
    keep = np.ones(n, dtype=bool)
    dropped: dict[str, int] = {}
    for reason in REASONS:
        hit = keep & flags[reason] if active[reason] else np.zeros(n, dtype=bool)
        dropped[reason] = int(hit.sum())
        keep &= ~hit
    return keep, dropped


def _times(raw: pd.DataFrame, name: str) -> tuple[pd.Series, pd.Series]:
    """The ``start`` and ``end`` of every row as dates; a match may not end before it starts."""
    start = _dates(raw, "start", name)
    end = _dates(raw, "end", name)
    backwards = np.flatnonzero((end < start).to_numpy())
    if len(backwards):
        pos = int(backwards[0])
        raise CodexDataError(
            f"{at_row(name, pos)}: the match ends ({raw['end'].iloc[pos]}) before it starts "
            f"({raw['start'].iloc[pos]})"
        )
    return start, end


def _flags(cells: dict, parsed: dict, kind: pd.Series, no_deck: pd.Series) -> dict:
    """Each row's reasons to be left out (see `REASONS`), one boolean array a reason."""
    return {
        "incomplete": (cells["victor"].isna() | no_deck).to_numpy(),
        "timeout": kind.eq("timeout").to_numpy(),
        "forfeit": kind.eq("forfeit").to_numpy(),
        "map": cells["map"].notna().to_numpy(),
        "f20": (parsed["deck1"].map(_is_f20) | parsed["deck2"].map(_is_f20)).to_numpy(),
    }


def _refuse_incomplete(incomplete: np.ndarray, cells: dict, name: str) -> None:
    """Raise for the first row with a missing deck or winner (``drop_incomplete=False``)."""
    if not incomplete.any():
        return
    pos = int(np.flatnonzero(incomplete)[0])
    what = [c for c in ("deck1", "deck2") if cells[c][pos] is None]
    if cells["victor"][pos] is None:
        what.append("victor")
    raise CodexDataError(
        f"{at_row(name, pos)}: {' and '.join(what)} missing (drop_incomplete=True leaves "
        "such rows out)"
    )


def load_codex_matches(
    path: str | os.PathLike,
    *,
    keep_timeouts: bool = False,
    keep_forfeits: bool = False,
    keep_maps: bool = False,
    keep_f20: bool = False,
    drop_incomplete: bool = True,
    return_X_y: bool = False,
) -> Bunch | tuple[pd.DataFrame, np.ndarray]:
    """Read a codexdata folder into a match table and outcomes.

    By default only normal wins are kept, as in the published analysis of
    these data: timeouts, forfeits, games played on a map, games with an
    ``F20`` card-edit variant deck, and rows with a missing deck or winner
    are left out. Each rule has its own switch; every exclusion is counted in
    a `LoadSummary`.

    The whole file is checked before any row is left out, so a malformed row
    is an error even when a filter would drop it.

    Parameters
    ----------
    path : str or path-like
        The codexdata folder (or its ``matches.csv``). ``specs.csv``,
        ``starters.csv`` and ``nicknames.csv`` beside it extend the catalogue
        (see `load_codex_catalogue`).
    keep_timeouts : bool, default=False
        Keep games decided on time (``victory == "timeout"``). The winner is
        the recorded ``victor``.
    keep_forfeits : bool, default=False
        Keep forfeited games (``victory == "forfeit"``), won by the ``victor``.
    keep_maps : bool, default=False
        Keep games played with the map variant (a non-empty ``map``).
    keep_f20 : bool, default=False
        Keep games where a deck uses an ``F20`` card-edit variant (a starter
        or spec whose name ends in ``F20``); their components stay distinct
        from the base ones.
    drop_incomplete : bool, default=True
        Leave out rows with a missing deck or winner. If False, such a row
        raises `CodexDataError` instead (a match table cannot hold it).
    return_X_y : bool, default=False
        If True, return ``(X, y)`` rather than the Bunch.

    Returns
    -------
    Bunch
        With the keys ``X``, ``y``, ``summary`` and ``catalogue`` below.
    X : pandas.DataFrame
        The match table, one row a match, with a fresh RangeIndex and columns
        ``player1``, ``player2`` (player 1 moved first), ``deck1``, ``deck2``
        (forum notation as written in the file), ``period`` (the tournament),
        ``date`` (= ``start``), ``start``, ``end`` (datetimes), ``round``,
        ``victory``, ``map`` and ``csv_row`` (the row in ``matches.csv``,
        header = row 1). Rows are in the order the results became known: by
        ``end``, then ``start``, then file order. ``X.attrs`` holds
        ``"summary"`` (the `LoadSummary`) and ``"catalogue"`` (the
        `Catalogue` the decks were read against; pass it as ``catalogue=``
        to an estimator).
    y : numpy.ndarray of int64
        1 where ``player1`` is the ``victor``, 0 where ``player2`` is.
    summary : LoadSummary
        What was read, kept and left out, and why (also ``X.attrs["summary"]``).
    catalogue : Catalogue
        The catalogue the decks were read against (also ``X.attrs["catalogue"]``).
    (X, y) : tuple
        With ``return_X_y=True``.

    Raises
    ------
    FileNotFoundError
        If there is no such folder or no ``matches.csv`` in it.
    CodexDataError
        (a `ValueError`) for a missing column, a deck that does not parse, a
        victor who is neither player, an unknown ``victory`` kind, a missing
        or unreadable date, a match that ends before it starts, a missing
        player or a player facing themself; the message names the row and
        the value.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from skcodex.datasets import load_codex_matches
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "matches.csv").write_text(
    ...     "start,end,tournament,player1,player2,deck1,deck2,victor,victory\\n"
    ...     "2020-01-01,2020-01-04,T1,ann,bob,MonoRed,[Demonology]/Anarchy/Law,bob,normal\\n"
    ...     "2020-01-02,2020-01-03,T1,cat,dan,[Blood/Fire]/Finesse,MonoBlue,cat,normal\\n"
    ...     "2020-01-02,2020-01-05,T1,ann,cat,MonoRed,MonoGreen,ann,timeout\\n"
    ... )
    >>> data = load_codex_matches(folder)
    >>> data.X[["player1", "player2", "deck1", "period", "csv_row"]]
      player1 player2                 deck1 period  csv_row
    0     cat     dan  [Blood/Fire]/Finesse     T1        3
    1     ann     bob               MonoRed     T1        2
    >>> data.y
    array([1, 0])
    >>> data.summary.rows_read, data.summary.rows_kept, data.summary.dropped["timeout"]
    (3, 2, 1)
    >>> X, y = load_codex_matches(folder, keep_timeouts=True, return_X_y=True)
    >>> len(X), y.tolist()
    (3, [1, 0, 1])
    """
    for name, value in (
        ("keep_timeouts", keep_timeouts),
        ("keep_forfeits", keep_forfeits),
        ("keep_maps", keep_maps),
        ("keep_f20", keep_f20),
        ("drop_incomplete", drop_incomplete),
        ("return_X_y", return_X_y),
    ):
        check_flag(value, name)
    folder = codex_folder(path)
    file = folder / "matches.csv"
    if not file.exists():
        raise FileNotFoundError(f"no matches.csv in the codexdata folder {str(folder)!r}")
    catalogue = load_codex_catalogue(folder)
    raw = read_codex_csv(file, REQUIRED_COLUMNS)
    name = file.name
    n = len(raw)

    start, end = _times(raw, name)
    cells = {c: _stripped(raw, c) for c in (*REQUIRED_COLUMNS, "map", "round")}
    p1, victor = cells["player1"], cells["victor"]
    kind = cells["victory"].str.casefold()
    parsed = {c: _read_decks(cells[c], catalogue) for c in ("deck1", "deck2")}
    _check_rows(raw, cells, parsed, kind, name)

    no_deck = cells["deck1"].isna() | cells["deck2"].isna()
    flags = _flags(cells, parsed, kind, no_deck)
    if not drop_incomplete:
        _refuse_incomplete(flags["incomplete"], cells, name)
    active = {
        "incomplete": bool(drop_incomplete),
        "timeout": not keep_timeouts,
        "forfeit": not keep_forfeits,
        "map": not keep_maps,
        "f20": not keep_f20,
    }
    keep, dropped = _kept(flags, active, n)
    table = _match_frame(cells, kind, start, end)
    _check_as_match_table(table.loc[~no_deck.to_numpy()], catalogue, name)
    y_all = victor.eq(p1).to_numpy(dtype=np.int64)
    order = table.loc[keep].sort_values(["end", "start", "csv_row"], kind="stable").index
    y = y_all[order]
    table = table.loc[order].reset_index(drop=True)

    summary = LoadSummary(
        path=str(file),
        rows_read=n,
        rows_kept=int(keep.sum()),
        dropped=dropped,
        flagged={reason: int(flags[reason].sum()) for reason in REASONS},
        active=active,
    )
    table.attrs["summary"] = summary
    table.attrs["catalogue"] = catalogue
    if return_X_y:
        return table, y
    return Bunch(X=table, y=y, summary=summary, catalogue=catalogue)
