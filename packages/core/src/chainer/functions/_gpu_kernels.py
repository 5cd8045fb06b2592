"""Fused CUDA elementwise kernels for the hottest functions.

The NumPy formulas of a function run on CuPy as one kernel launch per operation; on a
GPU a launch costs more than the arithmetic of a small or medium array, so the functions
whose forward or gradient takes several operations have a one-kernel version for CuPy
arrays here. Each is written against a compute type ``C``: ``double`` for float64 and
``float`` otherwise (float16 is computed in float32 and rounded once).
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer.backends import cuda


def float_kernel(name: str, in_params: str, out_params: str, body: str, dtype: Any) -> Any:
    """The (memoized) ``cupy.ElementwiseKernel`` running ``body`` with ``C`` the compute
    type for arrays of ``dtype``."""
    compute = "double" if numpy.dtype(dtype) == numpy.float64 else "float"
    return cuda.elementwise(in_params, out_params, f"typedef {compute} C; {body}", f"chainer_{name}_{compute}")


def relu_grad(y: Any, gy: Any) -> Any:
    """``gy`` where ``y > 0``, else 0."""
    return cuda.elementwise("T y, T gy", "T gx", "gx = y > (T)0 ? gy : (T)0", "chainer_relu_grad")(y, gy)


def tanh_grad(y: Any, gy: Any) -> Any:
    """``gy * (1 - y**2)``."""
    body = "gx = (T)((C)gy * (1 - (C)y * (C)y))"
    return float_kernel("tanh_grad", "T y, T gy", "T gx", body, y.dtype)(y, gy)


def sigmoid(x: Any) -> Any:
    """``tanh(x / 2) / 2 + 1 / 2``: the logistic sigmoid without overflow."""
    body = "y = (T)(tanh((C)x * (C)0.5) * (C)0.5 + (C)0.5)"
    return float_kernel("sigmoid", "T x", "T y", body, x.dtype)(x)


def sigmoid_grad(y: Any, gy: Any) -> Any:
    """``gy * y * (1 - y)``."""
    body = "gx = (T)((C)gy * (C)y * (1 - (C)y))"
    return float_kernel("sigmoid_grad", "T y, T gy", "T gx", body, y.dtype)(y, gy)


# Constant padding of the spatial axes (2...) of an (N, C, *spatial) array with up to
# three spatial axes, seen as three (a missing leading axis has size 1, no padding).
_PAD_SIZES = "int32 d, int32 h, int32 w, int32 od, int32 oh, int32 ow, int32 bd, int32 bh, int32 bw"
_PAD = """
    const ptrdiff_t xx = i % ow - bw, yy = (i / ow) % oh - bh, zz = (i / ((ptrdiff_t)ow * oh)) % od - bd;
    const ptrdiff_t image = i / ((ptrdiff_t)ow * oh * od);
    y = (zz >= 0 && zz < d && yy >= 0 && yy < h && xx >= 0 && xx < w) ? x[((image * d + zz) * h + yy) * w + xx] : value;
"""


def pad_spatial(x: Any, before: tuple[int, ...], after: tuple[int, ...], value: float) -> Any:
    """``x`` ``(N, C, *spatial)`` (at most three spatial axes) padded by ``value``, in one
    kernel launch."""
    cupy = cuda.cupy
    lead = 3 - len(before)
    shape = x.shape[:2] + tuple(n + b + a for n, b, a in zip(x.shape[2:], before, after))
    y = cupy.empty(shape, x.dtype)
    sizes = (1,) * lead + tuple(x.shape[2:]) + (1,) * lead + tuple(shape[2:]) + (0,) * lead + tuple(before)
    kernel = cuda.elementwise(f"raw T x, T value, {_PAD_SIZES}", "T y", _PAD, "chainer_pad_spatial")
    kernel(cupy.ascontiguousarray(x), value, *sizes, y)
    return y
