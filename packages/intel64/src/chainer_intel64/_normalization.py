"""Kernels of batch normalization (with batch statistics) and local response
normalization on oneDNN.

Batch normalization works on chainer-core's ``(P, K, Q)`` view of the input (its
``layout``: the ``K`` parameter entries in the middle, the reduced axes around them),
which is oneDNN's ``(N, C, W)`` with the statistics per channel.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_intel64 import _connection, _library

_F32 = numpy.float32


def batch_normalization_forward(
    always: bool, x: Any, gamma: Any, beta: Any, eps: float, layout: Any, stats: Any
) -> tuple[Any, Any, Any, Any] | None:
    # Statistics given by the caller (batch renormalization) are not oneDNN's to compute.
    module = _library.dnnl()
    if module is None or stats is not None or not _connection._float32(x, gamma, beta):
        return None
    x3 = _connection._c(layout.to3(x))
    channels = x3.shape[1]
    y3 = numpy.empty(x3.shape, _F32)
    mean = numpy.empty(channels, _F32)
    var = numpy.empty(channels, _F32)
    contiguous = _connection._c
    if not module.batch_norm_forward(
        x3, contiguous(gamma.reshape(-1)), contiguous(beta.reshape(-1)), y3, mean, var, float(eps)
    ):
        return None
    inv_std = var + _F32(eps)
    numpy.sqrt(inv_std, out=inv_std)
    numpy.reciprocal(inv_std, out=inv_std)
    return layout.from3(y3), mean, var, inv_std


def batch_normalization_backward(
    always: bool, x: Any, gamma: Any, gy: Any, mean: Any, inv_std: Any, layout: Any
) -> tuple[Any, Any, Any] | None:
    module = _library.dnnl()
    if module is None or not _connection._float32(x, gamma, gy, mean, inv_std):
        return None
    x3 = _connection._c(layout.to3(x))
    gy3 = _connection._c(layout.to3(gy))
    # oneDNN divides by sqrt(var + eps): the forward's var + eps is 1 / inv_std**2.
    var_eps = numpy.reciprocal(inv_std * inv_std)
    gx3 = numpy.empty(x3.shape, _F32)
    ggamma = numpy.empty(x3.shape[1], _F32)
    gbeta = numpy.empty(x3.shape[1], _F32)
    contiguous = _connection._c
    if not module.batch_norm_backward(
        x3, gy3, contiguous(gamma.reshape(-1)), contiguous(mean), var_eps, gx3, ggamma, gbeta, 0.0
    ):
        return None
    return layout.from3(gx3), ggamma.reshape(gamma.shape), gbeta.reshape(gamma.shape)


def _lrn_fits(x: Any, half: int) -> bool:
    return _connection._float32(x) and 2 <= x.ndim <= 5 and 2 * half + 1 < 2**20


def local_response_normalization_forward(always: bool, x: Any, half: int, k: float, alpha: float, beta: float) -> Any:
    module = _library.dnnl()
    if module is None or not _lrn_fits(x, half):
        return None
    y = numpy.empty(x.shape, _F32)
    done = module.lrn_forward(_connection._c(x), y, 2 * half + 1, float(k), float(alpha), float(beta))
    return y if done else None


def local_response_normalization_backward(
    always: bool, x: Any, gy: Any, half: int, k: float, alpha: float, beta: float
) -> Any:
    module = _library.dnnl()
    if module is None or not (_lrn_fits(x, half) and _connection._float32(gy)) or gy.shape != x.shape:
        return None
    gx = numpy.empty(x.shape, _F32)
    contiguous = _connection._c
    done = module.lrn_backward(contiguous(x), contiguous(gy), gx, 2 * half + 1, float(k), float(alpha), float(beta))
    return gx if done else None
