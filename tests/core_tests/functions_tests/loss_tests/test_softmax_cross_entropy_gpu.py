"""softmax_cross_entropy's CuPy kernels (integer labels) against float64 NumPy references.

The loss and its gradient are written out here from the definition (softmax in float64,
a loop over positions); each case also checks that the kernel path served (the node keeps
the per-position log-sum-exp) rather than the array-level code. Stream capture into a CUDA
graph proves that neither the forward nor the backward reads a device value on the host.
"""

import zlib

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import gradient_check
from chainer.backends import cuda
from chainer.functions.loss import _softmax_cross_entropy_cuda as kernels


def _gpu(test):
    """Mark ``test`` as a GPU test, skipped cleanly without CuPy or a device."""
    reason = "needs a GPU: " + str(cuda._unavailable_reason())
    return pytest.mark.gpu(pytest.mark.skipif(not cuda.available, reason=reason)(test))


DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOLERANCE = {numpy.float16: 5e-3, numpy.float32: 1e-5, numpy.float64: 1e-12}
SHAPES = [(7, 5), (33, 1000), (3, 4, 5), (2, 3, 4, 2)]


def _cupy():
    return cuda.cupy


def _labels(rng, shape, n_class, ignore_hits, ignore_label):
    t = rng.randint(0, n_class, shape[:1] + shape[2:]).astype(numpy.int32)
    if ignore_hits:
        flat = t.reshape(-1)
        flat[:: max(len(flat) // 3, 1)] = ignore_label
    return t


def _reference(x, t, class_weight, ignore_label, reduce, normalize, gy):
    """(loss, gx) in float64 straight from the definition."""
    x = x.astype(numpy.float64)
    e = numpy.exp(x - x.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    loss = numpy.zeros(t.shape)
    weight = numpy.zeros(t.shape)
    onehot = numpy.zeros(x.shape)
    for index in numpy.ndindex(*t.shape):
        label = int(t[index])
        if label == ignore_label:
            continue
        w = 1.0 if class_weight is None else float(class_weight[label])
        at = (index[0], label) + index[1:]
        loss[index] = -w * numpy.log(p[at])
        weight[index] = w
        onehot[at] = 1.0
    if reduce == "mean":
        count = int((t != ignore_label).sum())
        coeff = 1.0 / max(count if normalize else x.shape[0], 1)
        scale = weight * coeff * float(gy)
        value = loss.sum() * coeff
    else:
        scale = weight * gy.astype(numpy.float64)
        value = loss
    gx = (p - onehot) * scale.reshape(scale.shape[:1] + (1,) + scale.shape[1:])
    return value, gx


def _run(x, t, gy, class_weight, **kwargs):
    cp = _cupy()
    xv = chainer.Variable(cp.asarray(x))
    cw = None if class_weight is None else cp.asarray(class_weight)
    loss = F.softmax_cross_entropy(xv, cp.asarray(t), class_weight=cw, **kwargs)
    served = loss.creator._lse is not None
    loss.grad = cp.asarray(gy)
    loss.backward()
    return loss, cuda.to_cpu(loss.array), cuda.to_cpu(xv.grad), served


CASES = [
    # (shape, ignore_hits, weighted, reduce, normalize, cache_score)
    ((7, 5), False, False, "mean", True, True),
    ((7, 5), True, True, "mean", True, False),
    ((7, 5), True, False, "mean", False, True),
    ((7, 5), True, True, "no", True, True),
    ((33, 1000), True, True, "mean", True, True),
    ((33, 1000), False, False, "no", False, False),
    ((3, 4, 5), True, True, "mean", False, False),
    ((3, 4, 5), False, False, "no", True, True),
    ((2, 3, 4, 2), True, False, "mean", True, True),
    ((2, 3, 4, 2), True, True, "no", True, False),
]


@_gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, ignore_hits, weighted, reduce, normalize, cache_score", CASES)
def test_forward_and_backward_match_the_reference(dtype, shape, ignore_hits, weighted, reduce, normalize, cache_score):
    rng = numpy.random.RandomState(zlib.crc32(repr((shape, ignore_hits, weighted, reduce)).encode()))
    x = rng.uniform(-4, 4, shape).astype(dtype)
    t = _labels(rng, shape, shape[1], ignore_hits, -1)
    class_weight = rng.uniform(0.5, 2, shape[1]).astype(dtype) if weighted else None
    gy = rng.uniform(0.5, 1.5, () if reduce == "mean" else t.shape).astype(dtype)
    loss, y, gx, served = _run(x, t, gy, class_weight, reduce=reduce, normalize=normalize, cache_score=cache_score)
    assert served, "the CuPy kernel path did not take the call"
    assert y.dtype == dtype and gx.dtype == dtype
    assert y.shape == (() if reduce == "mean" else t.shape)
    expected_y, expected_gx = _reference(x, t, class_weight, -1, reduce, normalize, gy)
    tol = TOLERANCE[dtype]
    numpy.testing.assert_allclose(y.astype(numpy.float64), expected_y, rtol=tol * 10, atol=tol * 10)
    numpy.testing.assert_allclose(gx.astype(numpy.float64), expected_gx, rtol=tol * 10, atol=tol)
    # The score is observable exactly when cached, as in Chainer; it is the softmax.
    if cache_score:
        e = numpy.exp(x.astype(numpy.float64) - x.astype(numpy.float64).max(axis=1, keepdims=True))
        score = cuda.to_cpu(loss.creator.y)
        numpy.testing.assert_allclose(score, e / e.sum(axis=1, keepdims=True), rtol=tol * 10, atol=tol)
    else:
        assert loss.creator.y is None


@_gpu
@pytest.mark.parametrize("t_dtype", [numpy.int8, numpy.int16, numpy.int64])
def test_label_dtypes_and_an_ignore_label_that_is_a_class(t_dtype):
    rng = numpy.random.RandomState(3)
    x = rng.uniform(-2, 2, (9, 6)).astype(numpy.float32)
    t = rng.randint(0, 6, 9).astype(t_dtype)
    t[2] = 4
    gy = numpy.float32(0.7)
    loss, y, gx, served = _run(x, t, gy, None, ignore_label=4)
    assert served
    expected_y, expected_gx = _reference(x, t, None, 4, "mean", True, gy)
    numpy.testing.assert_allclose(y, expected_y, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(gx, expected_gx, rtol=1e-5, atol=1e-6)


@_gpu
def test_every_position_ignored_gives_zero():
    x = numpy.random.RandomState(0).uniform(-1, 1, (4, 3)).astype(numpy.float32)
    t = numpy.full(4, -1, numpy.int32)
    _, y, gx, served = _run(x, t, numpy.float32(1), None)
    assert served
    assert float(y) == 0.0 and not gx.any()


@_gpu
@pytest.mark.parametrize("label", [3, -2, 100])
def test_out_of_range_label_raises_when_not_capturing(label):
    cp = _cupy()
    x = cp.zeros((4, 3), numpy.float32)
    t = cp.asarray(numpy.array([0, 1, label, -1], numpy.int32))
    with pytest.raises(
        ValueError, match=rf"softmax_cross_entropy: every label of t must be in \[0, 3\).*found {label}"
    ):
        F.softmax_cross_entropy(x, t)
    with pytest.raises(ValueError, match="every label of t"):
        F.softmax_cross_entropy(x, t, reduce="no")


@_gpu
@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("weighted", [False, True])
def test_double_backward_gradient_check(reduce, weighted):
    cp = _cupy()
    rng = numpy.random.RandomState(7)
    shape = (5, 4)
    x = cp.asarray(rng.uniform(-1, 1, shape))
    t_host = rng.randint(0, 4, 5).astype(numpy.int32)
    t_host[1] = -1
    t = cp.asarray(t_host)
    cw = cp.asarray(rng.uniform(0.5, 2, 4)) if weighted else None
    gy = cp.asarray(rng.uniform(-1, 1, () if reduce == "mean" else (5,)))
    ggx = cp.asarray(rng.uniform(-1, 1, shape))

    def f(x):
        loss = F.softmax_cross_entropy(x, t, class_weight=cw, reduce=reduce, enable_double_backprop=True)
        assert loss.creator._lse is not None
        return loss

    gradient_check.check_backward(f, x, gy, dtype=numpy.float64, atol=1e-6, rtol=1e-5)
    gradient_check.check_double_backward(f, x, gy, ggx, dtype=numpy.float64, atol=1e-6, rtol=1e-5)


def _captured(fn):
    """Run ``fn`` once eagerly (compiles, fills the memory pool), then capture it into a
    CUDA graph on a non-blocking stream and launch the graph; returns its result."""
    cp = _cupy()
    fn()
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        try:
            result = fn()
        finally:
            graph = stream.end_capture()
        graph.launch()
        stream.synchronize()
    return result


@_gpu
@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_forward_and_backward_capture_into_a_cuda_graph(reduce, dtype):
    """No host synchronisation: any device-to-host copy inside the capture would fail."""
    cp = _cupy()
    rng = numpy.random.RandomState(11)
    x = rng.uniform(-3, 3, (16, 10)).astype(dtype)
    t = rng.randint(0, 10, 16).astype(numpy.int32)
    t[3] = -1
    class_weight = rng.uniform(0.5, 2, 10).astype(dtype)
    gy = rng.uniform(0.5, 1.5, () if reduce == "mean" else (16,)).astype(dtype)
    x_d, t_d, cw_d, gy_d = (cp.asarray(a) for a in (x, t, class_weight, gy))

    def step():
        xv = chainer.Variable(x_d)
        loss = F.softmax_cross_entropy(xv, t_d, class_weight=cw_d, reduce=reduce)
        assert loss.creator._lse is not None
        loss.grad = gy_d
        loss.backward()
        return loss, xv

    loss, xv = _captured(step)
    expected_y, expected_gx = _reference(x, t, class_weight, -1, reduce, True, gy)
    tol = TOLERANCE[dtype] * 10
    numpy.testing.assert_allclose(cuda.to_cpu(loss.array).astype(numpy.float64), expected_y, rtol=tol, atol=tol)
    numpy.testing.assert_allclose(cuda.to_cpu(xv.grad).astype(numpy.float64), expected_gx, rtol=tol, atol=tol)


@_gpu
def test_out_of_range_label_under_capture_gives_nan_not_a_read_out_of_bounds():
    cp = _cupy()
    x = cp.asarray(numpy.random.RandomState(1).uniform(-1, 1, (4, 3)).astype(numpy.float32))
    cw = cp.asarray(numpy.array([1.0, 2.0, 3.0], numpy.float32))
    t_good = cp.asarray(numpy.array([0, 1, 2, -1], numpy.int32))
    t = t_good.copy()

    def step():
        xv = chainer.Variable(x)
        loss = F.softmax_cross_entropy(xv, t, class_weight=cw, reduce="no")
        loss.grad = cp.ones(4, numpy.float32)
        loss.backward()
        return loss, xv

    step()
    t[2] = 1000000  # a label far out of range, set after the eager warm-up
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        try:
            loss, xv = step()
        finally:
            graph = stream.end_capture()
        graph.launch()
        stream.synchronize()
    y = cuda.to_cpu(loss.array)
    gx = cuda.to_cpu(xv.grad)
    assert numpy.isnan(y[2]) and numpy.isfinite(y[[0, 1, 3]]).all()
    assert numpy.isnan(gx[2]).all() and numpy.isfinite(gx[[0, 1, 3]]).all()


@_gpu
def test_fallback_to_the_array_code_when_the_kernels_cannot_be_built(monkeypatch):
    monkeypatch.setattr(kernels, "_broken", "NVRTCError: (simulated)")
    rng = numpy.random.RandomState(5)
    x = rng.uniform(-2, 2, (6, 4)).astype(numpy.float32)
    t = rng.randint(0, 4, 6).astype(numpy.int32)
    t[0] = -1
    gy = numpy.float32(1.5)
    _, y, gx, served = _run(x, t, gy, None)
    assert not served
    expected_y, expected_gx = _reference(x, t, None, -1, "mean", True, gy)
    numpy.testing.assert_allclose(y, expected_y, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(gx, expected_gx, rtol=1e-5, atol=1e-6)


def test_numpy_arrays_never_take_the_cuda_path():
    x = numpy.zeros((2, 3), numpy.float32)
    assert not kernels.available(x, numpy.zeros(2, numpy.int32), None, -1)
    loss = F.softmax_cross_entropy(x, numpy.array([0, 2], numpy.int32))
    assert loss.creator._lse is None
    numpy.testing.assert_allclose(loss.array, numpy.log(3.0), rtol=1e-6)


@pytest.mark.parametrize("x_dtype", DTYPES)
@pytest.mark.parametrize("t_dtype", [numpy.int8, numpy.int16, numpy.int32, numpy.int64])
def test_kernel_sources_are_complete_for_every_dtype(x_dtype, t_dtype):
    """Every template placeholder is filled (the CUDA compiler itself runs on the GPU tests)."""
    x_dtype, t_dtype = numpy.dtype(x_dtype), numpy.dtype(t_dtype)
    compute = numpy.dtype(numpy.float32) if x_dtype == numpy.float16 else x_dtype
    for has_weight in (False, True):
        for name, loss_dtype in (
            ("sce_forward", x_dtype),
            ("sce_forward", compute),
            ("sce_mean", None),
            ("sce_backward", None),
        ):
            source = kernels._source(name, x_dtype, t_dtype, has_weight, loss_dtype)
            assert "%(" not in source and f"void {name}(" in source
            assert f"typedef {kernels._C_TYPES[t_dtype]} label_t;" in source
            assert f"#define HAS_WEIGHT {int(has_weight)}" in source
