"""The command's output folder: the model file in it, and changing the folder as a whole.

`save_model` and `load_model` are the one place the command line writes and reads
a fitted model; `prepare_output` and `publish_output` stage one run's outputs
beside the folder and swap them in only when all are written.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from skcodex.cli._errors import CommandError, Terminated

#: The fitted model's file name inside an output folder.
MODEL_FILE = "model.skcodex"


# -- saving and loading the model (one place, easy to switch format) --------------------


def save_model(clf: Any, folder: str | os.PathLike) -> Path:
    """Write a fitted classifier into a folder (its ``save`` method).

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        Fitted.
    folder : path
        The folder; the file is ``MODEL_FILE`` in it.

    Returns
    -------
    pathlib.Path
        The file written.
    """
    return clf.save(Path(folder) / MODEL_FILE)


def load_model(path: str | os.PathLike) -> Any:
    """Read a classifier written by `save_model`, from its file or its folder.

    Parameters
    ----------
    path : path
        The model file, or the folder holding ``MODEL_FILE``.

    Returns
    -------
    BayesianMatchupClassifier
        The fitted classifier.
    """
    from skcodex import load

    p = Path(path)
    if p.is_dir():
        p = p / MODEL_FILE
    if not p.exists():
        raise FileNotFoundError(f"no fitted model at {p} (write one with 'skcodex fit')")
    try:
        clf = load(p)
    except ValueError as err:
        raise CommandError(f"cannot read a fitted model: {err}") from None
    if not hasattr(clf, "idata_"):
        raise CommandError(f"{p} does not hold a fitted BayesianMatchupClassifier")
    return clf


# -- the output folder -----------------------------------------------------------------


def fit_outputs() -> frozenset[str]:
    """The files ``skcodex fit`` and ``demo`` write: the model, the page and its tables."""
    from skcodex.report._sections import csv_files

    return frozenset((MODEL_FILE, "report.html", *csv_files()))


def simulate_outputs() -> frozenset[str]:
    """The files ``skcodex simulate`` writes: the page and the tournament's tables."""
    from skcodex.tournament._report import TOURNAMENT_CSV_FILES

    return frozenset(("report.html", *TOURNAMENT_CSV_FILES))


def _foreign(out: Path, outputs: frozenset[str]) -> list[str]:
    """What ``out`` holds that is not a regular file of this command's own outputs.

    A folder or a link named like an output is the user's, never an output.
    """
    return sorted(
        p.name for p in out.iterdir() if p.name not in outputs or p.is_symlink() or not p.is_file()
    )


def _holds_cwd(out: Path) -> bool:
    """Whether ``out`` is the working folder or holds it: renaming it would move the shell's."""
    try:
        cwd = Path(os.path.abspath(os.getcwd()))
    except OSError:  # the working folder itself was removed
        return False
    return cwd == out or out in cwd.parents


def prepare_output(
    out: Path,
    inputs: tuple[str | os.PathLike, ...] = (),
    outputs: frozenset[str] | None = None,
    *,
    keep_model: bool = False,
) -> Path:
    """Check ``out`` before any fitting and create the staging folder beside it.

    One run's outputs are written into a hidden sibling folder and swapped in
    by `publish_output` only when all are written, so an interrupted or
    failed run leaves the previous outputs as they were. ``out`` must be a
    folder (or not exist yet) in a writable parent, holding nothing but
    regular files of the outputs this command writes (``outputs``, by default
    `fit_outputs`; they are replaced as a whole): any other file, a CSV or
    another command's output included, or a folder named like an output,
    makes the run stop before it fits, and so does an input of the run
    (``inputs``: the match table, a codexdata folder) inside ``out`` or
    containing it. With ``keep_model``, a folder already holding a model is
    refused too (``skcodex fit`` without ``--replace``).

    Returns
    -------
    pathlib.Path
        The staging folder.
    """
    outputs = fit_outputs() if outputs is None else outputs
    out = Path(os.path.abspath(out))
    if out.is_symlink():
        raise CommandError(
            f"--out {out} is a symbolic link (to {os.readlink(out)}); a run replaces the "
            "folder as a whole, so give the folder itself (or a new one), not a link to it"
        )
    if out.exists() and not out.is_dir():
        raise CommandError(f"--out {out} is a file, not a folder")
    for given in inputs:
        source = Path(os.path.abspath(given))
        if source == out or out in source.parents or source in out.parents:
            raise CommandError(
                f"--out {out} would replace the input {source}: a run replaces the whole "
                "folder, so write the outputs to a folder apart from the data"
            )
    if out.is_dir():
        foreign = _foreign(out, outputs)
        if foreign:
            raise CommandError(
                f"--out {out} holds files skcodex did not write ({', '.join(foreign[:3])}); "
                "a run replaces the whole folder: choose a new or empty folder"
            )
        if keep_model and (out / MODEL_FILE).is_file():
            raise CommandError(
                f"--out {out} already holds a fitted model ({MODEL_FILE}); pass --replace to "
                "replace it and its report, or choose a new folder"
            )
    parent = out.parent
    if not parent.is_dir():
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise CommandError(f"--out {out}: cannot create {parent}: {err.strerror}") from None
    try:
        return Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=parent))
    except OSError as err:
        raise CommandError(f"--out {out}: cannot write in {parent}: {err.strerror}") from None


