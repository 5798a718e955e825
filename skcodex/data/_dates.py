"""Reading a column of dates, numbers read as dates (years, year-months, dates)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

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
