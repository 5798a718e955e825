"""The seed's hierarchical Bradley-Terry matchup model, as a PyMC model built from codes.

The log-odds that player 1 wins match i are

    q_i = p[f_i] - p[s_i] + a[g_i, t_i] + sum_k b[g_i, u_ik] + sum_j c[h_ij, t_i]
          + sum_jk d[h_ij, u_ik]

with player skills ``p``, starter-vs-starter ``a``, starter-vs-spec ``b``,
spec-vs-starter ``c`` and spec-vs-spec ``d`` effects (player 1's component
first), each block drawn from N(0, sd) with its own spread (``b`` and ``c``
share one) and ``log sd ~ N(loc, scale)``.

All effects live in one flat vector ``theta`` (see `Layout`); a match reads its
2 + 1 + 2k + k^2 entries through one row of an integer index matrix, with sign
-1 for player 2's skill and +1 elsewhere. One gather per log-density
evaluation keeps the model fast, and the same layout serves prediction in
NumPy. This module knows nothing of pandas or scikit-learn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skcodex.data import MatchCodes

#: The four spreads, in the order of the ``log_sd`` vector.
SPREADS = ("player", "stst", "stsp", "spsp")
#: The effect blocks of ``theta``, in order, with the spread each is drawn with.
BLOCKS = (("skill", 0), ("stst", 1), ("stsp", 2), ("spst", 2), ("spsp", 3))


@dataclass(frozen=True)
class SpreadPriors:
    """Normal priors on the four log-spreads: ``log sd_x ~ N(loc_x, scale_x)``.

    The seed's choice, N(0, 0.5) for all four, is the default.
    """

    loc: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    scale: tuple[float, float, float, float] = (0.5, 0.5, 0.5, 0.5)

    def __post_init__(self) -> None:
        for name, values in (("loc", self.loc), ("scale", self.scale)):
            arr = np.asarray(values, dtype=float)
            if arr.shape != (4,) or not np.all(np.isfinite(arr)):
                raise ValueError(f"spread prior {name} must be 4 finite numbers, got {values!r}")
        if np.any(np.asarray(self.scale) <= 0):
            raise ValueError(f"spread prior scales must be positive, got {self.scale!r}")


@dataclass(frozen=True)
class Layout:
    """Where each effect sits in the flat vector ``theta``.

    Parameters
    ----------
    n_players, n_starters, n_specs : int
        Number of levels of each kind.
    specs_per_deck : int
        k, the number of specs in a deck (3 in Codex).
    """

    n_players: int
    n_starters: int
    n_specs: int
    specs_per_deck: int = 3

    @property
    def shapes(self) -> dict[str, tuple[int, ...]]:
        """The shape of each effect block."""
        P, S, K = self.n_players, self.n_starters, self.n_specs
        return {"skill": (P,), "stst": (S, S), "stsp": (S, K), "spst": (K, S), "spsp": (K, K)}

    @property
    def offsets(self) -> dict[str, int]:
        """Where each block starts in ``theta``."""
        out, at = {}, 0
        for name, _ in BLOCKS:
            out[name] = at
            at += int(np.prod(self.shapes[name]))
        return out

    @property
    def size(self) -> int:
        """Length of ``theta``."""
        return sum(int(np.prod(s)) for s in self.shapes.values())

    @property
    def group(self) -> np.ndarray:
        """For each entry of ``theta``, the index of its spread in `SPREADS`."""
        return np.concatenate(
            [np.full(int(np.prod(self.shapes[name])), g, dtype=np.int64) for name, g in BLOCKS]
        )

    @property
    def signs(self) -> np.ndarray:
        """The sign of each index-matrix column: -1 for player 2's skill, +1 elsewhere."""
        k = self.specs_per_deck
        out = np.ones(3 + 2 * k + k * k)
        out[1] = -1.0
        return out

    def index_matrix(self, codes: MatchCodes) -> np.ndarray:
        """The (n_matches, 3 + 2k + k^2) matrix of ``theta`` positions read by each match."""
        o, S, K = self.offsets, self.n_starters, self.n_specs
        g, t = codes.starter1[:, None], codes.starter2[:, None]
        h, u = codes.specs1, codes.specs2
        cols = [
            o["skill"] + codes.player1[:, None],
            o["skill"] + codes.player2[:, None],
            o["stst"] + g * S + t,
            o["stsp"] + g * K + u,
            o["spst"] + h * S + t,
            o["spsp"] + (h[:, :, None] * K + u[:, None, :]).reshape(len(codes), -1),
        ]
        idx = np.concatenate(cols, axis=1)
        if idx.size and (idx.min() < 0 or idx.max() >= self.size):
            raise ValueError("match codes fall outside the layout; encode against its vocabulary")
        return idx.astype(np.int64)

    def unflatten(self, theta: np.ndarray) -> dict[str, np.ndarray]:
        """Split ``theta`` (..., size) into its named blocks."""
        out = {}
        for name, _ in BLOCKS:
            start, shape = self.offsets[name], self.shapes[name]
            stop = start + int(np.prod(shape))
            lead = () if theta.ndim == 1 else tuple(theta.shape[:-1])
            out[name] = theta[..., start:stop].reshape((*lead, *shape))
        return out

    def flatten(self, blocks: dict[str, np.ndarray]) -> np.ndarray:
        """Inverse of `unflatten`."""
        lead = blocks["skill"].shape[:-1]
        return np.concatenate([blocks[name].reshape(*lead, -1) for name, _ in BLOCKS], axis=-1)


