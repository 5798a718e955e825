"""One call from encoded matches to the named posterior: NUTS or ADVI behind one dispatcher.

`run` takes the index matrix and outcomes of the training matches, their
`Layout`, the spread priors, the sampling options, the names of the levels
and the inference method, and returns the posterior object of the installed
ArviZ (see `skcodex.posterior`) with the groups

``posterior``
    The spread parameters as sampled, ``sd`` (dimension ``spread``) and one
    variable per effect block with named coordinates (``player``,
    ``starter1``, ``starter2``, ``spec1``, ``spec2``, ``epoch``). The
    standard normals behind the effects are not kept: each effect is its
    standard normal times its spread. Draws are stored in single precision,
    seven significant digits, far finer than their Monte Carlo error.
``sample_stats``
    Per-draw sampler statistics (NUTS only).
``observed_data``, ``constant_data``
    The outcomes fitted (``outcome``) and what each match reads (``index``,
    ``signs``), from which the log-likelihood is recomputed.
``log_likelihood``
    Each match's log-likelihood per draw (``outcome``), for PSIS-LOO, when
    draws x matches fits in memory (`MAX_LOG_LIKELIHOOD`). It is derived from
    the other groups, so a saved model does not store it.

Which sampler runs is decided here: ``sampler="auto"`` takes nutpie when it
is installed, except under the balanced prior, whose model nutpie's numba
backend takes minutes to build and PyMC's C backend seconds.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from skcodex import posterior
from skcodex.data import Vocabulary, period_labels
from skcodex.design import collapse_matches
from skcodex.inference import SamplingOptions, check_draws_fit_in_memory, sample_posterior
from skcodex.model import Layout, SpreadPriors, quasi_loglik_terms

__all__ = [
    "MAX_LOG_LIKELIHOOD",
    "add_log_likelihood",
    "current_effects",
    "effect_draws",
    "from_effect_draws",
    "last_periods_played",
    "level_names",
    "run",
    "upgrade_saved_layout",
]

#: Largest draws x matches whose pointwise log-likelihood is kept (160 MB in float64).
MAX_LOG_LIKELIHOOD = 20_000_000

#: Precision the posterior draws are stored in.
DRAW_DTYPE = np.float32


def _sampling_policy(options: SamplingOptions, layout: Layout) -> SamplingOptions:
    if options.sampler == "auto" and layout.options.prior == "balanced":
        return dataclasses.replace(options, sampler="pymc")
    return options


def _sample(index, y, layout, priors, options, method) -> dict[str, xr.Dataset]:
    if method == "nuts":
        # one binomial term per distinct index row, not one per match
        rows, trials, totals = collapse_matches(index, y)
        policy = _sampling_policy(options, layout)
        return sample_posterior(rows, totals, layout, priors, policy, trials=trials)
    # ADVI keeps one row per match: its minibatches draw matches, not rows
    from skcodex.approximate import fit_approximate

    return fit_approximate(index, y, layout, priors, options, method)


def _labels(names: list) -> Any:
    """Level names as a coordinate: text as an object array, which holds each name once.

    A list of str would become a fixed-width text array, every entry as wide
    as the longest name: one 50,000-character name among 3,000 players would
    take 600 MB. Other labels (numbers, dates, a mix) are left to xarray.
    """
    if names and all(isinstance(name, str) for name in names):
        out = np.empty(len(names), dtype=object)
        out[:] = names
        return out
    return names


def _named(groups: dict[str, xr.Dataset], coords: dict[str, list]) -> dict[str, xr.Dataset]:
    """Effect blocks labelled with level names, and draws in single precision."""
    post = groups["posterior"]
    present = {k: _labels(v) for k, v in coords.items() if k in post.dims}
    post = post.assign_coords(present)
    for var in post.data_vars:
        if post[var].dtype.kind == "f":
            post[var] = post[var].astype(DRAW_DTYPE)
    return {**groups, "posterior": post}


def effect_draws(idata, layout: Layout) -> np.ndarray:
    """The flat ``theta`` of ``layout`` per draw, (n_draws, layout.size), in float64."""
    post = posterior.group(idata, "posterior")
    n = post.sizes["chain"] * post.sizes["draw"]
    parts = []
    for block in layout.declared:
        values = post[block.name].transpose("chain", "draw", *block.dims).to_numpy()
        parts.append(values.reshape(n, -1))
    return np.concatenate(parts, axis=1).astype(np.float64)


def pointwise_log_likelihood(
    theta: np.ndarray, index: np.ndarray, signs: np.ndarray, outcome: np.ndarray
) -> np.ndarray:
    """Each match's log-likelihood per draw, with log-odds ``q = theta[:, index] @ signs``.

    ``r log sigmoid(q) + (1 - r) log sigmoid(-q)`` for outcome ``r``:
    the Bernoulli log-likelihood for outcomes in {0, 1}; the binomial
    quasi-log-likelihood for luck-adjusted outcomes. Computed in blocks of
    matches so the gathered effects never exceed 64 MB.
    """
    out = np.empty((theta.shape[0], len(index)))
    step = max(1, 2**23 // max(1, theta.shape[0] * index.shape[1]))
    for start in range(0, len(index), step):
        q = theta[:, index[start : start + step]] @ signs
        r = outcome[start : start + step]
        out[:, start : start + step] = quasi_loglik_terms(r, q)
    return out


def add_log_likelihood(idata, layout: Layout):
    """``idata`` with its ``log_likelihood`` group recomputed from its data groups.

    Returned unchanged when the table is too large (`MAX_LOG_LIKELIHOOD`) or
    the data groups are absent.
    """
    data = posterior.group(idata, "constant_data")
    observed = posterior.group(idata, "observed_data")
    if data is None or observed is None or "index" not in data:
        return idata
    post = posterior.group(idata, "posterior")
    n_chains, n_draws = post.sizes["chain"], post.sizes["draw"]
    index = data["index"].to_numpy().astype(np.int64)
    if n_chains * n_draws * len(index) > MAX_LOG_LIKELIHOOD:
        return idata
    theta = effect_draws(idata, layout)
    values = pointwise_log_likelihood(
        theta, index, data["signs"].to_numpy(), observed["outcome"].to_numpy()
    )
    loglik = xr.Dataset(
        {"outcome": (("chain", "draw", "match"), values.reshape(n_chains, n_draws, -1))},
        coords={"chain": post["chain"].values, "draw": post["draw"].values},
    )
    return posterior.with_group(idata, "log_likelihood", loglik)


def from_effect_draws(
    theta: np.ndarray,
    sd: np.ndarray,
    layout: Layout,
    coords: dict[str, list] | None = None,
    n_chains: int = 1,
):
    """A posterior object holding given effect and spread draws, as `run` lays one out.

    For simulation studies and tests: a classifier whose ``idata_`` is set to
    it (with ``vocabulary_``, ``layout_`` and ``classes_``) predicts and
    analyses with these draws.

    Parameters
    ----------
    theta : ndarray of shape (n_draws, layout.size)
    sd : ndarray of shape (n_draws, n_spreads)
    layout : Layout
    coords : dict, optional
        Level names per dimension, as for `run`.
    n_chains : int, default 1
        The draws are split into this many chains of equal length.

    Returns
    -------
    arviz.InferenceData or xarray.DataTree
    """
    theta = np.asarray(theta, dtype=float)
    sd = np.asarray(sd, dtype=float)
    n = theta.shape[0] // n_chains
    data = {"sd": (("chain", "draw", "spread"), sd.reshape(n_chains, n, -1))}
    dims = {b.name: b.dims for b in layout.declared}
    for name, block in layout.unflatten(theta).items():
        data[name] = (
            ("chain", "draw", *dims[name]),
            block.reshape(n_chains, n, *block.shape[1:]),
        )
    post = xr.Dataset(data, coords={"chain": np.arange(n_chains), "draw": np.arange(n)})
    post = post.assign_coords(spread=list(layout.spreads))
    return posterior.from_groups(_named({"posterior": post}, coords or {}))


def run(
    index: np.ndarray,
    y: np.ndarray,
    layout: Layout,
    priors: SpreadPriors,
    options: SamplingOptions,
    *,
    method: str = "nuts",
    coords: dict[str, list] | None = None,
):
    """Fit the model to encoded matches and return its named posterior.

    Parameters
    ----------
    index : ndarray of int, shape (n_matches, n_columns)
        ``layout.index_matrix(codes)`` of the training matches.
    y : ndarray of float, shape (n_matches,)
        Outcomes (1 where player 1 won) or luck-adjusted outcomes.
    layout : Layout
    priors : SpreadPriors
    options : SamplingOptions
    method : {"nuts", "advi"}, default "nuts"
    coords : dict, optional
        Level names per dimension (``player``, ``starter1``, ``starter2``,
        ``spec1``, ``spec2``, ``epoch``); integer positions otherwise.

    Returns
    -------
    arviz.InferenceData or xarray.DataTree
        The groups listed in the module docstring.
    """
    check_draws_fit_in_memory(options, layout)  # before compiling or sampling anything
    index = np.asarray(index, dtype=np.int64)
    y = np.asarray(y, dtype=float)
    groups = _named(_sample(index, y, layout, priors, options, method), coords or {})
    groups["observed_data"] = xr.Dataset({"outcome": ("match", y)})
    groups["constant_data"] = xr.Dataset(
        {
            "index": (("match", "column"), index.astype(np.int32)),
            "signs": ("column", np.asarray(layout.signs, dtype=float)),
        }
    )
    return add_log_likelihood(posterior.from_groups(groups), layout)


def upgrade_saved_layout(layout: Layout, idata) -> Layout:
    """The layout a posterior was sampled in, for an estimator loaded from a file.

    Files written before the estimator kept its layout as sampled hold it
    without the skill walk (the layout of the forecasts); their posterior
    still holds the walk. For those files alone, the walk is put back, with
    as many periods as the posterior has. Any other layout is returned as it is.
    """
    post = posterior.group(idata, "posterior")
    if layout.options.time_varying or "walk" not in post:
        return layout
    options = dataclasses.replace(layout.options, time_varying=True)
    return dataclasses.replace(layout, options=options, n_epochs=int(post.sizes["epoch"]))


def current_effects(
    theta: np.ndarray, sd: np.ndarray, layout: Layout, seed: int
) -> tuple[np.ndarray, Layout]:
    """Effects for forecasting the next period, in the static layout.

    Without a skill walk this is ``theta`` itself. With one, each player's
    skill becomes their skill in the last training period plus the walk's
    steps from there to the next period, a fresh ``N(0, sd_step^2 * gap)``
    per draw, so forecasts widen with the time since a player last played.
    The every-period walk (``layout.walk_steps`` None, files written before
    the integrated walk) already carries the steps of the periods a player
    sat out: there the gap is 1. The integrated walk holds a player's last
    played value: there the gap is ``n_epochs - last``, from the last period
    the player played (`last_periods_played`). Both give the same
    distribution as the same walk stepped through every period.
    """
    if not layout.options.time_varying:
        return theta, layout
    static = layout.static()
    blocks = layout.unflatten(theta)
    step = sd[:, layout.spreads.index("step")]
    rng = np.random.default_rng([seed, 1])
    noise = rng.standard_normal(blocks["skill"].shape) * step[:, None]
    if layout.integrated_walk:
        noise = noise * np.sqrt(layout.n_epochs - last_periods_played(blocks["walk"]))
    current = {name: blocks[name] for name, _ in static.blocks}
    current["skill"] = blocks["skill"] + blocks["walk"][..., -1] + noise
    return static.flatten(current), static


def last_periods_played(walk: np.ndarray) -> np.ndarray:
    """Each player's last period played, read from integrated-walk draws (n_draws, P, E).

    The integrated walk moves only into a period the player played (a step
    of exactly zero in every draw has probability zero) and stays put
    otherwise, so the last period it moves in is the last period played;
    0 for a player whose walk never moves (who played in the first period only).
    """
    moved = (np.diff(walk, axis=-1) != 0).any(axis=0)  # (P, E - 1)
    periods = np.arange(1, walk.shape[-1])
    return np.where(moved, periods, 0).max(axis=-1, initial=0)


def level_names(vocab: Vocabulary, layout: Layout, table: pd.DataFrame) -> dict[str, list]:
    """The names of the posterior's dimensions, from the vocabulary and the periods."""
    names = {
        "player": list(vocab.players),
        "starter1": list(vocab.starters),
        "starter2": list(vocab.starters),
        "spec1": list(vocab.specs),
        "spec2": list(vocab.specs),
        "spread": list(layout.spreads),
    }
    if layout.options.time_varying:
        periods = period_labels(table) if "period" in table.columns else []
        labels = [*periods, *(f"epoch {i}" for i in range(layout.n_epochs))]
        names["epoch"] = labels[: layout.n_epochs]
    return names
