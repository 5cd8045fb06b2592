"""The CUDA kernels of the pooling sweeps, compiled as C on the CPU and compared with the
NumPy code, so that their index arithmetic is checked on machines without a GPU.

A kernel body of ``_pooling_kernels`` is plain C over the flat index ``i`` (CuPy's
ElementwiseKernel supplies ``i``, the typedefs and the parameters): wrapped in a loop
over ``i`` it compiles with the system's C compiler. Max pooling picks the same first
maximum as the NumPy code, so float32 and float64 must agree bit for bit over random 1-,
2- and 3-dimensional geometries (the scatter's sums up to their order).
"""

import ctypes
import shutil
import subprocess

import numpy
import pytest

from chainer.functions.pooling import _pooling_kernels as P

CC = shutil.which("cc") or shutil.which("gcc")
pytestmark = pytest.mark.skipif(CC is None, reason="needs a C compiler")

SIZES = ", ".join(f"int {n}" for n in "d h w od oh ow kd kh kw sd sh sw pd ph pw".split())
CTYPES = {numpy.float32: "float", numpy.float64: "double", numpy.int8: "signed char", numpy.int32: "int"}


def _compile(tmp_path, body, dtype, inputs, outputs, index_dtype=numpy.int8):
    """A C function ``k(inputs..., outputs..., [neg_inf,] sizes..., n)`` running ``body``
    for each ``i``: ``inputs`` and ``outputs`` are (name, C type) pairs, the inputs whole
    arrays (CuPy's ``raw``), each output one element (stored after the body)."""
    t, i_type = CTYPES[dtype], CTYPES[index_dtype]
    params = [f"const {ty}* {name}" for name, ty in inputs]
    params += [f"{ty}* {name}_out" for name, ty in outputs]
    params += ["T neg_inf"] if "neg_inf" in body else []
    declarations = " ".join(f"{ty} {name};" for name, ty in outputs)
    stores = " ".join(f"{name}_out[i] = {name};" for name, _ in outputs)
    source = (
        f"#include <stddef.h>\ntypedef {t} T; typedef {t} C; typedef {i_type} I;\n"
        f"void k({', '.join(params)}, {SIZES}, long long n) {{\n"
        f"  for (ptrdiff_t i = 0; i < n; ++i) {{ {declarations}\n{body}\n {stores} }}\n}}\n"
    )
    path = tmp_path / f"k{abs(hash((body, t, i_type)))}.c"
    path.write_text(source)
    library = path.with_suffix(".so")
    subprocess.run([CC, "-O2", "-ffp-contract=off", "-shared", "-fPIC", "-o", library, path], check=True)
    return ctypes.CDLL(str(library)).k


def _call(function, arrays, geometry, n, neg_inf=None):
    args = [ctypes.c_void_p(a.ctypes.data) for a in arrays]
    if neg_inf is not None:
        args.append(neg_inf)
    args += [ctypes.c_int(v) for v in P._gpu_sizes(geometry)] + [ctypes.c_longlong(n)]
    function(*args)


def _geometries(seed, count):
    rng = numpy.random.default_rng(seed)
    found = []
    while len(found) < count:
        nd = int(rng.integers(1, 4))
        in_size = tuple(int(v) for v in rng.integers(1, 9, nd))
        ksize = tuple(int(rng.integers(1, min(4, s + 2) + 1)) for s in in_size)
        stride = tuple(int(v) for v in rng.integers(1, 4, nd))
        pad = tuple(int(rng.integers(0, k)) for k in ksize)
        try:
            geometry = P.Geometry.from_input(in_size, ksize, stride, pad, bool(rng.integers(0, 2)))
        except Exception:
            continue
        if all(o > 0 for o in geometry.outsize):
            found.append(geometry)
    return found


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_max_pooling_kernels_give_the_numpy_codes_results(tmp_path, dtype):
    find_max = _compile(tmp_path, P._GPU_MAX, dtype, [("x", "T")], [("y", "T"), ("index", "I")])
    scatter = _compile(tmp_path, P._GPU_SCATTER, dtype, [("values", "T"), ("index", "I")], [("img", "T")])
    # The gather reads its index per element (not raw): here, element i of the whole array.
    body = P._GPU_GATHER.replace("= index;", "= indexes[i];")
    gather = _compile(tmp_path, body, dtype, [("x", "T"), ("indexes", "I")], [("y", "T")])
    rng = numpy.random.default_rng(3)
    for geometry in _geometries(4, 100):
        # Ties on purpose (small integers): the first maximum must win in both codes.
        x = rng.integers(-3, 4, (2, 3) + geometry.in_size).astype(dtype)
        want_y, want_index = P.max_with_index(x, geometry)
        y = numpy.empty(want_y.shape, dtype)
        index = numpy.empty(want_y.shape, numpy.int8)
        neg_inf = (ctypes.c_float if dtype == numpy.float32 else ctypes.c_double)(-numpy.inf)
        _call(find_max, [x, y, index], geometry, y.size, neg_inf=neg_inf)
        numpy.testing.assert_array_equal(y, want_y)
        numpy.testing.assert_array_equal(index, want_index)
        values = rng.standard_normal(want_y.shape).astype(dtype)
        img = numpy.empty((2, 3) + geometry.in_size, dtype)
        _call(scatter, [values, index, img], geometry, img.size)
        # Each element gets at most one value per window: the same sums, maybe in another order.
        tolerance = 1e-12 if dtype == numpy.float64 else 1e-6
        numpy.testing.assert_allclose(img, P.index_scatter(values, index, geometry), rtol=tolerance, atol=tolerance)
        gathered = numpy.empty(want_y.shape, dtype)
        _call(gather, [x, index, gathered], geometry, gathered.size)
        numpy.testing.assert_array_equal(gathered, P.index_gather(x, index, geometry))
