"""The effects from the sampler's coordinates, and their prior, in one pass.

The sampler moves ``z``, one entry per level with a spread ``s`` (its
block's, 1 for an effect no spread scales). A level is sampled centred
(flag ``c = 1``: ``z`` is the effect over nothing, ``z ~ N(loc, own s)``) or
non-centred (``c = 0``: ``z ~ N(loc, own)``); ``own`` is 1 but for an effect
with a prior of its own (the first-move effect). The effects are

    u = z / s**c,   v = u - w_b (w_b . u)   (a reflection per block, `rotate`),
    scaled = s v,

and the prior of ``z`` adds ``sum -((z - loc) / (own s**c))**2 / 2 - c log s
- log own - log(2 pi) / 2``. As PyTensor graph operations this was about
twenty kernels over the whole of ``z`` and its gradient (gathers of the
spreads, segment sums for the reflections and for the spreads' gradients,
temporary vectors), a third of a real-data gradient evaluation once the
likelihood became one pass (`skcodex._matchup.loglik_op`). `ScaledEffects` does the
forward pass in two loops over ``z`` and `ScaledEffectsGrad` the backward one
in two more; both run compiled by numba, like the likelihood.

`Layout.place` puts ``scaled`` in the effect table (mirrored blocks, the
skill walk); `scaled_effects_numpy` is the NumPy reference the kernels are
tested against.
"""

from __future__ import annotations

import numpy as np
import pytensor.tensor as pt
from pytensor.gradient import DisconnectedType, grad_not_implemented
from pytensor.graph.basic import Apply

from skcodex._matchup.geometry import centred_scale
from skcodex._matchup.loglik_op import KernelOp, register_kernel_op

__all__ = ["ScaledEffects", "ScaledEffectsGrad", "scaled_effects", "scaled_effects_numpy"]

_HALF_LOG_2PI = 0.5 * np.log(2.0 * np.pi)


def scaled_effects_numpy(z, sd, centring, group, rotations, block_of, loc, own):
    """``(scaled, prior)`` in NumPy, as the module writes them."""
    scale = np.where(group >= 0, sd[np.maximum(group, 0)], 1.0)
    centred = centred_scale(scale, centring)
    u = z / centred
    w = rotations[block_of, np.arange(len(z))]
    coef = np.bincount(block_of, weights=u * w, minlength=len(rotations))
    v = u - coef[block_of] * w
    dev = (z - loc) / (own * centred)
    prior = np.sum(-0.5 * dev**2 - np.log(centred) - np.log(own)) - len(z) * _HALF_LOG_2PI
    return scale * v, float(prior)


def _forward(z, sd, centring, group, rotations, block_of, loc, own):
    n = z.shape[0]
    log_sd = np.log(sd)
    coef = np.zeros(rotations.shape[0])
    scaled = np.empty(n)
    prior = -n * _HALF_LOG_2PI
    for i in range(n):
        g = group[i]
        centred, log_centred = 1.0, 0.0
        if g >= 0 and centring[i] != 0.0:
            centred, log_centred = sd[g], log_sd[g]
        u = z[i] / centred
        dev = (z[i] - loc[i]) / (own[i] * centred)
        prior -= 0.5 * dev * dev + log_centred
        if own[i] != 1.0:
            prior -= np.log(own[i])
        scaled[i] = u
        w = rotations[block_of[i], i]
        if w != 0.0:  # most blocks have no reflection
            coef[block_of[i]] += u * w
    for i in range(n):
        g = group[i]
        s = sd[g] if g >= 0 else 1.0
        scaled[i] = s * (scaled[i] - coef[block_of[i]] * rotations[block_of[i], i])
    return scaled, prior


