"""The spreads' part of the PyMC model: the coordinates the sampler moves, and their priors.

Each spread ``sd`` of a `Layout` has a prior of one of two families
(`skcodex._matchup.graph.SpreadPriors`): log-normal, sampled as ``log sd``, or
exponential, whose mode is "no effect". `lognormal_spreads` and
`balanced_prior_spreads` build the spreads under the two priors of `ModelOptions.prior`;
with ``ModelOptions.signed_spreads`` an exponential spread is sampled through zero
(`spreads_through_zero`), else on ``log sd`` with `exponential_correction`.
"""

from __future__ import annotations

import numpy as np

from skcodex._matchup.layout import Layout
from skcodex._matchup.options import SPREADS
from skcodex._matchup.priors import balanced_spreads

__all__ = [
    "SPREAD_COORDINATES",
    "balanced_prior_spreads",
    "exponential_correction",
    "lognormal_spreads",
    "spreads_through_zero",
]


def exponential_correction(u, loc, scale, flag, xp=np):
    """What turns ``N(loc, scale)`` on ``u = log sd`` into ``sd ~ Exponential(mean exp(loc))``.

    Added to the log density of ``u`` where ``flag`` is 1 (0 elsewhere): the
    exponential's density in ``u`` (``-loc - exp(u - loc) + u``, the last term the
    Jacobian of ``sd = exp(u)``) minus the normal's. Summed over entries.
    """
    normal = -0.5 * ((u - loc) / scale) ** 2 - xp.log(scale) - 0.5 * np.log(2 * np.pi)
    exponential = -loc - xp.exp(u - loc) + u
    return xp.sum(flag * (exponential - normal))


def lognormal_spreads(layout: Layout, loc, scale, family):
    """The spreads ``sd``, each log-normal (or exponential, `exponential_correction`)."""
    import pymc as pm
    import pytensor.tensor as pt

    n_sd = len(layout.spreads)
    if layout.options.signed_spreads:
        sd = spreads_through_zero("log_sd", loc[:n_sd], scale[:n_sd], family[:n_sd], dims="spread")
        return pm.Deterministic("sd", sd, dims="spread")
    log_sd = pm.Normal("log_sd", loc[:n_sd], scale[:n_sd], dims="spread")
    # a spread with an exponential prior (its mode at 0): see exponential_correction
    pm.Potential(
        "spread_family",
        exponential_correction(log_sd, loc[:n_sd], scale[:n_sd], family[:n_sd], pt),
    )
    return pm.Deterministic("sd", pt.exp(log_sd), dims="spread")


#: The free variable of `spreads_through_zero` for each log-spread deterministic it keeps.
SPREAD_COORDINATES = {"log_sd": "sd_coordinate", "log_sd_extra": "sd_extra_coordinate"}


def spreads_through_zero(log_name: str, loc, scale, family, dims=None):
    """Spreads whose exponential priors are sampled through zero (``signed_spreads``).

    A spread with a log-normal prior is sampled as ``log sd ~ N(loc, scale)``, as
    always. One with an exponential prior of mean ``b = exp(loc)`` is sampled as a
    signed spread ``v`` with a Laplace prior of scale ``b`` and ``sd = |v|``, whose
    law is that exponential. Sampled on ``log sd`` instead, the prior's mode at zero
    becomes a long tail towards minus infinity that the sampler walks slowly (the
    bulk ESS of the spread falls well below the other parameters'); through ``v``,
    "no effect" is an ordinary point in the middle of the range. The free variable
    is `SPREAD_COORDINATES` ``[log_name]``; ``log_name`` is kept as a deterministic,
    ``log sd``, for the convergence checks (``|v|`` and ``-v`` give the same one).
    Returns ``sd``.
    """
    import pymc as pm
    import pytensor.tensor as pt

    exponential = family > 0
    centre = pt.switch(exponential, 0.0, loc)  # an exponential entry starts at no effect
    raw = pm.Normal(SPREAD_COORDINATES[log_name], centre, scale, dims=dims)
    normal = -0.5 * ((raw - centre) / scale) ** 2 - pt.log(scale) - 0.5 * np.log(2 * np.pi)
    laplace = -pt.abs(raw) / pt.exp(loc) - loc - np.log(2.0)
    pm.Potential("spread_family", pt.sum(pt.switch(exponential, laplace - normal, 0.0)))
    sd = pt.switch(exponential, pt.abs(raw), pt.exp(raw))
    pm.Deterministic(log_name, pt.log(sd), dims=dims)
    return sd


def balanced_prior_spreads(layout: Layout, loc, scale, family):
    """The spreads ``sd`` under the balanced prior: a total shared out, then the extras."""
    import pymc as pm
    import pytensor.tensor as pt

    n_sd = len(layout.spreads)
    log_total = pm.Normal("log_total", loc[0], scale[0])
    # Logistic-normal share and split: symmetric (equal a priori) and cheap to
    # compile, unlike Beta/Dirichlet transforms.
    share_logit = pm.Normal("skill_share_logit", 0.0, 1.0)
    share = pm.Deterministic("skill_share", pt.sigmoid(share_logit))
    split = None
    if layout.deck_split:
        split_logits = pm.Normal("deck_split_logits", 0.0, 1.0, shape=2)
        split = pm.Deterministic(
            "deck_split", pt.special.softmax(pt.concatenate([pt.zeros(1), split_logits]))
        )
    parts = [balanced_spreads(log_total, share, split, layout.specs_per_deck, pt)]
    n_seed = sum(name in SPREADS for name in layout.spreads)
    if n_sd > n_seed:
        n_extra = n_sd - n_seed
        cut = slice(1, 1 + n_extra)
        if layout.options.signed_spreads:
            parts.append(spreads_through_zero("log_sd_extra", loc[cut], scale[cut], family[cut]))
        else:
            extra = pm.Normal("log_sd_extra", loc[cut], scale[cut])
            pm.Potential(
                "spread_family",
                exponential_correction(extra, loc[cut], scale[cut], family[cut], pt),
            )
            parts.append(pt.exp(extra))
    return pm.Deterministic("sd", pt.concatenate(parts), dims="spread")
