"""Validation of a match table's outcomes and of luck estimates at the boundary.

See `skcodex.data` for what a match table is; the table itself is checked in
``_table.py``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from skcodex.data._table import LuckWarning, MatchTableError, _plain


def _one_number_per_match(values: Any, name: str, meaning: str) -> np.ndarray:
    """``values`` (a sequence, array, Series or one-column frame) as a new 1-D float array."""
    if isinstance(values, pd.DataFrame):
        if values.shape[1] != 1:
            raise MatchTableError(
                f"{name} must be one column of numbers, got {values.shape[1]} columns"
            )
        values = values.iloc[:, 0]
    try:
        arr = np.array(values, dtype=float)
    except (TypeError, ValueError) as err:
        raise MatchTableError(f"{name} must be numbers ({meaning}): {err}") from None
    if arr.ndim != 1:
        raise MatchTableError(f"{name} must be one-dimensional, got shape {arr.shape}")
    return arr


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
    arr = _one_number_per_match(luck, "luck", "player 1's net luck per match")
    if len(arr) != n_matches:
        raise MatchTableError(
            f"luck must hold one number per match: X has {n_matches} matches but luck has "
            f"{len(arr)} values (luck values and matches must match)"
        )
    bad = np.flatnonzero(~np.isfinite(arr))
    if len(bad):
        raise MatchTableError(
            f"luck must be finite; found {float(arr[bad[0]])!r} at row {int(bad[0])}"
        )
    return arr


def check_sample_weight(sample_weight: Any, n_matches: int) -> np.ndarray:
    """Validate per-match weights: one finite number of at least 0 each, not all 0.

    Parameters
    ----------
    sample_weight : array-like of shape (n_matches,)
        How much each match counts in the likelihood (2: as much as two such matches).
    n_matches : int
        The number of matches in the table.

    Returns
    -------
    ndarray of float
        A new one-dimensional float array (the caller's is never changed).

    Raises
    ------
    MatchTableError
        Naming the problem: not numbers, not one per match, not finite, negative, or
        all 0.
    """
    arr = _one_number_per_match(sample_weight, "sample_weight", "one per match")
    if len(arr) != n_matches:
        raise MatchTableError(
            f"sample_weight must hold one number per match: X has {n_matches} matches but "
            f"sample_weight has {len(arr)} values"
        )
    bad = np.flatnonzero(~np.isfinite(arr) | (arr < 0))
    if len(bad):
        raise MatchTableError(
            f"sample_weight must be finite and at least 0; found {float(arr[bad[0]])!r} at row "
            f"{int(bad[0])}"
        )
    if n_matches and not arr.any():
        raise MatchTableError("sample_weight is 0 for every match: nothing is left to fit")
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
