"""GPU batch normalization on cuDNN (chainer-cudnn) against NumPy float64 formulas.

Each case runs ``F.batch_normalization`` (training: batch statistics, running-statistics
update) or ``F.fixed_batch_normalization`` on CuPy arrays with ``use_cudnn='always'`` and
compares with the formulas written here in float64; the ``served`` counter proves cuDNN
computed the calls (no fallback to the CuPy code). Also: ``use_cudnn='never'`` keeps cuDNN
out, a plan that cannot be built falls back to CuPy, and under ``cudnn_deterministic``
batch normalization and convolution repeat bit for bit.
"""

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import gradient_check
from chainer.backends import cuda

plugin = pytest.importorskip("chainer_cudnn.plugin", reason="chainer-cudnn is not installed")

from ._stand_ins import count_served  # noqa: E402

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.cudnn,
    pytest.mark.skipif(not cuda.available, reason="needs a GPU: " + str(cuda._unavailable_reason())),
]

COUNTED = (
    "batch_normalization_forward",
    "batch_normalization_backward",
    "batch_normalization_inference",
    "convolution_forward",
    "convolution_backward_data",
    "convolution_backward_filter",
)


@pytest.fixture
def served(monkeypatch):
    """A Counter of the calls cuDNN served (each method's non-None results), per method."""
    return count_served(monkeypatch, plugin.LIBRARY, COUNTED)


def _expand(p, ndim):
    return p.reshape((1, -1) + (1,) * (ndim - 2))


def reference(x, gamma, beta, gy, eps):
    """y, gx, ggamma, gbeta, mean, biased var of batch normalization over all axes but 1."""
    x, gamma, beta, gy = (numpy.asarray(a, numpy.float64) for a in (x, gamma, beta, gy))
    axes = (0,) + tuple(range(2, x.ndim))
    m = x.size // x.shape[1]
    mean = x.mean(axis=axes)
    var = ((x - _expand(mean, x.ndim)) ** 2).mean(axis=axes)
    inv = 1.0 / numpy.sqrt(var + eps)
    xhat = (x - _expand(mean, x.ndim)) * _expand(inv, x.ndim)
    y = _expand(gamma, x.ndim) * xhat + _expand(beta, x.ndim)
    gbeta = gy.sum(axis=axes)
    ggamma = (gy * xhat).sum(axis=axes)
    gx = _expand(gamma * inv, x.ndim) * (gy - (_expand(gbeta, x.ndim) + xhat * _expand(ggamma, x.ndim)) / m)
    return y, gx, ggamma, gbeta, mean, var


TOLERANCE = {numpy.float16: {"atol": 2e-2, "rtol": 2e-2}, numpy.float32: {"atol": 2e-4, "rtol": 2e-4}}

# (x shape, x dtype, parameter dtype, eps, decay)
CASES = [
    ((8, 16, 5, 5), numpy.float32, numpy.float32, 2e-5, 0.9),
    ((32, 16), numpy.float32, numpy.float32, 1e-3, 0.5),
    ((4, 32, 8, 8), numpy.float32, numpy.float32, 1e-5, 0.99),
    ((2, 16, 3, 4, 4), numpy.float32, numpy.float32, 2e-5, 0.9),
    ((8, 16, 5, 5), numpy.float16, numpy.float32, 2e-5, 0.9),
    ((8, 16, 6, 6), numpy.float16, numpy.float16, 1e-3, 0.7),
]


