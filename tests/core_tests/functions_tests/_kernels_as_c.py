"""CUDA elementwise kernel bodies run as C on the CPU, to check their arithmetic without a GPU.

A body given to CuPy's ElementwiseKernel (``cuda.elementwise`` or
``_gpu_kernels.float_kernel``) is plain C over the flat index ``i``; CuPy supplies ``i``,
the typedefs and the parameters. :func:`compile_body` wraps it in a loop over ``i`` and
compiles it with the system's C compiler; the tests then compare it with the NumPy code.
"""

from __future__ import annotations

import ctypes
import hashlib
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy
import pytest

CC = shutil.which("cc") or shutil.which("gcc")
needs_cc = pytest.mark.skipif(CC is None, reason="needs a C compiler")
CTYPES = {
    numpy.dtype(numpy.float32): "float",
    numpy.dtype(numpy.float64): "double",
    numpy.dtype(numpy.int8): "signed char",
    numpy.dtype(numpy.int32): "int",
}


def compile_body(
    tmp_path: Path,
    body: str,
    dtype: Any,
    inputs: list[tuple[str, str]],
    outputs: list[tuple[str, str]],
    scalars: list[tuple[str, str]],
    sizes: str,
    index_dtype: Any = numpy.int8,
) -> Any:
    """``k(inputs..., outputs..., scalars..., sizes..., n)`` running ``body`` for each ``i``.

    ``inputs`` are whole arrays (CuPy's ``raw``) and ``outputs`` one element each (stored
    after the body), as (name, C type) pairs; ``scalars`` (name, C type) pairs; ``sizes``
    the space-separated names of the int parameters. ``T`` and ``C`` are ``dtype``'s C
    type (the compute type of ``float_kernel`` for float32 and float64), ``I`` that of
    ``index_dtype``.
    """
    t = CTYPES[numpy.dtype(dtype)]
    params = [f"const {ty}* {name}" for name, ty in inputs]
    params += [f"{ty}* {name}_out" for name, ty in outputs]
    params += [f"{ty} {name}" for name, ty in scalars]
    params += [f"int {name}" for name in sizes.split()]
    declarations = " ".join(f"{ty} {name};" for name, ty in outputs)
    stores = " ".join(f"{name}_out[i] = {name};" for name, _ in outputs)
    source = (
        f"#include <stddef.h>\ntypedef {t} T; typedef {t} C; typedef {CTYPES[numpy.dtype(index_dtype)]} I;\n"
        f"void k({', '.join(params)}, long long n) {{\n"
        f"  for (ptrdiff_t i = 0; i < n; ++i) {{ {declarations}\n{body}\n {stores} }}\n}}\n"
    )
    path = tmp_path / f"k{hashlib.sha1(source.encode()).hexdigest()[:16]}.c"
    path.write_text(source)
    library = path.with_suffix(".so")
    subprocess.run([CC, "-O2", "-ffp-contract=off", "-shared", "-fPIC", "-o", library, path], check=True)
    return ctypes.CDLL(str(library)).k


def call(function: Any, arrays: list[numpy.ndarray], scalars: list[Any], sizes: tuple[int, ...], n: int) -> None:
    """Run a compiled body over ``n`` elements: C-contiguous ``arrays`` (inputs, then
    outputs), ctypes ``scalars``, int ``sizes``."""
    assert all(a.flags.c_contiguous for a in arrays)
    args = [ctypes.c_void_p(a.ctypes.data) for a in arrays] + list(scalars)
    function(*args, *(ctypes.c_int(int(v)) for v in sizes), ctypes.c_longlong(n))


def scalar(value: float, dtype: Any) -> Any:
    return (ctypes.c_float if numpy.dtype(dtype) == numpy.float32 else ctypes.c_double)(value)
