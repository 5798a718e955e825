"""Tables as the pages print them: numbers rounded, intervals written out, as text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Table", "fmt", "interval_text"]


@dataclass(frozen=True)
class Table:
    """One table of a page: its element id, column headings and rows of text."""

    id: str
    columns: list[str]
    rows: list[list[Any]]

    @classmethod
    def from_columns(cls, table_id: str, columns: dict[str, Any]) -> Table:
        """A table from its columns, each a heading and the column's values."""
        values = [list(v) for v in columns.values()]
        return cls(table_id, list(columns), [list(row) for row in zip(*values)])


def fmt(value: Any, digits: int = 2) -> str:
    """A number as the page prints it: ``–`` for a missing one, integers whole."""
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "–"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return f"{float(value):.{digits}f}"


def interval_text(lower: float, upper: float, digits: int = 2) -> str:
    """An interval as the page prints it, ``lower to upper``."""
    return f"{lower:.{digits}f} to {upper:.{digits}f}"