@pytest.mark.parametrize("shape, dtype, param_dtype, eps, decay", CASES)
def test_training_forward_backward_and_running_statistics(served, shape, dtype, param_dtype, eps, decay):
    rng = numpy.random.RandomState(0)
    c = shape[1]
    x = (rng.standard_normal(shape) * 2 + 0.5).astype(dtype)
    gamma = rng.uniform(0.5, 1.5, c).astype(param_dtype)
    beta = rng.uniform(-1, 1, c).astype(param_dtype)
    gy = rng.standard_normal(shape).astype(dtype)
    running_mean = rng.uniform(-1, 1, c).astype(param_dtype)
    running_var = rng.uniform(0.5, 2, c).astype(param_dtype)
    y_ref, gx_ref, ggamma_ref, gbeta_ref, mean, var = reference(x, gamma, beta, gy, eps)
    m = x.size // c
    mean_ref = decay * running_mean.astype(numpy.float64) + (1 - decay) * mean
    var_ref = decay * running_var.astype(numpy.float64) + (1 - decay) * var * m / (m - 1)

    xv, gv, bv = (chainer.Variable(cuda.to_gpu(a)) for a in (x, gamma, beta))
    rm, rv = cuda.to_gpu(running_mean), cuda.to_gpu(running_var)
    with chainer.using_config("use_cudnn", "always"):
        y = F.batch_normalization(xv, gv, bv, eps=eps, running_mean=rm, running_var=rv, decay=decay)
        y.grad = cuda.to_gpu(gy)
        y.backward()
    tol = TOLERANCE[dtype]
    assert y.dtype == dtype and xv.grad.dtype == dtype and gv.grad.dtype == param_dtype
    numpy.testing.assert_allclose(cuda.to_cpu(y.array), y_ref, err_msg="y", **tol)
    numpy.testing.assert_allclose(cuda.to_cpu(xv.grad), gx_ref, err_msg="gx", **tol)
    scale = numpy.sqrt(m)  # sums of m terms
    numpy.testing.assert_allclose(cuda.to_cpu(gv.grad), ggamma_ref, atol=tol["atol"] * scale, rtol=tol["rtol"])
    numpy.testing.assert_allclose(cuda.to_cpu(bv.grad), gbeta_ref, atol=tol["atol"] * scale, rtol=tol["rtol"])
    stat_tol = {"atol": 2e-3, "rtol": 2e-3} if param_dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-5}
    numpy.testing.assert_allclose(cuda.to_cpu(rm), mean_ref, err_msg="running_mean", **stat_tol)
    numpy.testing.assert_allclose(cuda.to_cpu(rv), var_ref, err_msg="running_var", **stat_tol)
    assert rm.dtype == param_dtype and rv.dtype == param_dtype
    assert served == {"batch_normalization_forward": 1, "batch_normalization_backward": 1}


def test_the_batch_normalization_link_trains_and_tests_on_cudnn(served):
    """L.BatchNormalization: training updates avg_mean/avg_var as the formulas say; test mode
    normalizes with them (fixed batch normalization)."""
    import chainer.links as L

    rng = numpy.random.RandomState(1)
    x = rng.standard_normal((16, 32, 4, 4)).astype(numpy.float32) * 3 + 1
    link = L.BatchNormalization(32, decay=0.8)
    link.to_device("@cupy:0")
    with chainer.using_config("use_cudnn", "always"):
        link(cuda.to_gpu(x))
        with chainer.using_config("train", False):
            y = link(cuda.to_gpu(x)).array
    _, _, _, _, mean, var = reference(x, numpy.ones(32), numpy.zeros(32), numpy.zeros_like(x), 2e-5)
    avg_mean = 0.2 * mean
    avg_var = 0.8 + 0.2 * var * 256 / 255
    numpy.testing.assert_allclose(cuda.to_cpu(link.avg_mean), avg_mean, atol=1e-5, rtol=1e-5)
    numpy.testing.assert_allclose(cuda.to_cpu(link.avg_var), avg_var, atol=1e-5, rtol=1e-5)
    expected = (x - _expand(avg_mean, 4)) / numpy.sqrt(_expand(avg_var, 4) + 2e-5)
    numpy.testing.assert_allclose(cuda.to_cpu(y), expected, atol=1e-4, rtol=1e-4)
    assert served["batch_normalization_forward"] == 1
    _skip_if_cudnn_has_no_inference_engine()
    assert served["batch_normalization_inference"] == 1


