"""The seed's hierarchical Bradley-Terry matchup model, as a PyMC model built from codes.

The log-odds that player 1 wins match i are

    q_i = p[f_i] - p[s_i] + a[g_i, t_i] + sum_k b[g_i, u_ik] + sum_j c[h_ij, t_i]
          + sum_jk d[h_ij, u_ik]

with player skills ``p``, starter-vs-starter ``a``, starter-vs-spec ``b``,
spec-vs-starter ``c`` and spec-vs-spec ``d`` effects (player 1's component
first), each block drawn from N(0, sd) with its own spread (``b`` and ``c``
share one) and ``log sd ~ N(loc, scale)``.

Optional extensions (`ModelOptions`), each a block of effects of its own:

- ``synergy``: a deck's own strength from its starter-spec and spec-spec pairs,
  ``syn(deck) = sum_k e[g, h_k] + sum_{j<k} f[h_j, h_k]``, entering as
  ``syn(deck1) - syn(deck2)``;
- ``familiarity``: a player's skill with a starter and with each spec,
  ``fam(p, deck) = r[p, g] + sum_k s[p, h_k]``, entering as
  ``fam(player1, deck1) - fam(player2, deck2)``;
- ``time_varying``: each player's skill drifts by a Gaussian random walk over
  rating periods (epochs), ``p[f] + w[f, e]`` with ``w[f, e] = 0`` up to the
  first period player ``f`` played and steps of spread ``sd_step``; the walk
  takes a step only into each later period the player played, of spread
  ``sd_step * sqrt(gap)`` (the same walk with the unplayed periods integrated
  out; the gaps are ``pm.Data``, see `walk_data`);
- ``prior="balanced"``: instead of four independent log-normal spreads, a total
  log-odds spread ``sigma`` with ``log sigma ~ N(loc, scale)`` split between the
  skill difference and the deck matchup by a share ``rho = sigmoid(N(0, 1))``
  (symmetric about 1/2: equal a priori), and the deck part split among its
  three kinds by ``pi = softmax(0, N(0, 1), N(0, 1))``: ``2 sd_player^2 = rho sigma^2``,
  ``sd_stst^2 = (1 - rho) pi_1 sigma^2``, ``2k sd_stsp^2 = (1 - rho) pi_2 sigma^2``,
  ``k^2 sd_spsp^2 = (1 - rho) pi_3 sigma^2`` (with no specs, k = 0, the whole deck
  part is the starter-vs-starter spread);
- ``first_move``: one more effect ``w`` added to every match's log-odds, the
  advantage of moving first (or of playing white, or of being player 1), with
  its own prior ``w ~ N(loc, scale)``; not pooled, not scaled by a spread;
- ``debut``: one more effect ``v`` added to a player's skill in the matches of
  their first rating period, entering as ``v (debut_1 - debut_2)`` with the
  sides' debut flags, with its own prior ``v ~ N(loc, scale)`` like the
  first-move effect; and a factor ``kappa`` on the deck effects of those
  matches (`skcodex._matchup.debut`).

A deck holds a starter and k >= 0 specs (side components): k = 0 is a game of
characters or factions alone, where the deck matchup is the starter-vs-starter
effect; there are ``1 + 2k + k^2`` deck-component effects per match.

All effects live in one flat vector ``theta``; a match reads its entries
through one row of an integer index matrix, with a sign per column (the
formula and the layout are `skcodex._matchup.layout`'s, shared with prediction and the
analyses). One gather per log-density evaluation keeps the model fast. This
module builds the PyMC model and nothing else; it knows nothing of pandas or
scikit-learn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skcodex._matchup import blocks
from skcodex._matchup.blocks import PRIOR_DEFAULTS, level_kind
from skcodex._matchup.debut import (
    FACTOR,
    FACTOR_LOGIT,
    FACTOR_PRIOR,
    graph_theta,
    has_factor,
    moved_index,
)
from skcodex._matchup.geometry import apply_null_rotation, centred_scale, declared_block_of
from skcodex._matchup.layout import Layout
from skcodex._matchup.options import BLOCK_DIMS, BLOCKS, PRIORS, SPREADS, ModelOptions
from skcodex._matchup.spread_model import (
    SPREAD_COORDINATES,
    balanced_prior_spreads,
    exponential_correction,
    lognormal_spreads,
)
from skcodex._matchup.walk import WalkPath
from skcodex.data import _kinds as kinds

__all__ = [
    "BLOCKS",
    "BLOCK_DIMS",
    "EXTRA_PRIOR_DEFAULTS",
    "FIRST_MOVE_PRIOR",
    "PRIORS",
    "PRIOR_FAMILIES",
    "SPREADS",
    "SPREAD_COORDINATES",
    "Layout",
    "ModelOptions",
    "SpreadPriors",
    "build_model",
    "default_priors",
    "exponential_correction",
    "quasi_loglik",
    "quasi_loglik_terms",
    "walk_data",
]

#: The sampler's coordinates of ``z`` when the model is built with a null rotation.
ROTATED_Z = "z_rotated"
#: Default priors on the log-spreads of the optional blocks: (loc, scale).
EXTRA_PRIOR_DEFAULTS = {name: PRIOR_DEFAULTS[name] for name in ("syn", "fam", "step")}
#: Default prior of the first-move effect itself (log-odds): N(0, 0.5).
FIRST_MOVE_PRIOR = PRIOR_DEFAULTS["first_move"]


#: The prior families of a spread (`SpreadPriors.family`).
PRIOR_FAMILIES = ("lognormal", "exponential")


@dataclass(frozen=True)
class SpreadPriors:
    """Normal priors on the log-spreads, ``log sd_x ~ N(loc_x, scale_x)``.

    ``loc`` and ``scale`` hold one entry per name of `ModelOptions.prior_names`
    (for the seed model: player, stst, stsp, spsp; with the balanced prior the
    first entry is the log of the total spread; with a first-move effect the
    last entry is the prior of that effect itself, not of a log-spread). The
    seed's choice, N(0, 0.5) for all four, is the default.
    """

    loc: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0)
    scale: tuple[float, ...] = (0.5, 0.5, 0.5, 0.5)
    #: Per entry, ``"lognormal"`` (the default: ``log sd ~ N(loc, scale)``, or for an
    #: effect with a prior of its own ``N(loc, scale)`` on the effect) or
    #: ``"exponential"`` (a spread's penalised-complexity prior, ``sd ~ Exponential``
    #: of mean ``exp(loc)``, whose mode is 0: the data decide whether the part is
    #: there at all; ``scale`` is unused and must be 1). None: every entry log-normal.
    family: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        loc = np.asarray(self.loc, dtype=float)
        scale = np.asarray(self.scale, dtype=float)
        for name, arr, values in (("loc", loc, self.loc), ("scale", scale, self.scale)):
            if arr.ndim != 1 or len(arr) == 0 or not np.all(np.isfinite(arr)):
                raise ValueError(f"spread prior {name} must be finite numbers, got {values!r}")
        if loc.shape != scale.shape:
            raise ValueError("spread prior loc and scale must have the same length")
        if np.any(scale <= 0):
            raise ValueError(f"spread prior scales must be positive, got {self.scale!r}")
        if self.family is None:  # every entry log-normal, spelt out so equal priors compare equal
            object.__setattr__(self, "family", ("lognormal",) * len(loc))
        else:
            if len(self.family) != len(loc) or not set(self.family) <= set(PRIOR_FAMILIES):
                raise ValueError(
                    f"spread prior family must hold one of {PRIOR_FAMILIES} per entry, "
                    f"got {self.family!r}"
                )
            exponential = np.asarray(self.family) == "exponential"
            if np.any(scale[exponential] != 1.0):
                raise ValueError("an exponential spread prior has scale 1 (its mean is exp(loc))")

    @property
    def exponential(self) -> np.ndarray:
        """1.0 where an entry's prior is exponential, else 0.0 (the model's ``prior_family``)."""
        family = self.family or ("lognormal",) * len(self.loc)
        return np.array([f == "exponential" for f in family], dtype=float)


def model_coords(layout: Layout, coords: dict | None = None) -> dict[str, list]:
    """The PyMC model's coordinates: each kind of level's, and each side of a matchup's.

    A kind's levels are named by ``coords`` where given, by their fixed names
    (`skcodex.data._kinds.KIND_TABLE`), or numbered; ``"starter1"`` and
    ``"starter2"`` are the levels of ``"starter"``.
    """
    given = dict(coords or {})
    levels = kinds.positional_levels(layout)
    named = {name: list(given.get(name, levels[name])) for name in kinds.kind_names()}
    dims = [d for b in blocks.BLOCK_TABLE for d in b.dims]
    sided = {level_kind(d) for d in dims if d != level_kind(d)}
    out: dict[str, list] = {"spread": list(layout.spreads)}
    for name, names in named.items():
        if name not in sided:  # a kind read by sides is named by its sides only
            out[name] = names
    for dim in dims:
        out.setdefault(dim, named[level_kind(dim)])
    return out


def build_model(
    index: np.ndarray,
    y: np.ndarray,
    layout: Layout,
    priors: SpreadPriors | None = None,
    coords: dict[str, list] | None = None,
    *,
    batch_rows=None,
    trials=None,
    centring=None,
    rotations=None,
    null_rotation=None,
):
    """Build the PyMC model for matches given as an index matrix.

    Parameters
    ----------
    index : ndarray of int, shape (n_rows, n_columns)
        From `Layout.index_matrix`: one row per match, or one per distinct
        row with ``trials`` (`skcodex._matchup.layout.collapse_matches`).
    y : ndarray of float, shape (n_rows,)
        1 where player 1 won, 0 where player 2 won; or luck-adjusted outcomes
        (any real number), scored by the binomial quasi-likelihood. With
        ``trials``: the sum of the outcomes of the matches behind each row.
    layout : Layout
    priors : SpreadPriors, optional
        One entry per name of ``layout.prior_names``; defaults to
        `default_priors`, the estimator's defaults (`skcodex._matchup.blocks.PRIOR_DEFAULTS`).
    coords : dict, optional
        Names for the ``player``, ``starter`` and ``spec`` dimensions.
    batch_rows : pytensor shared variable, optional
        For variational inference: the row numbers of the minibatch each
        evaluation reads (the optimiser sets them between steps); its
        log-likelihood is scaled up to the whole table. None reads every
        match, as NUTS needs.
    trials : ndarray of float, shape (n_rows,), optional
        How many matches each row stands for (default: one each). A row of
        ``n`` matches with outcomes summing to ``k`` adds
        ``k log sigmoid(q) + (n - k) log sigmoid(-q)``, which is exactly the sum
        of its matches' terms (`quasi_loglik`).
    centring : ndarray of float, shape (layout.n_free,), optional
        How each entry of ``z`` is sampled (`skcodex._matchup.geometry`): 0 non-centred
        (``z`` standard normal, the effect ``sd * z``; the default), 1 centred
        (``z ~ N(0, sd)`` is the effect itself). The effects and spreads mean
        the same whatever the centring.
    rotations : ndarray of float, shape (len(layout.declared), layout.n_free), optional
        Reflections of the standard normals (`skcodex._matchup.geometry.mean_rotations`;
        none by default). Orthogonal: they change the coordinates, not the model.
    null_rotation : (ndarray, ndarray, ndarray), optional
        ``(positions, B, C)`` of `skcodex._matchup.geometry.null_rotation`: the sampler moves
        ``x`` (the free variable ``z_rotated``, with ``z`` a deterministic and
        its prior a potential) with ``z = (I + B C B') x``, an orthogonal change
        of coordinates that gives each direction no match reads a coordinate
        of its own. They are ``pm.Data`` ``null_positions``, ``null_basis`` and
        ``null_core``, whose sizes may change with new data; None
        builds the model without them, ``z`` free.

    Returns
    -------
    pymc.Model
        Free variables ``z`` (the effects as sampled, see ``centring``) and the spread
        parameters (``log_sd``; or ``log_total``, ``skill_share_logit``,
        ``deck_split_logits`` and ``log_sd_extra`` under the balanced prior);
        deterministics ``sd`` and one per effect block with named dims. The
        data (``index``, ``y``, ``trials``, ``centring``, ``rotations``) and the
        prior locations and scales are ``pm.Data`` containers, so one compiled
        model serves new data and priors.
    """
    import pymc as pm

    priors = priors or default_priors(layout)
    if len(priors.loc) != len(layout.prior_names):
        raise ValueError(
            f"the priors need one entry for each of {layout.prior_names}, got {len(priors.loc)}"
        )
    with pm.Model(coords=model_coords(layout, coords)) as model:
        idx, outcome, count, data_scale = _match_data(index, y, layout, trials, batch_rows)
        loc = pm.Data("prior_loc", np.asarray(priors.loc, dtype=float))
        scale = pm.Data("prior_scale", np.asarray(priors.scale, dtype=float))
        family = pm.Data("prior_family", priors.exponential)
        if layout.options.prior == "lognormal":
            sd = lognormal_spreads(layout, loc, scale, family)
        else:
            sd = balanced_prior_spreads(layout, loc, scale, family)
        # z = sd**c * z_std with z_std ~ N(0, 1): centred (c = 1) or non-centred (c = 0)
        c = pm.Data("centring", _centring(centring, layout))
        # reflections giving a differenced block's mean a coordinate of its own
        w = pm.Data("rotations", _rotations(rotations, layout))
        z_loc, own_scale = _own_prior(layout, loc, scale)
        z = _sampled_z(layout, sd, c, z_loc, own_scale, null_rotation)
        theta = _placed_effects(layout, index, z, sd, c, w, z_loc, own_scale)
        loglik = _likelihood(layout, theta, idx, outcome, count, len(y), batch_rows)
        pm.Potential("loglik", loglik if data_scale is None else data_scale * loglik)
        dims = {b.name: b.dims for b in layout.declared}
        for name, block in layout.unflatten(theta).items():
            pm.Deterministic(name, block, dims=dims[name])
    return model


def _match_data(index, y, layout: Layout, trials, batch_rows):
    """The matches as ``pm.Data`` (index, outcomes, trials), and a minibatch's scale-up.

    With ``batch_rows``, the rows of the minibatch and the factor that scales its
    log-likelihood up to the whole table; else every row and None.
    """
    import pymc as pm
    import pytensor.tensor as pt

    # with the debut deck factor (debut.py), the debut rows' deck columns point
    # at the scaled copies of the effects: the data are the moved index
    idx = pm.Data("index", moved_index(layout, index))
    outcome = pm.Data("y", np.asarray(y, dtype=float))
    count = pm.Data("trials", _trials(trials, y))
    data_scale = None
    if batch_rows is not None:
        idx, outcome, count = idx[batch_rows], outcome[batch_rows], count[batch_rows]
        # the minibatch stands for the whole table
        data_scale = len(y) / pt.cast(batch_rows.shape[0], "float64")
    return idx, outcome, count, data_scale


def _own_prior(layout: Layout, loc, scale):
    """Each entry of ``z``'s location and scale before the spreads: 0 and 1, or its own.

    An effect no spread scales (the first-move effect) is its entry of z drawn
    from its own prior (its entry of the prior vectors) rather than N(0, 1).
    """
    import pytensor.tensor as pt

    z_loc, own_scale = np.zeros(layout.n_free), np.ones(layout.n_free)
    own = [b.name for b in layout.declared if b.spread is None]
    if own:
        at = [layout.free_offsets[name] for name in own]
        which = [layout.prior_names.index(name) for name in own]
        z_loc = pt.set_subtensor(pt.as_tensor(z_loc)[at], loc[which])
        own_scale = pt.set_subtensor(pt.as_tensor(own_scale)[at], scale[which])
    return z_loc, own_scale


def _sampled_z(layout: Layout, sd, c, z_loc, own_scale, null_rotation):
    """``z``, the effects as sampled: free, or turned from the ``x`` the sampler moves."""
    import pymc as pm
    import pytensor.tensor as pt

    if null_rotation is None:
        # z's density is the potential of `_placed_effects`; as a distribution it only
        # draws (prior predictive checks) from the same normal
        z_scale = own_scale * centred_scale(layout._scale(sd, layout.free_group), c)
        return pm.CustomDist(
            "z", z_loc, z_scale, logp=_no_density, random=_normal_draws, shape=layout.n_free
        )
    # The sampler moves x, z = Q x (orthogonal: no Jacobian), z's prior as above.
    names = ("positions", "basis", "core")
    rotation = tuple(
        pm.Data(f"null_{k}", np.asarray(a, dtype=int if k == "positions" else float))
        for k, a in zip(names, null_rotation)
    )
    x = pm.Flat(ROTATED_Z, shape=layout.n_free)
    return pm.Deterministic("z", apply_null_rotation(x, rotation, pt))


def _placed_effects(layout: Layout, index, z, sd, c, w, z_loc, own_scale):
    """``theta``, the effects placed in their blocks; z's prior added as a potential.

    The effects before they are placed (sd z_std) and z's prior, in one pass
    over z (`skcodex._matchup.effects_op`), then the walk and mirrored cells.
    """
    import pymc as pm
    import pytensor.tensor as pt

    from skcodex._matchup.effects_op import scaled_effects

    block_of = declared_block_of(layout)
    group = layout.free_group
    scaled, z_prior = scaled_effects(z, sd, c, group, w, block_of, z_loc, own_scale)
    pm.Potential("z_prior", z_prior)
    path = None
    if layout.integrated_walk:  # the walk's steps depend on the data: swapped with it
        path = WalkPath(**{k: pm.Data(f"walk_{k}", v) for k, v in _walk_arrays(layout, index)})
    return layout.place(scaled, pt, path)


def _likelihood(layout: Layout, theta, idx, outcome, count, n_rows: int, batch_rows):
    """The matches' log-likelihood given the effects ``theta`` (without its constant).

    Binomial log-likelihood of k = y wins in n = trials matches, q the signed sum
    of each row's effects; for luck-adjusted outcomes the same expression is the
    binomial quasi-likelihood (concave in q), of which the sums y are sufficient
    (`quasi_loglik`). One pass over the index computes it and its gradient
    (`skcodex._matchup.loglik_op`). The debut rows read their deck effects times
    the debut deck factor (`skcodex._matchup.debut`).
    """
    import pymc as pm
    import pytensor.tensor as pt

    from skcodex._matchup.loglik_op import signed_row_loglik

    read_theta = theta
    if has_factor(layout):
        k = pm.Normal(FACTOR_LOGIT, *FACTOR_PRIOR)
        factor = pm.Deterministic(FACTOR, 2.0 * pt.sigmoid(k))
        read_theta = graph_theta(theta, factor, pt)
    if layout.options.draws:  # a third outcome, the draw, with a learned threshold
        if batch_rows is not None:
            raise ValueError("a model with draws is fitted by NUTS only, not in minibatches")
        from skcodex._matchup.draws import add_draw_likelihood

        return add_draw_likelihood(read_theta, idx, layout.signs, outcome, count, n_rows)
    return signed_row_loglik(read_theta, idx, layout.signs, outcome, count)


def _no_density(value, *params):
    """The log-density of ``z`` as a distribution: nothing (its prior is a potential)."""
    import pytensor.tensor as pt

    return pt.zeros_like(value)


def _normal_draws(loc, scale, rng=None, size=None):
    """Draws of ``z`` from its prior, ``N(loc, scale)``."""
    return rng.normal(loc, scale, size=size)


def _walk_arrays(layout: Layout, index: np.ndarray):
    path = layout.walk_path(index)
    return [("gap", path.gap), ("upto", path.upto), ("base", path.base)]


def walk_data(layout: Layout, index: np.ndarray) -> dict[str, np.ndarray]:
    """The ``pm.Data`` values of an integrated skill walk for ``index`` (empty without one)."""
    if not layout.integrated_walk:
        return {}
    return {f"walk_{k}": v for k, v in _walk_arrays(layout, np.asarray(index))}


def _trials(trials, y) -> np.ndarray:
    """The number of matches behind each row, checked (one each when None)."""
    n = len(np.asarray(y))
    if trials is None:
        return np.ones(n)
    trials = np.asarray(trials, dtype=float)
    if trials.shape != (n,) or not np.all(np.isfinite(trials)) or np.any(trials < 0):
        raise ValueError(f"trials must be {n} non-negative numbers, one per row of the index")
    return trials


def _centring(centring, layout: Layout) -> np.ndarray:
    """The centring flag of each entry of ``z``, checked (all 0, non-centred, when None)."""
    if centring is None:
        return np.zeros(layout.n_free)
    centring = np.asarray(centring, dtype=float)
    if centring.shape != (layout.n_free,) or not np.all((centring == 0) | (centring == 1)):
        raise ValueError(f"centring must be {layout.n_free} flags, 0 or 1, one per entry of z")
    return centring


def _rotations(rotations, layout: Layout) -> np.ndarray:
    """The reflections of ``z``, checked (none when None)."""
    shape = (len(layout.declared), layout.n_free)
    if rotations is None:
        return np.zeros(shape)
    rotations = np.asarray(rotations, dtype=float)
    if rotations.shape != shape or not np.all(np.isfinite(rotations)):
        raise ValueError(f"rotations must be finite numbers of shape {shape}")
    return rotations


def default_priors(options: ModelOptions | Layout) -> SpreadPriors:
    """The default prior of every entry of ``options.prior_names`` (`skcodex._matchup.blocks`).

    ``options`` is a `ModelOptions` or a `Layout` (whose `Layout.prior_names`
    leave out the spreads its data have no blocks for).
    """
    loc, scale = zip(*(PRIOR_DEFAULTS[name] for name in options.prior_names))
    return SpreadPriors(tuple(loc), tuple(scale))


def quasi_loglik_terms(r, q) -> np.ndarray:
    """``r log sigmoid(q) + (1 - r) log sigmoid(-q)`` per element, in NumPy.

    The Bernoulli log-likelihood of each outcome r in {0, 1}; the binomial
    quasi-log-likelihood of luck-adjusted outcomes (see `quasi_loglik`).
    """
    r = np.asarray(r, dtype=float)
    q = np.asarray(q, dtype=float)
    # the same as r log sigmoid(q) + (1 - r) log sigmoid(-q), with one softplus
    return r * q - np.logaddexp(0.0, q)


def quasi_loglik(r, q, xp=np, trials=None):
    """``r log sigmoid(q) + (n - r) log sigmoid(-q)``, summed over rows (n = 1 by default).

    For r in {0, 1} this is the Bernoulli log-likelihood of the outcome. For
    luck-adjusted outcomes (any real r) it is the binomial quasi-likelihood:
    concave in q, with score ``r - sigmoid(q)``, which has mean zero whenever
    E[r] = sigmoid(q). It is linear in r, so ``n`` matches that share one
    log-odds ``q`` add up to one row with ``trials`` n and ``r`` the sum of
    their outcomes: the binomial log-likelihood of r wins in n, without its
    constant. ``xp`` is ``numpy`` or ``pytensor.tensor``.
    """
    n = 1 if trials is None else trials
    if xp is np:
        r, q = np.asarray(r, dtype=float), np.asarray(q, dtype=float)
        from scipy.special import log_expit

        return np.sum(r * log_expit(q) + (n - r) * log_expit(-q), axis=-1)
    # r log sigmoid(q) + (n - r) log sigmoid(-q) = r q - n softplus(q): one softplus per
    # row, and a gradient r - n sigmoid(q) of one sigmoid.
    return xp.sum(r * q - n * xp.softplus(q))
