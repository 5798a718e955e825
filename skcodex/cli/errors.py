"""The error a user can fix, printed by the ``skcodex`` command as one line."""

from __future__ import annotations


class CommandError(Exception):
    """A problem the user can fix; printed as one line."""


class Terminated(BaseException):
    """SIGTERM arrived (``kill``, a container or job scheduler stopping the run).

    Raised from the signal handler of `skcodex.cli.output.sigterm_unwinds`, so the
    run unwinds and ``finally`` blocks remove the staging folder. Not a
    `KeyboardInterrupt`: samplers catch that to stop early and return the draws
    so far, and a stopped run must not go on to publish them.
    """
