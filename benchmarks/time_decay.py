"""Recent matches counted more (``sample_weight``), judged by the rule against the default.

Each training match is weighted ``0.5 ** (age / half_life)``, its age the number of rating
periods between its own and the training table's latest (Dixon and Coles's weighting of
football results by recency, in periods). Candidates, all fixed before any fold was
scored:

- fixed half-lives of 8, 4 and 2 periods;
- **the half-life chosen by the table's own forward evidence**: the package's rule for its
  ``"auto"`` parts (`skcodex._matchup.part_choice`) with the half-lives as candidates
  and no weighting as the simplest: the latest three periods of the training table
  forecast from the ones before with short chains, a half-life kept only when its forward
  log score beats no weighting by two standard errors, and the best of those kept.

The incumbent is the estimator's default (the static model, newcomers around the late
arrivals). Every candidate is the same estimator with the same seed, fitted with the
weights. Prints, per record, the pooled Brier scores, each half, and the rule's verdict
for each candidate; writes ``benchmarks/results/time_decay.json``.

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
from skcodex._matchup import part_choice
from skcodex.data._codes import period_labels
from skcodex.model_selection import TournamentSplit

DEFAULT = "skcodex default"
HALF_LIVES = (8.0, 4.0, 2.0)
CHOSEN = "half-life chosen by forward evidence"


def fixed(half_life: float) -> str:
    return f"half-life {half_life:g} periods"


def recency_weights(X: pd.DataFrame, half_life: float | None) -> np.ndarray | None:
    """``0.5 ** (age / half_life)`` per match, its age in periods before ``X``'s latest."""
    if half_life is None:
        return None
    labels = period_labels(X)
    position = X["period"].map({p: i for i, p in enumerate(labels)}).to_numpy(dtype=float)
    return 0.5 ** ((position.max() - position) / half_life)


def _fit(clf, X: pd.DataFrame, y: np.ndarray, half_life: float | None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return clone(clf).fit(X, y, sample_weight=recency_weights(X, half_life))


def chosen_half_life(clf, X: pd.DataFrame, y: np.ndarray) -> tuple[float | None, pd.DataFrame]:
    """The half-life the package's forward-evidence rule picks on the table ``X``."""
    combos = [{}, *({fixed(h): True} for h in HALF_LIVES)]
    by_label = {fixed(h): h for h in HALF_LIVES}
    folds, _ = part_choice._folds(X, TournamentSplit)
    short = clf.set_params(**part_choice.SELECTION_SAMPLING)
    forecasts = {i: [] for i in range(len(combos))}
    outcomes = []
    for train, test in folds:
        outcomes.append(y[test].astype(float))
        for i, combo in enumerate(combos):
            half_life = by_label[next(iter(combo))] if combo else None
            fitted = _fit(short, X.iloc[train], y[train], half_life)
            forecasts[i].append(fitted.predict_proba(X.iloc[test])[:, 1])
    outcome = np.concatenate(outcomes) if outcomes else np.zeros(0)
    stacked = {i: np.concatenate(f) if f else np.zeros(0) for i, f in forecasts.items()}
    evidence = part_choice._evidence_table(combos, outcome, stacked)
    row = int(np.flatnonzero(evidence["chosen"].to_numpy())[0])
    return (by_label[evidence["candidate"].iloc[row]] if row else None), evidence


def forward(X, y, cv, catalogue, draws: int) -> tuple[pd.DataFrame, list]:
    """Every fold: the default and each half-life fitted on its training matches."""
    base = BayesianMatchupClassifier(
        draws=draws, tune=draws, random_state=0, catalogue=catalogue, **STATIC
    )
    y = np.asarray(y)
    frames, chosen = [], []
    for split, (train, test) in enumerate(cv.split(X, y)):
        X_train, test_X = X.iloc[train], X.iloc[test]
        columns = {}
        for half_life in (None, *HALF_LIVES):
            fitted = _fit(base, X_train, y[train], half_life)
            name = DEFAULT if half_life is None else fixed(half_life)
            columns[name] = fitted.predict_proba(test_X)[:, 1]
        pick, _ = chosen_half_life(clone(base), X_train, y[train])
        columns[CHOSEN] = columns[DEFAULT if pick is None else fixed(pick)]
        chosen.append(pick)
        frame = pd.DataFrame({"split": split, "row": test, "y": y[test]})
        frames.append(frame.assign(**columns))
        print(f"  fold {split}: {len(test)} matches, half-life chosen: {pick}", flush=True)
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
    score_records(args, result, evaluate, [fixed(h) for h in HALF_LIVES] + [CHOSEN])


if __name__ == "__main__":
    main()
