"""Runs the source of a CuPy ``ElementwiseKernel`` on the CPU, so that generated kernels
are checked without a GPU.

The operation is compiled by g++ inside a loop over the output elements, with CuPy's
meaning of the parameters: a ``raw`` parameter is a pointer indexed by the operation, a
non-raw output is the element ``i`` of its array (a reference), a non-raw input is a
scalar, or the element ``i`` of an array when named in ``elementwise``. ``T`` is the
dtype given (float32 or float64: C++ has no float16).
"""

from __future__ import annotations

import ctypes
import hashlib
import pathlib
import shutil
import subprocess
import tempfile

import numpy
import pytest

_C_TYPES = {"int32": "int", "float32": "float", "float64": "double", "bool": "bool"}
_CTYPES = {"int": ctypes.c_int, "float": ctypes.c_float, "double": ctypes.c_double, "bool": ctypes.c_bool}
_BUILD_DIR = pathlib.Path(tempfile.gettempdir()) / "chainer-elementwise-harness"


def _parse(params: str) -> list[tuple[bool, str, str]]:
    parsed = []
    for param in filter(None, (p.strip() for p in params.split(","))):
        words = param.split()
        raw = words[0] == "raw"
        typ, name = words[-2], words[-1]
        parsed.append((raw, typ, name))
    return parsed


def compile_elementwise(in_params, out_params, operation, dtype, elementwise=()):
    """Return ``run(*args)``: ``args`` are the inputs then the outputs in the order of the
    parameters (arrays C-contiguous, outputs preallocated); ``run`` fills the outputs."""
    if shutil.which("g++") is None:
        pytest.skip("g++ is needed to run kernel sources on the CPU")
    c_t = _C_TYPES[numpy.dtype(dtype).name]
    params = [(*p, False) for p in _parse(in_params)] + [(*p, True) for p in _parse(out_params)]
    declarations, prologue, kinds = ["long long n_"], [], []
    for raw, typ, name, is_output in params:
        c_type = c_t if typ == "T" else _C_TYPES[typ]
        if raw or is_output or name in elementwise:
            pointer = f"{'' if is_output else 'const '}{c_type}*"
            declarations.append(f"{pointer} {name if raw else name + '_array'}")
            if not raw:
                prologue.append(f"{'' if is_output else 'const '}{c_type}& {name} = {name}_array[i];")
            kinds.append(("array", c_type))
        else:
            declarations.append(f"{c_type} {name}")
            kinds.append(("scalar", c_type))
    source = (
        f"typedef {c_t} T;\n"
        f'extern "C" void run({", ".join(declarations)}) {{\n'
        "  for (long long i = 0; i < n_; ++i) {\n"
        + "".join(f"    {line}\n" for line in prologue)
        + "".join(f"    {line}\n" for line in operation.splitlines())
        + "  }\n}\n"
    )
    _BUILD_DIR.mkdir(exist_ok=True)
    stem = _BUILD_DIR / hashlib.sha1(source.encode()).hexdigest()
    library = stem.with_suffix(".so")
    if not library.exists():
        stem.with_suffix(".cpp").write_text(source)
        partial = stem.with_suffix(".so.tmp")
        subprocess.run(
            ["g++", "-O1", "-shared", "-fPIC", "-o", str(partial), str(stem.with_suffix(".cpp"))],
            check=True,
            capture_output=True,
        )
        partial.replace(library)
    function = ctypes.CDLL(str(library)).run
    n_outputs = sum(1 for p in params if p[3])

    def run(*args):
        assert len(args) == len(params), f"expected {len(params)} arguments, got {len(args)}"
        converted = [ctypes.c_longlong(args[-n_outputs].size)]
        for (kind, c_type), value in zip(kinds, args):
            if kind == "array":
                assert value.flags.c_contiguous
                converted.append(ctypes.c_void_p(value.ctypes.data))
            else:
                converted.append(_CTYPES[c_type](value))
        function(*converted)

    return run