def build_model(
    index: np.ndarray,
    y: np.ndarray,
    layout: Layout,
    priors: SpreadPriors = SpreadPriors(),
    coords: dict[str, list] | None = None,
):
    """Build the PyMC model for matches given as an index matrix.

    Parameters
    ----------
    index : ndarray of int, shape (n_matches, 3 + 2k + k^2)
        From `Layout.index_matrix`.
    y : ndarray of float, shape (n_matches,)
        1 where player 1 won, 0 where player 2 won; or luck-adjusted outcomes
        (any real number), scored by the binomial quasi-likelihood.
    layout : Layout
    priors : SpreadPriors
    coords : dict, optional
        Names for the ``player``, ``starter`` and ``spec`` dimensions.

    Returns
    -------
    pymc.Model
        Free variables ``log_sd`` (4,) and ``z`` (layout.size,), the standard-normal
        effects; deterministics ``sd`` and one per effect block with named dims.
        The data (``index``, ``y``) and the prior locations and scales are
        ``pm.Data`` containers, so one compiled model serves new data and priors.
    """
    import pymc as pm
    import pytensor.tensor as pt

    P, S, K = layout.n_players, layout.n_starters, layout.n_specs
    coords = dict(coords or {})
    coords.setdefault("player", list(range(P)))
    coords.setdefault("starter", list(range(S)))
    coords.setdefault("spec", list(range(K)))
    full_coords = {
        "spread": list(SPREADS),
        "player": coords["player"],
        "starter1": coords["starter"],
        "starter2": coords["starter"],
        "spec1": coords["spec"],
        "spec2": coords["spec"],
    }
    dims = {
        "skill": ("player",),
        "stst": ("starter1", "starter2"),
        "stsp": ("starter1", "spec2"),
        "spst": ("spec1", "starter2"),
        "spsp": ("spec1", "spec2"),
    }
    with pm.Model(coords=full_coords) as model:
        idx = pm.Data("index", np.asarray(index, dtype=np.int64))
        outcome = pm.Data("y", np.asarray(y, dtype=float))
        loc = pm.Data("prior_loc", np.asarray(priors.loc, dtype=float))
        scale = pm.Data("prior_scale", np.asarray(priors.scale, dtype=float))
        log_sd = pm.Normal("log_sd", loc, scale, dims="spread")
        sd = pm.Deterministic("sd", pt.exp(log_sd), dims="spread")
        z = pm.Normal("z", 0.0, 1.0, shape=layout.size)
        theta = z * sd[layout.group]
        signs = pt.as_tensor_variable(layout.signs)
        q = (theta[idx] * signs).sum(axis=1)
        # Bernoulli log-likelihood for y in {0, 1}; for luck-adjusted outcomes outside
        # [0, 1] the same expression is the binomial quasi-likelihood (concave in q).
        pm.Potential("loglik", quasi_loglik(outcome, q, pt))
        for name, block in layout.unflatten(theta).items():
            pm.Deterministic(name, block, dims=dims[name])
    return model


def quasi_loglik(r, q, xp=np):
    """``r log sigmoid(q) + (1 - r) log sigmoid(-q)``, summed over matches.

    For r in {0, 1} this is the Bernoulli log-likelihood of the outcome. For
    luck-adjusted outcomes (any real r) it is the binomial quasi-likelihood:
    concave in q, with score ``r - sigmoid(q)``, which has mean zero whenever
    E[r] = sigmoid(q). ``xp`` is ``numpy`` or ``pytensor.tensor``.
    """
    if xp is np:
        from scipy.special import log_expit

        return np.sum(r * log_expit(q) + (1 - r) * log_expit(-q), axis=-1)
    return xp.sum(-r * xp.softplus(-q) - (1 - r) * xp.softplus(q))
