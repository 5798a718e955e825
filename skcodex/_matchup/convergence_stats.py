"""Convergence diagnostics of MCMC draws, vectorised over parameters.

Rank-normalised split R-hat and bulk and tail effective sample sizes as
defined by Vehtari, Gelman, Simpson, Carpenter and Buerkner (2021),
"Rank-normalization, folding, and localization: an improved R-hat for
assessing convergence of MCMC", computed as ArviZ computes them (Geyer's
initial positive and monotone sequences on FFT autocovariances) but for every
parameter at once. ArviZ loops over parameters in Python, which takes seconds
for the ~800 parameters of a Codex model; here it is a few NumPy calls. The
values equal ArviZ's ``rhat``, ``ess(method="bulk")`` and
``ess(method="tail")`` to rounding (tested).

Every function takes draws shaped ``(chains, draws, n_parameters)`` and
returns one value per parameter; a parameter with a NaN draw, or too few
draws or chains for the statistic, gets NaN. `diagnostics.py` applies them
to a fitted posterior.
"""

from __future__ import annotations

import numpy as np
from scipy.fft import next_fast_len
from scipy.special import ndtri

__all__ = ["average_ranks", "convergence_statistics", "ess_bulk", "ess_tail", "rhat"]


_MIN_DRAWS = 4


def _as_draws(x) -> np.ndarray:
    """Draws as a contiguous (n_parameters, chains, draws) array."""
    x = np.asarray(x, dtype=float)
    if x.ndim == 2:
        x = x[:, :, None]
    if x.ndim != 3:
        raise ValueError(f"draws must be (chains, draws, n_parameters); got shape {x.shape}")
    return np.ascontiguousarray(np.moveaxis(x, 2, 0))


def _split_chains(x: np.ndarray) -> np.ndarray:
    """Each chain cut into its first and last half (the middle draw dropped if odd)."""
    half = x.shape[2] // 2
    return np.concatenate([x[:, :, :half], x[:, :, x.shape[2] - half :]], axis=1)


def average_ranks(rows: np.ndarray) -> np.ndarray:
    """Ranks (1 = smallest) within each row of a 2-D array, ties sharing their mean rank.

    The same as ``scipy.stats.rankdata(rows, method="average", axis=1)``, in
    a few whole-array steps instead of one sort per row.
    """
    order = np.argsort(rows, axis=1)
    ranks = np.empty(rows.shape)
    np.put_along_axis(ranks, order, _sorted_ranks(np.take_along_axis(rows, order, axis=1)), 1)
    return ranks


def _sorted_ranks(s: np.ndarray) -> np.ndarray:
    """The average ranks of each row of ``s``, whose rows are sorted."""
    n = s.shape[1]
    ranks = np.tile(np.arange(1.0, n + 1.0), (len(s), 1))
    tied = np.flatnonzero((s[:, 1:] == s[:, :-1]).any(axis=1))
    if len(tied):  # rows with ties: each run of equal values gets its mean rank
        ranks[tied] = _tie_averaged(s[tied])
    return ranks


