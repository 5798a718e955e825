"""The matchup model's posterior for very large match tables: variational inference.

NUTS explores the posterior faithfully, but each of its thousands of draws
takes tens of gradient evaluations over every match; with hundreds of
thousands of matches and thousands of players that is hours. Automatic
differentiation variational inference (ADVI, Kucukelbir et al. 2017) instead
fits a normal distribution with a diagonal covariance, ``q(u) = N(mu,
diag(exp(2 omega)))``, to the posterior of every free parameter ``u`` (the
unconstrained spread parameters ``phi`` and the standard-normal effects
``z``, the parameterisation NUTS samples), by stochastic gradient ascent on
the evidence lower bound

    ELBO(mu, omega) = E_q[log p(y, u)] + sum(omega) + const.

Each step draws one ``u = mu + exp(omega) e`` (``e`` standard normal) and the
log-likelihood of a minibatch of matches, scaled up to the whole table, so a
step costs the same whatever the size of the table; Adam sets the step sizes,
and the averages of ``mu`` and ``omega`` over the last third of the steps
(Polyak averaging) are the result. Draws from ``q`` are pushed through the
model's own transforms and deterministics, so they have the same variables,
shapes and dimension names as the NUTS posterior and every prediction and
analysis works on them unchanged.

The effects enter the log-odds linearly, ``theta = z * sd[group]``, and a
match reads ``theta`` through a sparse signed design ``X`` (one row a match,
one column an effect), so the log-likelihood and its gradient are two sparse
matrix-vector products in NumPy/SciPy. The priors on the spreads, their
transforms and their derivatives come from the PyMC model itself
(`skcodex.model.build_model`), compiled once per process and layout, so the
log density is the model's (the tests check it against PyTensor's). Memory is
linear in the number of matches and of effects.

Why not a Laplace approximation around the posterior mode? In this
parameterisation the joint mode of ``(log sd, z)`` is not where the posterior
mass is: shrinking ``z`` and growing ``sd`` leaves ``theta`` unchanged and
raises the N(0, 1) density of ``z``, so the mode sits at far too large spreads
(about 20 times the truth for the player spread on 200,000 synthetic matches),
which makes forecasts for unseen players nearly certain. The centred
parameterisation has the opposite fault, a mode at zero spread when each
level has few matches. The ELBO's entropy term, ``sum(omega)``, accounts for
the volume that the mode ignores.

Mean-field ADVI understates posterior uncertainty (it ignores correlations
between effects), and its draws are independent, so they come as one chain of
``draws * chains`` draws. It is a tool for tables too large for NUTS; check it
against NUTS on a subsample, as ``benchmarks/large_data.py`` does.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning

from skcodex.inference import SamplingOptions
from skcodex.model import Layout, SpreadPriors, build_model, quasi_loglik

__all__ = ["APPROXIMATIONS", "METHODS", "advi_posterior", "fit_approximate"]

#: Every value of `BayesianMatchupClassifier`'s ``method``.
METHODS = ("nuts", "advi")
#: The approximate methods this module implements.
APPROXIMATIONS = ("advi",)

#: Matches per minibatch (smaller tables are used whole at every step).
BATCH_SIZE = 10_000
#: Optimisation steps.
STEPS = 6_000
#: Adam's learning rate.
LEARNING_RATE = 0.02
#: How far (in posterior standard deviations, root mean square over the
#: parameters) the averaged parameters may move between the last two sixths of
#: the steps before a ConvergenceWarning is issued.
TOLERANCE = 0.1

# Compiled prior functions by layout: built once per process and vocabulary shape.
_COMPILED: dict[Layout, Any] = {}


@dataclass
class _PriorFunctions:
    """The parts of the PyMC model that do not touch the data, compiled by PyTensor."""

    model: Any
    phi_names: list[str]
    phi_shapes: list[tuple[int, ...]]
    value_grad: Any  # (phi..., z) -> (log prior, d/dphi..., d/dz)
    spreads: Any  # (phi...) -> (sd, d sd / d phi...)
    outputs: Any  # (phi..., z) -> every posterior variable
    output_names: list[str]

    @property
    def n_phi(self) -> int:
        return int(sum(math.prod(s) for s in self.phi_shapes))

    def split(self, u: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
        parts, at = [], 0
        for shape in self.phi_shapes:
            size = math.prod(shape)
            parts.append(u[at : at + size].reshape(shape))
            at += size
        return parts, u[at:]


def _compile(layout: Layout, index: np.ndarray, y: np.ndarray) -> _PriorFunctions:
    import pytensor
    import pytensor.tensor as pt

    cached = _COMPILED.get(layout)
    if cached is not None:
        return cached
    model = build_model(index[:1], y[:1], layout)
    z = model.rvs_to_values[model["z"]]
    phi = [v for v in model.value_vars if v is not z]
    inputs = [*phi, z]
    log_prior = model.logp(vars=model.free_RVs, jacobian=True)
    grads = pt.grad(log_prior, inputs)
    (sd,) = model.replace_rvs_by_values([model["sd"]])
    n_sd = len(layout.spreads)
    jac = [pt.stack([pt.grad(sd[i], v).reshape((-1,)) for i in range(n_sd)]) for v in phi]
    outs = [
        v for v in model.unobserved_value_vars if v.name is not None and not v.name.endswith("__")
    ]
    point = model.initial_point()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = _PriorFunctions(
            model=model,
            phi_names=[v.name for v in phi],
            phi_shapes=[tuple(np.shape(point[v.name])) for v in phi],
            value_grad=pytensor.function(inputs, [log_prior, *grads]),
            spreads=pytensor.function(phi, [sd, *jac], on_unused_input="ignore"),
            outputs=pytensor.function(inputs, outs, on_unused_input="ignore"),
            output_names=[v.name for v in outs],
        )
    _COMPILED[layout] = compiled
    return compiled


def _design(index: np.ndarray, layout: Layout) -> sp.csr_matrix:
    """The sparse signed design: row i reads match i's entries of ``theta``."""
    n, width = index.shape
    X = sp.csr_matrix(
        (np.tile(layout.signs, n), index.ravel(), np.arange(0, n * width + 1, width)),
        shape=(n, layout.size),
    )
    X.sum_duplicates()
    return X


