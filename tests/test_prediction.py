"""Win probabilities from effect draws, against ``expit(theta[:, index] @ signs)`` directly."""

from __future__ import annotations

import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.special import expit

from skcodex._matchup import numba_cache, prediction


def _problem(n_matches, n_effects, n_draws, width=18, n_distinct=None, seed=0):
    rng = np.random.default_rng(seed)
    theta = rng.normal(scale=0.7, size=(n_draws, n_effects))
    if n_distinct is None:
        index = rng.integers(0, n_effects, size=(n_matches, width))
    else:  # many repeated deck parts, players drawn freely
        decks = rng.integers(0, n_effects, size=(n_distinct, width - 2))
        index = np.column_stack(
            [
                rng.integers(0, n_effects, size=(n_matches, 2)),
                decks[rng.integers(0, n_distinct, n_matches)],
            ]
        )
    signs = np.ones(width)
    signs[1] = -1.0
    return theta, index, signs


@pytest.mark.parametrize("engine", ["numba", "numpy"])
@pytest.mark.parametrize("n_distinct", [None, 5])
def test_prediction_equals_the_reference_computation(engine, n_distinct):
    theta, index, signs = _problem(700, 300, 203, n_distinct=n_distinct)
    index[::7] = index[3]  # repeated whole rows too
    reference = expit(theta[:, index] @ signs)
    draws = prediction.win_probability_draws(theta, index, signs, engine=engine)
    mean = prediction.mean_win_probability(theta, index, signs, engine=engine)
    np.testing.assert_allclose(draws, reference, rtol=0, atol=1e-12)
    np.testing.assert_allclose(mean, reference.mean(axis=0), rtol=0, atol=1e-12)


@pytest.mark.parametrize("engine", ["numba", "numpy"])
@pytest.mark.parametrize("n_distinct", [None, 4])
def test_chunk_and_block_boundaries(engine, n_distinct, monkeypatch):
    """Chunks of draws and blocks of matches whose sizes do not divide the totals."""
    theta, index, signs = _problem(101, 13, 37, width=6, n_distinct=n_distinct, seed=2)
    reference = expit(theta[:, index] @ signs)
    monkeypatch.setattr(prediction, "_CHUNK_DRAWS", 8)  # 37 draws: chunks of 8, then 5
    monkeypatch.setattr(prediction, "_BLOCK_BYTES", 8 * 8 * 7)  # 7 matches per block
    assert [b - a for a, b in prediction._draw_chunks(37)] == [8, 8, 8, 8, 5]
    draws = prediction.win_probability_draws(theta, index, signs, engine=engine)
    mean = prediction.mean_win_probability(theta, index, signs, engine=engine)
    np.testing.assert_allclose(draws, reference, rtol=0, atol=1e-12)
    np.testing.assert_allclose(mean, reference.mean(axis=0), rtol=0, atol=1e-12)