def publish_output(staging: Path, out: Path, outputs: frozenset[str] | None = None) -> None:
    """Swap a complete staging folder in as ``out``; the old outputs go only once it is in.

    ``out`` is checked again first: if something other than this command's
    ``outputs`` (by default `fit_outputs`) appeared in it while the run
    worked, nothing is replaced. The working folder (``--out .``), and a
    folder that cannot be renamed (a mount point, such as a container's
    volume, gives "Device or resource busy"), is instead updated in place:
    each output is copied in beside its old version and renamed over it, and
    old outputs of this command the run did not write are removed. A run
    sent SIGTERM within `sigterm_unwinds` publishes nothing.
    """
    _raise_if_terminated()
    outputs = fit_outputs() if outputs is None else outputs
    out = Path(os.path.abspath(out))
    old = None
    if out.exists():
        foreign = _foreign(out, outputs) if out.is_dir() and not out.is_symlink() else [out.name]
        if foreign:
            raise CommandError(
                f"--out {out} now holds files skcodex did not write ({', '.join(foreign[:3])}); "
                "nothing was replaced: run again into a new or empty folder"
            )
        if _holds_cwd(out):
            _publish_in_place(staging, out, outputs)
            return
        old = staging.with_name(staging.name.replace(".partial", ".old"))
        try:
            os.replace(out, old)
        except OSError as err:
            if err.errno not in (errno.EBUSY, errno.EXDEV, errno.EPERM):
                raise
            _publish_in_place(staging, out, outputs)
            return
    try:
        os.replace(staging, out)
    except BaseException:
        if old is not None and not out.exists():
            os.replace(old, out)  # put the previous outputs back
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _publish_in_place(staging: Path, out: Path, outputs: frozenset[str]) -> None:
    """Copy each staged output into ``out`` and rename it over the old one; drop stale ones."""
    written = {p.name for p in staging.iterdir()}
    for name in sorted(written):
        part = out / f".{name}.partial"
        try:
            shutil.copyfile(staging / name, part)
            os.replace(part, out / name)
        finally:
            part.unlink(missing_ok=True)
    for stale in sorted(outputs - written):
        path = out / stale
        if path.is_file() and not path.is_symlink():
            path.unlink()


@contextlib.contextmanager
def sigterm_unwinds() -> Iterator[None]:
    """Within the block, SIGTERM raises `Terminated`, so ``finally`` clean-ups run.

    Python's default for SIGTERM ends the process at once, leaving the hidden
    staging folder beside ``--out`` for good. Outside the main thread (where
    signal handlers cannot be set) the block runs unchanged.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        _TERMINATED.append(signum)  # kept, should a C callback swallow the raise below
        raise Terminated("terminated (SIGTERM)")

    _TERMINATED.clear()
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
        _raise_if_terminated()
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
        _TERMINATED.clear()


#: The SIGTERMs received within `sigterm_unwinds`. Its handler raises `Terminated`, but
#: one that arrives inside a C callback (numba's compiler calls back into Python) has its
#: exception printed and dropped there; the run then stops before it publishes.
_TERMINATED: list[int] = []


def _raise_if_terminated() -> None:
    if _TERMINATED:
        raise Terminated("terminated (SIGTERM)")
