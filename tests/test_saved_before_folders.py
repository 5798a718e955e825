"""Files saved before the private modules moved into folders still load and forecast the same.

The files in fixtures/saved_before_folders/ were written by
tools/saved_before_folders.py with the code of that version, together with
what each estimator forecast (recorded.json); a saved file names classes, never
modules, so moving a module must not change what a file loads as.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skcodex import load

FIXTURES = Path(__file__).parent / "fixtures" / "saved_before_folders"
RECORDED = json.loads((FIXTURES / "recorded.json").read_text())


def _tool():
    path = Path(__file__).resolve().parents[1] / "tools" / "saved_before_folders.py"
    spec = importlib.util.spec_from_file_location("saved_before_folders", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_savable_estimator_has_a_file():
    from skcodex._format.savable import ESTIMATORS

    saved = {type(load(FIXTURES / f"{name}.skcodex")).__name__ for name in RECORDED}
    assert saved == set(ESTIMATORS)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_a_file_of_the_previous_version_forecasts_as_recorded(name):
    tool = _tool()
    X = pd.read_csv(FIXTURES / "matches.csv")
    Q = tool.query(X)
    estimator = load(FIXTURES / f"{name}.skcodex")
    if name == "encoder":
        got = tool.dense(estimator.transform(Q.iloc[:12]))
    else:
        got = estimator.predict_proba(Q)[:, 1]
    np.testing.assert_allclose(got, np.asarray(RECORDED[name]), rtol=1e-9, atol=1e-12)
