"""Argument checks the data-set functions share."""

from __future__ import annotations

from typing import Any

import numpy as np


def check_flag(value: Any, name: str) -> bool:
    """A switch must be True or False; anything else is a `TypeError` naming it."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)
