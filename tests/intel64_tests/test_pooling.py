"""oneDNN max and average pooling, and the ReLU, against chainer-core's NumPy code."""

import numpy
import pytest
from chainer_intel64 import _library, _pooling

import chainer
import chainer.functions as F
from chainer import gradient_check
from chainer.functions.pooling import _pooling_kernels as P

# (N, C, H, W), ksize, stride, pad, cover_all
GEOMETRIES = [
    ((2, 3, 8, 8), 2, 2, 0, False),
    ((2, 3, 9, 7), 3, 2, 1, True),
    ((1, 4, 10, 10), (3, 2), (1, 2), (1, 0), False),
    ((2, 2, 5, 5), 2, 2, 0, True),
    ((3, 5, 13, 11), 3, 3, 1, False),
    ((1, 1, 1, 1), 1, 1, 0, False),
]


def _distinct(shape, seed):
    """Values without ties, so that every window has one maximum."""
    rng = numpy.random.default_rng(seed)
    return rng.permutation(numpy.prod(shape)).reshape(shape).astype(numpy.float32) / 7


@pytest.mark.parametrize(("shape", "ksize", "stride", "pad", "cover_all"), GEOMETRIES)
def test_max_pooling_2d_matches_numpy(matches_numpy, shape, ksize, stride, pad, cover_all):
    def pool(x):
        return F.max_pooling_2d(x, ksize, stride, pad, cover_all)

    matches_numpy(pool, (_distinct(shape, 1),), ["max_pooling_forward"], rtol=0, atol=0)


@pytest.mark.parametrize(("shape", "ksize", "stride", "pad", "cover_all"), GEOMETRIES)
def test_max_pooling_2d_backward_without_padding(onednn_calls, shape, ksize, stride, pad, cover_all):
    # oneDNN's backward takes unpadded windows (with padding, the NumPy code runs).
    x = _distinct(shape, 2)
    gy_shape = F.max_pooling_2d(x, ksize, stride, pad, cover_all).shape
    gy = numpy.random.default_rng(3).standard_normal(gy_shape).astype(numpy.float32)
    grads = []
    for mode in ("never", "always"):
        with chainer.using_config("use_ideep", mode):
            v = chainer.Variable(x)
            y = F.max_pooling_2d(v, ksize, stride, pad, cover_all)
            y.grad = gy
            y.backward()
            grads.append(v.grad)
    numpy.testing.assert_array_equal(grads[1], grads[0])
    padded = P.Geometry.from_input(shape[2:], *_tuples(ksize, stride, pad), cover_all)
    assert onednn_calls["max_pooling_backward"] == int(not any(padded.pad) and not any(padded.after))


def _tuples(ksize, stride, pad):
    return tuple((v, v) if isinstance(v, int) else v for v in (ksize, stride, pad))


@pytest.mark.parametrize(("shape", "ksize", "stride", "pad", "cover_all"), [g for g in GEOMETRIES if not g[-1]])
@pytest.mark.parametrize("pad_value", [0, None])
def test_average_pooling_2d_matches_numpy(matches_numpy, shape, ksize, stride, pad, cover_all, pad_value):
    x = numpy.random.default_rng(4).standard_normal(shape).astype(numpy.float32)
    slots = ["average_pooling_forward", "average_pooling_backward"]
    if pad_value == 0:
        matches_numpy(lambda x: F.average_pooling_2d(x, ksize, stride, pad), (x,), slots)
    else:
        matches_numpy(lambda x: F.average_pooling_nd(x, ksize, stride, pad, pad_value=None), (x,), slots)


def test_pooling_nd(matches_numpy):
    x = _distinct((2, 3, 6, 5, 4), 5)
    matches_numpy(
        lambda x: F.max_pooling_nd(x, 2, 2, cover_all=False), (x,), ["max_pooling_forward", "max_pooling_backward"]
    )
    matches_numpy(lambda x: F.average_pooling_nd(x, (3, 2, 2), 1, 1), (x,), ["average_pooling_forward"])
    x1 = _distinct((2, 3, 9), 6)
    matches_numpy(lambda x: F.max_pooling_1d(x, 3, 2), (x1,), ["max_pooling_forward"])


def test_ties_pick_the_first_maximum_as_numpy_does(matches_numpy):
    x = numpy.zeros((1, 2, 4, 4), numpy.float32)
    x[0, 1, :2, :2] = 1
    matches_numpy(lambda x: F.max_pooling_2d(x, 2), (x,), ["max_pooling_forward"], rtol=0, atol=0)