def _backward(g_scaled, g_prior, z, sd, centring, group, rotations, block_of, loc, own):
    """``d/dz`` and ``d/dsd`` of ``g_scaled . scaled + g_prior * prior``, in two passes."""
    n, n_sd, n_blocks = z.shape[0], sd.shape[0], rotations.shape[0]
    inverse_sd = 1.0 / sd
    # first pass: the forward pass's block coefficients w_b . u, and the sums the
    # reflections' backward pass needs (of the incoming gradient, per block and spread)
    coef = np.zeros(n_blocks)
    d_coef = np.zeros(n_blocks)
    read = np.zeros((n_blocks, n_sd))  # sum of g_scaled w over each block and spread
    d_sd = np.zeros(n_sd)
    for i in range(n):
        g, b = group[i], block_of[i]
        w = rotations[b, i]
        inverse = inverse_sd[g] if g >= 0 and centring[i] != 0.0 else 1.0
        u = z[i] * inverse
        coef[b] += u * w
        if g >= 0:
            d_sd[g] += g_scaled[i] * u
            read[b, g] += g_scaled[i] * w
            d_coef[b] += g_scaled[i] * sd[g] * w
        else:
            d_coef[b] += g_scaled[i] * w
    for b in range(n_blocks):  # scaled = s (u - w coef): the coef part of d/ds
        for g in range(n_sd):
            d_sd[g] -= coef[b] * read[b, g]
    d_z = np.empty(n)
    for i in range(n):
        g, b = group[i], block_of[i]
        s = sd[g] if g >= 0 else 1.0
        centred = g >= 0 and centring[i] != 0.0
        inverse = inverse_sd[g] if centred else 1.0
        d_u = g_scaled[i] * s - d_coef[b] * rotations[b, i]
        inverse_scale = inverse if own[i] == 1.0 else inverse / own[i]
        dev = (z[i] - loc[i]) * inverse_scale
        d_z[i] = d_u * inverse - g_prior * dev * inverse_scale
        if centred:
            # u = z / s and the prior's -(dev**2) / 2 - log s, through s
            d_sd[g] += (g_prior * (dev * dev - 1.0) - d_u * z[i] * inverse) * inverse
    return d_z, d_sd


def _inputs(z, sd, centring, group, rotations, block_of, loc, own):
    def floats(v):
        return pt.cast(pt.as_tensor_variable(v), "float64")

    def integers(v):
        v = pt.as_tensor_variable(v if hasattr(v, "type") else np.asarray(v, dtype=np.int64))
        if v.dtype != "int64":
            raise TypeError(f"group and block numbers must be int64, got {v.dtype}")
        return v

    return [
        floats(z),
        floats(sd),
        floats(centring),
        integers(group),
        floats(rotations),
        integers(block_of),
        floats(loc),
        floats(own),
    ]


class ScaledEffects(KernelOp):
    """Outputs ``(scaled, prior)`` of the sampler's ``z``; see the module."""

    kernel = staticmethod(_forward)
    reference = staticmethod(scaled_effects_numpy)

    def make_node(self, z, sd, centring, group, rotations, block_of, loc, own):
        inputs = _inputs(z, sd, centring, group, rotations, block_of, loc, own)
        return Apply(self, inputs, [pt.dvector(), pt.dscalar()])

    def infer_shape(self, *args):
        shapes = args[-1]
        return [shapes[0], ()]

    def connection_pattern(self, node):
        # integer groups and blocks carry no gradient
        return [[True, True] if k not in (3, 5) else [False, False] for k in range(8)]

    def grad(self, inputs, output_grads):
        z = inputs[0]
        g_scaled, g_prior = output_grads
        if isinstance(g_scaled.type, DisconnectedType):
            g_scaled = pt.zeros_like(z)
        if isinstance(g_prior.type, DisconnectedType):
            g_prior = pt.constant(0.0)
        d_z, d_sd = ScaledEffectsGrad()(g_scaled, g_prior, *inputs)
        return [
            d_z,
            d_sd,
            grad_not_implemented(self, 2, inputs[2]),
            DisconnectedType()(),
            grad_not_implemented(self, 4, inputs[4]),
            DisconnectedType()(),
            grad_not_implemented(self, 6, inputs[6]),
            grad_not_implemented(self, 7, inputs[7]),
        ]


class ScaledEffectsGrad(KernelOp):
    """Outputs ``(d/dz, d/dsd)`` of ``g_scaled . scaled + g_prior * prior``."""

    kernel = staticmethod(_backward)
    reference = None  # numba comes with PyTensor's numba backend, which nutpie needs

    def make_node(self, g_scaled, g_prior, *rest):
        g_scaled = pt.cast(pt.as_tensor_variable(g_scaled), "float64")
        g_prior = pt.cast(pt.as_tensor_variable(g_prior), "float64")
        inputs = [g_scaled, g_prior, *_inputs(*rest)]
        return Apply(self, inputs, [pt.dvector(), pt.dvector()])

    def infer_shape(self, *args):
        shapes = args[-1]
        return [shapes[2], shapes[3]]

    def grad(self, inputs, output_grads):  # pragma: no cover - never differentiated twice
        return [grad_not_implemented(self, k, x) for k, x in enumerate(inputs)]


register_kernel_op(ScaledEffects)
register_kernel_op(ScaledEffectsGrad)


def scaled_effects(z, sd, centring, group, rotations, block_of, loc, own):
    """The op's ``(scaled, prior)`` as PyTensor variables (see the module)."""
    return ScaledEffects()(z, sd, centring, group, rotations, block_of, loc, own)
