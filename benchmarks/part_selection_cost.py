"""What deciding the "auto" parts by forward evidence costs on the forum data.

Fits every match of the shared data (771) four ways, in turn within each repeat, after
one fit of each to compile:

- the forward evidence (``part_selection="forward"``: every candidate forecasts the
  table's last three periods from the ones before, then the chosen model is fitted);
- the same with ``half_life="auto"`` (the half-lives tried after the parts, with them);
- the defaults (``part_selection="none"``: no evidence, the static model);
- the walk and the debut option asked for (the richest candidate, one fit).

Prints the median wall time of each and its ratio to the others, and writes
benchmarks/results/part_selection_cost.json.

Run: python benchmarks/part_selection_cost.py [DATA_FOLDER] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np

from skcodex import BayesianMatchupClassifier
from skcodex.datasets import load_codex_matches

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parents[1] / "shared" / "data" / "codexdata"

CONFIGURATIONS = {
    "forward evidence": {"part_selection": "forward"},
    "forward evidence and half-life": {"part_selection": "forward", "half_life": "auto"},
    "defaults (static)": {},
    "walk + debut (one fit)": {"time_varying": True, "debut": True},
}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "part_selection_cost.json")
    args = parser.parse_args(argv)
    data = load_codex_matches(args.data)
    times = {name: [] for name in CONFIGURATIONS}
    chosen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for repeat in range(-1, args.repeats):  # repeat -1 compiles, and is not counted
            for name, params in CONFIGURATIONS.items():
                started = time.perf_counter()
                clf = BayesianMatchupClassifier(random_state=repeat + 1, **params)
                clf.fit(data.X, data.y)
                if repeat >= 0:
                    times[name].append(time.perf_counter() - started)
                if repeat >= 0 and params.get("part_selection") == "forward":
                    evidence = clf.part_evidence_
                    picked = evidence.loc[evidence["chosen"], "candidate"].item()
                    if clf.half_life_evidence_ is not None:
                        picked += f", half-life {clf.half_life_}"
                    chosen.append(picked)
    median = {name: float(np.median(t)) for name, t in times.items()}
    base, rich = median["defaults (static)"], median["walk + debut (one fit)"]
    result = {
        "matches": len(data.X),
        "repeats": args.repeats,
        "seconds": times,
        "median": median,
        "forward evidence / static": median["forward evidence"] / base,
        "forward evidence / walk + debut": median["forward evidence"] / rich,
        "with half-life / static": median["forward evidence and half-life"] / base,
        "with half-life / forward evidence": (
            median["forward evidence and half-life"] / median["forward evidence"]
        ),
        "chosen": chosen,
    }
    print("| fit | median wall time | times the static fit | times the walk + debut fit |")
    print("|---|---:|---:|---:|")
    for name, m in median.items():
        print(f"| {name} | {m:.1f} s | {m / base:.2f} | {m / rich:.2f} |")
    print(f"chosen by the evidence: {chosen}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
