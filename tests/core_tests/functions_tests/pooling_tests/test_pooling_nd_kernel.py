"""The CUDA sources of N-dimensional max and average pooling, run on the CPU (their
operation is plain C++) against loops over the windows."""

import itertools
from unittest import mock

import numpy
import pytest
from _elementwise_harness import compile_elementwise

from chainer.backends import cuda
from chainer.functions.pooling import average_pooling_nd_kernel as A
from chainer.functions.pooling import max_pooling_nd_kernel as M
from chainer.functions.pooling import pooling_nd_kernel

CASES = [
    # dims, ksize, stride, pad; the output sizes cover every input (cover_all), so some
    # windows reach past the end of the image.
    ((7,), (3,), (2,), (1,)),
    ((5, 6), (2, 3), (2, 2), (1, 0)),
    ((4, 3, 5), (2, 2, 3), (1, 2, 2), (0, 1, 1)),
]


def _outsize(d, k, s, p):
    return (d + 2 * p - k + s - 1) // s + 1


def _windows(x, ksize, stride, pad, outs):
    """For every output position: the list of (window-relative flat index, input position)
    of its window's elements inside the image."""
    nd = len(ksize)
    for o in itertools.product(*(range(v) for v in outs)):
        members = []
        for r, k in enumerate(itertools.product(*(range(v) for v in ksize))):
            pos = tuple(o[j] * stride[j] - pad[j] + k[j] for j in range(nd))
            if all(0 <= pos[j] < x.shape[2 + j] for j in range(nd)):
                members.append((r, pos))
        yield o, members


def _geometry(case):
    dims, ksize, stride, pad = case
    outs = tuple(_outsize(*a) for a in zip(dims, ksize, stride, pad))
    return dims, ksize, stride, pad, outs, [*dims, *outs, *ksize, *stride, *pad]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_max_pooling_kernels(case, dtype):
    dims, ksize, stride, pad, outs, sizes = _geometry(case)
    nd = len(dims)
    x = numpy.random.permutation(2 * 3 * numpy.prod(dims)).reshape((2, 3) + dims).astype(dtype)
    y_ref = numpy.zeros((2, 3) + outs, dtype)
    idx_ref = numpy.zeros((2, 3) + outs, numpy.int32)
    for o, members in _windows(x, ksize, stride, pad, outs):
        for n, c in itertools.product(range(2), range(3)):
            if not members:
                # A window wholly in the padding (cover_all): 0, and no index.
                y_ref[(n, c) + o], idx_ref[(n, c) + o] = 0, -1
                continue
            values = [x[(n, c) + pos] for _, pos in members]
            best = int(numpy.argmax(values))
            y_ref[(n, c) + o] = values[best]
            idx_ref[(n, c) + o] = members[best][0]
    forward = compile_elementwise(*M.MaxPoolingNDKernelForward.generate(nd)[:3], dtype)
    y, idx = numpy.empty_like(y_ref), numpy.empty_like(idx_ref)
    forward(x, *sizes, y, idx)
    numpy.testing.assert_array_equal(y, y_ref)
    numpy.testing.assert_array_equal(idx, idx_ref)

    gy = numpy.random.uniform(-1, 1, y.shape).astype(dtype)
    gx_ref = numpy.zeros_like(x)
    for o, members in _windows(x, ksize, stride, pad, outs):
        for n, c in itertools.product(range(2), range(3)):
            if members:
                position = dict(members)[idx_ref[(n, c) + o]]
                gx_ref[(n, c) + position] += gy[(n, c) + o]
    backward = compile_elementwise(*M.MaxPoolingNDKernelBackward.generate(nd)[:3], dtype)
    gx = numpy.empty_like(x)
    backward(gy, idx, *sizes, gx)
    numpy.testing.assert_allclose(gx, gx_ref, rtol=1e-6)

    # Gathering with the indexes found gives the maxima back, with either kind of index.
    with_indexes = compile_elementwise(
        *M.MaxPoolingNDKernelForwardWithIndexes.generate(nd)[:3], dtype, elementwise={"indexes"}
    )
    gathered = numpy.empty_like(y)
    with_indexes(x, idx, *sizes, gathered)
    numpy.testing.assert_array_equal(gathered, y_ref)
    plane = numpy.full_like(idx, -1)
    for o, members in _windows(x, ksize, stride, pad, outs):
        for n, c in itertools.product(range(2), range(3)):
            if members:
                plane[(n, c) + o] = numpy.ravel_multi_index(dict(members)[idx_ref[(n, c) + o]], dims)
    with_plane = compile_elementwise(
        *M.MaxPoolingNDKernelForwardWithIndexes1.generate(nd)[:3], dtype, elementwise={"indexes"}
    )
    with_plane(x, plane, *sizes, gathered)
    numpy.testing.assert_array_equal(gathered, y_ref)


@pytest.mark.parametrize("case", CASES)
def test_average_pooling_kernels(case):
    dims, ksize, stride, pad, outs, sizes = _geometry(case)
    nd = len(dims)
    coeff = 1.0 / numpy.prod(ksize)
    x = numpy.random.uniform(-1, 1, (2, 3) + dims)
    gy = numpy.random.uniform(-1, 1, (2, 3) + outs)
    y_ref = numpy.zeros_like(gy)
    gx_ref = numpy.zeros_like(x)
    for o, members in _windows(x, ksize, stride, pad, outs):
        for _, pos in members:
            y_ref[(...,) + o] += x[(...,) + pos] * coeff
            gx_ref[(...,) + pos] += gy[(...,) + o] * coeff
    y, gx = numpy.empty_like(y_ref), numpy.empty_like(x)
    compile_elementwise(*A.AveragePoolingNDKernelForward.generate(nd)[:3], numpy.float64)(x, coeff, *sizes, y)
    compile_elementwise(*A.AveragePoolingNDKernelBackward.generate(nd)[:3], numpy.float64)(gy, coeff, *sizes, gx)
    numpy.testing.assert_allclose(y, y_ref, rtol=1e-12)
    numpy.testing.assert_allclose(gx, gx_ref, rtol=1e-12)


def test_generate_is_cached_and_the_bases_are_abstract():
    cuda.clear_memo()
    with mock.patch.object(pooling_nd_kernel.PoolingNDKernelForward, "_generate") as generate:
        pooling_nd_kernel.PoolingNDKernelForward.generate(2)
        pooling_nd_kernel.PoolingNDKernelForward.generate(2)
        generate.assert_called_once_with(2)
    cuda.clear_memo()
    with pytest.raises(NotImplementedError, match=r"PoolingNDKernelBackward\.\w+: a pooling kernel"):
        pooling_nd_kernel.PoolingNDKernelBackward.generate(2)
    assert M.MaxPoolingNDKernelForward.generate(3)[3] == "max_pool_3d"
