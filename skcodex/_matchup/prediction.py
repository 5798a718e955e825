"""Win probabilities from posterior effect draws, in NumPy (with numba when installed).

Predictions never go through PyMC: a fitted model keeps every effect for
every draw as one (n_draws, n_effects) array, ``theta`` of `skcodex._matchup.layout.Layout`,
and a match's log-odds are a signed sum of the entries its index-matrix row
names, ``q = theta[:, index] @ signs``. The posterior mean win probability is
the mean over draws of ``expit(q)``.

Three things keep this fast on large tables without changing the result:

- **Repeated work is done once.** Matches with identical index rows (same
  players, decks and order) share their probabilities, and the deck part of
  ``q`` (every column after the two player-skill columns) is summed once per
  distinct deck pair. Every match is summed in the same order whatever else is
  in the batch, so a forecast never depends on the other rows, to the last bit.
- **Blocks stay in cache.** The effects are transposed to (n_effects, n_draws)
  so a match reads whole contiguous rows, and matches are processed in blocks
  whose (block, chunk) log-odds fit in the CPU cache; the draws are taken in
  fixed chunks of 128, so the table of deck-pair sums stays small.
- **The inner loops are compiled** with numba when it is importable (it comes
  with PyMC's PyTensor); otherwise the same algorithm runs in NumPy. numba
  caches them in the user's cache folder (`kernel_cache_dir`), never beside
  the package.

``expit(q)`` is computed as ``1 / (1 + exp(-q))`` with NumPy's vectorised
``exp``, in float64; results agree with ``scipy.special.expit`` to a few
units in the last place.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from skcodex._matchup.numba_cache import compile_kernel, kernel_cache_dir, recovering

# Working memory for one block of log-odds (kept in the CPU cache).
_BLOCK_BYTES = 2**19
# Draws per chunk: the table rows are gathered from (effects and deck-pair sums for one
# chunk) stays small, and the chunks, hence the order of every sum over draws, are the
# same whatever the batch.
_CHUNK_DRAWS = 128
# Index columns read per match before the deck part: player 1's and player 2's skill.
_PLAYER_COLUMNS = 2

ENGINES = ("auto", "numba", "numpy")

_KERNELS: dict[str, Callable] = {}


# -- kernels (compiled and cached by numba_cache.py) -----------------------------


def _numba_kernels() -> dict[str, Callable] | None:
    """The compiled kernels (built or loaded from numba's cache on first use), or None."""
    if _KERNELS:
        return _KERNELS
    try:
        import numba
    except ImportError:  # pragma: no cover - numba comes with pytensor
        return None

    def gather_sum(table, rows, signs, out):  # pragma: no cover - compiled
        n_rows, width = rows.shape
        n_cols = table.shape[1]
        for i in range(n_rows):
            r = rows[i, 0]
            s = signs[0]
            for c in range(n_cols):
                out[i, c] = s * table[r, c]
            for j in range(1, width):
                r = rows[i, j]
                s = signs[j]
                for c in range(n_cols):
                    out[i, c] += s * table[r, c]

    def logistic_sum(e, acc):  # pragma: no cover - compiled
        # e holds exp(-q); adds sum over columns of 1 / (1 + exp(-q)) to acc.
        n_rows, n_cols = e.shape
        for i in range(n_rows):
            total = 0.0
            for c in range(n_cols):
                total += 1.0 / (1.0 + e[i, c])
            acc[i] += total

    def hermite_sum(e, c, w, counts, acc):  # pragma: no cover - compiled
        # e holds exp(-a); adds sum over columns d of sum_k w[d, k] / (1 + exp(-a) c[d, k]),
        # c[d, k] = exp(-s_d x_k): Gauss-Hermite over the never-seen cells' N(0, s_d^2) term.
        n_rows, n_cols = e.shape
        for i in range(n_rows):
            total = 0.0
            for d in range(n_cols):
                ed = e[i, d]
                part = 0.0
                for k in range(counts[d]):
                    part += w[d, k] / (1.0 + ed * c[d, k])
                total += part
            acc[i] += total

    folder = kernel_cache_dir()
    _KERNELS.update(
        gather_sum=recovering(compile_kernel(numba, gather_sum, folder), folder),
        logistic_sum=recovering(compile_kernel(numba, logistic_sum, folder), folder),
        # the sum over nodes may be reordered (vectorised): the same order for every row
        hermite_sum=recovering(
            compile_kernel(numba, hermite_sum, folder, fastmath={"reassoc", "contract"}), folder
        ),
    )
    return _KERNELS


def _gather_sum_numpy(table, rows, signs, out) -> None:
    """``out[i] = sum_j signs[j] * table[rows[i, j]]`` (rows of ``table`` are draws)."""
    np.take(table, rows[:, 0], axis=0, out=out)
    if signs[0] != 1.0:
        out *= signs[0]
    buf = np.empty_like(out)
    for j in range(1, rows.shape[1]):
        np.take(table, rows[:, j], axis=0, out=buf)
        if signs[j] == 1.0:
            out += buf
        elif signs[j] == -1.0:
            out -= buf
        else:
            out += signs[j] * buf


def _logistic_sum_numpy(e, acc) -> None:
    e += 1.0
    np.reciprocal(e, out=e)
    acc += e.sum(axis=1)


def _hermite_sum_numpy(e, c, w, counts, acc) -> None:
    total = np.zeros(e.shape[0])
    for k in range(int(counts.max(initial=0))):  # nodes past a draw's count have weight 0
        total += (w[:, k] / (1.0 + e * c[:, k])).sum(axis=1)
    acc += total


def _engine(engine: str) -> dict[str, Callable]:
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    kernels = None if engine == "numpy" else _numba_kernels()
    if kernels is None:
        if engine == "numba":
            raise ImportError("engine='numba' needs the numba package")
        return {
            "gather_sum": _gather_sum_numpy,
            "logistic_sum": _logistic_sum_numpy,
            "hermite_sum": _hermite_sum_numpy,
        }
    return kernels


# -- de-duplication -------------------------------------------------------------


def _row_keys(a: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row of an integer matrix (wrapping arithmetic)."""
    weights = np.random.default_rng(0x5C0DE).integers(1, 2**63, size=a.shape[1], dtype=np.uint64)
    weights |= np.uint64(1)
    with np.errstate(over="ignore"):
        return (a.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)


def unique_rows(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of an integer matrix, in order of first appearance.

    Parameters
    ----------
    a : ndarray of int, shape (n, m)

    Returns
    -------
    rows : ndarray, shape (n_unique, m)
    inverse : ndarray of int, shape (n,)
        ``rows[inverse]`` equals ``a``.
    """
    a = np.ascontiguousarray(a)
    n = len(a)
    if n == 0 or a.shape[1] == 0:
        return a[:1] if n else a, np.zeros(n, dtype=np.intp)
    # A 64-bit hash of each row, factorized in linear time; then verified, so a
    # hash collision can only cost time, never correctness.
    codes, uniques = pd.factorize(_row_keys(a))
    first = np.empty(len(uniques), dtype=np.intp)
    first[codes[::-1]] = np.arange(n - 1, -1, -1)
    rows = a[first]
    if not np.array_equal(rows[codes], a):
        _, first, codes = np.unique(a, axis=0, return_index=True, return_inverse=True)
        order = np.argsort(first)
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        rows, codes = a[first[order]], rank[np.ravel(codes)]
    return rows, np.asarray(codes, dtype=np.intp)


def _plan(index: np.ndarray, signs: np.ndarray, n_effects: int):
    """Compress an index matrix: distinct rows, and each distinct deck pair summed once.

    Returns ``(rows, inverse, pairs, pair_signs)``: ``rows`` index a table of
    the effects followed by one entry per deck pair (``pairs``, summed with
    ``pair_signs``), or ``pairs`` is None (no deck columns) and ``rows`` index
    the effects only. Every match's log-odds are summed in the same order
    (its deck pair first, then the two skills) whatever other matches come
    with it, so a forecast does not depend, even in its last bit, on the batch.
    """
    rows, inverse = unique_rows(index)
    width = rows.shape[1]
    if width <= _PLAYER_COLUMNS + 1:
        return rows, inverse, None, None
    pairs, pair_of = unique_rows(rows[:, _PLAYER_COLUMNS:])
    compact = np.column_stack([rows[:, :_PLAYER_COLUMNS], n_effects + pair_of])
    return compact, inverse, pairs, np.asarray(signs[_PLAYER_COLUMNS:], dtype=float)


def _draw_chunks(n_draws: int) -> list[tuple[int, int]]:
    """Fixed chunks of draws: the same for every batch, so sums over draws are too."""
    step = max(1, min(n_draws, _CHUNK_DRAWS))
    return [(start, min(start + step, n_draws)) for start in range(0, n_draws, step)]


def _tables(theta, pairs, pair_signs, chunk, kernels, zero_effect=False):
    """The (n_table, chunk) table rows are gathered from: effects, then deck-pair sums.

    With ``zero_effect``, one more effect of value 0 follows ``theta``'s (position
    ``theta.shape[1]``), for the cells of never-seen levels integrated out.
    """
    start, stop = chunk
    if zero_effect:
        effects = np.zeros((theta.shape[1] + 1, stop - start))
        effects[:-1] = theta[start:stop].T
    else:
        effects = np.ascontiguousarray(theta[start:stop].T)
    if pairs is None:
        return effects
    table = np.empty((effects.shape[0] + len(pairs), stop - start))
    table[: effects.shape[0]] = effects
    kernels["gather_sum"](effects, pairs, pair_signs, table[effects.shape[0] :])
    return table


def _blocks(n_rows: int, n_cols: int) -> list[tuple[int, int]]:
    step = max(1, _BLOCK_BYTES // (8 * max(1, n_cols)))
    return [(start, min(start + step, n_rows)) for start in range(0, n_rows, step)]


def _check_shapes(theta: np.ndarray, index: np.ndarray, signs: np.ndarray) -> None:
    if theta.ndim != 2 or index.ndim != 2 or signs.shape != (index.shape[1],):
        raise ValueError(
            "need theta (n_draws, n_effects), index (n_matches, n_columns) and "
            f"signs (n_columns,); got {theta.shape}, {index.shape}, {signs.shape}"
        )


def _check(theta: np.ndarray, index: np.ndarray, signs: np.ndarray):
    theta = np.asarray(theta, dtype=float)
    index = np.asarray(index)
    signs = np.asarray(signs, dtype=float)
    _check_shapes(theta, index, signs)
    if index.size and (index.min() < 0 or index.max() >= theta.shape[1]):
        raise ValueError("index names effects outside theta")
    return theta, index.astype(np.int64, copy=False), signs


def _exp_minus_log_odds(theta, plan, signs, kernels, zero_effect=False):
    """``exp(-q)`` of every distinct match, one (block of matches, chunk of draws) at a time.

    ``plan`` is `_plan`'s compression of the index matrix. Yields
    ``(draw chunk, match block, e)`` with ``e`` of shape (block, chunk): the one
    summation order every forecast goes through.
    """
    rows, _, pairs, pair_signs = plan
    row_signs = signs if pairs is None else np.append(signs[:_PLAYER_COLUMNS], 1.0)
    for chunk in _draw_chunks(theta.shape[0]):
        table = _tables(theta, pairs, pair_signs, chunk, kernels, zero_effect)
        width = chunk[1] - chunk[0]
        for lo, hi in _blocks(len(rows), width):
            e = np.empty((hi - lo, width))
            kernels["gather_sum"](table, rows[lo:hi], -row_signs, e)  # -q
            with np.errstate(over="ignore"):
                np.exp(e, out=e)
            yield chunk, (lo, hi), e


# -- public ---------------------------------------------------------------------


def win_probability_draws(
    theta: np.ndarray, index: np.ndarray, signs: np.ndarray, *, engine: str = "auto"
) -> np.ndarray:
    """P(player 1 wins) per draw: ``expit(theta[:, index] @ signs)``.

    Parameters
    ----------
    theta : ndarray of shape (n_draws, n_effects)
        Effect draws.
    index : ndarray of int, shape (n_matches, n_columns)
        The effects each match reads (`Layout.index_matrix`).
    signs : ndarray of shape (n_columns,)
        The sign of each column.
    engine : {"auto", "numba", "numpy"}, default "auto"
        numba kernels when numba is importable, else NumPy; the result is the same.

    Returns
    -------
    ndarray of shape (n_draws, n_matches)
    """
    theta, index, signs = _check(theta, index, signs)
    kernels = _engine(engine)
    plan = _plan(index, signs, theta.shape[1])
    unique = np.empty((theta.shape[0], len(plan[0])))
    for (start, stop), (lo, hi), e in _exp_minus_log_odds(theta, plan, signs, kernels):
        e += 1.0
        np.reciprocal(e, out=e)
        unique[start:stop, lo:hi] = e.T
    return unique[:, plan[1]]


def mean_win_probability(
    theta: np.ndarray, index: np.ndarray, signs: np.ndarray, *, engine: str = "auto"
) -> np.ndarray:
    """Posterior mean of ``expit(theta[:, index] @ signs)`` for each match.

    Equal to ``win_probability_draws(theta, index, signs).mean(axis=0)`` (to
    rounding), without ever holding the (n_draws, n_matches) array: working
    memory is a few cache-sized blocks plus the transposed effects.

    Parameters
    ----------
    theta, index, signs, engine
        As for `win_probability_draws`.

    Returns
    -------
    ndarray of shape (n_matches,)
    """
    theta, index, signs = _check(theta, index, signs)
    kernels = _engine(engine)
    if theta.shape[0] == 0:
        raise ValueError("need at least one posterior draw")
    plan = _plan(index, signs, theta.shape[1])
    total = np.zeros(len(plan[0]))
    for _, (lo, hi), e in _exp_minus_log_odds(theta, plan, signs, kernels):
        kernels["logistic_sum"](e, total[lo:hi])
    return (total / theta.shape[0])[plan[1]]


# -- never-seen cells integrated out ----------------------------------------------------

#: Largest number of Gauss-Hermite nodes per draw.
MAX_HERMITE_NODES = 256


def hermite_nodes(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Hermite nodes and weights for ``E f(Z)``, ``Z ~ N(0, 1)`` (weights sum to 1)."""
    x, w = np.polynomial.hermite_e.hermegauss(int(n))
    return x, w / w.sum()


def hermite_node_count(scale: np.ndarray) -> np.ndarray:
    """Nodes for ``E expit(a + s Z)`` within about 1e-7 of the integral, for each ``s``.

    The logistic function has poles at ``+-i pi`` from the real line, so
    ``expit(a + s z)`` has them at ``pi / s`` and the nodes needed grow as
    ``s^2``: ``4 + 8 s^2``, rounded up to a multiple of 4 (8 for ``s = 0.5``,
    12 for 1, 36 for 2, 76 for 3), at most `MAX_HERMITE_NODES` (enough below
    1e-6 up to ``s`` of about 5).
    """
    n = 4 + 8 * np.square(np.asarray(scale, dtype=float))
    n = 4 * np.ceil(np.minimum(n, MAX_HERMITE_NODES) / 4)
    return np.where(np.asarray(scale) > 0, n, 1).astype(np.int64)


def _hermite_tables(scale: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per draw: ``c[d, k] = exp(-s_d x_k)``, weights ``w[d, k]`` and the node count.

    A draw with ``s_d = 0`` has one node, ``x = 0`` with weight 1.
    """
    counts = hermite_node_count(scale)
    width = int(counts.max(initial=1))
    c = np.ones((len(scale), width))
    w = np.zeros((len(scale), width))
    for n in np.unique(counts):
        at = counts == n
        x, weights = hermite_nodes(n) if n > 1 else (np.zeros(1), np.ones(1))
        c[at, :n] = np.exp(np.clip(-np.outer(scale[at], x), -700.0, 700.0))
        w[at, :n] = weights
    return c, w, counts


def mean_win_probability_integrated(
    theta: np.ndarray,
    index: np.ndarray,
    signs: np.ndarray,
    variance_weights: np.ndarray,
    sd: np.ndarray,
    *,
    engine: str = "auto",
) -> np.ndarray:
    """Posterior mean P(player 1 wins) with the effects of never-seen levels integrated out.

    Match ``i``'s log-odds under draw ``d`` are its known part
    ``a = theta[d, index[i]] @ signs`` (an index entry equal to
    ``theta.shape[1]`` reads 0: a never-seen cell) plus a term
    ``N(0, s_id^2)``, the signed sum of its never-seen cells, each an
    independent ``N(0, sd)`` of its block, so
    ``s_id^2 = variance_weights[i] @ sd[d]^2``. The probability per draw,
    ``E expit(a + s Z)``, is computed by Gauss-Hermite quadrature
    (`hermite_node_count`) rather than by drawing the never-seen cells, so it
    carries no Monte Carlo noise; then averaged over draws.

    A row's result depends on that row alone (as in `mean_win_probability`),
    whatever else comes with it.

    Parameters
    ----------
    theta : ndarray of shape (n_draws, n_effects)
    index : ndarray of int, shape (n_matches, n_columns)
        Entries in ``[0, n_effects]``; ``n_effects`` marks a never-seen cell.
    signs : ndarray of shape (n_columns,)
    variance_weights : ndarray of shape (n_matches, n_spreads)
        For each match and spread, the sum of the squared net signs of the
        never-seen cells of that spread's blocks it reads.
    sd : ndarray of shape (n_draws, n_spreads)
        The spread draws.
    engine : {"auto", "numba", "numpy"}

    Returns
    -------
    ndarray of shape (n_matches,)
    """
    theta = np.asarray(theta, dtype=float)
    sd = np.asarray(sd, dtype=float)
    weights = np.asarray(variance_weights, dtype=float)
    index = np.asarray(index)
    signs = np.asarray(signs, dtype=float)
    _check_shapes(theta, index, signs)
    if sd.shape[0] != theta.shape[0] or weights.shape != (len(index), sd.shape[1]):
        raise ValueError(
            f"need sd (n_draws, n_spreads) and variance_weights (n_matches, n_spreads); "
            f"got {sd.shape} and {weights.shape} for {theta.shape[0]} draws, {len(index)} matches"
        )
    if index.size and (index.min() < 0 or index.max() > theta.shape[1]):
        raise ValueError("index names effects outside theta")
    if theta.shape[0] == 0:
        raise ValueError("need at least one posterior draw")
    if np.any(weights < 0) or not np.all(np.isfinite(weights)):
        raise ValueError("variance_weights must be finite and non-negative")
    kernels = _engine(engine)
    index = index.astype(np.int64, copy=False)
    out = np.empty(len(index))
    patterns, which = unique_rows(np.ascontiguousarray(weights).view(np.int64))
    for p in range(len(patterns)):
        rows = np.flatnonzero(which == p)
        scale = np.sqrt(np.square(sd) @ weights[rows[0]])
        c, w, counts = _hermite_tables(scale)
        plan = _plan(index[rows], signs, theta.shape[1] + 1)
        total = np.zeros(len(plan[0]))
        for (start, stop), (lo, hi), e in _exp_minus_log_odds(
            theta, plan, signs, kernels, zero_effect=True
        ):
            kernels["hermite_sum"](
                e, c[start:stop], w[start:stop], counts[start:stop], total[lo:hi]
            )
        out[rows] = (total / theta.shape[0])[plan[1]]
    return out
