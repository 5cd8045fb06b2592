"""Fused CUDA elementwise kernels for the hottest functions.

The NumPy formulas of a function run on CuPy as one kernel launch per operation; on a
GPU a launch costs more than the arithmetic of a small or medium array, so the functions
whose forward or gradient takes several operations have a one-kernel version for CuPy
arrays here. Each is written against a compute type ``C``: ``double`` for float64 and
``float`` otherwise (float16 is computed in float32 and rounded once).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy

from chainer.backends import cuda


def handles(xp: Any, spatial_ndim: int) -> bool:
    """Whether the kernels here serve arrays of module ``xp`` with ``spatial_ndim``
    spatial axes (CuPy, at most three)."""
    return xp is not numpy and xp is sys.modules.get("cupy") and spatial_ndim <= 3


def float_kernel(name: str, in_params: str, out_params: str, body: str, dtype: Any) -> Any:
    """The (memoized) ``cupy.ElementwiseKernel`` running ``body`` with ``C`` the compute
    type for arrays of ``dtype``."""
    compute = "double" if numpy.dtype(dtype) == numpy.float64 else "float"
    return cuda.elementwise(in_params, out_params, f"typedef {compute} C; {body}", f"chainer_{name}_{compute}")


def sizes_3d(*per_axis: tuple[Sequence[int], int]) -> tuple[int, ...]:
    """Kernel arguments for one to three spatial axes seen as three: each ``(values,
    fill)`` gives its per-axis values, led by ``fill`` for the missing leading axes."""
    sizes: tuple[int, ...] = ()
    for values, fill in per_axis:
        sizes += (fill,) * (3 - len(values)) + tuple(int(v) for v in values)
    return sizes


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
    shape = x.shape[:2] + tuple(n + b + a for n, b, a in zip(x.shape[2:], before, after))
    y = cupy.empty(shape, x.dtype)
    sizes = sizes_3d((x.shape[2:], 1), (shape[2:], 1), (before, 0))
    kernel = cuda.elementwise(f"raw T x, T value, {_PAD_SIZES}", "T y", _PAD, "chainer_pad_spatial")
    kernel(cupy.ascontiguousarray(x), value, *sizes, y)
    return y


# col2im (the adjoint of im2col) as a gather over the image: each element sums the
# columns of the kernel offsets and output positions that read it (no atomics).
_COL2IM_SIZES = (
    "int32 d, int32 h, int32 w, int32 od, int32 oh, int32 ow, int32 kd, int32 kh, int32 kw, "
    "int32 sd, int32 sh, int32 sw, int32 pd, int32 ph, int32 pw, int32 dd, int32 dh, int32 dw"
)
_COL2IM = """
    const ptrdiff_t xx = i % w + pw, yy = (i / w) % h + ph, zz = (i / ((ptrdiff_t)w * h)) % d + pd;
    const ptrdiff_t plane = i / ((ptrdiff_t)w * h * d);
    C sum = 0;
    for (int kz = 0; kz < kd; ++kz) {
      const ptrdiff_t az = zz - kz * dd;
      if (az < 0 || az % sd != 0 || az / sd >= od) continue;
      for (int ky = 0; ky < kh; ++ky) {
        const ptrdiff_t ay = yy - ky * dh;
        if (ay < 0 || ay % sh != 0 || ay / sh >= oh) continue;
        for (int kx = 0; kx < kw; ++kx) {
          const ptrdiff_t ax = xx - kx * dw;
          if (ax < 0 || ax % sw != 0 || ax / sw >= ow) continue;
          const ptrdiff_t k = ((plane * kd + kz) * kh + ky) * kw + kx;
          sum += (C)col[((k * od + az / sd) * oh + ay / sh) * ow + ax / sw];
        }
      }
    }
    img = (T)sum;
"""


def col2im(
    col: Any, stride: tuple[int, ...], pad: tuple[int, ...], dilate: tuple[int, ...], in_size: tuple[int, ...]
) -> Any:
    """Sum ``col`` ``(N, C, *ksize, *outsize)`` (at most three spatial axes) back onto the
    image ``(N, C, *in_size)``, in one kernel launch."""
    cupy = cuda.cupy
    nd = len(in_size)
    ksize, outsize = col.shape[2 : 2 + nd], col.shape[2 + nd :]
    img = cupy.empty(col.shape[:2] + tuple(in_size), col.dtype)
    sizes = sizes_3d((in_size, 1), (outsize, 1), (ksize, 1), (stride, 1), (pad, 0), (dilate, 1))
    kernel = float_kernel("col2im", f"raw T col, {_COL2IM_SIZES}", "T img", _COL2IM, col.dtype)
    kernel(cupy.ascontiguousarray(col), *sizes, img)
    return img