def test_prediction_handles_extreme_log_odds_and_bad_input():
    theta = np.array([[800.0, -800.0, 0.0], [-800.0, 800.0, 0.0]])
    index = np.array([[0, 1], [1, 0], [2, 2]])
    signs = np.array([1.0, -1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        draws = prediction.win_probability_draws(theta, index, signs)
        mean = prediction.mean_win_probability(theta, index, signs)
    np.testing.assert_array_equal(draws, [[1.0, 0.0, 0.5], [0.0, 1.0, 0.5]])
    np.testing.assert_array_equal(mean, [0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="outside theta"):
        prediction.mean_win_probability(theta, index + 5, signs)
    with pytest.raises(ValueError, match="engine"):
        prediction.mean_win_probability(theta, index, signs, engine="gpu")
    assert prediction.mean_win_probability(theta, index[:0], signs).shape == (0,)


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.int64, st.tuples(st.integers(0, 40), st.integers(1, 4)), elements=st.integers(0, 3))
)
def test_unique_rows(a):
    rows, inverse = prediction.unique_rows(a)
    np.testing.assert_array_equal(rows[inverse], a)
    assert len({tuple(r) for r in rows}) == len(rows) == len({tuple(r) for r in a})
    if len(a):  # in order of first appearance
        firsts = [int(np.flatnonzero(inverse == k)[0]) for k in range(len(rows))]
        assert firsts == sorted(firsts)


def test_unique_rows_survives_hash_collisions(monkeypatch):
    monkeypatch.setattr(prediction, "_row_keys", lambda a: np.zeros(len(a), dtype=np.uint64))
    a = np.array([[3, 1], [0, 2], [3, 1], [5, 5], [0, 2]])
    rows, inverse = prediction.unique_rows(a)
    np.testing.assert_array_equal(rows, [[3, 1], [0, 2], [5, 5]])
    np.testing.assert_array_equal(inverse, [0, 1, 0, 2, 1])


@pytest.mark.parametrize("engine", ["numba", "numpy"])
def test_any_signs_and_no_deck_columns(engine):
    """Signs other than +-1 (and a negative first sign), and index matrices of 1-3 columns."""
    rng = np.random.default_rng(5)
    theta = rng.normal(size=(9, 6))
    for width in (1, 2, 3, 5):
        index = rng.integers(0, 6, size=(11, width))
        signs = rng.choice([-2.5, -1.0, 0.5, 1.0, 3.0], size=width)
        signs[0] = -0.75
        reference = expit(theta[:, index] @ signs)
        draws = prediction.win_probability_draws(theta, index, signs, engine=engine)
        mean = prediction.mean_win_probability(theta, index, signs, engine=engine)
        np.testing.assert_allclose(draws, reference, rtol=0, atol=1e-12)
        np.testing.assert_allclose(mean, reference.mean(axis=0), rtol=0, atol=1e-12)


def test_forecasts_do_not_depend_on_the_batch():
    """A match's forecast is the same to the last bit alone, in a batch, or in another order."""
    theta, index, signs = _problem(300, 40, 300, width=8, n_distinct=6, seed=3)
    whole = prediction.mean_win_probability(theta, index, signs)
    order = np.random.default_rng(0).permutation(len(index))
    shuffled = prediction.mean_win_probability(theta, index[order], signs)
    np.testing.assert_array_equal(shuffled, whole[order])
    for row in (0, 17, 299):
        alone = prediction.mean_win_probability(theta, index[row : row + 1], signs)
        assert alone[0] == whole[row]
    draws = prediction.win_probability_draws(theta, index, signs)
    np.testing.assert_array_equal(
        prediction.win_probability_draws(theta, index[order], signs), draws[:, order]
    )


def test_plan_sums_each_deck_pair_once():
    index = np.array([[0, 1, 4, 5], [2, 3, 4, 5], [0, 1, 4, 5], [1, 0, 5, 4]])
    signs = np.array([1.0, -1.0, 1.0, -1.0])
    rows, inverse, pairs, pair_signs = prediction._plan(index, signs, 6)
    np.testing.assert_array_equal(pairs, [[4, 5], [5, 4]])
    np.testing.assert_array_equal(pair_signs, [1.0, -1.0])
    np.testing.assert_array_equal(rows, [[0, 1, 6], [2, 3, 6], [1, 0, 7]])
    np.testing.assert_array_equal(inverse, [0, 1, 0, 2])
    rows, inverse, pairs, pair_signs = prediction._plan(index[:, :3], signs[:3], 6)
    assert pairs is None and pair_signs is None
    np.testing.assert_array_equal(rows, index[[0, 1, 3], :3])


def test_draw_chunks_and_blocks():
    assert prediction._draw_chunks(300) == [(0, 128), (128, 256), (256, 300)]
    assert prediction._draw_chunks(5) == [(0, 5)]
    assert prediction._draw_chunks(0) == []
    step = 2**19 // (8 * 128)
    assert prediction._blocks(2 * step + 3, 128) == [
        (0, step),
        (step, 2 * step),
        (2 * step, 2 * step + 3),
    ]
    assert prediction._blocks(3, 0) == [(0, 3)]
    assert prediction._blocks(5, 2**30) == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]


