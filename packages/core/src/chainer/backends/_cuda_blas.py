"""Matrix products of CuPy arrays through cuBLAS called directly, capturable in CUDA Graphs.

CuPy 14 refuses every cuBLAS call while a stream is capturing a CUDA Graph (its
``cublas.setStream`` raises ``NotImplementedError``), although cuBLAS itself supports
capture: with the scalars given as host values they are recorded in the graph, and with
a workspace of the caller's (``cublasSetWorkspace``) no memory node is created. The
captured static graph (:mod:`chainer.graph_optimizations._cuda_graph`) needs the products
of ``F.linear``, so this module calls ``cublasSgemm_v2`` / ``cublasDgemm_v2`` of the
cuBLAS library CuPy loaded, through ctypes, on a handle of its own (per device and
thread) whose pointer mode and math mode nobody else changes. Eager code uses it as
well (its host time is about that of ``cupy.ndarray.dot``), which keeps the captured and
the eager products bit for bit the same: one routine, one handle configuration, the same shapes.

:func:`matmul` takes two 2-D float32 or float64 arrays of the same dtype (a C- or
F-contiguous operand is used in place: a transposed view is passed as a transposed
operand; any other layout is copied first); anything else returns ``None`` and the
caller keeps its CuPy code.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from typing import Any

import numpy

_OP_N, _OP_T = 0, 1
# cuBLAS's recommended workspace for Hopper (and enough for earlier GPUs).
_WORKSPACE_BYTES = 32 * 1024 * 1024
_FLOAT32 = numpy.dtype(numpy.float32)
_FLOAT64 = numpy.dtype(numpy.float64)


class CublasUnavailable(RuntimeError):
    """cuBLAS could not be loaded or a handle made; the caller falls back to CuPy."""


_library: Any = None
_library_error: str | None = None
_load_lock = threading.Lock()


def _find_library() -> Any:
    """The cuBLAS library CuPy loaded (found in the process's mappings), else by soname."""
    from cupy.cuda import device

    device.get_cublas_handle()  # makes CuPy load its cuBLAS
    candidates = []
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.rsplit(None, 1)[-1]
                name = path.rsplit("/", 1)[-1]
                if name.startswith("libcublas.so") and path not in candidates:
                    candidates.append(path)
    except OSError:
        pass
    candidates += ["libcublas.so.13", "libcublas.so.12", "libcublas.so"]
    errors = []
    for name in candidates:
        try:
            lib = ctypes.CDLL(name)
            lib.cublasSgemm_v2  # noqa: B018 - raises AttributeError where it is not cuBLAS
            return lib
        except (OSError, AttributeError) as exc:
            errors.append(f"{name}: {exc}")
    raise CublasUnavailable("chainer.backends._cuda_blas: cuBLAS not found (" + "; ".join(errors) + ")")


def _load() -> Any:
    global _library, _library_error
    if _library is not None:
        return _library
    if _library_error is not None:
        raise CublasUnavailable(_library_error)
    with _load_lock:
        if _library is None and _library_error is None:
            try:
                lib = _find_library()
                p, i = ctypes.c_void_p, ctypes.c_int
                for name in ("cublasSgemm_v2", "cublasDgemm_v2"):
                    fn = getattr(lib, name)
                    fn.argtypes = [p, i, i, i, i, i, p, p, i, p, i, p, p, i]
                    fn.restype = i
                lib.cublasCreate_v2.argtypes = [ctypes.POINTER(p)]
                lib.cublasCreate_v2.restype = i
                lib.cublasSetStream_v2.argtypes = [p, p]
                lib.cublasSetStream_v2.restype = i
                lib.cublasSetWorkspace_v2.argtypes = [p, p, ctypes.c_size_t]
                lib.cublasSetWorkspace_v2.restype = i
                _library = lib
            except Exception as exc:
                _library_error = str(exc)
                raise CublasUnavailable(_library_error) from exc
    if _library is None:
        raise CublasUnavailable(_library_error or "cuBLAS could not be loaded")
    return _library


class _Handle:
    """A cuBLAS handle of this module's, with its workspace, for one device and thread."""

    __slots__ = ("ptr", "stream", "workspace")

    def __init__(self, lib: Any) -> None:
        import cupy

        handle = ctypes.c_void_p()
        status = lib.cublasCreate_v2(ctypes.byref(handle))
        if status != 0:
            raise CublasUnavailable(f"chainer.backends._cuda_blas: cublasCreate failed with status {status}")
        self.ptr = handle.value
        self.workspace = cupy.empty((_WORKSPACE_BYTES,), numpy.uint8)
        status = lib.cublasSetWorkspace_v2(self.ptr, self.workspace.data.ptr, _WORKSPACE_BYTES)
        if status != 0:
            raise CublasUnavailable(f"chainer.backends._cuda_blas: cublasSetWorkspace failed with status {status}")
        self.stream = -1


class _Handles(threading.local):
    def __init__(self) -> None:
        self.by_device: dict[int, _Handle] = {}


_handles = _Handles()
_one = {_FLOAT32: ctypes.c_float(1.0), _FLOAT64: ctypes.c_double(1.0)}
_zero = {_FLOAT32: ctypes.c_float(0.0), _FLOAT64: ctypes.c_double(0.0)}
_ONE_PTR = {k: ctypes.addressof(v) for k, v in _one.items()}
_ZERO_PTR = {k: ctypes.addressof(v) for k, v in _zero.items()}
_STATUS = {
    1: "CUBLAS_STATUS_NOT_INITIALIZED",
    3: "CUBLAS_STATUS_ALLOC_FAILED",
    7: "CUBLAS_STATUS_INVALID_VALUE",
    8: "CUBLAS_STATUS_ARCH_MISMATCH",
    11: "CUBLAS_STATUS_MAPPING_ERROR",
    13: "CUBLAS_STATUS_EXECUTION_FAILED",
    14: "CUBLAS_STATUS_INTERNAL_ERROR",
    15: "CUBLAS_STATUS_NOT_SUPPORTED",
}


def _cupy() -> Any:
    """CuPy when it is imported (the arrays this module takes are CuPy's), else ``None``."""
    return sys.modules.get("cupy")


def _operand(a: Any) -> tuple[bool, int] | None:
    """``(transposed, leading dimension)`` of a 2-D array as a column-major operand of
    ``C^T = B^T A^T``: a C-contiguous ``r x c`` array is the column-major ``c x r``
    matrix with leading dimension ``c`` (used as is), an F-contiguous one the
    column-major ``r x c`` matrix with leading dimension ``r`` (used transposed)."""
    rows, cols = a.shape
    item = a.itemsize
    s0, s1 = a.strides
    if (s1 == item or cols <= 1) and (s0 == cols * item or rows <= 1):
        return False, max(cols, 1)
    if (s0 == item or rows <= 1) and (s1 == rows * item or cols <= 1):
        return True, max(rows, 1)
    return None


def matmul(a: Any, b: Any, out: Any = None, accumulate: bool = False) -> Any:
    """``a @ b`` (into ``out``, or added to it with ``accumulate``), or ``None`` where
    this module does not take the call (the caller then uses CuPy).

    ``a`` is ``m x k``, ``b`` is ``k x n``, both CuPy arrays of one float32 or float64
    dtype; ``out`` a C-contiguous ``m x n`` array of that dtype. Runs on CuPy's current
    stream.
    """
    cupy = _cupy()
    if cupy is None or type(a) is not cupy.ndarray or type(b) is not cupy.ndarray:
        return None
    dtype = a.dtype
    if (
        dtype != b.dtype
        or (dtype != _FLOAT32 and dtype != _FLOAT64)
        or a.ndim != 2
        or b.ndim != 2
        or a.shape[1] != b.shape[0]
    ):
        return None
    # An operand that is neither C- nor F-contiguous (a broadcast gradient, a strided
    # view) is copied first: every product of these dtypes then takes the one cuBLAS
    # routine, whatever the operands' layouts, and gives the same bits for the same values.
    op_a = _operand(a)
    if op_a is None:
        a = cupy.ascontiguousarray(a)
        op_a = _operand(a)
    op_b = _operand(b)
    if op_b is None:
        b = cupy.ascontiguousarray(b)
        op_b = _operand(b)
    if op_a is None or op_b is None:
        return None
    m, k = a.shape
    n = b.shape[1]
    if out is None:
        if accumulate:
            return None
        out = cupy.empty((m, n), dtype)
    elif out.shape != (m, n) or out.dtype != dtype or not out.flags.c_contiguous:
        return None
    if m == 0 or n == 0:
        return out
    if k == 0:
        if not accumulate:
            out.fill(0)
        return out
    try:
        lib = _library if _library is not None else _load()
        device_id = a.data.device_id
        handle = _handles.by_device.get(device_id)
        if handle is None:
            with cupy.cuda.Device(device_id):
                handle = _handles.by_device[device_id] = _Handle(lib)
    except CublasUnavailable:
        return None
    stream = cupy.cuda.get_current_stream().ptr
    if handle.stream != stream:
        status = lib.cublasSetStream_v2(handle.ptr, stream)
        if status != 0:
            raise RuntimeError(f"chainer.backends._cuda_blas: cublasSetStream failed ({_STATUS.get(status, status)})")
        handle.stream = stream
    # Row-major C = A B is column-major C^T = B^T A^T: cuBLAS's first operand is b.
    trans_b, ld_b = op_b
    trans_a, ld_a = op_a
    gemm = lib.cublasSgemm_v2 if dtype == _FLOAT32 else lib.cublasDgemm_v2
    status = gemm(
        handle.ptr,
        _OP_T if trans_b else _OP_N,
        _OP_T if trans_a else _OP_N,
        n,
        m,
        k,
        _ONE_PTR[dtype],
        b.data.ptr,
        ld_b,
        a.data.ptr,
        ld_a,
        _ONE_PTR[dtype] if accumulate else _ZERO_PTR[dtype],
        out.data.ptr,
        max(n, 1),
    )
    if status != 0:
        raise RuntimeError(
            f"chainer.backends._cuda_blas.matmul: cuBLAS GEMM of {a.shape} by {b.shape} ({dtype}) failed "
            f"({_STATUS.get(status, status)})"
        )
    return out