def test_max_pooling_gradient_check():
    x = _distinct((2, 3, 6, 6), 7)
    gy = numpy.random.default_rng(8).uniform(-1, 1, (2, 3, 3, 3)).astype(numpy.float32)
    with chainer.using_config("use_ideep", "always"):
        gradient_check.check_backward(lambda x: F.max_pooling_2d(x, 2), x, gy, eps=1e-2, atol=1e-3, rtol=1e-3)
        gy = numpy.random.default_rng(9).uniform(-1, 1, (2, 3, 3, 3)).astype(numpy.float32)
        gradient_check.check_backward(lambda x: F.average_pooling_2d(x, 3, 2, 1), x, gy, eps=1e-2, atol=2e-3, rtol=1e-2)


def test_auto_leaves_max_pooling_to_compiled_kernels(onednn_calls, compiled_cpu_kernels):
    x = _distinct((2, 3, 8, 8), 9)
    with chainer.using_config("use_ideep", "auto"):
        F.max_pooling_2d(x, 2)
    assert onednn_calls["max_pooling_forward"] == 0 and compiled_cpu_kernels["max_pooling_2d_forward"] == 1


def test_user_indexes_outside_the_window_are_declined():
    # upsampling_2d takes its indexes from the caller: oneDNN must never see a wrong one.
    geometry = P.Geometry.from_input((4, 4), (2, 2), (2, 2), (0, 0), False)
    gy = numpy.ones((1, 1, 2, 2), numpy.float32)
    for bad in (4, -1):
        indexes = numpy.zeros((1, 1, 2, 2), numpy.int8)
        indexes[0, 0, 1, 1] = bad
        assert _pooling.max_pooling_backward(True, gy, indexes, geometry) is None
    indexes = numpy.array([[[[0, 1], [2, 3]]]], numpy.int8)
    gx = _pooling.max_pooling_backward(True, gy, indexes, geometry)
    expected = numpy.zeros((4, 4), numpy.float32)
    expected[[0, 0, 3, 3], [0, 3, 0, 3]] = 1
    numpy.testing.assert_array_equal(gx[0, 0], expected)


def test_upsampling_2d_matches_numpy(matches_numpy):
    x = _distinct((2, 3, 8, 8), 10)
    _, indexes = F.max_pooling_2d(x, 2, return_indices=True)
    y = numpy.random.default_rng(11).standard_normal((2, 3, 4, 4)).astype(numpy.float32)
    matches_numpy(
        lambda y: F.upsampling_2d(y, indexes, ksize=2, outsize=(8, 8), cover_all=False), (y,), ["max_pooling_backward"]
    )


@pytest.mark.parametrize("shape", [(5,), (3, 7), (2, 3, 4, 5), (64, 32, 16, 16)])
def test_relu_matches_numpy(matches_numpy, shape):
    x = numpy.random.default_rng(12).standard_normal(shape).astype(numpy.float32)
    x.flat[0] = 0
    matches_numpy(F.relu, (x,), ["relu_forward", "relu_backward"], rtol=0, atol=0)


def test_relu_gradient_check_and_fallback(onednn_calls):
    x = numpy.random.default_rng(13).uniform(0.1, 1, (3, 4)).astype(numpy.float32)
    x[::2] *= -1
    with chainer.using_config("use_ideep", "always"):
        gy = numpy.random.default_rng(14).uniform(-1, 1, x.shape).astype(numpy.float32)
        gradient_check.check_backward(F.relu, x, gy, eps=1e-3, atol=1e-3, rtol=1e-3)
        gradient_check.check_double_backward(F.relu, x, gy, numpy.ones_like(x), eps=1e-3, atol=1e-3, rtol=1e-3)
        before = sum(onednn_calls.values())
        y = F.relu(x.astype(numpy.float64))
    assert sum(onednn_calls.values()) == before and y.dtype == numpy.float64


def test_extension_refuses_bad_pooling_arguments():
    module = _library.dnnl()
    x = numpy.ones((1, 1, 4, 4), numpy.float32)
    y = numpy.empty((1, 1, 2, 2), numpy.float32)
    with pytest.raises(TypeError, match="indexes must be int8 or uint8, got the buffer format 'i'"):
        module.pooling_forward(x, y, numpy.empty((1, 1, 2, 2), numpy.int32), 0, (2, 2), (2, 2), (0, 0), (0, 0))
    with pytest.raises(ValueError, match="indexes must have y's shape"):
        module.pooling_forward(x, y, numpy.empty((1, 1, 2, 3), numpy.int8), 0, (2, 2), (2, 2), (0, 0), (0, 0))
    with pytest.raises(ValueError, match="output size disagrees"):
        module.pooling_forward(x, y, None, 1, (3, 3), (2, 2), (0, 0), (0, 0))
    with pytest.raises(ValueError, match="kind must be"):
        module.pooling_forward(x, y, None, 7, (2, 2), (2, 2), (0, 0), (0, 0))
    with pytest.raises(ValueError, match="the arrays' shapes differ"):
        module.relu_forward(x, y)