class _Posterior:
    """The log posterior density in ``u = (phi, z)`` and its gradient, on all or some matches."""

    def __init__(
        self, funcs: _PriorFunctions, index: np.ndarray, y: np.ndarray, layout: Layout
    ) -> None:
        self.X = _design(index, layout)
        self.y = np.asarray(y, dtype=float)
        self.funcs = funcs
        self.layout = layout
        raw = layout.group < 0  # unscaled effects (the first-move effect)
        self.group = np.where(raw, 0, layout.group)
        self.scaled = (~raw).astype(float)
        self.n_spreads = len(layout.spreads)
        self.m = funcs.n_phi

    def value_grad(
        self, u: np.ndarray, X: Any = None, y: Any = None, scale: float = 1.0, value: bool = True
    ) -> tuple[float, np.ndarray]:
        """Log density (NaN unless ``value``) and gradient; ``X, y``: a minibatch."""
        X = self.X if X is None else X
        y = self.y if y is None else y
        phi, z = self.funcs.split(u)
        sd, *jac = self.funcs.spreads(*phi)
        sd = np.asarray(sd)
        theta_scale = self.layout._scale(sd, len(self.group))
        q = X @ (z * theta_scale)
        loglik = scale * float(quasi_loglik(y, q)) if value else np.nan
        g_theta = scale * (X.T @ (y - expit(q)))
        log_prior, *g_prior = self.funcs.value_grad(*phi, z)
        g_sd = np.bincount(self.group, weights=g_theta * z * self.scaled, minlength=self.n_spreads)
        if phi:
            jacobian = np.concatenate([np.asarray(j) for j in jac], axis=1)
            g_phi = np.concatenate([np.ravel(g) for g in g_prior[:-1]]) + jacobian.T @ g_sd
        else:
            g_phi = np.empty(0)
        grad = np.concatenate([g_phi, theta_scale * g_theta + g_prior[-1]])
        return loglik + float(log_prior), grad