@pytest.mark.parametrize(
    "shape, dtype", [((8, 16, 5, 5), numpy.float32), ((32, 16), numpy.float32), ((4, 16, 6, 6), numpy.float16)]
)
def test_fixed_batch_normalization(served, shape, dtype):
    rng = numpy.random.RandomState(2)
    c = shape[1]
    x = rng.standard_normal(shape).astype(dtype)
    gamma, beta, mean = (rng.uniform(-1, 1, c).astype(numpy.float32) for _ in range(3))
    var = rng.uniform(0.5, 2, c).astype(numpy.float32)
    eps = 1e-3
    with chainer.using_config("use_cudnn", "always"):
        y = F.fixed_batch_normalization(*(cuda.to_gpu(a) for a in (x, gamma, beta, mean, var)), eps=eps).array
    b = x.ndim
    expected = (x.astype(numpy.float64) - _expand(mean, b)) / numpy.sqrt(_expand(var, b).astype(numpy.float64) + eps)
    expected = expected * _expand(gamma, b) + _expand(beta, b)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(cuda.to_cpu(y), expected, **TOLERANCE[dtype])
    _skip_if_cudnn_has_no_inference_engine()
    assert served == {"batch_normalization_inference": 1}


def _skip_if_cudnn_has_no_inference_engine():
    """cuDNN 9.19 on an H200 proposes no engine for batchnorm_inference (the plugin then stops
    asking on that device) and the CuPy code computed, as the caller checked: skip with
    cuDNN's words rather than claim it served."""
    if cuda.cupy.cuda.runtime.getDevice() in plugin.LIBRARY._no_inference_engine:
        reasons = [why for key, why in plugin.LIBRARY.declined.items() if key[0] == "bn_inf"]
        pytest.skip(f"this cuDNN has no engine for batchnorm_inference: {reasons[:1]}"[:400])


def test_gradient_check_and_double_backprop_on_cudnn(served):
    rng = numpy.random.RandomState(3)
    x = cuda.to_gpu(rng.standard_normal((8, 16, 3, 3)).astype(numpy.float32))
    gamma = cuda.to_gpu(rng.uniform(0.5, 1.5, 16).astype(numpy.float32))
    beta = cuda.to_gpu(rng.uniform(-1, 1, 16).astype(numpy.float32))
    gy = cuda.to_gpu(rng.standard_normal((8, 16, 3, 3)).astype(numpy.float32))
    ggx = cuda.to_gpu(rng.standard_normal((8, 16, 3, 3)).astype(numpy.float32))
    ggg, ggb = (cuda.to_gpu(rng.standard_normal(16).astype(numpy.float32)) for _ in range(2))

    def fn(x, gamma, beta):
        return F.batch_normalization(x, gamma, beta, eps=1e-3)

    # cuDNN has no float64 batch normalization: float32 with a coarse step and tolerance.
    with chainer.using_config("use_cudnn", "always"):
        gradient_check.check_backward(fn, (x, gamma, beta), gy, eps=1e-2, atol=2e-2, rtol=2e-2)
        gradient_check.check_double_backward(fn, (x, gamma, beta), gy, (ggx, ggg, ggb), eps=1e-2, atol=5e-2, rtol=5e-2)
    assert served["batch_normalization_forward"] > 0 and served["batch_normalization_backward"] > 0


def test_use_cudnn_never_keeps_cudnn_out(served):
    x = cuda.cupy.arange(32 * 16, dtype=numpy.float32).reshape(32, 16)
    one, zero = cuda.cupy.ones(16, numpy.float32), cuda.cupy.zeros(16, numpy.float32)
    with chainer.using_config("use_cudnn", "never"):
        y = F.batch_normalization(chainer.Variable(x), one, zero)
        y.grad = cuda.cupy.ones_like(x)
        y.backward()
        F.fixed_batch_normalization(x, one, zero, zero, one)
    column = numpy.arange(32) * 16.0
    expected = (column - column.mean()) / numpy.sqrt(column.var() + 2e-5)
    numpy.testing.assert_allclose(cuda.to_cpu(y.array[:, 3]), expected, rtol=1e-5, atol=1e-5)
    assert served == {}


