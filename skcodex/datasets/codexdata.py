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

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from skcodex.codex import CODEX, Catalogue, Deck, DeckParseError, parse_deck

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


class CodexDataError(ValueError):
    """A codexdata file that cannot be read; the message names the file, row and value."""


@dataclass(frozen=True)
class LoadSummary:
    """What `load_codex_matches` read, kept and left out, and why.

    Printing it gives a short report.

    Attributes
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
    active : dict of str to bool
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


# --------------------------------------------------------------------------- files


def _folder(path: str | os.PathLike) -> Path:
    """The codexdata folder: `path` itself, or the folder of a ``matches.csv`` given directly."""
    p = Path(path).expanduser()
    if p.is_file():
        return p.parent
    if not p.exists():
        raise FileNotFoundError(f"no codexdata folder at {str(p)!r}")
    return p


def _read_csv(file: Path, required: tuple[str, ...]) -> pd.DataFrame:
    """Read a CSV as text (only empty cells are missing) and check its columns."""
    try:
        frame = pd.read_csv(
            file,
            dtype=str,
            keep_default_na=False,
            na_values=[""],
            skipinitialspace=True,
            encoding="utf-8",
        )
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        raise CodexDataError(f"{file.name} is not a readable CSV file: {err}") from None
    except pd.errors.EmptyDataError:
        raise CodexDataError(f"{file.name} is empty: it needs at least a header row") from None
    frame.columns = [str(c).strip() for c in frame.columns]
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise CodexDataError(
            f"{file.name} is missing the required column(s) {', '.join(map(repr, missing))}; "
            f"it has {', '.join(map(repr, frame.columns))}"
        )
    return frame.astype(object).where(frame.notna(), None)


def _text(value: Any) -> str | None:
    """A cell as stripped text, or None when it is empty."""
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _row(file: str, pos: int) -> str:
    """Where a data row sits in its file, as a spreadsheet shows it (the header is row 1)."""
    return f"{file} row {pos + 2} (header = row 1)"


# --------------------------------------------------------------------------- catalogue


def load_codex_catalogue(path: str | os.PathLike) -> Catalogue:
    """Build the catalogue a codexdata folder's decks are read against.

    Starts from the base Codex catalogue (`skcodex.codex.CODEX`) and adds the
    starters of ``starters.csv``, the specs of ``specs.csv`` (each with its
    starter) and the nicknames of ``nicknames.csv``; a file that is absent adds
    nothing. Variant specs and starters (``DemonBash``, ``AnarchyP22``,
    ``FireF20``, ``RedF20``) become components in their own right.

    Parameters
    ----------
    path : str or path-like
        The folder (or its ``matches.csv``).

    Returns
    -------
    Catalogue
        Immutable; it can be kept in ``DataFrame.attrs``, copied and pickled.

    Raises
    ------
    CodexDataError
        If a file lacks a required column, or a nickname uses an unknown
        spec or starter.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from skcodex.datasets import load_codex_catalogue
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "specs.csv").write_text(
    ...     "spec,starter\\nDemonBash,Black\\nFireF20,RedF20\\n"
    ... )
    >>> _ = (folder / "nicknames.csv").write_text(
    ...     "nickname,starter,spec1,spec2,spec3\\nBlack Bash,Black,DemonBash,Disease,Necromancy\\n"
    ... )
    >>> cat = load_codex_catalogue(folder)
    >>> cat.colour("DemonBash"), cat.colour("FireF20")
    ('Black', 'RedF20')
    >>> cat.nickname("Black Bash")
    Deck(starter='Black', specs=('DemonBash', 'Disease', 'Necromancy'))
    """
    folder = _folder(path)
    cat: Catalogue = CODEX
    try:
        file = folder / "starters.csv"
        if file.exists():
            frame = _read_csv(file, ("starter",))
            names = [_text(v) for v in frame["starter"]]
            blank = [i for i, v in enumerate(names) if v is None]
            if blank:
                raise CodexDataError(f"{_row(file.name, blank[0])}: the starter name is empty")
            cat = cat.with_starters([n for n in names if n not in cat.starters])

        file = folder / "specs.csv"
        if file.exists():
            frame = _read_csv(file, ("spec", "starter"))
            specs: dict[str, str] = {}
            for pos, (spec, starter) in enumerate(zip(frame["spec"], frame["starter"])):
                spec, starter = _text(spec), _text(starter)
                if spec is None or starter is None:
                    raise CodexDataError(
                        f"{_row(file.name, pos)}: every spec needs a name and a starter"
                    )
                specs[spec] = starter
            cat = cat.with_specs(specs)

        file = folder / "nicknames.csv"
        if file.exists():
            frame = _read_csv(file, ("nickname", "starter"))
            spec_cols = sorted(
                (c for c in frame.columns if c.startswith("spec") and c[4:].isdigit()),
                key=lambda c: int(c[4:]),
            )
            if not spec_cols:
                raise CodexDataError(
                    f"{file.name} is missing the columns 'spec1', 'spec2', 'spec3'; "
                    f"it has {', '.join(map(repr, frame.columns))}"
                )
            nicknames: dict[str, Deck] = {}
            for pos, values in enumerate(frame.to_dict("records")):
                nicknames[_nickname_name(values, file.name, pos)] = _nickname_deck(
                    cat, values, spec_cols, file.name, pos
                )
            cat = cat.with_nicknames(nicknames)
    except ValueError as err:
        if isinstance(err, CodexDataError):
            raise
        raise CodexDataError(f"the catalogue files in {str(folder)!r} clash: {err}") from None
    return cat


def _nickname_name(values: dict, file: str, pos: int) -> str:
    name = _text(values.get("nickname"))
    if name is None:
        raise CodexDataError(f"{_row(file, pos)}: the nickname is empty")
    return name


def _nickname_deck(cat: Catalogue, values: dict, spec_cols: list, file: str, pos: int) -> Deck:
    raw = [_text(values.get(c)) for c in ("starter", *spec_cols)]
    where = f"{_row(file, pos)} (nickname {values.get('nickname')!r})"
    if any(v is None for v in raw):
        raise CodexDataError(f"{where}: the starter and every spec must be given")
    starter = cat.canonical(raw[0])
    if starter not in cat.starters:
        raise CodexDataError(f"{where}: {raw[0]!r} is not a known starter")
    specs = []
    for name in raw[1:]:
        spec = cat.canonical(name)
        if spec not in cat.spec_colours:
            raise CodexDataError(f"{where}: {name!r} is not a known spec")
        specs.append(spec)
    if len(specs) != cat.specs_per_deck:
        raise CodexDataError(
            f"{where}: a deck has {cat.specs_per_deck} specs, this nickname has {len(specs)}"
        )
    try:
        return Deck(starter, specs)
    except ValueError as err:
        raise CodexDataError(f"{where}: {err}") from None


# --------------------------------------------------------------------------- matches


def _dates(frame: pd.DataFrame, column: str, file: str) -> pd.Series:
    values = frame[column]
    for pos, v in enumerate(values):
        if _text(v) is None:
            raise CodexDataError(f"{_row(file, pos)}: the {column} date is missing")
    parsed = pd.to_datetime(values.map(_text), format="ISO8601", errors="coerce")
    bad = np.flatnonzero(parsed.isna().to_numpy())
    if len(bad):
        pos = int(bad[0])
        raise CodexDataError(
            f"{_row(file, pos)}: cannot read the {column} date {values.iloc[pos]!r}; "
            "dates must be written year-month-day, e.g. 2019-04-17"
        )
    return parsed


def _is_f20(deck: Deck) -> bool:
    return deck.starter.endswith(F20_SUFFIX) or any(s.endswith(F20_SUFFIX) for s in deck.specs)


def load_codex_matches(
    path: str | os.PathLike,
    *,
    keep_timeouts: bool = False,
    keep_forfeits: bool = False,
    keep_maps: bool = False,
    keep_f20: bool = False,
    drop_incomplete: bool = True,
    return_summary: bool = False,
) -> tuple[pd.DataFrame, np.ndarray] | tuple[pd.DataFrame, np.ndarray, LoadSummary]:
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
    return_summary : bool, default=False
        Also return the `LoadSummary` as a third value. It is always
        available as ``X.attrs["summary"]``.

    Returns
    -------
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
        Only when ``return_summary=True``.

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
    >>> X, y = load_codex_matches(folder)
    >>> X[["player1", "player2", "deck1", "period", "csv_row"]]
      player1 player2                 deck1 period  csv_row
    0     cat     dan  [Blood/Fire]/Finesse     T1        3
    1     ann     bob               MonoRed     T1        2
    >>> y
    array([1, 0])
    >>> summary = X.attrs["summary"]
    >>> summary.rows_read, summary.rows_kept, summary.dropped["timeout"]
    (3, 2, 1)
    >>> X, y = load_codex_matches(folder, keep_timeouts=True)
    >>> len(X), y.tolist()
    (3, [1, 0, 1])
    """
    for name, value in (
        ("keep_timeouts", keep_timeouts),
        ("keep_forfeits", keep_forfeits),
        ("keep_maps", keep_maps),
        ("keep_f20", keep_f20),
        ("drop_incomplete", drop_incomplete),
        ("return_summary", return_summary),
    ):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {value!r}")
    folder = _folder(path)
    file = folder / "matches.csv"
    if not file.exists():
        raise FileNotFoundError(f"no matches.csv in the codexdata folder {str(folder)!r}")
    catalogue = load_codex_catalogue(folder)
    raw = _read_csv(file, REQUIRED_COLUMNS)
    name = file.name
    n = len(raw)

    start = _dates(raw, "start", name)
    end = _dates(raw, "end", name)
    backwards = np.flatnonzero((end < start).to_numpy())
    if len(backwards):
        pos = int(backwards[0])
        raise CodexDataError(
            f"{_row(name, pos)}: the match ends ({raw['end'].iloc[pos]}) before it starts "
            f"({raw['start'].iloc[pos]})"
        )

    incomplete = np.zeros(n, dtype=bool)
    timeout = np.zeros(n, dtype=bool)
    forfeit = np.zeros(n, dtype=bool)
    on_map = np.zeros(n, dtype=bool)
    f20 = np.zeros(n, dtype=bool)
    player1 = np.empty(n, dtype=object)
    player2 = np.empty(n, dtype=object)
    tournament = np.empty(n, dtype=object)
    deck_text = {"deck1": np.empty(n, dtype=object), "deck2": np.empty(n, dtype=object)}
    p1_won = np.zeros(n, dtype=np.int64)
    cache: dict[str, Deck] = {}
    maps = raw["map"] if "map" in raw.columns else pd.Series([None] * n, dtype=object)

    for pos, row in enumerate(raw.to_dict("records")):
        where = _row(name, pos)
        p1, p2 = _text(row["player1"]), _text(row["player2"])
        for column, player in (("player1", p1), ("player2", p2)):
            if player is None:
                raise CodexDataError(f"{where}: {column} is missing")
        if p1 == p2:
            raise CodexDataError(f"{where}: {p1!r} is both player1 and player2")
        player1[pos], player2[pos] = p1, p2
        label = _text(row["tournament"])
        if label is None:
            raise CodexDataError(f"{where}: the tournament is missing")
        tournament[pos] = label

        kind = _text(row["victory"])
        if kind is None or kind.casefold() not in VICTORY_KINDS:
            raise CodexDataError(
                f"{where}: victory is {row['victory']!r}; expected one of "
                f"{', '.join(VICTORY_KINDS)}"
            )
        kind = kind.casefold()
        timeout[pos] = kind == "timeout"
        forfeit[pos] = kind == "forfeit"
        on_map[pos] = _text(row.get("map")) is not None

        victor = _text(row["victor"])
        if victor is None:
            incomplete[pos] = True
        elif victor not in (p1, p2):
            raise CodexDataError(
                f"{where}: the victor {victor!r} is neither player ({p1!r} vs {p2!r})"
            )
        else:
            p1_won[pos] = int(victor == p1)

        for column in ("deck1", "deck2"):
            text = _text(row[column])
            deck_text[column][pos] = text
            if text is None:
                incomplete[pos] = True
                continue
            deck = cache.get(text)
            if deck is None:
                try:
                    deck = cache[text] = parse_deck(text, catalogue)
                except DeckParseError as err:
                    raise CodexDataError(
                        f"{where}, {column}: cannot read the deck {text!r}: {err}"
                    ) from None
            f20[pos] |= _is_f20(deck)

    if not drop_incomplete and incomplete.any():
        pos = int(np.flatnonzero(incomplete)[0])
        what = [c for c in ("deck1", "deck2") if deck_text[c][pos] is None]
        if _text(raw["victor"].iloc[pos]) is None:
            what.append("victor")
        raise CodexDataError(
            f"{_row(name, pos)}: {' and '.join(what)} missing (drop_incomplete=True leaves "
            "such rows out)"
        )

    flags = {
        "incomplete": incomplete,
        "timeout": timeout,
        "forfeit": forfeit,
        "map": on_map,
        "f20": f20,
    }
    active = {
        "incomplete": bool(drop_incomplete),
        "timeout": not keep_timeouts,
        "forfeit": not keep_forfeits,
        "map": not keep_maps,
        "f20": not keep_f20,
    }
    keep = np.ones(n, dtype=bool)
    dropped: dict[str, int] = {}
    for reason in REASONS:
        hit = keep & flags[reason] if active[reason] else np.zeros(n, dtype=bool)
        dropped[reason] = int(hit.sum())
        keep &= ~hit

    rounds = raw["round"] if "round" in raw.columns else pd.Series([None] * n, dtype=object)
    try:
        rounds = pd.to_numeric(rounds.map(_text)).astype("Int64")
    except (ValueError, TypeError):
        rounds = rounds.map(_text)
    table = pd.DataFrame(
        {
            "player1": player1,
            "player2": player2,
            "deck1": deck_text["deck1"],
            "deck2": deck_text["deck2"],
            "period": tournament,
            "date": start,
            "start": start,
            "end": end,
            "round": rounds,
            "victory": raw["victory"].map(lambda v: _text(v).casefold()),
            "map": maps.map(_text),
            "csv_row": np.arange(n) + 2,
        },
        columns=list(TABLE_COLUMNS),
    )
    table["_y"] = p1_won
    table = table.loc[keep].sort_values(["end", "start", "csv_row"], kind="stable")
    y = table.pop("_y").to_numpy(dtype=np.int64)
    table = table.reset_index(drop=True)

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
    if return_summary:
        return table, y, summary
    return table, y
