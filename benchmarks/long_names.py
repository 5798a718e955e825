"""Peak memory of a Bayesian fit with one very long player name.

Fits `BayesianMatchupClassifier` to a synthetic series of 3,000 players in
which one player's name is 50,000 characters long (the other names are
short), and to the same series with every name short, each in a fresh
process, and reports each process's peak resident memory (``ru_maxrss``).
The same pair is run with the posterior's level names given to xarray as
lists of str, as earlier versions did (every name then takes the width of
the longest one), for the comparison.

Usage::

    python benchmarks/long_names.py            # 3,000 players, 2 chains x 200 draws
    python benchmarks/long_names.py --quick    # 500 players, a smoke test

Writes ``benchmarks/results/long_names.json`` and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from fit_speed import machine, write_results  # noqa: E402

LONG = 50_000


def child(n_players: int, long_name: bool, as_lists: bool) -> None:
    """Fit once and print the peak resident memory of this process as JSON."""
    import numpy as np

    from skcodex import BayesianMatchupClassifier
    from skcodex._matchup import fitting
    from skcodex.datasets import make_matches

    if as_lists:  # the earlier coordinates: level names as lists of str
        fitting._labels = lambda names: names
    data = make_matches(n_players=n_players, n_matches=2 * n_players, random_state=0)
    X = data.X.copy()
    if long_name:
        renamed = {X["player1"].iloc[0]: "x" * LONG}
        for column in ("player1", "player2"):
            X[column] = X[column].replace(renamed)
    clf = BayesianMatchupClassifier(draws=200, tune=200, chains=2, cores=1, random_state=0)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, data.y)
    seconds = time.perf_counter() - start
    player = clf.idata_.posterior["player"] if hasattr(clf.idata_, "posterior") else None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux
    print(
        json.dumps(
            {
                "peak_bytes": peak,
                "fit_seconds": seconds,
                "player_coordinate_bytes": int(np.asarray(player).nbytes)
                if player is not None
                else None,
                "longest_name": int(max(len(str(p)) for p in clf.vocabulary_.players)),
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        n, long_name, as_lists = args.child
        child(int(n), long_name == "1", as_lists == "1")
        return
    n_players = 500 if args.quick else 3000
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    rows = []
    for as_lists in (False, True):
        for long_name in (False, True):
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--child",
                    str(n_players),
                    str(int(long_name)),
                    str(int(as_lists)),
                ],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
            result = json.loads(out.stdout.strip().splitlines()[-1])
            rows.append(
                {
                    "coordinates": "lists of str (earlier)" if as_lists else "object arrays",
                    "longest_name": result["longest_name"],
                    **result,
                }
            )
    print(f"{n_players} players, 2 chains x 200 draws, one process per row")
    print(
        f"{'coordinates':<24} {'longest name':>13} {'peak memory':>12} "
        f"{'player coord':>13} {'fit':>7}"
    )
    for row in rows:
        coord = row["player_coordinate_bytes"]
        print(
            f"{row['coordinates']:<24} {row['longest_name']:>13,} "
            f"{row['peak_bytes'] / 2**20:>9,.0f} MiB "
            f"{(coord or 0) / 2**20:>9,.1f} MiB {row['fit_seconds']:>6.1f}s"
        )
    name = "long_names_quick" if args.quick else "long_names"
    path = write_results(name, {"n_players": n_players, "rows": rows, "machine": machine()})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
