"""The ``skcodex`` command run as a user runs it: in a new process, or in this one."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def skcodex(*args, cwd=None):
    """Run ``skcodex`` in a new process; return (exit status, stdout, stderr)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "skcodex.cli", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.returncode, done.stdout, done.stderr


def in_process(argv, capsys):
    """Run the command in this process; return (exit status, stdout, stderr)."""
    from skcodex.cli import main

    try:
        code = main([str(a) for a in argv])
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err
