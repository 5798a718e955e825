"""The error a user can fix, printed by the ``skcodex`` command as one line."""

from __future__ import annotations


class CommandError(Exception):
    """A problem the user can fix; printed as one line."""


class Terminated(BaseException):
    """SIGTERM arrived (``kill``, a container or job scheduler stopping the run).

    Raised from the signal handler of `skcodex.cli._output.sigterm_unwinds`, so the
    run unwinds and ``finally`` blocks remove the staging folder. Not a
    `KeyboardInterrupt`: samplers catch that to stop early and return the draws
    so far, and a stopped run must not go on to publish them.
    """


def shown(value: object) -> str:
    """``value`` as text safe to print to a terminal: every unprintable character escaped.

    Names come from files someone else may have written; a terminal acts on the
    control characters in them (ESC sequences can set the clipboard, retitle the
    window or move the cursor to overwrite printed lines). Each character
    Python does not count as printable (controls, format characters, line and
    paragraph separators, lone surrogates; spaces other than the plain space)
    is shown as its escape, ``\\x1b`` or ``\\u202e``; everything else is shown as typed.
    """
    text = str(value)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"
