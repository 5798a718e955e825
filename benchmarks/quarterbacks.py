"""What the starting quarterbacks add to the NFL teams: the static model on both records, paired.

``nfl_quarterbacks`` and ``nfl_teams`` (`game_records`) are the same games in the same
order, each side its team with and without its starting quarterback as a side
component. The static model (the estimator's default) forecasts the last five seasons
of each by the forward folds of `default_rule`; the difference of their Brier scores is
taken match by match, over all folds and each half of them, with its standard error and
95% paired bootstrap interval (`default_rule.paired`). Run at 4 chains x 1,000 draws by
default; the quarterbacks' fits take about two minutes each (docs/other-games.md).

Run: python benchmarks/quarterbacks.py [--draws 1000] [--cache DIR]
     [--out benchmarks/results/quarterbacks_paired.json]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import default_rule
import numpy as np
from forecast import HERE, cached_forecasts

from skcodex.metrics import brier_score

WITH, WITHOUT = "team and quarterback", "team alone"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "quarterbacks_paired.json")
    args = parser.parse_args(argv)
    started = time.time()
    forecasts = {}
    for label, name in ((WITH, "nfl_quarterbacks"), (WITHOUT, "nfl_teams")):
        X, y, cv, catalogue = default_rule.record(name, args)
        static = default_rule.models(catalogue, args.draws)[default_rule.STATIC_NAME]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            part = cached_forecasts({label: static}, X, y, cv, args.cache)
        forecasts[label] = part
    both = forecasts[WITH].copy()
    if not both["row"].equals(forecasts[WITHOUT]["row"]):  # the same games, fold by fold
        raise SystemExit("the two records forecast different games")
    if not np.array_equal(both["y"].to_numpy(), forecasts[WITHOUT]["y"].to_numpy()):
        raise SystemExit("the two records give the same games different outcomes")
    both[WITHOUT] = forecasts[WITHOUT][WITHOUT].to_numpy()
    result = {"draws": args.draws, "windows": {}}
    for window, part in default_rule.halves(both).items():
        y = part["y"].to_numpy()
        result["windows"][window] = {
            "matches": len(part),
            "brier": {m: brier_score(y, part[m]) for m in (WITH, WITHOUT)},
            "quarterbacks minus teams alone": default_rule.paired(part, WITH, WITHOUT),
        }
    result["seconds"] = round(time.time() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    print(f"| window | games | {WITH} | {WITHOUT} | difference (se) [95% interval] |")
    print("|---|---:|---:|---:|---|")
    for window, w in result["windows"].items():
        d = w["quarterbacks minus teams alone"]
        print(
            f"| {window} | {w['matches']:,} | {w['brier'][WITH]:.4f} | {w['brier'][WITHOUT]:.4f} "
            f"| {d['difference']:+.4f} ({d['se']:.4f}) [{d['lower']:+.4f}, {d['upper']:+.4f}] |"
        )
    return result


if __name__ == "__main__":
    main()
