"""A damaged on-disk compile cache is detected, rebuilt, and the work goes on."""

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import skcodex

PREDICT = """
import warnings
import numpy as np
from skcodex._matchup.prediction import mean_win_probability
theta = np.random.default_rng(0).normal(size=(50, 10))
index = np.array([[0, 1, 2], [3, 4, 5]])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    p = mean_win_probability(theta, index, np.array([1.0, -1.0, 1.0]), engine="numba")
print(repr(p.tolist()))
print("WARNED" if any("damaged" in str(w.message) for w in caught) else "CLEAN")
"""

FIT = """
import warnings
from skcodex import BayesianMatchupClassifier
from skcodex.datasets import make_matches
d = make_matches(n_players=10, n_matches=80, n_tournaments=2, random_state=0)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    clf = BayesianMatchupClassifier(draws=30, tune=30, chains=1, random_state=0).fit(d.X, d.y)
print(repr(clf.predict_proba(d.X[:2])[:, 1].tolist()))
print("WARNED" if any("cache was damaged" in str(w.message) for w in caught) else "CLEAN")
"""


def _run(code: str, env: dict, cwd: Path) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.strip().splitlines()[-2:]


def _same(run: list[str], reference: list[str], flag: str) -> None:
    """Same forecasts (to rounding: a kernel loaded from the cache may differ from a fresh
    compile in the last bits) and the expected warning flag."""
    assert run[1] == flag, run
    np.testing.assert_allclose(ast.literal_eval(run[0]), ast.literal_eval(reference[0]), rtol=1e-6)


def _damage(folder: Path) -> int:
    """Overwrite every numba index and kernel file under ``folder`` with garbage."""
    count = 0
    for path in folder.rglob("*"):
        if path.suffix in (".nbi", ".nbc"):
            path.write_bytes(b"garbage")
            count += 1
    return count


def _package_copy(tmp_path: Path) -> Path:
    package = tmp_path / "copy" / "skcodex"
    shutil.copytree(Path(skcodex.__file__).parent, package, ignore=shutil.ignore_patterns("*.nb?"))
    return package


@pytest.mark.slow
def test_damaged_prediction_kernel_cache_is_rebuilt(tmp_path):
    """The kernels' cache in the user's cache folder: damaged, then recovered in one call."""
    package = _package_copy(tmp_path)
    cache = tmp_path / "user-cache"
    env = {**os.environ, "PYTHONPATH": str(package.parent), "XDG_CACHE_HOME": str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)
    first = _run(PREDICT, env, tmp_path)
    assert first[1] == "CLEAN"
    assert not list(package.rglob("*.nb[ic]"))  # nothing beside the package
    assert _damage(cache / "skcodex" / "numba") >= 2
    _same(_run(PREDICT, env, tmp_path), first, "WARNED")  # same forecasts, and a warning
    _same(_run(PREDICT, env, tmp_path), first, "CLEAN")  # the next process: a good cache


@pytest.mark.slow
def test_an_unwritable_kernel_cache_compiles_without_one(tmp_path):
    """A cache folder that cannot be written: forecasts as usual, nothing cached anywhere."""
    package = _package_copy(tmp_path)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    env = {**os.environ, "PYTHONPATH": str(package.parent), "XDG_CACHE_HOME": str(blocker)}
    env.pop("NUMBA_CACHE_DIR", None)
    reference = _run(PREDICT, env, tmp_path)
    assert reference[1] == "CLEAN"
    assert not list(tmp_path.rglob("*.nb[ic]"))


@pytest.mark.slow
def test_damaged_model_compile_cache_is_rebuilt(tmp_path):
    """PyTensor's numba cache (the compiled model): damaged, then cleared and rebuilt."""
    pytest.importorskip("nutpie")
    compiledir = tmp_path / "compiledir"
    env = {**os.environ, "PYTENSOR_FLAGS": f"base_compiledir={compiledir}"}
    first = _run(FIT, env, tmp_path)
    assert first[1] == "CLEAN"
    assert _damage(compiledir) > 0
    _same(_run(FIT, env, tmp_path), first, "WARNED")
    _same(_run(FIT, env, tmp_path), first, "CLEAN")
