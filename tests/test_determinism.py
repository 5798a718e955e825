"""Determinism: one random_state gives one answer in any process; failing samplers warn."""

import json
import os
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from skcodex import BayesianMatchupClassifier
from skcodex.datasets import make_matches

# The same data and settings as tests/test_classifier.py, so one compiled model serves both.
TINY = {"draws": 100, "tune": 100, "chains": 2}
DATA = {"n_players": 16, "n_matches": 240, "n_tournaments": 4, "random_state": 5}
# Priors that put the spreads at e^4 and a step size adapted to accept 1% of proposals:
# every transition diverges.
ABSURD = {
    "target_accept": 0.01,
    "log_sd_player_loc": 4.0,
    "log_sd_player_scale": 3.0,
    "log_sd_spsp_loc": 4.0,
    "log_sd_spsp_scale": 3.0,
}

# Fits with one random_state and writes predict_proba, unseen levels included, to .npy files.
FIT_SCRIPT = """
import sys, warnings
import numpy as np
from skcodex import BayesianMatchupClassifier
from skcodex._matchup import approximation as approximate
from skcodex.datasets import make_matches

warnings.simplefilter("ignore")
approximate.STEPS = 300
out = sys.argv[1]
data = make_matches(**{data})
X = data.X.copy()
X.loc[X.index[:3], "player1"] = "newcomer"
X.loc[X.index[3], "deck2"] = "Anarchy/Growth/Law/Black"
for name, extra in {runs}.items():
    clf = BayesianMatchupClassifier(random_state=11, **{tiny}, **extra).fit(data.X, data.y)
    np.save(f"{{out}}/{{name}}.npy", clf.predict_proba(X))
"""

RUNS = {"nutpie": {"sampler": "nutpie"}, "pymc": {"sampler": "pymc"}, "advi": {"method": "advi"}}


@pytest.fixture(scope="module")
def data():
    return make_matches(**DATA)


def _fit(data, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return BayesianMatchupClassifier(**{**TINY, "draws": 50, "tune": 50, **kwargs}).fit(
            data.X, data.y
        )


def test_same_random_state_same_predictions_in_one_process(data):
    first = _fit(data, random_state=4)
    second = _fit(data, random_state=4)
    assert np.array_equal(first.predict_proba(data.X), second.predict_proba(data.X))
    assert np.array_equal(first.effect_draws_, second.effect_draws_)
    other = _fit(data, random_state=5)
    assert not np.array_equal(first.effect_draws_, other.effect_draws_)


def test_random_state_instance_is_not_consumed_across_clones(data):
    first = _fit(data, random_state=np.random.RandomState(2))
    second = _fit(data, random_state=np.random.RandomState(2))
    assert np.array_equal(first.predict_proba(data.X), second.predict_proba(data.X))


@pytest.mark.slow
def test_two_fresh_processes_give_bit_identical_predictions(tmp_path):
    script = FIT_SCRIPT.format(data=DATA, tiny=TINY, runs=RUNS)
    folders = [tmp_path / "a", tmp_path / "b"]
    procs = []
    for folder in folders:
        folder.mkdir()
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", script, str(folder)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        )
    for proc in procs:
        _, err = proc.communicate(timeout=900)
        assert proc.returncode == 0, err.decode()[-2000:]
    for name in RUNS:
        a, b = (np.load(folder / f"{name}.npy") for folder in folders)
        assert a.shape == (240, 2) and np.all(np.isfinite(a))
        assert np.array_equal(a, b), name


def _run_with_timeout(fn, seconds):
    """Run ``fn`` in a thread; fail the test if it does not return in time."""
    result = {}

    def target():
        try:
            result["value"] = fn()
        except BaseException as exc:  # re-raised in the test's thread
            result["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    start = time.monotonic()
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"fit did not return within {seconds} s"
    if "error" in result:
        raise result["error"]
    return result["value"], time.monotonic() - start


def test_diverging_sampler_warns_and_returns(data):
    def fit():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            clf = BayesianMatchupClassifier(random_state=0, **TINY, **ABSURD).fit(data.X, data.y)
        return clf, caught

    (clf, caught), _ = _run_with_timeout(fit, 300)
    messages = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert len(messages) == 1
    assert "divergent transition" in messages[0] and "raise target_accept" in messages[0]
    assert any("divergent" in p for p in clf.convergence_problems_)
    proba = clf.predict_proba(data.X)
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)


FAILURE_SCRIPT = """
import json, warnings
from skcodex import BayesianMatchupClassifier
from skcodex.datasets import make_matches

data = make_matches(**{data})
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    clf = BayesianMatchupClassifier(
        sampler="pymc", cores=2, random_state=0, **{tiny}, **{absurd}
    ).fit(data.X, data.y)
print(json.dumps([[w.category.__name__, str(w.message)] for w in caught]))
"""


@pytest.mark.slow
def test_diverging_multiprocess_chains_warn_and_return():
    """PyMC's sampler runs the chains in forked processes; a failing run must not hang."""
    script = FAILURE_SCRIPT.format(data=DATA, tiny=TINY, absurd=ABSURD)
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=600, check=False
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    caught = json.loads(proc.stdout.strip().splitlines()[-1])
    assert any(c == "ConvergenceWarning" and "divergent" in m for c, m in caught), caught


# Fits twice in one process with each inference path; saves the draws and forecasts of each
# fit, and lists how many models the process compiled.
CACHE_SCRIPT = """
import json, sys, warnings
import numpy as np
from skcodex import BayesianMatchupClassifier
from skcodex._matchup import approximation as approximate
from skcodex._matchup import compile_cache
from skcodex.datasets import make_matches

warnings.simplefilter("ignore")
approximate.STEPS = 300
out = sys.argv[1]
data = make_matches(**{data})
X = data.X.copy()
X.loc[X.index[:3], "player1"] = "newcomer"
for name, extra in {runs}.items():
    for fit in ("first", "second"):
        clf = BayesianMatchupClassifier(random_state=11, **{tiny}, **extra).fit(data.X, data.y)
        np.save(f"{{out}}/{{name}}-{{fit}}-draws.npy", clf.effect_draws_)
        np.save(f"{{out}}/{{name}}-{{fit}}-proba.npy", clf.predict_proba(X))
print(json.dumps({{s: compile_cache.compile_count(s) for s in ("nutpie", "pymc")}}))
"""


def _cache_files(folder) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.suffix in (".nbi", ".nbc")}