def _tie_averaged(st: np.ndarray) -> np.ndarray:
    """Ranks of sorted rows ``st``, each run of equal values at its mean rank."""
    n = st.shape[1]
    pos = np.arange(n)
    starts = np.ones(st.shape, dtype=bool)
    starts[:, 1:] = st[:, 1:] != st[:, :-1]
    ends = np.ones(st.shape, dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    first = np.maximum.accumulate(np.where(starts, pos, 0), axis=1)
    last = np.minimum.accumulate(np.where(ends, pos, n)[:, ::-1], axis=1)[:, ::-1]
    return (first + last) / 2.0 + 1.0


def _z_scale(x: np.ndarray) -> np.ndarray:
    """Normal scores of the ranks of each parameter's draws, pooled over chains.

    Rows without ties take the scores of ranks 1..n from one table of n normal
    quantiles; rows with ties (the folded draws' two around the median) the
    scores of their average ranks, from the same sort.
    """
    p, chains, draws = x.shape
    size = chains * draws
    rows = x.reshape(p, size)
    order = np.argsort(rows, axis=1)
    s = np.take_along_axis(rows, order, axis=1)
    scores = np.empty(rows.shape)
    np.put_along_axis(scores, order, _rank_scores(np.arange(1.0, size + 1.0), size)[None], 1)
    equal = s[:, 1:] == s[:, :-1]  # sorted neighbours that tie
    row, at = np.nonzero(equal)
    if len(row) > size // 20 * max(1, len(np.unique(row))):  # many ties: whole rows again
        tied = np.unique(row)
        some = np.empty((len(tied), size))
        np.put_along_axis(some, order[tied], _rank_scores(_tie_averaged(s[tied]), size), 1)
        scores[tied] = some
    elif len(row):  # a few runs of ties (the folded draws' pair around the median)
        run = np.ones(len(row), dtype=bool)
        run[1:] = (row[1:] != row[:-1]) | (at[1:] != at[:-1] + 1)
        starts = np.flatnonzero(run)
        first = at[starts]
        last = np.maximum.reduceat(at, starts) + 1  # sorted positions first..last tie
        length = last - first + 1
        offset = np.arange(length.sum()) - np.repeat(np.cumsum(length) - length, length)
        rows = np.repeat(row[starts], length)
        columns = order[rows, np.repeat(first, length) + offset]
        mean_rank = (first + last) / 2.0 + 1.0
        scores[rows, columns] = np.repeat(_rank_scores(mean_rank, size), length)
    return scores.reshape(x.shape)


def _rank_scores(rank: np.ndarray, size: int) -> np.ndarray:
    """The normal score of each rank among ``size`` draws (Blom's offsets, as ArviZ)."""
    return ndtri((rank - 3 / 8) / (size - 2 * 3 / 8 + 1))


def _rhat(x: np.ndarray) -> np.ndarray:
    """Classic potential scale reduction of (n, chains, draws) draws."""
    n = x.shape[2]
    between = n * x.mean(axis=2).var(axis=1, ddof=1)
    within = x.var(axis=2, ddof=1).mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sqrt((between / within + n - 1) / n)


def _ess(x: np.ndarray) -> np.ndarray:
    """Effective sample size of (n, chains, draws) draws, Geyer's monotone sequence."""
    p, chains, n = x.shape
    total = chains * n
    out = np.full(p, float(total))
    spread = x.max(axis=(1, 2)) - x.min(axis=(1, 2))
    varying = np.flatnonzero(~(spread < np.finfo(float).resolution))
    if len(varying) == 0:
        return out
    x = x[varying]
    centred = x - x.mean(axis=2, keepdims=True)
    size = next_fast_len(2 * n)
    spectrum = np.fft.rfft(centred, n=size, axis=2)
    spectrum *= np.conjugate(spectrum)
    acov = np.fft.irfft(spectrum, n=size, axis=2)[:, :, :n] / n  # (p, chains, lag)
    mean_var = acov[:, :, 0].mean(axis=1) * n / (n - 1.0)
    var_plus = mean_var * (n - 1.0) / n
    if chains > 1:
        var_plus = var_plus + x.mean(axis=2).var(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = 1.0 - (mean_var[:, None] - acov.mean(axis=1)) / var_plus[:, None]  # (p, lag)
    rho[:, 0] = 1.0
    # Pairs (rho[2k], rho[2k + 1]) for k = 0..K, where K is the last pair the
    # initial positive sequence may read (lags up to n - 2).
    n_pairs = len(range(1, n - 3, 2)) + 1
    pairs = rho[:, 0 : 2 * n_pairs : 2] + rho[:, 1 : 2 * n_pairs : 2]
    # Pair k >= 1 is read when every earlier pair sum is positive; k_last is the last read.
    k_last = np.cumprod(pairs[:, :-1] > 0.0, axis=1).sum(axis=1)
    rows = np.arange(len(varying))
    # Monotone sequence: each pair sum is capped by the previous (capped) one.
    capped = np.minimum.accumulate(pairs, axis=1)
    before_last = np.arange(n_pairs)[None, :] < k_last[:, None]
    head = np.where(before_last, capped, 0.0).sum(axis=1)
    even = rho[rows, 2 * k_last]
    last_sum = pairs[rows, k_last]
    tail = np.where((even > 0.0) | (last_sum >= 0.0), even, 0.0)
    tau = np.maximum(-1.0 + 2.0 * head + tail, 1.0 / np.log10(total))
    ess = total / tau
    ess[np.isnan(rho).any(axis=1)] = np.nan
    out[varying] = ess
    return out


def _rank_rhat(split: np.ndarray, z: np.ndarray) -> np.ndarray:
    """The larger of the bulk R-hat (``z``: normal scores of ``split``) and the folded R-hat."""
    if split.shape[1] < 4:  # fewer than 2 chains before splitting
        return np.full(len(split), np.nan)
    median = np.median(split.reshape(len(split), -1), axis=1)[:, None, None]
    return np.maximum(_rhat(z), _rhat(_z_scale(np.abs(split - median))))


def _tail_ess(x: np.ndarray) -> np.ndarray:
    """The smaller ESS of the indicators of the 5% and 95% quantiles."""
    flat = x.reshape(len(x), -1)
    values = []
    for p in (0.05, 0.95):
        cut = np.quantile(flat, p, axis=1)
        values.append(_ess(_split_chains((x <= cut[:, None, None]).astype(float))))
    return np.minimum(*values)


def convergence_statistics(draws, *, tail: bool = False) -> dict[str, np.ndarray]:
    """R-hat and bulk ESS (and tail ESS if asked) of every parameter, in one pass.

    The rank-normalised split chains that R-hat and bulk ESS share are computed
    once; the values equal those of `rhat`, `ess_bulk` and `ess_tail`.

    Parameters
    ----------
    draws : array-like of shape (chains, draws, n_parameters) or (chains, draws)
    tail : bool
        Also compute the tail ESS.

    Returns
    -------
    dict of ndarray of shape (n_parameters,)
        ``rhat`` (NaN with fewer than 2 chains), ``ess_bulk`` and, with
        ``tail=True``, ``ess_tail``; NaN for a parameter with a NaN draw and for
        all with fewer than 4 draws.
    """
    x = _as_draws(draws)
    names = ["rhat", "ess_bulk", "ess_tail"] if tail else ["rhat", "ess_bulk"]
    if x.shape[2] < _MIN_DRAWS:
        return {name: np.full(len(x), np.nan) for name in names}
    split = _split_chains(x)
    z = _z_scale(split)
    out = {"rhat": _rank_rhat(split, z), "ess_bulk": _ess(z)}
    if tail:
        out["ess_tail"] = _tail_ess(x)
    return _nan_where_missing(x, out)


def _nan_where_missing(x: np.ndarray, out: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    missing = np.isnan(x).any(axis=(1, 2))
    for values in out.values():
        values[missing] = np.nan
    return out


def _one(draws, name: str, compute) -> np.ndarray:
    x = _as_draws(draws)
    if x.shape[2] < _MIN_DRAWS:
        return np.full(len(x), np.nan)
    return _nan_where_missing(x, {name: compute(x)})[name]


def rhat(draws) -> np.ndarray:
    """Rank-normalised split R-hat: the larger of the bulk and folded (tail) R-hat.

    Takes draws shaped (chains, draws, n_parameters) or (chains, draws); NaN
    with fewer than 2 chains or 4 draws. See `convergence_statistics`.
    """

    def compute(x):
        split = _split_chains(x)
        return _rank_rhat(split, _z_scale(split))

    return _one(draws, "rhat", compute)


def ess_bulk(draws) -> np.ndarray:
    """Bulk effective sample size (of the rank-normalised split chains).

    Takes draws shaped (chains, draws, n_parameters) or (chains, draws). See
    `convergence_statistics`.
    """
    return _one(draws, "ess_bulk", lambda x: _ess(_z_scale(_split_chains(x))))


def ess_tail(draws) -> np.ndarray:
    """Tail effective sample size: the smaller ESS of the 5% and 95% quantile indicators.

    Takes draws shaped (chains, draws, n_parameters) or (chains, draws). See
    `convergence_statistics`.
    """
    return _one(draws, "ess_tail", _tail_ess)
