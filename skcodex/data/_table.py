"""Validation of a match table at the boundary; time order.

See `skcodex.data` for what a match table is; its outcomes and luck are checked
in ``_outcomes.py``.
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from skcodex.codex import CODEX, Catalogue, Deck, DeckParseError, PlainCatalogue, parse_deck
from skcodex.codex._notation import checked_deck
from skcodex.data._dates import read_dates
from skcodex.data._kinds import column_kinds
from skcodex.data._spelling import close_columns, trimmed_labels

REQUIRED_COLUMNS = ("player1", "player2", "deck1", "deck2")
OPTIONAL_COLUMNS = ("period", "date", "series")


class MatchTableError(ValueError):
    """A match table or outcome vector that cannot be used; the message says where and why."""


class LuckWarning(UserWarning):
    """Luck estimates that make the luck-adjusted outcomes noisier than the raw outcomes."""


def _plain(value: Any) -> Any:
    """A NumPy scalar as the Python scalar it holds (messages show ``11``, not ``np.int64(11)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _row_label(index: pd.Index, position: int) -> str:
    """Where a row is: its position, and its index label (a table read from a CSV file by
    the command line has its index named ``line``: the row's line in the file)."""
    if index.name == "line":
        return f"row {position} (line {_plain(index[position])} of the file)"
    return f"row {position} (index {_plain(index[position])!r})"


def _id_kind(value: Any) -> type | None:
    if isinstance(value, str):
        return str
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int
    return None


def _bad_text(value: str) -> str | None:
    """Why a name cannot be used (a NUL, a lone surrogate, nothing visible), or None."""
    if "\0" in value:
        return "holds a NUL character"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid Unicode (it holds a lone surrogate)"
    if not normalise_name(value):
        return "is empty or only spaces (and invisible characters)"
    return None


def normalise_name(name: str) -> str:
    """A player name as skcodex compares it: NFC, invisible characters dropped, spaces trimmed.

    Invisible characters are Unicode's format characters (category Cf: the
    zero-width space U+200B, zero-width joiner U+200D, soft hyphen U+00AD, byte
    order mark U+FEFF, direction marks and overrides such as U+202E, ...), which
    a name copied from a web page can carry unseen. Names that differ only by
    them, by surrounding spaces or by Unicode normal form are one player. This
    is the one place names are normalised: match tables at fit and predict time
    and the command line's ``--p1``/``--p2`` all pass through it.

    Parameters
    ----------
    name : str
        A player name as given.

    Returns
    -------
    str
        The name as compared.
    """
    if name.isascii():  # no format characters, and already in NFC
        return name.strip()
    visible = "".join(c for c in name if unicodedata.category(c) != "Cf")
    return unicodedata.normalize("NFC", visible).strip()


def _normalise_names(col: pd.Series, name: str, index: pd.Index) -> pd.Series:
    """Player names through `normalise_name` (NFC, no invisible characters, no surrounding
    spaces).

    Refuses a name holding a NUL or a lone surrogate, or one with nothing visible.
    Each distinct name is checked once.
    """
    codes, distinct = pd.factorize(col)  # directly: no object copy of a string column
    distinct = distinct.tolist()
    clean = np.empty(len(distinct), dtype=object)
    for j, value in enumerate(distinct):
        why = _bad_text(value)
        if why is not None:
            pos = int(np.flatnonzero(codes == j)[0])
            raise MatchTableError(
                f"column {name!r}: the player name at {_row_label(index, pos)} {why}"
            )
        clean[j] = normalise_name(value)
    if clean.tolist() == distinct:
        return col
    return pd.Series(clean[codes], index=col.index, dtype=object)


def _check_ids(col: pd.Series, name: str) -> type | None:
    """Check one player column; return the id type (str or int), None when empty."""
    null = col.isna().to_numpy()
    if null.any():
        pos = int(np.flatnonzero(null)[0])
        raise MatchTableError(f"column {name!r} is missing a value at {_row_label(col.index, pos)}")
    if isinstance(col.dtype, pd.StringDtype):  # pandas' string columns hold only str
        return str
    if col.dtype.kind in "iu":
        return int
    values = col.to_numpy()
    fast = pd.api.types.infer_dtype(values, skipna=False)
    if fast in ("string", "integer"):
        return str if fast == "string" else int
    kinds = [_id_kind(v) for v in values]
    if None in kinds:
        pos = kinds.index(None)
        bad = values[pos]
        raise MatchTableError(
            f"column {name!r} must hold player names (str) or ids (int); got {_plain(bad)!r} "
            f"of type {type(bad).__name__} at {_row_label(col.index, pos)}"
        )
    if len(set(kinds)) > 1:
        pos = next(i for i, k in enumerate(kinds) if k is not kinds[0])
        raise MatchTableError(
            f"column {name!r} mixes str and int player ids: {_plain(values[0])!r} at "
            f"{_row_label(col.index, 0)} but {_plain(values[pos])!r} at "
            f"{_row_label(col.index, pos)}; use one type for every player"
        )
    return kinds[0] if kinds else None


@functools.lru_cache(maxsize=2**16)
def _parse_remembered(text: str, catalogue: Catalogue) -> Deck:
    """`parse_deck`, remembered across calls (decks and catalogues are immutable)."""
    return parse_deck(text, catalogue)


def _to_deck(value: Any, catalogue: Catalogue, cache: dict, given: bool) -> Deck:
    """``value`` read as a deck; a `Deck` is checked against a ``given`` catalogue only."""
    if isinstance(value, Deck):
        return checked_deck(value, catalogue) if given else value
    if isinstance(value, str):
        deck = cache.get(value)
        if deck is None:
            deck = cache[value] = _parse_remembered(value, catalogue)
        return deck
    if isinstance(value, tuple) and len(value) == 2 and not isinstance(value[1], str):
        return _to_deck(Deck(value[0], value[1]), catalogue, cache, given)
    raise DeckParseError(f"a deck must be a forum-notation string or a Deck, got {value!r}")


def table_catalogue(X: Any, catalogue: Catalogue | None = None) -> Catalogue | None:
    """The catalogue a table's deck strings are read against, when none is given.

    A given ``catalogue`` wins; otherwise the table's own ``X.attrs["catalogue"]``
    (set by `skcodex.datasets.load_codex_matches`, kept by pandas through
    ``iloc``, ``loc``, ``copy`` and so through scikit-learn's splitters);
    otherwise None (the base game).

    Parameters
    ----------
    X : pandas.DataFrame or any
        The match table.
    catalogue : Catalogue or None, default None
        An explicitly given catalogue.

    Returns
    -------
    Catalogue or None
        The catalogue to read the decks with; None for the base game.
    """
    if catalogue is not None:
        return catalogue
    attrs = getattr(X, "attrs", None)
    found = attrs.get("catalogue") if isinstance(attrs, dict) else None
    return found if isinstance(found, Catalogue) else None


def check_match_table(
    X: Any,
    catalogue: Catalogue | PlainCatalogue | None = None,
    *,
    require_rows: bool = True,
    read_decks: bool = True,
) -> pd.DataFrame:
    """Validate a match table and return a clean copy with decks as `Deck` values.

    The caller's table is never modified. Player ids keep their type; extra
    columns are dropped.

    Parameters
    ----------
    X : pandas.DataFrame
        The match table, one row a match: ``player1`` (who moves first), ``player2``,
        ``deck1``, ``deck2``, and optionally ``period`` and ``date``.
    catalogue : Catalogue or PlainCatalogue or None, default None
        What deck strings, and `Deck` values, are read against: by default the table's
        ``X.attrs["catalogue"]`` (`skcodex.datasets.load_codex_matches` sets it), else
        base Codex for strings and no check for `Deck` values.
    require_rows : bool, default True
        Raise on an empty table.
    read_decks : bool, default True
        Read the decks into `Deck` values (the default). False only checks
        that every row has them and returns them as given: for models that
        ignore decks, so a deck name they never use (or another game's deck)
        cannot make them refuse a table.

    Returns
    -------
    pandas.DataFrame
        Columns ``player1``, ``player2``, ``deck1``, ``deck2`` and the optional
        columns present, with a fresh RangeIndex.

    Raises
    ------
    MatchTableError
        Naming the column, row and value at fault.
    """
    _check_frame(X, require_rows)
    level_columns = tuple(k.column for k in column_kinds())
    keep = [c for c in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS, *level_columns) if c in X.columns]
    table = X.loc[:, keep].copy()
    _check_players(table, X.index, X)
    given = table_catalogue(X, catalogue)
    cat, cache, sizes = given or CODEX, {}, set()
    for name in ("deck1", "deck2"):
        read = _deck_column(table[name], name, X.index, cat, cache, read_decks, given is not None)
        if read is not None:
            table[name], spec_counts = read
            sizes.update(spec_counts)
    if len(sizes) > 1:
        raise MatchTableError(
            f"every deck must hold the same number of specs; found {sorted(sizes)}"
        )
    _check_optional_columns(table, X.index)
    return table.reset_index(drop=True)


