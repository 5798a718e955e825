"""Recent matches counted more (``half_life``), judged by the rule against the default.

Each training match is weighted ``0.5 ** (age / half_life)``, its age the number of rating
periods between its own and the training table's latest (Dixon and Coles's weighting of
football results by recency, in periods): the estimator's ``half_life`` parameter.
Candidates, all fixed before any fold was scored:

- fixed half-lives of 8, 4 and 2 periods (``half_life=8`` and so on);
- **the half-life chosen by the table's own forward evidence** (``half_life="auto"`` with
  ``part_selection="forward"``): the package's rule for its ``"auto"`` parts
  (`skcodex._matchup.part_choice`) with the half-lives as candidates and no weighting as
  the simplest: the latest three periods of the training table forecast from the ones
  before with short chains, a half-life kept only when its forward log score beats no
  weighting by two standard errors, and the best of those kept.

The incumbent is the estimator's default (the static model, newcomers around the late
arrivals). Every candidate is the same estimator with the same seed. Prints, per record,
the pooled Brier scores, each half, and the rule's verdict for each candidate; writes
``benchmarks/results/time_decay.json``.

Run: python benchmarks/time_decay.py [--records codex,nfl,hockey,football,chess,nba]
     [--draws 1000] [--out benchmarks/results/time_decay.json]
"""

from __future__ import annotations

import time
import warnings

import default_rule
import numpy as np
import pandas as pd
from forecast import STATIC
from newcomer_mean import arguments, score_records, windows
from sklearn.base import clone

from skcodex import BayesianMatchupClassifier
from skcodex._matchup.recency import HALF_LIVES

DEFAULT = "skcodex default"
CHOSEN = "half-life chosen by forward evidence"
#: Each candidate's parameters, the default's first.
CANDIDATES = {
    DEFAULT: {},
    **{f"half-life {h:g} periods": {"half_life": h} for h in HALF_LIVES},
    CHOSEN: {"half_life": "auto", "part_selection": "forward"},
}


def forward(X, y, cv, catalogue, draws: int) -> tuple[pd.DataFrame, list]:
    """Every fold: each candidate fitted on its training matches, forecasting the fold."""
    base = BayesianMatchupClassifier(
        draws=draws, tune=draws, random_state=0, catalogue=catalogue, **STATIC
    )
    y = np.asarray(y)
    frames, chosen = [], []
    for split, (train, test) in enumerate(cv.split(X, y)):
        columns = {}
        for name, params in CANDIDATES.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fitted = clone(base).set_params(**params).fit(X.iloc[train], y[train])
            columns[name] = fitted.predict_proba(X.iloc[test])[:, 1]
            if name == CHOSEN:
                chosen.append(fitted.half_life_)
        frame = pd.DataFrame({"split": split, "row": test, "y": y[test]})
        frames.append(frame.assign(**columns))
        print(f"  fold {split}: {len(test)} matches, half-life chosen: {chosen[-1]}", flush=True)
    return pd.concat(frames, ignore_index=True), chosen


def evaluate(name: str, args) -> dict:
    X, y, cv, catalogue = default_rule.record(name, args)
    started = time.time()
    forecasts, chosen = forward(X, y, cv, catalogue, args.draws)
    names = [c for c in forecasts.columns if c not in {"split", "row", "y"}]
    candidates = [n for n in names if n != DEFAULT]
    out = {"matches": len(forecasts), "folds": int(forecasts["split"].nunique())}
    out["half-life chosen per fold"] = chosen
    out["windows"] = windows(forecasts, names, DEFAULT, "minus default")
    out["rule"] = {n: default_rule.rule(forecasts, n, DEFAULT) for n in candidates}
    out["seconds"] = round(time.time() - started, 1)
    return out


def main() -> None:
    args = arguments("time_decay.json", __doc__.splitlines()[0])
    result = {"draws": args.draws, "half-lives": list(HALF_LIVES), "records": {}}
    score_records(args, result, evaluate, [n for n in CANDIDATES if n != DEFAULT])


if __name__ == "__main__":
    main()