def _batches(X: sp.csr_matrix, y: np.ndarray, size: int, rng: np.random.Generator):
    """Endless minibatches ``(X, y, scale)``: consecutive slices of a fresh shuffle every pass."""
    n = len(y)
    if size >= n:
        while True:
            yield X, y, 1.0
    while True:
        perm = rng.permutation(n)
        Xp, yp = X[perm], y[perm]
        for start in range(0, n - size + 1, size):
            yield Xp[start : start + size], yp[start : start + size], n / size


def _advi(
    post: _Posterior,
    mu: np.ndarray,
    rng: np.random.Generator,
    *,
    steps: int,
    batch_size: int,
    learning_rate: float,
) -> tuple[np.ndarray, np.ndarray, dict]:
    """Mean-field ADVI by Adam, averaging the parameters over the last third of the steps.

    The convergence statistic is how far the average over the first half of
    that window lies from the average over the second half, in units of the
    approximate posterior's standard deviations (root mean square over all
    parameters).
    """
    if steps < 6:
        raise ValueError(f"ADVI needs at least 6 steps, got {steps}")
    size = len(mu)
    params = np.concatenate([mu, np.full(size, -2.0)])  # start with sd exp(-2) = 0.14
    m1, m2 = np.zeros_like(params), np.zeros_like(params)
    b1, b2, eps = 0.9, 0.999, 1e-8
    window = steps // 3
    first = steps - window
    half = window // 2
    sums = [np.zeros_like(params), np.zeros_like(params)]
    elbo = []
    batches = _batches(post.X, post.y, batch_size, rng)
    for t in range(1, steps + 1):
        X, y, scale = next(batches)
        mu, omega = params[:size], params[size:]
        sigma = np.exp(omega)
        e = rng.standard_normal(size)
        record = t > steps - max(1, steps // 10) and t % 5 == 0
        value, g = post.value_grad(mu + sigma * e, X, y, scale, value=record)
        if not np.all(np.isfinite(g)):
            raise FloatingPointError(
                "the variational objective's gradient is not finite; check the data and priors"
            )
        if record:
            elbo.append(value + float(omega.sum()))
        grad = np.concatenate([g, g * e * sigma + 1.0])
        m1 = b1 * m1 + (1 - b1) * grad
        m2 = b2 * m2 + (1 - b2) * grad * grad
        params = params + learning_rate * (m1 / (1 - b1**t)) / (np.sqrt(m2 / (1 - b2**t)) + eps)
        if t > first:
            sums[0 if t <= first + half else 1] += params
    early, late = sums[0] / half, sums[1] / (window - half)
    averaged = (sums[0] + sums[1]) / window
    sigma = np.exp(averaged[size:])
    moved = float(np.sqrt(np.mean(((late[:size] - early[:size]) / sigma) ** 2)))
    info = {
        "moved": moved,
        "elbo": float(np.mean(elbo)) if elbo else float("nan"),
        "steps": steps,
        "batch_size": min(batch_size, len(post.y)),
    }
    return averaged[:size], sigma, info


def advi_posterior(
    index: np.ndarray,
    y: np.ndarray,
    layout: Layout,
    priors: SpreadPriors,
    options: SamplingOptions,
    *,
    steps: int | None = None,
    batch_size: int | None = None,
    learning_rate: float | None = None,
):
    """Draws from a mean-field ADVI approximation of the model's posterior.

    Parameters
    ----------
    index : ndarray of int, shape (n_matches, n_columns)
        From `Layout.index_matrix`.
    y : ndarray of float, shape (n_matches,)
        Outcomes (or luck-adjusted outcomes), as for `skcodex.model.build_model`.
    layout : Layout
        Any layout without the time-varying skill walk.
    priors : SpreadPriors
    options : SamplingOptions
        ``draws * chains`` independent draws are made; ``seed`` seeds the
        optimisation and the draws. The other sampling options do not apply.
    steps : int, optional
        Optimisation steps (default `STEPS`).
    batch_size : int, optional
        Matches per step, all of them when the table is smaller (default `BATCH_SIZE`).
    learning_rate : float, optional
        Adam's step size (default `LEARNING_RATE`).

    Returns
    -------
    dict of str to xarray.Dataset
        A ``posterior`` group with one chain and the same variables and
        dimensions as the NUTS posterior; its attributes record the method
        and the optimisation's settings and diagnostics.

    Warns
    -----
    ConvergenceWarning
        If the averaged parameters still moved by more than `TOLERANCE`
        posterior standard deviations between the last two sixths of the steps.
    """
    import pymc as pm

    if layout.options.time_varying or layout.n_free != layout.size:
        raise ValueError(
            "method='advi' does not support time_varying=True (the skill walk); use method='nuts'"
        )
    index = np.asarray(index, dtype=np.int64)
    y = np.asarray(y, dtype=float)
    funcs = _compile(layout, index, y)
    pm.set_data(
        {
            "prior_loc": np.asarray(priors.loc, float),
            "prior_scale": np.asarray(priors.scale, float),
        },
        model=funcs.model,
    )
    post = _Posterior(funcs, index, y, layout)
    start = funcs.model.initial_point()
    mu0 = np.concatenate(
        [*(np.ravel(start[name]) for name in funcs.phi_names), np.zeros(layout.n_free)]
    )
    rng = np.random.default_rng(options.seed)
    steps = STEPS if steps is None else int(steps)
    batch_size = BATCH_SIZE if batch_size is None else int(batch_size)
    learning_rate = LEARNING_RATE if learning_rate is None else float(learning_rate)
    mu, sigma, info = _advi(
        post, mu0, rng, steps=steps, batch_size=batch_size, learning_rate=learning_rate
    )
    if info["moved"] > TOLERANCE:
        warnings.warn(
            "the variational approximation may not have converged: its parameters still "
            f"moved by {info['moved']:.2f} posterior standard deviations over the last steps. "
            "Use more steps (skcodex.approximate.advi_posterior) or method='nuts'.",
            ConvergenceWarning,
            stacklevel=3,
        )
    n_draws = int(options.draws) * int(options.chains)
    columns: dict[str, np.ndarray] = {}
    for d in range(n_draws):
        phi, z = funcs.split(mu + sigma * rng.standard_normal(len(mu)))
        for name, value in zip(funcs.output_names, funcs.outputs(*phi, z)):
            if name not in columns:
                columns[name] = np.empty((1, n_draws, *np.shape(value)))
            columns[name][0, d] = value
    import xarray as xr

    model = funcs.model
    dims = {k: list(v) for k, v in model.named_vars_to_dims.items() if k in columns}
    data = {}
    for name, values in columns.items():
        if name == "z":  # the standard normals behind the effects are not kept
            continue
        extra = dims.get(name) or [f"{name}_dim_{i}" for i in range(values.ndim - 2)]
        data[name] = (("chain", "draw", *extra), values)
    out = xr.Dataset(data, coords={"chain": [0], "draw": np.arange(n_draws)})
    if "spread" in out.dims:
        out = out.assign_coords(spread=list(model.coords["spread"]))
    out.attrs.update(
        {
            "inference_method": "advi",
            "advi_steps": int(info["steps"]),
            "advi_batch_size": int(info["batch_size"]),
            "advi_learning_rate": float(learning_rate),
            "advi_elbo": float(info["elbo"]),
            "advi_movement": float(info["moved"]),
        }
    )
    return {"posterior": out}


def fit_approximate(
    index: np.ndarray,
    y: np.ndarray,
    layout: Layout,
    priors: SpreadPriors,
    options: SamplingOptions,
    method: str = "advi",
):
    """The model's posterior by an approximate method: what ``method=`` selects in fit.

    Parameters
    ----------
    index, y, layout, priors, options
        As for `skcodex.inference.sample_posterior`.
    method : {"advi"}
        See `advi_posterior`.

    Returns
    -------
    dict of str to xarray.Dataset
        Posterior draws (group ``posterior``) with the same variables and
        dimensions as NUTS gives.
    """
    if method == "advi":
        return advi_posterior(index, y, layout, priors, options)
    raise ValueError(f"method must be one of {APPROXIMATIONS}, got {method!r}")