def _check_frame(X: Any, require_rows: bool) -> None:
    """A DataFrame with each required column once (and rows, when required)."""
    if not isinstance(X, pd.DataFrame):
        raise MatchTableError(
            "X must be a pandas DataFrame with columns player1, player2, deck1, deck2 "
            f"(and optionally period, date, series); got {type(X).__name__}"
        )
    if X.columns.duplicated().any():
        dup = X.columns[X.columns.duplicated()][0]
        raise MatchTableError(f"the match table has the column {dup!r} more than once")
    missing = [c for c in REQUIRED_COLUMNS if c not in X.columns]
    if missing:
        raise MatchTableError(
            f"the match table is missing the column(s) {', '.join(map(repr, missing))}; "
            f"it has {', '.join(map(repr, map(str, X.columns))) or 'no columns'}"
            + close_columns(missing, X.columns, REQUIRED_COLUMNS)
        )
    if require_rows and len(X) == 0:
        raise MatchTableError("the match table has no rows")


def _check_players(table: pd.DataFrame, index: pd.Index, X: pd.DataFrame) -> None:
    """Check the player columns of ``table`` in place: ids of one type, names normalised,
    nobody facing themself (``X``, the caller's table, gives the names as written)."""
    kinds: dict[str, type | None] = {}
    for name in ("player1", "player2"):
        if isinstance(table[name].dtype, pd.CategoricalDtype):
            table[name] = table[name].astype(object)
        kinds[name] = _check_ids(table[name], name)
        if kinds[name] is str:
            table[name] = _normalise_names(table[name], name, index)
    if None not in kinds.values() and kinds["player1"] is not kinds["player2"]:
        raise MatchTableError(
            "columns 'player1' and 'player2' mix str and int player ids: "
            f"{_plain(table['player1'].iloc[0])!r} and {_plain(table['player2'].iloc[0])!r} at "
            f"{_row_label(index, 0)}; use one type for every player"
        )
    same = np.flatnonzero(
        (table["player1"] == table["player2"]).to_numpy(dtype=bool, na_value=False)
    )
    if len(same):
        pos = int(same[0])
        raw1, raw2 = _plain(X["player1"].iloc[pos]), _plain(X["player2"].iloc[pos])
        if raw1 != raw2:
            raise MatchTableError(
                f"player {raw1!r} faces {raw2!r} at {_row_label(index, pos)}: the same "
                "player once surrounding spaces, invisible characters and Unicode normal form "
                "are set aside"
            )
        raise MatchTableError(f"player {raw1!r} faces themself at {_row_label(index, pos)}")


