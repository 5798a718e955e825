"""The error a user can fix, printed by the ``skcodex`` command as one line."""

from __future__ import annotations


class CommandError(Exception):
    """A problem the user can fix; printed as one line."""


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived (``kill``, a container or job scheduler stopping the run).

    Raised from the signal handler of `skcodex.cli.output.sigterm_unwinds`, so the
    run unwinds like an interrupt: ``finally`` blocks remove the staging folder.
    """