@pytest.mark.slow
def test_cold_disk_cached_and_in_memory_models_give_bit_identical_results(tmp_path):
    """One seed, one answer: compiled from scratch, read from the disk cache, or in memory.

    The first process starts with empty PyTensor and numba caches, so its first fit of each
    path compiles from scratch and its second reuses the model in memory; the second
    process reads every compiled kernel from the disk cache the first one left.
    """
    pytest.importorskip("nutpie")
    cache = tmp_path / "cache"
    env = {
        **os.environ,
        "PYTENSOR_FLAGS": f"base_compiledir={cache / 'pytensor'}",
        "NUMBA_CACHE_DIR": str(cache / "numba"),
    }
    # The static model: with the debut option and the walk together, a new process
    # sometimes recompiles the log density (its disk cache key differs; docs/speed.md).
    static = {**TINY, "time_varying": False, "debut": False}
    script = CACHE_SCRIPT.format(data=DATA, tiny=static, runs=RUNS)
    runs = {}
    for process in ("cold", "warm"):
        folder = tmp_path / process
        folder.mkdir()
        before = _cache_files(cache) if cache.exists() else set()
        proc = subprocess.run(
            [sys.executable, "-c", script, str(folder)],
            env=env,
            capture_output=True,
            text=True,
            timeout=1200,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        compiled = json.loads(proc.stdout.strip().splitlines()[-1])
        # one model per sampler and process: the second fit found it in memory
        assert compiled == {"nutpie": 1, "pymc": 1}, compiled
        runs[process] = (folder, before, _cache_files(cache))
    cold_before, cold_after = runs["cold"][1:]
    warm_before, warm_after = runs["warm"][1:]
    assert not cold_before and cold_after  # the first process compiled from scratch
    assert warm_after == warm_before  # the second compiled nothing new: all from disk
    for name in RUNS:
        for kind in ("draws", "proba"):
            reference = np.load(runs["cold"][0] / f"{name}-first-{kind}.npy")
            assert np.all(np.isfinite(reference))
            for process, fit in (("cold", "second"), ("warm", "first"), ("warm", "second")):
                other = np.load(runs[process][0] / f"{name}-{fit}-{kind}.npy")
                assert np.array_equal(reference, other), (name, kind, process, fit)
