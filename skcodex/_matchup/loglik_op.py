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
from collections.abc import Callable

import numpy as np
import pytensor.tensor as pt
from pytensor.gradient import DisconnectedType, grad_not_implemented
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op

__all__ = [
    "KernelOp",
    "SignedRowLoglik",
    "register_kernel_op",
    "signed_row_loglik",
    "signed_row_loglik_numpy",
]


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
    """The loop over the rows (compiled by numba; plain Python is far too slow to call).

    Three passes over short vectors rather than one: the row sums, then each
    row's softplus and score, then the scatter. Keeping the exponentials out
    of the gather and scatter loops lets the processor overlap both (a third
    faster than one pass on the real data, `benchmarks/gradient_profile.py`).
    The softplus terms of rows of one match are summed as the logarithm of
    their product, one logarithm per few hundred rows instead of one per row
    (the product is taken back to 1 long before it could overflow; its
    rounding costs about 1e-12 of a log density in the hundreds).
    """
    n_rows, width = index.shape
    n_theta = theta.shape[0]
    grad = np.zeros(n_theta, dtype=theta.dtype)
    q = np.empty(n_rows)
    for i in range(n_rows):
        total = 0.0
        for j in range(width):
            k = index[i, j]
            if k < 0 or k >= n_theta:  # never from skcodex's own index: no write out of bounds
                return np.nan, grad
            total += signs[j] * theta[k]
        q[i] = total
    loglik = 0.0
    product = 1.0  # of 1 + exp(-|q|) over rows of one match: one log for many rows
    for i in range(n_rows):
        # softplus(q) = max(q, 0) + log(1 + e) and sigmoid(q) from one e = exp(-|q|)
        e = np.exp(-abs(q[i]))
        inverse = 1.0 / (1.0 + e)
        sigmoid = inverse if q[i] > 0.0 else e * inverse
        loglik += y[i] * q[i] - trials[i] * max(q[i], 0.0)
        if trials[i] == 1.0:
            product *= 1.0 + e  # each factor is at most 2
            if product > 1e250:
                loglik -= np.log(product)
                product = 1.0
        else:
            loglik -= trials[i] * np.log1p(e)
        q[i] = y[i] - trials[i] * sigmoid  # the row's score, in place
    loglik -= np.log(product)
    for i in range(n_rows):
        for j in range(width):
            grad[index[i, j]] += q[i] * signs[j]
    return loglik, grad


class KernelOp(Op):
    """An op whose outputs are its ``kernel``'s, a numba-compilable function.

    Inside nutpie's compiled function the kernel is compiled with the rest of
    the graph (`register_kernel_op`); under PyMC's sampler and the variational
    fits ``perform`` calls it compiled by numba and cached with the prediction
    kernels, or calls ``reference`` (NumPy) where numba cannot run.
    """

    __props__ = ()
    kernel = None
    reference = None

    def perform(self, node, inputs, output_storage):
        outputs = python_kernel(type(self))(*inputs)
        for storage, value, var in zip(output_storage, outputs, node.outputs):
            storage[0] = np.asarray(value, dtype=var.dtype)

    def pullback(self, inputs, outputs, output_grads):
        # PyTensor 3's name for the gradient (PyTensor 2 calls `grad`)
        return self.grad(inputs, output_grads)


_PYTHON_KERNELS: dict = {}


def python_kernel(op_class) -> Callable:
    """``op_class.kernel`` compiled for calls from Python (cached on disk), or its reference."""
    if op_class not in _PYTHON_KERNELS:
        from skcodex._matchup.numba_cache import compile_cached_kernel

        # compiled as inside nutpie's function (IEEE arithmetic: a spread that underflows
        # to 0 gives an infinite log density, which the sampler rejects, not an exception)
        compiled = compile_cached_kernel(op_class.kernel, **_NJIT_OPTIONS)
        _PYTHON_KERNELS[op_class] = compiled or op_class.reference or op_class.kernel
    return _PYTHON_KERNELS[op_class]


try:
    from pytensor.link.numba.dispatch import basic as _numba_basic
except ImportError:  # pragma: no cover - no numba: the ops run in Python
    _numba_basic = None


#: How the kernels are compiled; part of their cache key, like their source.
_NJIT_OPTIONS = {"fastmath": False, "boundscheck": False, "error_model": "numpy"}


def kernel_version(func) -> int:
    """Changes with the kernel's source and options: a kernel cached on disk is never stale."""
    text = inspect.getsource(func) + repr(sorted(_NJIT_OPTIONS.items()))
    return int(hashlib.sha256(text.encode()).hexdigest()[:12], 16)


def register_kernel_op(op_class) -> None:
    """Compile ``op_class.kernel`` into nutpie's numba function wherever the op appears."""
    if _numba_basic is None:  # pragma: no cover
        return
    njit = _numba_basic.numba_njit
    version = kernel_version(op_class.kernel)

    @_numba_basic.register_funcify_default_op_cache_key(op_class)
    def _funcify(op, node=None, **kwargs):
        kernel = njit(op_class.kernel, **_NJIT_OPTIONS)
        if node is not None and node.outputs[0].ndim == 0:  # a scalar, then a vector

            @njit(fastmath=False)
            def scalar_first(*args):
                first, second = kernel(*args)
                return np.array(first), second

            return scalar_first, version
        if node is not None and node.outputs[1].ndim == 0:  # a vector, then a scalar

            @njit(fastmath=False)
            def scalar_second(*args):
                first, second = kernel(*args)
                return first, np.array(second)

            return scalar_second, version + 1
        return kernel, version + 2


class SignedRowLoglik(KernelOp):
    """Outputs ``(loglik, d loglik / d theta)`` of the signed-row model; see the module."""

    kernel = staticmethod(_kernel)
    reference = staticmethod(signed_row_loglik_numpy)

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


register_kernel_op(SignedRowLoglik)


def signed_row_loglik(theta, index, signs, y, trials):
    """The model's log-likelihood as a PyTensor scalar (see the module for the formula)."""
    loglik, _ = SignedRowLoglik()(theta, index, signs, y, trials)
    return loglik
