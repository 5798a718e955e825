"""The error a user can fix, printed by the ``skcodex`` command as one line."""

from __future__ import annotations


class CommandError(Exception):
    """A problem the user can fix; printed as one line."""
