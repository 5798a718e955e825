"""Checks of the command's number arguments (argparse ``type=`` functions)."""

from __future__ import annotations

import argparse
import math


def whole_number(value: str, least: int) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
    if n < least:
        raise argparse.ArgumentTypeError(f"expected a number of at least {least}, got {value!r}")
    return n


def at_least(least: int):
    return lambda value: whole_number(value, least)


#: A count of at least one, and one of at least zero.
positive, non_negative = at_least(1), at_least(0)


def half_life(value: str) -> float | str:
    """``--half-life``: ``auto``, or a number of rating periods (at least 0.001)."""
    if value == "auto":
        return value
    try:
        h = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number of rating periods or 'auto', got {value!r}"
        ) from None
    if not (math.isfinite(h) and h >= 1e-3):
        raise argparse.ArgumentTypeError(
            f"expected a half-life of at least 0.001 rating periods, got {value!r}"
        )
    return h
