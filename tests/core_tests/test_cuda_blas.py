"""chainer.backends._cuda_blas: GEMM of CuPy arrays through cuBLAS called directly.

Checked against NumPy's products in float64 (an independent implementation), over
shapes and the four combinations of C- and F-contiguous operands; inside a CUDA Graph
capture, against the same product run eagerly (bit for bit: one routine, one handle).
"""

import numpy
import pytest

from chainer.backends import _cuda_blas, cuda

needs_gpu = pytest.mark.skipif(not cuda.available, reason="needs a GPU: " + str(cuda._unavailable_reason()))

SHAPES = [(1, 1, 1), (3, 4, 5), (100, 784, 1000), (7, 1, 9), (1, 13, 1), (64, 200, 1), (0, 3, 4), (5, 0, 6)]


def test_numpy_arrays_are_declined():
    a = numpy.ones((2, 3), numpy.float32)
    assert _cuda_blas.matmul(a, a.T) is None


def _layout(cupy, array, order):
    # An F-contiguous operand is what a transposed view of a C-contiguous array is.
    return cupy.asarray(array) if order == "C" else cupy.asfortranarray(cupy.asarray(array))


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("orders", ["CC", "CF", "FC", "FF"])
def test_matmul_against_numpy(dtype, shape, orders):
    import cupy

    m_, k, n = shape
    rng = numpy.random.default_rng(sum(shape))
    a = rng.standard_normal((m_, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    ca, cb = _layout(cupy, a, orders[0]), _layout(cupy, b, orders[1])
    y = _cuda_blas.matmul(ca, cb)
    assert y is not None and y.shape == (m_, n) and y.dtype == dtype and y.flags.c_contiguous
    expected = a.astype(numpy.float64) @ b.astype(numpy.float64)
    rtol = 1e-5 if dtype == numpy.float32 else 1e-12
    numpy.testing.assert_allclose(cupy.asnumpy(y), expected, rtol=rtol, atol=rtol * max(k, 1))
    # Accumulating: out += a @ b.
    base = rng.standard_normal((m_, n)).astype(dtype)
    out = cupy.asarray(base)
    assert _cuda_blas.matmul(ca, cb, out=out, accumulate=True) is out
    numpy.testing.assert_allclose(cupy.asnumpy(out), base + expected, rtol=rtol, atol=rtol * max(k, 1))


@pytest.mark.gpu
@needs_gpu
def test_declined_operands():
    import cupy

    a = cupy.ones((4, 6), numpy.float32)
    assert _cuda_blas.matmul(a.astype(numpy.float16), a.T.astype(numpy.float16)) is None
    assert _cuda_blas.matmul(a, a.T.astype(numpy.float64)) is None
    assert _cuda_blas.matmul(a, cupy.ones((5, 2), numpy.float32)) is None  # shapes do not match
    assert _cuda_blas.matmul(a, a.T, out=cupy.empty((4, 4), numpy.float64)) is None


@pytest.mark.gpu
@needs_gpu
def test_other_layouts_are_copied_and_give_the_bits_of_contiguous_operands():
    # A broadcast (stride 0) or strided operand takes the same routine as its contiguous
    # copy: F.linear's backward gets a broadcast gradient from F.sum, and a static graph
    # replay gets the same values in a contiguous buffer.
    import cupy

    rng = numpy.random.default_rng(3)
    x = cupy.asarray(rng.standard_normal((8, 20)).astype(numpy.float32))
    gy = cupy.broadcast_to(cupy.asarray(numpy.float32(1.0)), (8, 30))
    assert cupy.array_equal(_cuda_blas.matmul(gy.T, x), _cuda_blas.matmul(cupy.ascontiguousarray(gy.T), x))
    wide = cupy.asarray(rng.standard_normal((8, 40)).astype(numpy.float32))
    strided = wide[:, ::2]
    expected = cupy.asnumpy(strided).astype(numpy.float64).T @ cupy.asnumpy(x).astype(numpy.float64)
    numpy.testing.assert_allclose(cupy.asnumpy(_cuda_blas.matmul(strided.T, x)), expected, rtol=1e-5, atol=1e-5)
    assert cupy.array_equal(_cuda_blas.matmul(strided.T, x), _cuda_blas.matmul(cupy.ascontiguousarray(strided.T), x))


@pytest.mark.gpu
@needs_gpu
def test_matmul_inside_a_cuda_graph_capture_is_bitwise_the_eager_product():
    import cupy

    rng = numpy.random.default_rng(0)
    a = cupy.asarray(rng.standard_normal((100, 784)).astype(numpy.float32))
    w = cupy.asarray(rng.standard_normal((1000, 784)).astype(numpy.float32))
    eager = _cuda_blas.matmul(a, w.T)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        captured = _cuda_blas.matmul(a, w.T)
        graph = stream.end_capture()
    graph.launch()
    cupy.cuda.get_current_stream().synchronize()
    assert cupy.array_equal(captured, eager)
    # A replay sees the operands' new values.
    a[...] = 2 * a
    graph.launch()
    numpy.testing.assert_array_equal(cupy.asnumpy(captured), cupy.asnumpy(_cuda_blas.matmul(a, w.T)))
