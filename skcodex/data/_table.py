"""Validation of a match table, its outcomes and luck at the boundary; time order.

See `skcodex.data` for what a match table is.
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from skcodex.codex import CODEX, Catalogue, Deck, DeckParseError, PlainCatalogue, parse_deck
from skcodex.data._kinds import column_kinds

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


def _to_deck(value: Any, catalogue: Catalogue, cache: dict) -> Deck:
    if isinstance(value, Deck):
        return value
    if isinstance(value, str):
        deck = cache.get(value)
        if deck is None:
            deck = cache[value] = _parse_remembered(value, catalogue)
        return deck
    if isinstance(value, tuple) and len(value) == 2 and not isinstance(value[1], str):
        return Deck(value[0], value[1])
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
        What deck strings are read against. By default the table's own
        ``X.attrs["catalogue"]`` when it has one (a table from
        `skcodex.datasets.load_codex_matches` does), else base Codex.
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
        )
    if require_rows and len(X) == 0:
        raise MatchTableError("the match table has no rows")
    level_columns = tuple(k.column for k in column_kinds())
    keep = [c for c in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS, *level_columns) if c in X.columns]
    table = X.loc[:, keep].copy()
    kinds: dict[str, type | None] = {}
    for name in ("player1", "player2"):
        if isinstance(table[name].dtype, pd.CategoricalDtype):
            table[name] = table[name].astype(object)
        kinds[name] = _check_ids(table[name], name)
        if kinds[name] is str:
            table[name] = _normalise_names(table[name], name, X.index)
    if None not in kinds.values() and kinds["player1"] is not kinds["player2"]:
        raise MatchTableError(
            "columns 'player1' and 'player2' mix str and int player ids: "
            f"{_plain(table['player1'].iloc[0])!r} and {_plain(table['player2'].iloc[0])!r} at "
            f"{_row_label(X.index, 0)}; use one type for every player"
        )
    same = np.flatnonzero(
        (table["player1"] == table["player2"]).to_numpy(dtype=bool, na_value=False)
    )
    if len(same):
        pos = int(same[0])
        raw1, raw2 = _plain(X["player1"].iloc[pos]), _plain(X["player2"].iloc[pos])
        if raw1 != raw2:
            raise MatchTableError(
                f"player {raw1!r} faces {raw2!r} at {_row_label(X.index, pos)}: the same "
                "player once surrounding spaces, invisible characters and Unicode normal form "
                "are set aside"
            )
        raise MatchTableError(f"player {raw1!r} faces themself at {_row_label(X.index, pos)}")
    cat = table_catalogue(X, catalogue) or CODEX
    cache: dict[str, Deck] = {}
    sizes: set[int] = set()
    for name in ("deck1", "deck2"):
        try:  # read each distinct deck once
            codes, distinct = pd.factorize(table[name], use_na_sentinel=True)
            distinct = np.asarray(distinct, dtype=object)
        except TypeError:  # unhashable values: read them one by one
            col = table[name].astype(object).to_numpy()
            codes, distinct = np.arange(len(col)), col
        missing = np.flatnonzero(codes < 0)
        if len(missing):
            raise MatchTableError(
                f"column {name!r} is missing a deck at {_row_label(X.index, int(missing[0]))}"
            )
        if not read_decks:
            continue
        decks = np.empty(len(distinct), dtype=object)
        for j, value in enumerate(distinct):
            try:
                decks[j] = _to_deck(value, cat, cache)
            except (DeckParseError, ValueError, TypeError) as err:
                pos = int(np.flatnonzero(codes == j)[0])
                raise MatchTableError(
                    f"column {name!r}, {_row_label(X.index, pos)}: {err}"
                ) from None
            sizes.add(len(decks[j].specs))
        table[name] = decks[codes]
    if len(sizes) > 1:
        raise MatchTableError(
            f"every deck must hold the same number of specs; found {sorted(sizes)}"
        )
    if "period" in table.columns:
        if table["period"].isna().any():
            pos = int(np.flatnonzero(table["period"].isna().to_numpy())[0])
            raise MatchTableError(
                f"column 'period' is missing a value at {_row_label(X.index, pos)}"
            )
        if isinstance(table["period"].dtype, pd.CategoricalDtype):
            table["period"] = table["period"].astype(object)
        _check_periods(table["period"], X.index)
    if "date" in table.columns:
        table["date"] = read_dates(table["date"], "date", MatchTableError)
    if "series" in table.columns:
        from skcodex.data._series import check_series

        if isinstance(table["series"].dtype, pd.CategoricalDtype):
            table["series"] = table["series"].astype(object)
        check_series(table, X.index, MatchTableError, _row_label, _bad_text)
    for name in level_columns:
        if name in table.columns:
            table[name] = _check_level_column(table[name], name, X.index)
    return table.reset_index(drop=True)


def _check_level_column(column: pd.Series, name: str, index: pd.Index) -> pd.Series:
    """A column of levels of a kind (`skcodex.data._kinds`): one level a match, none missing."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        column = column.astype(object)
    missing = np.flatnonzero(column.isna().to_numpy())
    if len(missing):
        raise MatchTableError(
            f"column {name!r} is missing a value at {_row_label(index, int(missing[0]))}"
        )
    return column