def test_numpy_kernels_equal_the_formula():
    rng = np.random.default_rng(1)
    table = rng.normal(size=(7, 4))
    rows = rng.integers(0, 7, size=(5, 3))
    for signs in (np.array([1.0, -1.0, 1.0]), np.array([-1.0, 2.0, -0.5])):
        out = np.empty((5, 4))
        prediction._gather_sum_numpy(table, rows, signs, out)
        np.testing.assert_allclose(out, np.einsum("ijc,j->ic", table[rows], signs), atol=1e-14)
    e = rng.uniform(0.1, 3.0, size=(3, 4))
    acc = np.array([1.0, 2.0, 3.0])
    prediction._logistic_sum_numpy(e.copy(), acc)
    np.testing.assert_allclose(acc, np.array([1.0, 2.0, 3.0]) + (1 / (1 + e)).sum(axis=1))


def test_bad_input_is_named():
    theta = np.zeros((3, 4))
    index = np.array([[0, 1]])
    signs = np.array([1.0, -1.0])
    message = (
        r"need theta \(n_draws, n_effects\), index \(n_matches, n_columns\) and "
        r"signs \(n_columns,\); got \(4,\), \(1, 2\), \(2,\)"
    )
    with pytest.raises(ValueError, match=message):
        prediction.mean_win_probability(theta[0], index, signs)
    with pytest.raises(ValueError, match="got \\(3, 4\\), \\(2,\\), \\(2,\\)"):
        prediction.mean_win_probability(theta, index[0], signs)
    with pytest.raises(ValueError, match="got \\(3, 4\\), \\(1, 2\\), \\(3,\\)"):
        prediction.win_probability_draws(theta, index, np.ones(3))
    with pytest.raises(ValueError, match=r"^index names effects outside theta$"):
        prediction.win_probability_draws(theta, np.array([[0, 4]]), signs)
    with pytest.raises(ValueError, match=r"^index names effects outside theta$"):
        prediction.win_probability_draws(theta, np.array([[-1, 0]]), signs)
    # the last effect is inside theta
    assert prediction.win_probability_draws(theta, np.array([[3, 0]]), signs).shape == (3, 1)
    with pytest.raises(ValueError, match=r"^need at least one posterior draw$"):
        prediction.mean_win_probability(np.zeros((0, 4)), index, signs)
    with pytest.raises(
        ValueError, match=r"^engine must be one of \('auto', 'numba', 'numpy'\), got 'gpu'$"
    ):
        prediction.win_probability_draws(theta, index, signs, engine="gpu")


def test_engine_choice(monkeypatch):
    numpy_kernels = prediction._engine("numpy")
    assert numpy_kernels["gather_sum"] is prediction._gather_sum_numpy
    assert numpy_kernels["logistic_sum"] is prediction._logistic_sum_numpy
    compiled = prediction._engine("auto")
    assert compiled is prediction._engine("numba")
    assert compiled["gather_sum"] is not prediction._gather_sum_numpy
    monkeypatch.setattr(prediction, "_numba_kernels", lambda: None)
    assert prediction._engine("auto")["gather_sum"] is prediction._gather_sum_numpy
    with pytest.raises(ImportError, match=r"^engine='numba' needs the numba package$"):
        prediction._engine("numba")


def _cached_kernel(folder, fails):
    """A stand-in for a cached numba function: fails ``fails`` times, then adds."""

    def add(a, b):
        return a + b

    calls = {"n": 0}

    def kernel(*args):
        calls["n"] += 1
        if calls["n"] <= fails:
            raise OSError("truncated index")
        return add(*args)

    kernel.py_func = add
    return kernel, add.__qualname__.replace("<locals>", "locals")


