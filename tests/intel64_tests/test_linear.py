"""oneDNN linear layers against chainer-core's NumPy code."""

import numpy
import pytest
from chainer_intel64 import _library

import chainer
import chainer.functions as F
from chainer import gradient_check

LINEAR_SLOTS = ("linear_forward", "linear_backward_data", "linear_backward_weights")


@pytest.mark.parametrize(("n", "i", "o"), [(1, 1, 1), (3, 7, 5), (64, 784, 100), (200, 30, 1), (5, 4096, 256)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_matches_numpy(matches_numpy, n, i, o, bias):
    rng = numpy.random.default_rng(n * i + o)
    inputs = [rng.standard_normal((n, i)).astype(numpy.float32), rng.standard_normal((o, i)).astype(numpy.float32)]
    if bias:
        inputs.append(rng.standard_normal(o).astype(numpy.float32))
    matches_numpy(F.linear, inputs, LINEAR_SLOTS)


def test_batch_axes_and_non_contiguous(matches_numpy):
    rng = numpy.random.default_rng(9)
    x = rng.standard_normal((2, 3, 4, 5)).astype(numpy.float32)
    W = rng.standard_normal((5, 6)).astype(numpy.float32).T
    matches_numpy(lambda x, W: F.linear(x, W, n_batch_axes=3), (x, W), LINEAR_SLOTS)


def test_gradient_check():
    rng = numpy.random.default_rng(10)
    x, W, b = (rng.uniform(-1, 1, s).astype(numpy.float32) for s in [(4, 3), (2, 3), (2,)])
    gy = rng.uniform(-1, 1, (4, 2)).astype(numpy.float32)
    ggs = [rng.uniform(-1, 1, a.shape).astype(numpy.float32) for a in (x, W, b)]
    with chainer.using_config("use_ideep", "always"):
        gradient_check.check_backward(F.linear, (x, W, b), gy, eps=1e-2, atol=1e-3, rtol=1e-3)
        gradient_check.check_double_backward(F.linear, (x, W, b), gy, ggs, eps=1e-2, atol=1e-3, rtol=1e-3)


def test_float64_falls_back(onednn_calls):
    x = numpy.ones((2, 3))
    with chainer.using_config("use_ideep", "always"):
        y = F.linear(x, numpy.ones((4, 3)), numpy.arange(4.0))
    assert sum(onednn_calls.values()) == 0
    numpy.testing.assert_array_equal(y.array, numpy.array([[3, 4, 5, 6]] * 2, numpy.float64))


def test_bad_inputs_give_numpy_errors():
    x = numpy.ones((2, 3), numpy.float32)
    W = numpy.ones((4, 5), numpy.float32)
    errors = []
    for mode in ("never", "always"):
        with chainer.using_config("use_ideep", mode), pytest.raises(chainer.utils.type_check.InvalidType) as info:
            F.linear(x, W)
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_extension_refuses_bad_arguments():
    module = _library.dnnl()
    x = numpy.ones((2, 3), numpy.float32)
    with pytest.raises(ValueError, match=r"linear_forward: x \(N, I\), W \(O, I\) and y \(N, O\) disagree"):
        module.linear_forward(x, numpy.ones((4, 5), numpy.float32), None, numpy.empty((2, 4), numpy.float32))
    with pytest.raises(ValueError, match="b must have one element per output"):
        module.linear_forward(
            x, numpy.ones((4, 3), numpy.float32), numpy.ones(3, numpy.float32), numpy.empty((2, 4), numpy.float32)
        )
    with pytest.raises(ValueError, match="W must have 2 axes, got 1"):
        module.linear_backward_data(numpy.ones((2, 4), numpy.float32), numpy.ones(4, numpy.float32), x)
