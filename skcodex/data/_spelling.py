"""What a table nearly said: a column's close spelling, and labels trimmed as names are."""

from __future__ import annotations

import difflib
from typing import Any

import pandas as pd


def close_columns(missing: list[str], columns: pd.Index, required: tuple) -> str:
    """`` (did you mean 'x' for 'y'?)``: the given column each missing one is nearly spelt as.

    A column that differs only in case or surrounding spaces is taken first;
    then the closest spelling left (`difflib`), each given column at most once.
    """
    left = {str(c).strip().lower(): str(c) for c in columns if str(c) not in required}
    guesses = {}
    for name in missing:
        if name in left:
            guesses[name] = left.pop(name)
    for name in missing:
        close = difflib.get_close_matches(name, list(left), n=1, cutoff=0.75)
        if name not in guesses and close:
            guesses[name] = left.pop(close[0])
    shown = ", ".join(f"{guesses[n]!r} for {n!r}" for n in missing if n in guesses)
    return f" (did you mean {shown}?)" if shown else ""


def trimmed_labels(period: pd.Series, normalise: Any) -> pd.Series:
    """Text period labels compared as names are (``normalise``): ``"T1 "`` is ``"T1"``."""
    if period.dtype != object and not pd.api.types.is_string_dtype(period):
        return period
    return period.map(lambda v: normalise(v) if isinstance(v, str) else v)
