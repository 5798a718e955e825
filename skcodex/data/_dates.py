"""Reading a column of dates, numbers read as dates (years, year-months, dates)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
from pandas.tseries.api import guess_datetime_format

#: Whole numbers a date column may hold, by their digits: years, year-months, dates.
_NUMBER_DATES = {4: "%Y", 6: "%Y%m", 8: "%Y%m%d"}


def read_dates(values: Any, column: str, error: type = ValueError, where: Any = None) -> pd.Series:
    """A column of dates as ``datetime64[ns]`` (its index kept), numbers read as dates.

    Text and dates are read by pandas. Whole numbers are read as years
    (``2013``), year-months (``201305``) or dates (``20130521``), all of one
    kind, never as nanoseconds since 1970 (pandas' reading, which puts the
    year 2013 at 1970-01-01 00:00:00.000002013); any other number is refused
    with ``error``, naming the column. ``where(pos)`` names the row of entry
    ``pos`` in a message (default: its index label).
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
    where = where or (lambda pos: _where(series, pos))
    return _text_dates(series, column, error, where)


#: What a refused date column is asked for instead.
_ASK = "give every date as year-month-day, such as 2013-05-21"


def _text_dates(series: pd.Series, column: str, error: type, where: Any) -> pd.Series:
    """Dates given as text (or as dates): ISO 8601, or one other format read one way only.

    A format that reads both month first and day first (``05/01/2020``) is read
    only if both readings agree on every value; otherwise it is refused as
    ambiguous, naming a value, rather than read in pandas' month-first guess,
    which would silently reverse the time order of a day-first table.
    """
    if series.dtype.kind == "M":
        return pd.to_datetime(series)
    readings = {}
    for name, options in (("ISO", {"format": "ISO8601"}), ("month first", {}),
                          ("day first", {"dayfirst": True})):  # fmt: skip
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # pandas' "could not infer format" advice
                readings[name] = pd.to_datetime(series, **options)
        except (ValueError, TypeError, OverflowError):
            continue
        if name == "ISO":
            return readings[name]
    if len(readings) == 2:
        first, second = readings.values()
        differ = (first != second) & first.notna()
        if differ.any():
            pos = int(np.flatnonzero(differ.to_numpy())[0])
            raise error(
                f"column {column!r} holds {series.iloc[pos]!r} at {where(pos)}, which reads "
                f"as {first.iloc[pos]:%Y-%m-%d} month first and {second.iloc[pos]:%Y-%m-%d} "
                f"day first; {_ASK}"
            )
    if readings:
        return next(iter(readings.values()))
    raise error(_unreadable(series, column, where))


def _where(series: pd.Series, pos: int) -> str:
    """Where entry ``pos`` of a column is: its index label, named as the index is."""
    return f"{series.index.name or 'index'} {series.index[pos]!r}"


def _unreadable(series: pd.Series, column: str, where: Any) -> str:
    """Why no single reading takes a whole column of dates: a value, or a mix of formats."""
    for pos, value in enumerate(series):
        if value is None or value is pd.NA or value is pd.NaT or value != value:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pd.to_datetime(value)
        except (ValueError, TypeError, OverflowError):
            return f"column {column!r} holds {value!r} at {where(pos)}, which is not a date; {_ASK}"
    present = series[series.notna()]
    odd = present.iloc[-1]
    fmt = guess_datetime_format(str(present.iloc[0]))
    if fmt is not None:  # the first value unlike the first one
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            unlike = pd.to_datetime(present, format=fmt, errors="coerce").isna().to_numpy()
        odd = present.iloc[int(np.argmax(unlike))] if unlike.any() else odd
    return (
        f"column {column!r} mixes date formats or time zones (such as "
        f"{present.iloc[0]!r} and {odd!r}); {_ASK}, with the same time zone or none"
    )


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
