"""Softmax cross entropy with integer labels on CuPy in few launches and without host waits.

Forward: one warp per position (a row of the class axis) computes its log-sum-exp (kept
for the backward), its loss term and, when asked, records labels out of range in a flag;
a second, single-block kernel sums the terms and counts the valid positions into a 0-d
result and a 0-d ``1 / count`` on the device (``reduce='mean'`` only). Backward: one
elementwise kernel, ``(exp(x - lse) - onehot(t)) * weight * gy * coeff``.

Nothing here reads a device value on the host: the caller decides whether to look at the
label flag (one copy, outside stream capture) so that a step stays capturable in a CUDA
graph. The kernels are plain CUDA C compiled by NVRTC through ``cupy.RawKernel``, once per
combination of dtypes; a kernel that cannot be built makes :func:`available` return
``False`` and the caller keeps its array-level code.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy

_WARP_ROWS_BLOCK = 256  # threads per block of the forward: 8 warps, one position each
_REDUCE_BLOCK = 1024
_ELEMENTWISE_BLOCK = 256

# C type of each NumPy dtype in the kernels; float16 travels as its bits (unsigned short)
# and is converted with the PTX cvt instructions, so no CUDA header is needed.
_C_TYPES = {
    numpy.dtype(numpy.float16): "unsigned short",
    numpy.dtype(numpy.float32): "float",
    numpy.dtype(numpy.float64): "double",
    numpy.dtype(numpy.int8): "signed char",
    numpy.dtype(numpy.int16): "short",
    numpy.dtype(numpy.int32): "int",
    numpy.dtype(numpy.int64): "long long",
}
_FLOATS = (numpy.dtype(numpy.float16), numpy.dtype(numpy.float32), numpy.dtype(numpy.float64))

_PRELUDE = r"""
typedef %(x_type)s x_t;
typedef %(acc_type)s acc_t;
typedef %(label_type)s label_t;
#define X_IS_HALF %(x_is_half)d
#define HAS_WEIGHT %(has_weight)d

__device__ __forceinline__ float to_acc(unsigned short h) {
    float f;
    asm("cvt.f32.f16 %%0, %%1;" : "=f"(f) : "h"(h));
    return f;
}
__device__ __forceinline__ float to_acc(float v) { return v; }
__device__ __forceinline__ double to_acc(double v) { return v; }
#if X_IS_HALF
__device__ __forceinline__ x_t to_x(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %%0, %%1;" : "=h"(h) : "f"(f));
    return h;
}
#else
__device__ __forceinline__ x_t to_x(acc_t v) { return (x_t)v; }
#endif
__device__ __forceinline__ float exp_(float v) { return expf(v); }
__device__ __forceinline__ double exp_(double v) { return exp(v); }
__device__ __forceinline__ float log_(float v) { return logf(v); }
__device__ __forceinline__ double log_(double v) { return log(v); }
__device__ __forceinline__ acc_t neg_inf() { return (acc_t)__int_as_float(0xff800000); }
__device__ __forceinline__ acc_t nan_() { return (acc_t)__int_as_float(0x7fc00000); }

/* The factor of a position's loss: 0 where ignored, NaN where the label is no class
   (never an index out of bounds), else its class weight (1 without weights). */