def _deck_column(
    column: pd.Series,
    name: str,
    index: pd.Index,
    catalogue: Catalogue | PlainCatalogue,
    cache: dict,
    read_decks: bool,
    given: bool,
) -> tuple[np.ndarray, set[int]] | None:
    """A deck column read into `Deck` values (each distinct deck once) with the numbers of
    specs its decks hold; None when ``read_decks`` is False (then only checked for missing
    decks). `Deck` values are checked against the catalogue when one is ``given``."""
    try:  # read each distinct deck once
        codes, distinct = pd.factorize(column, use_na_sentinel=True)
        distinct = np.asarray(distinct, dtype=object)
    except TypeError:  # unhashable values: read them one by one
        col = column.astype(object).to_numpy()
        codes, distinct = np.arange(len(col)), col
    missing = np.flatnonzero(codes < 0)
    if len(missing):
        raise MatchTableError(
            f"column {name!r} is missing a deck at {_row_label(index, int(missing[0]))}"
        )
    if not read_decks:
        return None
    decks = np.empty(len(distinct), dtype=object)
    for j, value in enumerate(distinct):
        try:
            decks[j] = _to_deck(value, catalogue, cache, given)
        except (DeckParseError, ValueError, TypeError) as err:
            pos = int(np.flatnonzero(codes == j)[0])
            raise MatchTableError(f"column {name!r}, {_row_label(index, pos)}: {err}") from None
    return decks[codes], {len(deck.specs) for deck in decks}


