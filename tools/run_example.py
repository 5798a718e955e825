"""Run one example script for the documentation's gallery, cell by cell, and keep what it shows.

    python tools/run_example.py SCRIPT OUT [ARGS...]

A script is cut into cells at lines starting with ``# %%`` (the convention of
sphinx-gallery and of editors' notebook modes); the comment lines right after a
marker are the cell's text, in Markdown, and what follows is its code. The code
before the first marker (after the module docstring) is the first cell. A script
without markers is one cell.

The cells run in order in one namespace, as ``__main__``, with ``ARGS`` as the
command line, in ``OUT`` as working directory and with matplotlib's
non-interactive backend. After each cell, what it printed (stdout and stderr)
is kept, and so are its figures: the PNG files it wrote into ``OUT`` and every
pyplot figure opened since the previous cell, saved as ``OUT/cell-I-figure-J.png``.
``OUT/run.json`` records the exit status, the run time and the cells (text, code,
output, figures), for ``tools/docs_hooks.py``.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import re
import sys
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path

MARKER = re.compile(r"^# ?%%")


@dataclass
class Cell:
    """One cell of an example: its text (Markdown), its code and where the code starts."""

    text: str
    code: str  # as in the script, blank lines included
    first_line: int  # the script's line number of the code's first line
    output: str = ""
    figures: list[str] = field(default_factory=list)


def _docstring_end(source: str) -> int:
    """The number of lines the module docstring takes (0 without one)."""
    body = ast.parse(source).body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        if isinstance(body[0].value.value, str):
            return body[0].end_lineno or 0
    return 0


def split_cells(source: str) -> list[Cell]:
    """The cells of a script (see the module docstring)."""
    lines = source.splitlines()
    first = _docstring_end(source)
    cells = [Cell("", "", first + 1)]
    reading_text = False
    for number, line in enumerate(lines[first:], start=first + 1):
        cell = cells[-1]
        if MARKER.match(line):
            cells.append(Cell("", "", number + 1))
            reading_text = True
        elif reading_text and line.startswith("#"):
            cell.text += line[1:].removeprefix(" ") + "\n"
            cell.first_line = number + 1
        else:
            reading_text = False
            cell.code += line + "\n"
    return [c for c in cells if c.text.strip() or c.code.strip()]


def _images(folder: Path) -> dict[str, int]:
    """The PNG files in ``folder`` (not in its subfolders), with their modification times."""
    return {p.name: p.stat().st_mtime_ns for p in folder.glob("*.png")}


def main() -> int:
    script, out, *args = sys.argv[1:]
    script_path = Path(script).resolve()
    out_dir = Path(out).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    os.environ["MPLBACKEND"] = "Agg"
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.show = lambda *a, **k: None  # figures are saved after each cell instead
    os.chdir(out_dir)
    sys.argv = [str(script_path), *args]
    sys.path.insert(0, str(script_path.parent))
    cells = split_cells(script_path.read_text(encoding="utf-8"))
    namespace = {"__name__": "__main__", "__file__": str(script_path)}
    saved: set[int] = set()
    start = time.perf_counter()
    status = 0
    for i, cell in enumerate(cells, start=1):
        buffer = io.StringIO()
        before = _images(out_dir)
        code = compile("\n" * (cell.first_line - 1) + cell.code, str(script_path), "exec")
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
            try:
                exec(code, namespace)
            except SystemExit as exit_:
                code_ = exit_.code
                status = code_ if isinstance(code_, int) else (0 if code_ is None else 1)
            except BaseException:
                traceback.print_exc()
                status = 1
        cell.output = buffer.getvalue()
        sys.stdout.write(cell.output)
        sys.stdout.flush()
        cell.figures = sorted(
            name for name, stamp in _images(out_dir).items() if before.get(name) != stamp
        )
        for j, number in enumerate((n for n in plt.get_fignums() if n not in saved), start=1):
            name = f"cell-{i}-figure-{j}.png"
            plt.figure(number).savefig(out_dir / name, dpi=90, bbox_inches="tight")
            cell.figures.append(name)
            saved.add(number)
        if status:
            break
    seconds = time.perf_counter() - start
    run = {"status": status, "seconds": seconds, "cells": [asdict(c) for c in cells]}
    (out_dir / "run.json").write_text(json.dumps(run, indent=1))
    return status


if __name__ == "__main__":
    raise SystemExit(main())
