"""CSV tables a spreadsheet opens as text: no cell it would run as a formula."""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["FORMULA_STARTS", "spreadsheet_safe"]


#: What a spreadsheet reads as the start of a formula (OWASP's CSV-injection list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(table: pd.DataFrame) -> pd.DataFrame:
    """A copy of a table whose text cells cannot start a spreadsheet formula.

    A player's or deck's name copied from a forum may begin with ``=``,
    ``+``, ``-``, ``@``, a tab or a carriage return, which Excel, LibreOffice
    and Google Sheets would run as a formula when the CSV file is opened. As
    OWASP's CSV-injection guidance says, such text cells (and column names)
    get a leading single quote (``'=1+2``), which the spreadsheet shows as
    text. Numbers are left as they are, so ``-0.5`` stays a number.

    Parameters
    ----------
    table : pandas.DataFrame
        Any table; its text cells and column names are made safe.

    Returns
    -------
    pandas.DataFrame
        A new frame; ``table`` is not modified.
    """

    def safe(value: Any) -> Any:
        if isinstance(value, str) and value.startswith(FORMULA_STARTS):
            return "'" + value
        return value

    out = table.copy()
    out.columns = [safe(c) for c in out.columns]
    for position in range(out.shape[1]):
        column = out.iloc[:, position]
        if column.dtype == object or isinstance(column.dtype, pd.StringDtype):
            out.isetitem(position, column.map(safe))
    return out