def _check_optional_columns(table: pd.DataFrame, index: pd.Index) -> None:
    """Check (and read) the optional columns in place: ``period``, ``date``, ``series``, kinds'."""
    if "period" in table.columns:
        if table["period"].isna().any():
            pos = int(np.flatnonzero(table["period"].isna().to_numpy())[0])
            raise MatchTableError(f"column 'period' is missing a value at {_row_label(index, pos)}")
        if isinstance(table["period"].dtype, pd.CategoricalDtype):
            table["period"] = table["period"].astype(object)
        _check_periods(table["period"], index)
        table["period"] = trimmed_labels(table["period"], normalise_name)
    if "date" in table.columns:
        table["date"] = read_dates(
            table["date"], "date", MatchTableError, where=lambda pos: _row_label(index, pos)
        )
    if "series" in table.columns:
        from skcodex.data._series import check_series

        if isinstance(table["series"].dtype, pd.CategoricalDtype):
            table["series"] = table["series"].astype(object)
        check_series(table, index, MatchTableError, _row_label, label_codes)
    for kind in column_kinds():
        if kind.column in table.columns:
            table[kind.column] = _check_level_column(table[kind.column], kind.column, index)


def _check_level_column(column: pd.Series, name: str, index: pd.Index) -> pd.Series:
    """A column of a kind of level read from the table: one level a match, none missing."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        column = column.astype(object)
    missing = np.flatnonzero(column.isna().to_numpy())
    if len(missing):
        raise MatchTableError(
            f"column {name!r} is missing a value at {_row_label(index, int(missing[0]))}"
        )
    return column


def _check_periods(period: pd.Series, index: pd.Index) -> None:
    """Period labels must be hashable scalars; text labels must be storable text."""

    def refuse(value: Any) -> str | None:
        if isinstance(value, (list, tuple, set, frozenset, dict, np.ndarray)):
            return f"is a {type(value).__name__}, not one label"
        return None

    label_codes(period, "period", index, each="per match", refuse=refuse)


def label_codes(
    column: pd.Series, name: str, index: pd.Index, *, each: str, refuse: Any
) -> tuple[np.ndarray, Any]:
    """``pd.factorize`` of a column of labels, refusing what is not one label.

    An unhashable value, text `_bad_text` refuses, or a value for which
    ``refuse(value)`` gives a reason is a `MatchTableError` naming its row;
    ``each`` ends the remedy ("give one label (text, number or date) per match").
    """
    try:
        codes, labels = pd.factorize(column)
    except TypeError:
        for pos, value in enumerate(column.to_numpy(dtype=object)):
            try:
                hash(value)
            except TypeError:
                raise MatchTableError(
                    f"column {name!r} holds a {type(value).__name__} at "
                    f"{_row_label(index, pos)}; give one label (text, number or date) {each}"
                ) from None
        raise MatchTableError(f"column {name!r} holds values that cannot be compared") from None
    for j, value in enumerate(np.asarray(labels, dtype=object)):
        why = _bad_text(value) if isinstance(value, str) else refuse(value)
        if why is not None:
            pos = int(np.flatnonzero(codes == j)[0])
            raise MatchTableError(f"column {name!r}: the label at {_row_label(index, pos)} {why}")
    return codes, labels


def time_order(table: pd.DataFrame, *, strict: bool = True) -> np.ndarray | None:
    """The stable order of a checked match table's rows in time, or None when they are in it.

    Time is the ``date`` column when there is one. Without it, ``period``
    labels that are all numbers, dates or `pandas.Period` values are read as
    times (`period_times`); text labels have no order of their own, so their
    periods follow the rows. Rows with
    equal times keep their order.

    Parameters
    ----------
    table : pandas.DataFrame
        A table returned by `check_match_table`.
    strict : bool, default True
        Refuse a missing date; otherwise a row without a date takes the earliest
        date of its period, and rows whose period has none come last.

    Returns
    -------
    ndarray of int or None
        Row positions in time order; None when the rows already are in it.

    Raises
    ------
    MatchTableError
        If the ``date`` column is missing a value.
    """
    if strict:
        check_dated(table)
    if "date" in table.columns:
        missing = np.flatnonzero(table["date"].isna().to_numpy())
        key = table["date"]
        if len(missing) and "period" in table.columns:
            # A match without a date is dated by the earliest match of its period, so a
            # player's first tournament stays first however few of its matches are dated.
            codes = pd.factorize(table["period"])[0]
            key = key.fillna(key.groupby(codes).transform("min"))
    elif "period" in table.columns:
        key = period_times(table["period"])
        if key is None:
            return None
    else:
        return None
    if key.is_monotonic_increasing:
        return None
    return np.argsort(key.to_numpy(), kind="stable")


def check_dated(table: pd.DataFrame) -> None:
    """Refuse a checked table whose ``date`` column misses a value (no column: fine).

    Raises
    ------
    MatchTableError
        Naming the first row without a date.
    """
    if "date" not in table.columns:
        return
    missing = np.flatnonzero(table["date"].isna().to_numpy())
    if len(missing):
        raise MatchTableError(
            f"column 'date' is missing a value at row {int(missing[0])}: give every match "
            "a date, or drop the column"
        )


@dataclass(frozen=True)
class TimeOrder:
    """A checked table's rows in time, computed once at the boundary and carried.

    ``rows`` is `time_order` of the table (not strict): row positions in time
    order, or None when the rows already are in it. A fit computes it once
    (`TimeOrder.of`) and hands it to the vocabulary, the encoding and the
    names of the periods, which otherwise each order the table again.
    """

    rows: np.ndarray | None

    @classmethod
    def of(cls, table: pd.DataFrame) -> TimeOrder:
        """The time order of ``table``, a table returned by `check_match_table`."""
        return cls(time_order(table, strict=False))


def rows_in_time(table: pd.DataFrame, time: TimeOrder | None) -> np.ndarray | None:
    """``time.rows``, or the table's time order computed now when ``time`` is None."""
    return time_order(table, strict=False) if time is None else time.rows