def test_a_damaged_kernel_cache_is_removed_and_the_kernel_rebuilt(tmp_path):
    kernel, name = _cached_kernel(tmp_path, fails=1)
    # numba names a kernel's cache files after the source file the function is defined
    # in (here this test file), under NUMBA_CACHE_DIR in a subfolder named after its path
    module = Path(__file__).stem
    stem = f"{module}.{name}"
    sub = tmp_path / "site" / "skcodex"
    sub.mkdir(parents=True)
    doomed = [sub / f"{stem}-12.py311.nbi", sub / f"{stem}-12.py311.1.nbc"]
    kept = [sub / f"{module}.other-12.py311.nbi", sub / f"{stem}-12.txt"]
    for path in doomed + kept:
        path.write_bytes(b"x")
    call = numba_cache.recovering(kernel, tmp_path)
    with pytest.warns(RuntimeWarning, match=r"damaged \(OSError\); it was removed"):
        assert call(2, 3) == 5
    assert [p.exists() for p in doomed] == [False, False]
    assert [p.exists() for p in kept] == [True, True]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert call(4, 5) == 9  # the rebuilt kernel from now on, no second warning


def test_a_kernel_that_works_is_called_as_it_is(tmp_path):
    kernel, _ = _cached_kernel(tmp_path, fails=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert numba_cache.recovering(kernel, tmp_path)(1, 2) == 3


def test_a_rebuilt_kernel_that_fails_raises(tmp_path, monkeypatch):
    import numba

    kernel, _ = _cached_kernel(tmp_path, fails=1)

    def broken(*args):
        raise ZeroDivisionError("still broken")

    monkeypatch.setattr(numba, "njit", lambda **options: lambda f: broken)
    call = numba_cache.recovering(kernel, tmp_path)
    with pytest.warns(RuntimeWarning), pytest.raises(ZeroDivisionError, match="still broken"):
        call(1, 2)
    with pytest.raises(ZeroDivisionError, match="still broken"):
        call(1, 2)


def test_removing_the_cache_of_a_plain_function_does_nothing(tmp_path):
    (tmp_path / "keep.nbi").write_bytes(b"x")
    numba_cache.remove_numba_cache(lambda: None, tmp_path)
    numba_cache.remove_numba_cache(SimpleNamespace(py_func=len), None)
    assert (tmp_path / "keep.nbi").exists()


def test_the_kernel_cache_is_a_per_user_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert numba_cache.kernel_cache_dir() == tmp_path / "cache" / "skcodex" / "numba"
    assert (tmp_path / "cache" / "skcodex" / "numba").is_dir()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba-own"))
    assert numba_cache.kernel_cache_dir() == tmp_path / "numba-own"


def test_an_unwritable_kernel_cache_means_no_cache(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(blocker / "numba"))
    assert numba_cache.kernel_cache_dir() is None
    import numba

    def twice(x):
        return 2 * x

    assert numba_cache.compile_kernel(numba, twice, None)(4) == 8
    assert not list(tmp_path.rglob("*.nb[ic]"))


def test_kernels_compiled_with_a_folder_cache_there_and_leave_numba_settings_alone(
    tmp_path, monkeypatch
):
    import numba

    before = numba.config.CACHE_DIR

    def thrice(x):
        return 3 * x

    kernel = numba_cache.compile_kernel(numba, thrice, tmp_path)
    assert numba.config.CACHE_DIR == before
    assert kernel(2) == 6
    written = list(tmp_path.rglob("*.nb[ic]"))
    assert {p.suffix for p in written} == {".nbi", ".nbc"}
    assert all("thrice" in p.name for p in written)


def test_unique_rows_of_empty_and_zero_width_matrices():
    rows, inverse = prediction.unique_rows(np.zeros((5, 0), dtype=np.int64))
    assert rows.shape == (1, 0)
    np.testing.assert_array_equal(inverse, np.zeros(5))
    rows, inverse = prediction.unique_rows(np.zeros((0, 3), dtype=np.int64))
    assert rows.shape == (0, 3) and inverse.shape == (0,)
    rows, inverse = prediction.unique_rows(np.array([[7, 8]]))
    np.testing.assert_array_equal(rows, [[7, 8]])
    np.testing.assert_array_equal(inverse, [0])