__device__ __forceinline__ acc_t position_weight(long long label, long long n_class, long long ignore,
                                                 const acc_t* class_weight) {
    if (label == ignore) return 0;
    if (label < 0 || label >= n_class) return nan_();
#if HAS_WEIGHT
    return class_weight[label];
#else
    return 1;
#endif
}
"""

_FORWARD = r"""
extern "C" __global__ void sce_forward(const x_t* __restrict__ x, const label_t* __restrict__ t,
                                       const acc_t* __restrict__ class_weight,
                                       long long n_rows, long long n_class, long long inner,
                                       long long ignore, int check,
                                       acc_t* __restrict__ lse, %(loss_type)s* __restrict__ loss,
                                       long long* __restrict__ flag) {
    /* Position r = (n, s) of x (N, C, inner) reads x[n, :, s]: one warp per position. */
    long long r = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (r >= n_rows) return;  /* whole warps leave together: the shuffles below stay full */
    long long n = r / inner;
    const x_t* row = x + n * n_class * inner + (r - n * inner);
    acc_t m = neg_inf();
    for (long long c = lane; c < n_class; c += 32) {
        acc_t v = to_acc(row[c * inner]);
        m = v > m ? v : m;
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        acc_t o = __shfl_xor_sync(0xffffffffu, m, offset);
        m = o > m ? o : m;
    }
    acc_t s = 0;
    for (long long c = lane; c < n_class; c += 32) s += exp_(to_acc(row[c * inner]) - m);
    for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_xor_sync(0xffffffffu, s, offset);
    if (lane != 0) return;
    acc_t log_s = log_(s);
    long long label = (long long)t[r];
    acc_t w = position_weight(label, n_class, ignore, class_weight);
    acc_t value = 0;
    if (label == ignore) {
        value = 0;
    } else if (label < 0 || label >= n_class) {
        value = w;  /* NaN */
        if (check) {
            atomicMin(&flag[0], label);
            atomicMax(&flag[1], label);
        }
    } else {
        /* -(log_softmax(x)[t]) = -((x_t - max) - log(sum)), as the NumPy code rounds it */
        value = -((to_acc(row[label * inner]) - m) - log_s) * w;
    }
    lse[r] = m + log_s;
    loss[r] = %(store_loss)s;
}
"""

_MEAN = r"""
extern "C" __global__ void sce_mean(const acc_t* __restrict__ loss, const label_t* __restrict__ t,
                                    long long n_rows, long long ignore, int normalize, long long batch,
                                    x_t* __restrict__ out, acc_t* __restrict__ coeff) {
    /* One block: sum of the terms, count of the positions not ignored. */
    __shared__ acc_t sums[32];
    __shared__ long long counts[32];
    acc_t s = 0;
    long long count = 0;
    for (long long i = threadIdx.x; i < n_rows; i += blockDim.x) {
        s += loss[i];
        count += (long long)t[i] != ignore;
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        s += __shfl_xor_sync(0xffffffffu, s, offset);
        count += __shfl_xor_sync(0xffffffffu, count, offset);
    }
    int warp = threadIdx.x >> 5;
    if ((threadIdx.x & 31) == 0) {
        sums[warp] = s;
        counts[warp] = count;
    }
    __syncthreads();
    if (threadIdx.x != 0) return;
    s = 0;
    count = 0;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) {
        s += sums[w];
        count += counts[w];
    }
    long long divisor = normalize ? count : batch;
    /* 1 / max(divisor, 1) in double, then the compute dtype: the NumPy code's rounding */
    acc_t k = (acc_t)(1.0 / (double)(divisor > 1 ? divisor : 1));
    coeff[0] = k;
    out[0] = to_x(s * k);
}
"""

_BACKWARD = r"""
extern "C" __global__ void sce_backward(const x_t* __restrict__ x, const label_t* __restrict__ t,
                                        const acc_t* __restrict__ class_weight, const acc_t* __restrict__ lse,
                                        const x_t* __restrict__ gy, const acc_t* __restrict__ coeff,
                                        long long size, long long n_class, long long inner, long long ignore,
                                        int gy_per_row, int has_coeff, x_t* __restrict__ gx) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= size) return;
    long long plane = n_class * inner;
    long long n = i / plane;
    long long rest = i - n * plane;
    long long c = rest / inner;
    long long r = n * inner + (rest - c * inner);
    long long label = (long long)t[r];
    acc_t scale = position_weight(label, n_class, ignore, class_weight) * to_acc(gy[gy_per_row ? r : 0]);
    if (has_coeff) scale *= coeff[0];
    acc_t p = exp_(to_acc(x[i]) - lse[r]) - (c == label ? (acc_t)1 : (acc_t)0);
    gx[i] = to_x(p * scale);
}
"""

_kernels: dict[tuple[Any, ...], Any] = {}
_broken: str | None = None  # why the kernels could not be built, once they could not
_ready: set[tuple[Any, ...]] = set()  # (x dtype, t dtype, has_weight) whose kernels are built


def _acc_dtype(x_dtype: numpy.dtype) -> numpy.dtype:
    return numpy.dtype(numpy.float32) if x_dtype == numpy.float16 else x_dtype


def _source(name: str, x_dtype: numpy.dtype, t_dtype: numpy.dtype, has_weight: bool, loss_dtype: Any = None) -> str:
    """The CUDA C of kernel ``name`` for these dtypes (``loss_dtype``: the forward's
    per-position terms, x's dtype for ``reduce='no'``, else the compute dtype)."""
    acc = _acc_dtype(x_dtype)
    values = {
        "x_type": _C_TYPES[x_dtype],
        "acc_type": _C_TYPES[acc],
        "label_type": _C_TYPES[t_dtype],
        "x_is_half": int(x_dtype == numpy.float16),
        "has_weight": int(has_weight),
    }
    body = {"sce_forward": _FORWARD, "sce_mean": _MEAN, "sce_backward": _BACKWARD}[name]
    if name == "sce_forward":
        store_as_x = loss_dtype == x_dtype and x_dtype != acc
        body = body % {
            "loss_type": "x_t" if store_as_x else "acc_t",
            "store_loss": "to_x(value)" if store_as_x else "value",
        }
    return _PRELUDE % values + body


def _kernel(name: str, x_dtype: numpy.dtype, t_dtype: numpy.dtype, has_weight: bool, loss_dtype: Any = None) -> Any:
    key = (name, x_dtype, t_dtype, has_weight, loss_dtype)
    kernel = _kernels.get(key)
    if kernel is None:
        import cupy

        kernel = cupy.RawKernel(_source(name, x_dtype, t_dtype, has_weight, loss_dtype), name)
        # Compile now (not at the first launch) so that a failure is seen by available().
        kernel.compile()
        _kernels[key] = kernel
    return kernel


def available(x: Any, t: Any, class_weight: Any, ignore_label: Any) -> bool:
    """Whether this path takes the call: CuPy ``x`` of a float dtype with elements,
    integer labels of a supported width, an int64 ``ignore_label``, class weights (if
    any) on the same device as a 1-D float array, and kernels that compile here."""
    global _broken
    cupy = sys.modules.get("cupy")
    if cupy is None or type(x) is not cupy.ndarray:
        return False
    if _broken is not None or x.dtype not in _FLOATS or t.dtype not in _C_TYPES or t.dtype.kind != "i":
        return False
    if x.size == 0 or not isinstance(ignore_label, (int, numpy.integer)):
        return False
    if not -(2**63) <= int(ignore_label) < 2**63:
        return False
    if class_weight is not None and type(class_weight) is not type(x):
        return False
    key = (x.dtype, t.dtype, class_weight is not None)
    if key not in _ready:
        try:
            for loss_dtype in (x.dtype, _acc_dtype(x.dtype)):
                _kernel("sce_forward", x.dtype, t.dtype, key[2], loss_dtype)
            _kernel("sce_mean", x.dtype, t.dtype, False)
            _kernel("sce_backward", x.dtype, t.dtype, key[2])
        except Exception as error:  # any build failure keeps the array-level path
            _broken = f"{type(error).__name__}: {error}"
            return False
        _ready.add(key)
    return True


def is_capturing() -> bool:
    """Whether the current CuPy stream is being captured into a CUDA graph (then no
    device value may be read on the host)."""
    import cupy

    try:
        return bool(cupy.cuda.get_current_stream().is_capturing())
    except AttributeError:  # a CuPy without stream capture cannot be capturing
        return False


def forward(
    x: Any, t: Any, class_weight: Any, ignore_label: int, reduce: str, normalize: bool, check: bool
) -> tuple[Any, Any, Any, Any]:
    """``(loss, lse, coeff, flag)``: the loss (0-d for ``'mean'``, per position for
    ``'no'``, dtype of ``x``), the per-position log-sum-exp (compute dtype), the 0-d
    ``1 / count`` on the device (``None`` for ``'no'``) and, when ``check``, a 2-element
    int64 array ``(min, max)`` of the labels out of range (``0`` where there are none)."""
    import cupy

    x = cupy.ascontiguousarray(x)
    t = cupy.ascontiguousarray(t)
    acc = _acc_dtype(x.dtype)
    n_rows = t.size
    n_class = x.shape[1]
    inner = n_rows // x.shape[0]
    if class_weight is not None:
        class_weight = cupy.ascontiguousarray(class_weight.astype(acc, copy=False))
    loss_dtype = x.dtype if reduce == "no" else acc
    lse = cupy.empty(t.shape, acc)
    loss = cupy.empty(t.shape, loss_dtype)
    flag = cupy.zeros(2, numpy.int64) if check else lse  # an unused pointer when not checking
    kernel = _kernel("sce_forward", x.dtype, t.dtype, class_weight is not None, loss_dtype)
    grid = (n_rows * 32 + _WARP_ROWS_BLOCK - 1) // _WARP_ROWS_BLOCK
    kernel(
        (grid,),
        (_WARP_ROWS_BLOCK,),
        (
            x,
            t,
            lse if class_weight is None else class_weight,
            numpy.int64(n_rows),
            numpy.int64(n_class),
            numpy.int64(inner),
            numpy.int64(ignore_label),
            numpy.int32(check),
            lse,
            loss,
            flag,
        ),
    )
    if reduce == "no":
        return loss, lse, None, flag if check else None
    out = cupy.empty((), x.dtype)
    coeff = cupy.empty((), acc)
    mean = _kernel("sce_mean", x.dtype, t.dtype, False)
    mean(
        (1,),
        (_REDUCE_BLOCK,),
        (
            loss,
            t,
            numpy.int64(n_rows),
            numpy.int64(ignore_label),
            numpy.int32(bool(normalize)),
            numpy.int64(x.shape[0]),
            out,
            coeff,
        ),
    )
    return out, lse, coeff, flag if check else None


def backward(x: Any, t: Any, class_weight: Any, ignore_label: int, lse: Any, gy: Any, coeff: Any) -> Any:
    """``gx = (exp(x - lse) - onehot(t)) * weight * gy * coeff`` in one launch; ``gy`` is
    0-d or per position, ``coeff`` a 0-d device array or ``None`` (1)."""
    import cupy

    x = cupy.ascontiguousarray(x)
    t = cupy.ascontiguousarray(t)
    per_row = gy.ndim != 0
    gy = gy.astype(x.dtype, copy=False)
    if per_row:  # not a 0-d gy: ascontiguousarray would make it 1-d, as NumPy's does
        gy = cupy.ascontiguousarray(gy)
    acc = _acc_dtype(x.dtype)
    if class_weight is not None:
        class_weight = cupy.ascontiguousarray(class_weight.astype(acc, copy=False))
    gx = cupy.empty_like(x)
    kernel = _kernel("sce_backward", x.dtype, t.dtype, class_weight is not None)
    grid = (x.size + _ELEMENTWISE_BLOCK - 1) // _ELEMENTWISE_BLOCK
    kernel(
        (grid,),
        (_ELEMENTWISE_BLOCK,),
        (
            x,
            t,
            lse if class_weight is None else class_weight,
            lse,
            gy,
            lse if coeff is None else coeff,
            numpy.int64(x.size),
            numpy.int64(x.shape[1]),
            numpy.int64(t.size // x.shape[0]),
            numpy.int64(ignore_label),
            numpy.int32(per_row),
            numpy.int32(coeff is not None),
            gx,
        ),
    )
    return gx


def softmax(x: Any, lse: Any) -> Any:
    """``exp(x - lse)`` over the class axis 1, in the compute dtype (the cached score)."""
    import cupy

    lse = lse.reshape(lse.shape[:1] + (1,) + lse.shape[1:])
    return cupy.exp(x.astype(lse.dtype, copy=False) - lse)
