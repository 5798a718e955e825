"""Run one example script for the documentation's gallery and keep what it shows.

    python tools/run_example.py SCRIPT OUT [ARGS...]

Runs ``SCRIPT`` with ``ARGS`` as its command line, in ``OUT`` as working
directory, with matplotlib's non-interactive backend. Afterwards every
matplotlib figure still open is saved as ``OUT/figure-N.png``, and
``OUT/run.json`` records the exit status and the run time. The script's own
output (stdout and stderr) is left to the caller to capture.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import time
from pathlib import Path


def main() -> int:
    script, out, *args = sys.argv[1:]
    out_dir = Path(out).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    os.environ["MPLBACKEND"] = "Agg"
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.show = lambda *a, **k: None  # figures are saved below instead
    os.chdir(out_dir)
    sys.argv = [script, *args]
    start = time.perf_counter()
    status = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exit_:
        status = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    seconds = time.perf_counter() - start
    sys.stdout.flush()
    for i, number in enumerate(plt.get_fignums(), start=1):
        plt.figure(number).savefig(out_dir / f"figure-{i}.png", dpi=90, bbox_inches="tight")
    (out_dir / "run.json").write_text(json.dumps({"status": status, "seconds": seconds}))
    return status


if __name__ == "__main__":
    raise SystemExit(main())