def test_float64_and_unbuildable_plans_fall_back_to_cupy(served, monkeypatch):
    rng = numpy.random.RandomState(4)
    x = rng.standard_normal((6, 16, 3, 3))
    gamma, beta = rng.uniform(0.5, 1.5, 16), rng.uniform(-1, 1, 16)
    y_ref = reference(x, gamma, beta, x, 2e-5)[0]
    with chainer.using_config("use_cudnn", "always"):
        y64 = F.batch_normalization(*(cuda.to_gpu(a) for a in (x, gamma, beta))).array  # no float64 engines
        assert served == {}

        def refuse(key):
            raise RuntimeError("no engine (simulated)")

        monkeypatch.setattr(plugin.LIBRARY, "_plans", {})
        monkeypatch.setattr(plugin.LIBRARY, "_build_normalization", refuse)
        y32 = F.batch_normalization(*(cuda.to_gpu(a.astype(numpy.float32)) for a in (x, gamma, beta))).array
    numpy.testing.assert_allclose(cuda.to_cpu(y64), y_ref, rtol=1e-10, atol=1e-10)
    numpy.testing.assert_allclose(cuda.to_cpu(y32), y_ref, rtol=1e-4, atol=1e-4)
    assert served == {}
    assert any(key[0] == "bn_fwd" for key in plugin.LIBRARY.declined)


def _repeated(fn, arrays, gy, runs=3):
    results = []
    for _ in range(runs):
        variables = [chainer.Variable(a) for a in arrays]
        y = fn(*variables)
        y.grad = gy
        y.backward()
        results.append([cuda.to_cpu(y.array)] + [cuda.to_cpu(v.grad) for v in variables])
    return results


def _assert_bitwise_repeatable(results):
    for again in results[1:]:
        for name, a, b in zip(("y", "g0", "g1", "g2"), results[0], again):
            assert a.tobytes() == b.tobytes(), name


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float16])
def test_batch_normalization_is_bitwise_repeatable_when_deterministic(served, dtype):
    rng = numpy.random.RandomState(5)
    x = cuda.to_gpu(rng.standard_normal((64, 64, 16, 16)).astype(dtype))
    gamma = cuda.to_gpu(rng.uniform(0.5, 1.5, 64).astype(numpy.float32))
    beta = cuda.to_gpu(rng.uniform(-1, 1, 64).astype(numpy.float32))
    gy = cuda.to_gpu(rng.standard_normal((64, 64, 16, 16)).astype(dtype))
    with chainer.using_config("use_cudnn", "always"), chainer.using_config("cudnn_deterministic", True):
        _assert_bitwise_repeatable(_repeated(F.batch_normalization, (x, gamma, beta), gy))
    assert served == {"batch_normalization_forward": 3, "batch_normalization_backward": 3}


def test_convolution_is_bitwise_repeatable_when_deterministic(served):
    rng = numpy.random.RandomState(6)
    x = cuda.to_gpu(rng.standard_normal((32, 32, 16, 16)).astype(numpy.float32))
    W = cuda.to_gpu(rng.standard_normal((64, 32, 3, 3)).astype(numpy.float32))
    b = cuda.to_gpu(rng.standard_normal(64).astype(numpy.float32))
    gy = cuda.to_gpu(rng.standard_normal((32, 64, 16, 16)).astype(numpy.float32))
    with chainer.using_config("use_cudnn", "always"), chainer.using_config("cudnn_deterministic", True):
        _assert_bitwise_repeatable(_repeated(lambda *v: F.convolution_2d(*v, pad=1), (x, W, b), gy))
    assert served == {"convolution_forward": 3, "convolution_backward_data": 3, "convolution_backward_filter": 3}