#: Whole numbers a date column may hold, by their digits: years, year-months, dates.
_NUMBER_DATES = {4: "%Y", 6: "%Y%m", 8: "%Y%m%d"}


def read_dates(values: Any, column: str, error: type = ValueError) -> pd.Series:
    """A column of dates as ``datetime64[ns]`` (its index kept), numbers read as dates.

    Text and dates are read by pandas. Whole numbers are read as years
    (``2013``), year-months (``201305``) or dates (``20130521``), all of one
    kind, never as nanoseconds since 1970 (pandas' reading, which puts the
    year 2013 at 1970-01-01 00:00:00.000002013); any other number is refused
    with ``error``, naming the column.
    """
    series = values if isinstance(values, pd.Series) else pd.Series(values)
    if _numbers(series):
        numbers = pd.to_numeric(series, errors="coerce")
        present = numbers.dropna().to_numpy(dtype=float)
        whole = len(present) > 0 and bool(
            np.all((present == np.round(present)) & (present > 0) & (present < 1e8))
        )
        digits = {len(str(int(v))) for v in present} if whole else set()
        if len(digits) != 1 or next(iter(digits)) not in _NUMBER_DATES:
            example = float(present[0]) if len(present) else None
            shown = example if example is None or not example.is_integer() else int(example)
            raise error(
                f"column {column!r} holds numbers ({shown!r}) that are not years (2013), "
                "year-months (201305) or dates (20130521) of one kind; give dates as text "
                "such as 2013-05-21"
            )
        text = numbers.map(lambda v: None if pd.isna(v) else str(int(v)))
        try:
            return pd.to_datetime(text, format=_NUMBER_DATES[digits.pop()])
        except (ValueError, TypeError) as err:
            raise error(f"column {column!r} holds a number that is not a date: {err}") from None
    try:
        return pd.to_datetime(series)
    except (ValueError, TypeError, OverflowError) as err:
        raise error(f"column {column!r} holds a value that is not a date: {err}") from None


def _numbers(series: pd.Series) -> bool:
    """Whether a column holds numbers (not booleans), missing values aside."""
    if series.dtype.kind in "iuf":
        return True
    if series.dtype != object:
        return False
    present = [v for v in series if not (v is None or v is pd.NA or v is pd.NaT or v != v)]
    return bool(present) and all(
        isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
        for v in present
    )


def _check_periods(period: pd.Series, index: pd.Index) -> None:
    """Period labels must be hashable scalars; text labels must be storable text."""
    try:
        codes, labels = pd.factorize(period)
    except TypeError:
        for pos, value in enumerate(period.to_numpy(dtype=object)):
            try:
                hash(value)
            except TypeError:
                raise MatchTableError(
                    f"column 'period' holds a {type(value).__name__} at "
                    f"{_row_label(index, pos)}; give one label (text, number or date) per match"
                ) from None
        raise MatchTableError("column 'period' holds values that cannot be compared") from None
    for j, value in enumerate(np.asarray(labels, dtype=object)):
        why = None
        if isinstance(value, str):
            why = _bad_text(value)
        elif isinstance(value, (list, tuple, set, frozenset, dict, np.ndarray)):
            why = f"is a {type(value).__name__}, not one label"
        if why is not None:
            pos = int(np.flatnonzero(codes == j)[0])
            raise MatchTableError(f"column 'period': the label at {_row_label(index, pos)} {why}")


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


def check_luck(luck: Any, n_matches: int) -> np.ndarray:
    """Validate per-match net luck for player 1 (win-probability scale), one finite float each.

    Parameters
    ----------
    luck : array-like of shape (n_matches,)
        Player 1's net luck in each match.
    n_matches : int
        The number of matches in the table.

    Returns
    -------
    ndarray of float
        The luck as a one-dimensional float array.

    Raises
    ------
    MatchTableError
        Naming the problem: not numbers, not one per match, or not finite.
    """
    if isinstance(luck, pd.DataFrame):
        if luck.shape[1] != 1:
            raise MatchTableError(
                f"luck must be one column of numbers, got {luck.shape[1]} columns"
            )
        luck = luck.iloc[:, 0]
    try:
        arr = np.asarray(luck, dtype=float)
    except (TypeError, ValueError) as err:
        raise MatchTableError(
            f"luck must be numbers (player 1's net luck per match): {err}"
        ) from None
    if arr.ndim != 1:
        raise MatchTableError(f"luck must be one-dimensional, got shape {arr.shape}")
    if len(arr) != n_matches:
        raise MatchTableError(
            f"luck must hold one number per match: X has {n_matches} matches but luck has "
            f"{len(arr)} values (luck values and matches must match)"
        )
    bad = np.flatnonzero(~np.isfinite(arr))
    if len(bad):
        raise MatchTableError(f"luck must be finite; found {arr[bad[0]]!r} at row {int(bad[0])}")
    return arr


