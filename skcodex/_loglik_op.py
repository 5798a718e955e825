"""The model's log-likelihood and its gradient in one pass over the matches.

Every match reads a row of ``theta`` entries through the index matrix, with a
sign per column:

    q_i = sum_j signs_j theta[index_ij]
    loglik = sum_i y_i q_i - n_i softplus(q_i)
    d loglik / d theta[k] = sum_{i, j: index_ij = k} signs_j (y_i - n_i sigmoid(q_i))

Written as PyTensor graph operations this is a gather of the whole
``(rows, columns)`` table, a product, a row sum and elementwise work per row,
then for the gradient the same table again as a scatter: several passes over
the index and three temporary tables of its size, each a separate kernel.
`SignedRowLoglik` reads each row of the index once, keeps ``q`` in a register
and adds its score into the gradient before moving on, so one evaluation costs
one pass over the index (measured in ``benchmarks/gradient_profile.py``).

The op returns the gradient as a second output, and its ``grad`` scales that
output, so a compiled log-density-and-gradient function evaluates the pass
once. It runs compiled by numba everywhere: inside nutpie's compiled function
(registered with PyTensor's numba dispatch, cached on disk like PyTensor's own
kernels), and as a numba function called from Python under PyMC's sampler and
the variational fits (cached with the prediction kernels). Imported only where a model
is built, so that importing skcodex does not import PyTensor.
"""

from __future__ import annotations

import hashlib
import inspect

import numpy as np
import pytensor.tensor as pt
from pytensor.gradient import DisconnectedType, grad_not_implemented
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op

__all__ = ["SignedRowLoglik", "signed_row_loglik", "signed_row_loglik_numpy"]


def signed_row_loglik_numpy(theta, index, signs, y, trials):
    """``(loglik, gradient)`` in NumPy: the reference the compiled kernel is tested against."""
    from scipy.special import expit

    q = (theta[index] * signs).sum(axis=1)
    loglik = np.sum(y * q - trials * np.logaddexp(0.0, q))
    score = y - trials * expit(q)
    weights = (score[:, None] * signs).ravel()
    grad = np.bincount(index.ravel(), weights=weights, minlength=len(theta))
    return float(loglik), grad.astype(theta.dtype, copy=False)


def _kernel(theta, index, signs, y, trials):
    """The one-pass loop (compiled by numba; plain Python is far too slow to call)."""
    n_rows, width = index.shape
    n_theta = theta.shape[0]
    grad = np.zeros(n_theta, dtype=theta.dtype)
    loglik = 0.0
    for i in range(n_rows):
        q = 0.0
        for j in range(width):
            k = index[i, j]
            if k < 0 or k >= n_theta:  # never from skcodex's own index: no write out of bounds
                return np.nan, grad
            q += signs[j] * theta[k]
        # softplus(q) and sigmoid(q) from one exponential, stable for either sign
        if q > 0.0:
            e = np.exp(-q)
            softplus = q + np.log1p(e)
            sigmoid = 1.0 / (1.0 + e)
        else:
            e = np.exp(q)
            softplus = np.log1p(e)
            sigmoid = e / (1.0 + e)
        loglik += y[i] * q - trials[i] * softplus
        score = y[i] - trials[i] * sigmoid
        for j in range(width):
            grad[index[i, j]] += score * signs[j]
    return loglik, grad


def _python_kernel():
    """`_kernel` compiled for calls from Python (cached on disk), or the NumPy reference."""
    if not _PYTHON_KERNEL:
        from skcodex._prediction import compile_cached_kernel

        _PYTHON_KERNEL.append(compile_cached_kernel(_kernel) or signed_row_loglik_numpy)
    return _PYTHON_KERNEL[0]


_PYTHON_KERNEL: list = []


class SignedRowLoglik(Op):
    """Outputs ``(loglik, d loglik / d theta)`` of the signed-row model; see the module."""

    __props__ = ()

    def make_node(self, theta, index, signs, y, trials):
        theta, signs, y, trials = (
            pt.cast(pt.as_tensor_variable(v), "float64") for v in (theta, signs, y, trials)
        )
        index = pt.as_tensor_variable(index)
        if theta.ndim != 1 or index.ndim != 2 or signs.ndim != 1 or y.ndim != 1:
            raise TypeError("theta, signs and y must be vectors and index a matrix")
        if index.dtype not in ("int64", "int32"):
            raise TypeError(f"index must hold integers, got {index.dtype}")
        return Apply(self, [theta, index, signs, y, trials], [pt.dscalar(), pt.dvector()])

    def perform(self, node, inputs, output_storage):
        # PyMC's sampler and the variational fits: the same kernel, compiled by numba
        # and cached with the prediction kernels (NumPy where numba cannot run)
        kernel = _python_kernel()
        loglik, grad = kernel(*inputs)
        output_storage[0][0] = np.asarray(loglik, dtype="float64")
        output_storage[1][0] = grad

    def infer_shape(self, *args):
        # PyTensor 3 passes (node, shapes); PyTensor 2 passes (fgraph, node, shapes)
        shapes = args[-1]
        return [(), shapes[0]]

    def connection_pattern(self, node):
        # the integer index carries no gradient
        return [[True, True], [False, False], [True, True], [True, True], [True, True]]

    def grad(self, inputs, output_grads):
        g_loglik, g_grad = output_grads
        theta, _, signs, y, trials = inputs
        if not isinstance(g_grad.type, DisconnectedType):
            # nothing in the model differentiates the gradient itself
            return [
                grad_not_implemented(self, 0, theta),
                DisconnectedType()(),
                *(grad_not_implemented(self, k, x) for k, x in enumerate(inputs) if k > 1),
            ]
        _, grad = self(*inputs)  # the same node as the forward pass, merged when compiled
        return [
            g_loglik * grad,
            DisconnectedType()(),
            grad_not_implemented(self, 2, signs),
            grad_not_implemented(self, 3, y),
            grad_not_implemented(self, 4, trials),
        ]

    def pullback(self, inputs, outputs, output_grads):
        # PyTensor 3's name for the gradient (PyTensor 2 calls `grad`)
        return self.grad(inputs, output_grads)


#: Changes with the kernel's source, so a kernel cached on disk is never a stale one.
_KERNEL_VERSION = int(hashlib.sha256(inspect.getsource(_kernel).encode()).hexdigest()[:12], 16)

try:
    from pytensor.link.numba.dispatch import basic as _numba_basic
except ImportError:  # pragma: no cover - no numba: the op runs in NumPy
    _numba_basic = None

if _numba_basic is not None:

    @_numba_basic.register_funcify_default_op_cache_key(SignedRowLoglik)
    def _numba_signed_row_loglik(op, node=None, **kwargs):
        kernel = _numba_basic.numba_njit(_kernel, fastmath=False, boundscheck=False)

        @_numba_basic.numba_njit(fastmath=False)
        def signed_row_loglik(theta, index, signs, y, trials):
            loglik, grad = kernel(theta, index, signs, y, trials)
            return np.array(loglik), grad

        return signed_row_loglik, _KERNEL_VERSION


def signed_row_loglik(theta, index, signs, y, trials):
    """The model's log-likelihood as a PyTensor scalar (see the module for the formula)."""
    loglik, _ = SignedRowLoglik()(theta, index, signs, y, trials)
    return loglik
