"""Reading a fitted posterior in the layout it was sampled in.

The estimator keeps its posterior (`skcodex._matchup.fitting.run`) and the layout it
sampled (``layout_``); everything it derives from them is read here: the flat
effect draws (`effect_draws`), each match's log-likelihood
(`add_log_likelihood`), the effects for forecasting the next period
(`current_effects`), and the layout of a file written before the layout was
kept as sampled (`upgrade_saved_layout`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from skcodex._compat import posterior
from skcodex._matchup import debut as debut_decks
from skcodex._matchup.draws import loglik_terms as draw_terms
from skcodex._matchup.draws import threshold_draws as draw_threshold_draws
from skcodex._matchup.graph import Layout, quasi_loglik_terms

__all__ = [
    "MAX_LOG_LIKELIHOOD",
    "add_log_likelihood",
    "current_effects",
    "effect_draws",
    "last_periods_played",
    "periods_ahead",
    "pointwise_log_likelihood",
    "training_index",
    "upgrade_saved_layout",
]

#: Largest draws x matches whose pointwise log-likelihood is kept (160 MB in float64).
MAX_LOG_LIKELIHOOD = 20_000_000


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
    theta: np.ndarray,
    index: np.ndarray,
    signs: np.ndarray,
    outcome: np.ndarray,
    threshold: np.ndarray | None = None,
) -> np.ndarray:
    """Each match's log-likelihood per draw, with log-odds ``q = theta[:, index] @ signs``.

    ``r log sigmoid(q) + (1 - r) log sigmoid(-q)`` for outcome ``r``:
    the Bernoulli log-likelihood for outcomes in {0, 1}; the binomial
    quasi-log-likelihood for luck-adjusted outcomes. The log-odds of every
    draw come from one product with the sparse matrix of the matches' signed
    reads (18 entries a row), in blocks of matches of at most 2**21 values.
    With ``threshold`` (one per draw), the three-outcome likelihood of a
    model with draws (`skcodex._matchup.draws.loglik_terms`).
    """
    from scipy import sparse

    n_rows, width = index.shape
    reads = sparse.csr_matrix(
        (
            np.tile(np.asarray(signs, dtype=float), n_rows),
            index.ravel(),
            width * np.arange(n_rows + 1),
        ),
        shape=(n_rows, theta.shape[1]),
    )
    draws_first = np.ascontiguousarray(theta.T)  # (size, n_draws): what the product reads
    out = np.empty((theta.shape[0], n_rows))
    step = max(1, 2**21 // max(1, theta.shape[0]))
    for start in range(0, n_rows, step):
        q = reads[start : start + step] @ draws_first  # (rows, n_draws)
        r = outcome[start : start + step, None]
        if threshold is None:
            out[:, start : start + step] = quasi_loglik_terms(r, q).T
        else:
            out[:, start : start + step] = draw_terms(r, q, threshold[None, :]).T
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
    factor = debut_decks.factor_draws(idata)
    if factor is not None:
        rows = debut_decks.debut_rows(layout, index)
        theta, index = debut_decks.with_factor(
            theta, index, rows, debut_decks.deck_columns(layout), factor
        )
    threshold = draw_threshold_draws(idata) if layout.options.draws else None
    values = pointwise_log_likelihood(
        theta, index, data["signs"].to_numpy(), observed["outcome"].to_numpy(), threshold
    )
    import xarray as xr

    loglik = xr.Dataset(
        {"outcome": (("chain", "draw", "match"), values.reshape(n_chains, n_draws, -1))},
        coords={"chain": post["chain"].values, "draw": post["draw"].values},
    )
    return posterior.with_group(idata, "log_likelihood", loglik)


def upgrade_saved_layout(layout: Layout, idata) -> Layout:
    """The layout a posterior was sampled in, for an estimator loaded from a file.

    Files written before the estimator kept its layout as sampled hold it
    without the skill walk (the layout of the forecasts); their posterior
    still holds the walk. For those files alone, the walk is put back, with
    as many periods as the posterior has. Files written before the spreads of
    blocks without cells were dropped (decks without specs) hold those spreads
    in their posterior: their layout keeps them (`Layout.empty_spreads`). Any
    other layout is returned as it is.
    """
    post = posterior.group(idata, "posterior")
    if not layout.options.time_varying and "walk" in post:
        options = dataclasses.replace(layout.options, time_varying=True)
        layout = dataclasses.replace(layout, options=options, n_epochs=int(post.sizes["epoch"]))
    # "spread" in a posterior read by xarray (a coordinate) or as plain groups (a variable)
    if "spread" in post and not layout.empty_spreads:
        sampled = [s.decode() if isinstance(s, bytes) else str(s) for s in post["spread"].values]
        if len(sampled) > len(layout.spreads):
            layout = dataclasses.replace(layout, empty_spreads=True)
            if list(layout.spreads) != sampled:
                raise ValueError(
                    f"the posterior's spreads {sampled} are not those of its layout "
                    f"{list(layout.spreads)}"
                )
    return layout


def current_effects(
    theta: np.ndarray, sd: np.ndarray, layout: Layout, seed: int, index: np.ndarray | None = None
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
    the player played (`periods_ahead`). Both give the same distribution as
    the same walk stepped through every period. ``index`` is the training
    matches' index matrix (`training_index`), which a walk anchored at each
    player's first period played needs.
    """
    if not layout.options.time_varying:
        return theta, layout
    static = layout.static()
    blocks = layout.unflatten(theta)
    step = sd[:, layout.spreads.index("step")]
    rng = np.random.default_rng([seed, 1])
    noise = rng.standard_normal(blocks["skill"].shape) * step[:, None]
    if layout.integrated_walk:
        noise = noise * np.sqrt(periods_ahead(layout, blocks["walk"], index))
    current = {name: blocks[name] for name, _ in static.blocks}
    current["skill"] = blocks["skill"] + blocks["walk"][..., -1] + noise
    return static.flatten(current), static


def training_index(idata) -> np.ndarray | None:
    """The index matrix of the matches a posterior was fitted on (None when not kept)."""
    data = posterior.group(idata, "constant_data")
    if data is None or "index" not in data:
        return None
    return data["index"].to_numpy().astype(np.int64)


def periods_ahead(layout: Layout, walk: np.ndarray, index: np.ndarray | None) -> np.ndarray:
    """Per player, the periods the walk spans from the last one they played to the next.

    ``n_epochs - last``. A walk anchored at the first period played
    (``layout.walk_anchor``) reads the periods played from the training
    ``index``, since a player who played one period only never moves from 0;
    a player it never saw has no walk (0). The older walk reads them from the
    draws (`last_periods_played`).
    """
    if layout.walk_anchor == "first period":
        return layout.n_epochs - last_periods_played(walk)
    if index is None:
        raise ValueError(
            "forecasting a skill walk anchored at each player's first period needs the "
            "index of the training matches (the posterior's constant_data)"
        )
    played = layout.periods_played(index)
    seen = played.any(axis=1)
    last = played.shape[1] - 1 - np.argmax(played[:, ::-1], axis=1)
    return np.where(seen, layout.n_epochs - last, 0)


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