def adjust_for_luck(
    table: pd.DataFrame, outcome: np.ndarray, luck: np.ndarray, *, bounded: bool = True
) -> np.ndarray:
    """Luck-adjusted outcomes ``outcome - luck``, after checking the luck evaluator.

    Two checks, because an unbiased adjustment is not always a helpful or safe one:

    - The adjustment helps only when the luck it removes outweighs the noise
      its own errors add: then the adjusted outcomes vary less than the raw
      ones. When they vary more (a noisy or wrong evaluator), a `LuckWarning`
      says so: the estimates stay unbiased, but are less precise than without
      luck.
    - With ``bounded`` (for likelihood-based fits), each player's adjusted
      total of wins must lie in [0, matches played]. Outside it the binomial
      quasi-likelihood grows without bound as that player's skill goes to
      plus or minus infinity, so it has no maximum and a posterior built on
      it is improper: refused with the player named.

    Parameters
    ----------
    table : pandas.DataFrame
        A table checked by `check_match_table`.
    outcome : ndarray
        1 where player 1 won, 0 where player 2 won.
    luck : ndarray
        Player 1's net luck per match, from `check_luck`.
    bounded : bool, default True
        Refuse players whose adjusted totals leave [0, matches played].

    Returns
    -------
    ndarray of float
        The adjusted outcomes ``outcome - luck``.
    """
    import warnings

    adjusted = outcome - luck
    raw_var, adjusted_var = float(np.var(outcome)), float(np.var(adjusted))
    if len(outcome) > 1 and adjusted_var > raw_var:
        warnings.warn(
            f"the luck-adjusted outcomes vary more than the raw outcomes (variance "
            f"{adjusted_var:.3g} against {raw_var:.3g}): the luck estimates add more noise than "
            "they remove, so the fit is less precise than without luck; check the evaluator",
            LuckWarning,
            stacklevel=3,
        )
    if not bounded:
        return adjusted
    n = len(table)
    codes, players = pd.factorize(pd.concat([table["player1"], table["player2"]]))
    size = len(players)
    wins = np.bincount(codes[:n], weights=adjusted, minlength=size) + np.bincount(
        codes[n:], weights=1.0 - adjusted, minlength=size
    )
    played = np.bincount(codes, minlength=size)
    tolerance = 1e-9 * np.maximum(played, 1)
    outside = np.flatnonzero((wins < -tolerance) | (wins > played + tolerance))
    if len(outside):
        k = int(outside[0])
        raise MatchTableError(
            f"after the luck adjustment player {_plain(players[k])!r} has {wins[k]:.3g} wins "
            f"from {played[k]} matches, outside [0, {played[k]}] ({len(outside)} player(s) in "
            "all): the fit would have no maximum (an improper posterior). The luck estimates "
            "are too noisy for these matches: check the evaluator, or fit without luck"
        )
    return adjusted


def check_outcome(y: Any, n_matches: int) -> np.ndarray:
    """Validate match outcomes: 1 (or True) where player 1 won, 0 (or False) where player 2 won.

    A one-column frame or (n, 1) array is read as its column.

    Parameters
    ----------
    y : array-like of shape (n_matches,)
        The outcomes.
    n_matches : int
        The number of matches in the table.

    Returns
    -------
    ndarray of int8
        1 where player 1 won, 0 where player 2 won.

    Raises
    ------
    MatchTableError
        For a missing y, NaN, draws or other values, a 2-D y of several
        columns, or a length that differs from the table's.
    """
    if y is None:
        raise MatchTableError(
            "fit requires y to be passed, but the target y is None: "
            "give 1 where player1 won, 0 where player2 won"
        )
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise MatchTableError(f"y must be one column of outcomes, got {y.shape[1]} columns")
        y = y.iloc[:, 0]
    elif isinstance(y, np.ndarray) and y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]  # a one-column array, read like a one-column frame
    if isinstance(y, pd.Series) and isinstance(y.dtype, np.dtype) and y.dtype.kind in "biuf":
        y = y.to_numpy()
    arr = np.asarray(y, dtype=object) if not isinstance(y, np.ndarray) else y
    if arr.dtype.kind in "biuf" and arr.ndim == 1 and len(arr) == n_matches:
        if np.all((arr == 0) | (arr == 1)):  # the common case, without a Python loop
            return arr.astype(np.int8)
    if arr.ndim != 1:
        raise MatchTableError(f"y must be one-dimensional, got shape {arr.shape}")
    if len(arr) != n_matches:
        raise MatchTableError(
            f"X has {n_matches} matches but y has {len(arr)} outcomes; they must match"
        )
    out = np.empty(len(arr), dtype=np.int8)
    for pos, value in enumerate(arr):
        if isinstance(value, (bool, np.bool_)) or (
            isinstance(value, (int, float, np.integer, np.floating)) and value in (0, 1)
        ):
            out[pos] = int(value)
        else:
            is_half = isinstance(value, (float, np.floating)) and value == 0.5
            extra = " (draws are not supported here)" if is_half else ""
            raise MatchTableError(
                "y must be 1 (player1 won) or 0 (player2 won); "
                f"got {_plain(value)!r} at row {pos}{extra}"
            )
    return out
