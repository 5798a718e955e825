"""Write the saved files of tests/fixtures/saved_before_folders/ and what they forecast.

Run once, from the repository root, with the code as it was before the package's
private modules moved into folders (``python tools/saved_before_folders.py``):
each estimator `skcodex._format.savable` lists is fitted on a small table and saved, with
its forecast for a table that includes never-seen players and decks. The test
(tests/test_saved_before_folders.py) loads each file with today's code and checks
it forecasts the same.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from skcodex import BayesianMatchupClassifier
from skcodex.datasets import make_matches
from skcodex.preprocessing import MatchupEncoder
from skcodex.ratings import EloClassifier, Glicko2Classifier

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "saved_before_folders"
SAMPLING = {"draws": 40, "tune": 60, "chains": 2, "random_state": 0}


def _data():
    data = make_matches(n_players=10, n_matches=160, n_tournaments=3, random_state=3)
    return data.X, data.y


def query(X: pd.DataFrame) -> pd.DataFrame:
    """The table to forecast: the first 12 matches and 3 with a never-seen player."""
    seen = X.iloc[:12].reset_index(drop=True)
    unseen = X.iloc[12:15].reset_index(drop=True).copy()
    unseen["player1"] = ["Newcomer A", "Newcomer B", "Newcomer A"]
    return pd.concat([seen, unseen], ignore_index=True)


def estimators() -> dict:
    """Each estimator saved, by file name."""
    return {
        "default": BayesianMatchupClassifier(**SAMPLING),
        "symmetric": BayesianMatchupClassifier(symmetric=True, **SAMPLING),
        "debut_walk": BayesianMatchupClassifier(debut=True, time_varying=True, **SAMPLING),
        "all_parts": BayesianMatchupClassifier(
            synergy=True, familiarity=True, first_move=True, period_offset=True, **SAMPLING
        ),
        "elo": EloClassifier(),
        "glicko2": Glicko2Classifier(),
        "encoder": MatchupEncoder(),
    }


def dense(matrix) -> np.ndarray:
    """A design matrix as a dense float array."""
    return np.asarray(matrix.toarray() if hasattr(matrix, "toarray") else matrix, dtype=float)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    X, y = _data()
    X.to_csv(OUT / "matches.csv", index=False)
    np.savetxt(OUT / "outcomes.txt", y, fmt="%d")
    Q = query(X)
    recorded = {}
    for name, est in estimators().items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if name == "encoder":
                est.fit(X)
                recorded[name] = dense(est.transform(Q.iloc[:12])).tolist()
            else:
                est.fit(X, y)
                recorded[name] = est.predict_proba(Q)[:, 1].tolist()
        est.save(OUT / f"{name}.skcodex")
    (OUT / "recorded.json").write_text(json.dumps(recorded, indent=1) + "\n")


if __name__ == "__main__":
    main()
