import numpy
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import chainer.functions as F
import onnx_chainer

RNG = numpy.random.RandomState(3)
X = RNG.randn(5, 4).astype(numpy.float32)
T = numpy.array([0, 3, -1, 2, 3], numpy.int32)  # -1 is ignored


def _log_softmax(x, axis):
    x = x - x.max(axis=axis, keepdims=True)
    return x - numpy.log(numpy.exp(x).sum(axis=axis, keepdims=True))


def _reference(x, t, normalize=True, reduce="mean", class_weight=None):
    """Softmax cross entropy written out: -w[t] log softmax(x)[t], 0 for ignored labels."""
    log_p = numpy.moveaxis(_log_softmax(x.astype(numpy.float64), 1), 1, -1)
    safe = numpy.where(t == -1, 0, t)
    picked = numpy.take_along_axis(log_p, safe[..., None], axis=-1)[..., 0]
    weight = 1.0 if class_weight is None else class_weight[safe]
    loss = numpy.where(t == -1, 0.0, -picked * weight)
    if reduce == "no":
        return loss
    count = (t != -1).sum() if normalize else x.shape[0]
    return loss.sum() / max(count, 1)


def _run(model, args, run_onnx, opset):
    onnx_model = onnx_chainer.export(model, args, opset_version=opset)
    (got,) = run_onnx(onnx_model, {f"Input_{i}": a for i, a in enumerate(args)}).values()
    return got


@pytest.mark.parametrize("opset", [9, 13, 26])
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"normalize": False}, {"reduce": "no"}, {"class_weight": numpy.array([1.0, 2.0, 0.5, 3.0], numpy.float32)}],
)
def test_softmax_cross_entropy(kwargs, opset, run_onnx, wrap):
    model = wrap(lambda m, x, t: F.softmax_cross_entropy(x, t, **kwargs))
    got = _run(model, (X, T), run_onnx, opset)
    numpy.testing.assert_allclose(got, _reference(X, T, **kwargs), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("opset", [9, 26])
def test_softmax_cross_entropy_of_images(opset, run_onnx, wrap):
    x = RNG.randn(2, 3, 2, 2).astype(numpy.float32)
    t = numpy.array([[[0, 2], [1, -1]], [[2, 2], [0, 1]]], numpy.int32)
    got = _run(wrap(lambda m, x, t: F.softmax_cross_entropy(x, t)), (x, t), run_onnx, opset)
    numpy.testing.assert_allclose(got, _reference(x, t), rtol=1e-5, atol=1e-6)


def test_softmax_cross_entropy_needs_opset_9(wrap):
    with pytest.raises(ValueError, match=r"SoftmaxCrossEntropy .* needs opset_version >= 9"):
        onnx_chainer.export(wrap(lambda m, x, t: F.softmax_cross_entropy(x, t)), (X, T), opset_version=8)
