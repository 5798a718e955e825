"""Checks of the command's whole-number arguments (argparse ``type=`` functions)."""

from __future__ import annotations

import argparse


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