def period_times(period: pd.Series) -> pd.Series | None:
    """``period`` labels as times when they have an order of their own, else None.

    Numbers are read as numbers, dates as dates, and `pandas.Period` labels
    (months, weeks, ...) as their start times, so ``2024-10`` comes before
    ``2024-09`` nowhere, whatever the order of the rows. Text labels have no
    order of their own: None.

    Parameters
    ----------
    period : pandas.Series
        The ``period`` column, with no missing value.

    Returns
    -------
    pandas.Series or None
        Sortable times (floats or datetime64), one per row.
    """
    key = period
    if isinstance(key.dtype, pd.PeriodDtype):
        return key.dt.start_time
    if key.dtype == object and len(key):
        kind = pd.api.types.infer_dtype(key, skipna=False)
        if kind in ("integer", "floating", "mixed-integer-float"):
            key = key.astype(float)
        elif kind in ("datetime64", "datetime"):
            key = pd.to_datetime(key)
        elif kind == "period":
            try:
                return pd.Series(pd.PeriodIndex(key).start_time, index=key.index)
            except (ValueError, TypeError):  # periods of different frequencies
                return pd.Series(
                    pd.to_datetime([value.start_time for value in key]), index=key.index
                )
    if pd.api.types.is_datetime64_any_dtype(key) or (
        pd.api.types.is_numeric_dtype(key) and not pd.api.types.is_bool_dtype(key)
    ):
        return key
    return None
