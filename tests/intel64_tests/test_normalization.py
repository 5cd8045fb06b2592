"""oneDNN batch normalization (batch statistics, running averages) and local response
normalization against chainer-core's NumPy code."""

import numpy
import pytest
from chainer_intel64 import _library

import chainer
import chainer.functions as F
from chainer import gradient_check

BN_SLOTS = ("batch_normalization_forward", "batch_normalization_backward")
LRN_SLOTS = ("local_response_normalization_forward", "local_response_normalization_backward")


@pytest.mark.parametrize(
    ("shape", "axis"),
    [((5, 3), None), ((4, 6, 5, 5), None), ((2, 3, 4, 5, 2), None), ((3, 4, 5), (0, 1)), ((8, 16, 1, 1), None)],
)
def test_batch_normalization_matches_numpy(matches_numpy, shape, axis):
    rng = numpy.random.default_rng(1)
    x = (rng.standard_normal(shape) * 3 + 1).astype(numpy.float32)
    param_shape = (shape[2],) if axis == (0, 1) else (shape[1],)
    gamma = rng.uniform(0.5, 1.5, param_shape).astype(numpy.float32)
    beta = rng.standard_normal(param_shape).astype(numpy.float32)
    matches_numpy(lambda *a: F.batch_normalization(*a, axis=axis), (x, gamma, beta), BN_SLOTS)


def test_running_statistics_match_numpy(onednn_calls):
    rng = numpy.random.default_rng(2)
    x = rng.standard_normal((6, 4, 3, 3)).astype(numpy.float32)
    gamma, beta = numpy.ones(4, numpy.float32), numpy.zeros(4, numpy.float32)
    results = []
    for mode in ("never", "always"):
        mean, var = numpy.zeros(4, numpy.float32), numpy.ones(4, numpy.float32)
        with chainer.using_config("use_ideep", mode):
            F.batch_normalization(x, gamma, beta, running_mean=mean, running_var=var, decay=0.8)
        results.append((mean, var))
    numpy.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-5, atol=1e-6)
    # The reference: the batch statistics, the variance unbiased (54 elements per channel).
    numpy.testing.assert_allclose(results[1][0], 0.2 * x.mean(axis=(0, 2, 3)), rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(results[1][1], 0.8 + 0.2 * x.var(axis=(0, 2, 3), ddof=1), rtol=1e-5)
    assert onednn_calls["batch_normalization_forward"] == 1


def test_batch_normalization_link(onednn_calls):
    links = pytest.importorskip("chainer.links", reason="chainer-links is not installed")
    bn = links.BatchNormalization(3)
    bn.to_device("@intel64")
    x = numpy.random.default_rng(3).standard_normal((4, 3, 2, 2)).astype(numpy.float32)
    with chainer.using_config("use_ideep", "auto"):
        y = bn(x)
    expected = (x - x.mean(axis=(0, 2, 3), keepdims=True)) / numpy.sqrt(x.var(axis=(0, 2, 3), keepdims=True) + 2e-5)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-4)
    assert onednn_calls["batch_normalization_forward"] == 1


def test_batch_normalization_gradient_check():
    rng = numpy.random.default_rng(4)
    x = rng.uniform(-1, 1, (5, 3, 2, 2)).astype(numpy.float32)
    gamma = rng.uniform(0.5, 1, 3).astype(numpy.float32)
    beta = rng.uniform(-1, 1, 3).astype(numpy.float32)
    gy = rng.uniform(-1, 1, x.shape).astype(numpy.float32)
    with chainer.using_config("use_ideep", "always"):
        gradient_check.check_backward(F.batch_normalization, (x, gamma, beta), gy, eps=1e-2, atol=1e-2, rtol=1e-2)


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float16])
def test_other_dtypes_and_fixed_statistics_fall_back(onednn_calls, dtype):
    x = numpy.random.default_rng(5).standard_normal((4, 3)).astype(dtype)
    gamma, beta = numpy.ones(3, dtype), numpy.zeros(3, dtype)
    with chainer.using_config("use_ideep", "always"):
        F.batch_normalization(x, gamma, beta)
        f32 = [a.astype(numpy.float32) for a in (x, gamma, beta, numpy.zeros(3), numpy.ones(3))]
        F.fixed_batch_normalization(*f32)  # test mode: NumPy's elementwise code
    assert sum(onednn_calls.values()) == 0


@pytest.mark.parametrize(("shape", "n"), [((2, 7, 3, 3), 5), ((3, 4, 5), 3), ((2, 3, 4, 4), 4), ((2, 2, 3), 9)])
def test_local_response_normalization_matches_numpy(matches_numpy, shape, n):
    x = numpy.random.default_rng(6).standard_normal(shape).astype(numpy.float32)
    matches_numpy(lambda x: F.local_response_normalization(x, n, k=2, alpha=1e-2, beta=0.75), (x,), LRN_SLOTS)


def test_local_response_normalization_gradient_check():
    rng = numpy.random.default_rng(7)
    x = rng.uniform(-1, 1, (2, 5, 2, 2)).astype(numpy.float32)
    gy = rng.uniform(-1, 1, x.shape).astype(numpy.float32)
    ggx = rng.uniform(-1, 1, x.shape).astype(numpy.float32)

    def lrn(x):
        return F.local_response_normalization(x, 3, k=1, alpha=0.5, beta=0.75)

    with chainer.using_config("use_ideep", "always"):
        gradient_check.check_backward(lrn, x, gy, eps=1e-2, atol=2e-3, rtol=1e-2)
        gradient_check.check_double_backward(lrn, x, gy, ggx, eps=1e-2, atol=2e-3, rtol=1e-2)


def test_lrn_gradient_after_switching_to_never(onednn_calls):
    x = numpy.random.default_rng(8).standard_normal((2, 4, 3)).astype(numpy.float32)
    gy = numpy.ones_like(x)
    with chainer.using_config("use_ideep", "never"):
        v = chainer.Variable(x)
        F.local_response_normalization(v).grad = None
        y = F.local_response_normalization(v)
        y.grad = gy
        y.backward()
        expected = v.grad
    with chainer.using_config("use_ideep", "always"):
        v = chainer.Variable(x)
        y = F.local_response_normalization(v)
    y.grad = gy
    with chainer.using_config("use_ideep", "never"):
        y.backward()
    numpy.testing.assert_allclose(v.grad, expected, rtol=1e-5, atol=1e-6)
    assert onednn_calls["local_response_normalization_forward"] == 1
    assert onednn_calls["local_response_normalization_backward"] == 0


def test_extension_refuses_bad_normalization_arguments():
    module = _library.dnnl()
    x = numpy.ones((2, 3, 2), numpy.float32)
    c3 = numpy.ones(3, numpy.float32)
    with pytest.raises(ValueError, match="one value per channel"):
        module.batch_norm_forward(x, numpy.ones(4, numpy.float32), c3, x.copy(), c3.copy(), c3.copy(), 1e-5)
    with pytest.raises(ValueError, match="eps must be positive"):
        module.batch_norm_forward(x, c3, c3, x.copy(), c3.copy(), c3.copy(), 0.0)
    with pytest.raises(ValueError, match="odd number of channels"):
        module.lrn_forward(x, x.copy(), 4, 2.0, 1e-4, 0.75)
    with pytest.raises(ValueError, match="k must be positive"):
        module.lrn_forward(x, x.copy(), 5, 0.0, 1e-4, 0.75)
