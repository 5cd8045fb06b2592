"""The CUDA kernels of the pooling sweeps, compiled as C on the CPU and compared with the
NumPy code, so that their index arithmetic is checked on machines without a GPU.

A kernel body of ``_pooling_kernels`` is plain C over the flat index ``i`` (CuPy's
ElementwiseKernel supplies ``i``, the typedefs and the parameters): wrapped in a loop
over ``i`` it compiles with the system's C compiler. Max pooling picks the same first
maximum as the NumPy code, so float32 and float64 must agree bit for bit over random 1-,
2- and 3-dimensional geometries (the scatter's sums up to their order).
"""

import numpy
import pytest

from chainer.functions.pooling import _pooling_kernels as P

from .._kernels_as_c import call, compile_body, needs_cc, scalar

pytestmark = needs_cc
SIZES = "d h w od oh ow kd kh kw sd sh sw pd ph pw"


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
    find_max = compile_body(
        tmp_path, P._GPU_MAX, dtype, [("x", "T")], [("y", "T"), ("index", "I")], [("neg_inf", "T")], SIZES
    )
    scatter = compile_body(
        tmp_path, P._GPU_SCATTER, dtype, [("values", "T"), ("index", "I")], [("img", "T")], [], SIZES
    )
    # The gather reads its index per element (not raw): here, element i of the whole array.
    body = P._GPU_GATHER.replace("= index;", "= indexes[i];")
    gather = compile_body(tmp_path, body, dtype, [("x", "T"), ("indexes", "I")], [("y", "T")], [], SIZES)
    rng = numpy.random.default_rng(3)
    for geometry in _geometries(4, 100):
        # Ties on purpose (small integers): the first maximum must win in both codes.
        x = rng.integers(-3, 4, (2, 3) + geometry.in_size).astype(dtype)
        want_y, want_index = P.max_with_index(x, geometry)
        y = numpy.empty(want_y.shape, dtype)
        index = numpy.empty(want_y.shape, numpy.int8)
        sizes = P._gpu_sizes(geometry)
        call(find_max, [x, y, index], [scalar(-numpy.inf, dtype)], sizes, y.size)
        numpy.testing.assert_array_equal(y, want_y)
        numpy.testing.assert_array_equal(index, want_index)
        values = rng.standard_normal(want_y.shape).astype(dtype)
        img = numpy.empty((2, 3) + geometry.in_size, dtype)
        call(scatter, [values, index, img], [], sizes, img.size)
        # Each element gets at most one value per window: the same sums, maybe in another order.
        tolerance = 1e-12 if dtype == numpy.float64 else 1e-6
        numpy.testing.assert_allclose(img, P.index_scatter(values, index, geometry), rtol=tolerance, atol=tolerance)
        gathered = numpy.empty(want_y.shape, dtype)
        call(gather, [x, index, gathered], [], sizes, gathered.size)
        numpy.testing.assert_array_equal(gathered, P.index_gather(x, index, geometry))
