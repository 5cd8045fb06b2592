import numpy
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import chainer
import chainer.functions as F
import chainer.links as L
import onnx_chainer
from onnx_chainer.testing import input_generator as gen

IMG = gen.increasing(3, 4, 3, 2)


def _trained_bn(size, **kwargs):
    bn = L.BatchNormalization(size, **kwargs)
    bn.avg_mean[...] = numpy.linspace(-0.5, 0.5, bn.avg_mean.size).reshape(bn.avg_mean.shape)
    bn.avg_var[...] = numpy.linspace(0.5, 2.0, bn.avg_var.size).reshape(bn.avg_var.shape)
    bn.gamma.array[...] = 1.5
    bn.beta.array[...] = -0.25
    return bn


@pytest.mark.parametrize("opset", [7, 9, 15, 26])
def test_batch_normalization_test_mode_uses_running_statistics(opset, check_export, wrap):
    model = wrap(lambda m, x: m.bn(x), bn=_trained_bn(4))
    onnx_model = check_export(model, IMG, opset_version=opset)
    assert [n.op_type for n in onnx_model.graph.node] == ["BatchNormalization"]
    names = sorted(i.name for i in onnx_model.graph.initializer)
    assert names == ["param_bn_avg_mean", "param_bn_avg_var", "param_bn_beta", "param_bn_gamma"]


@pytest.mark.parametrize("opset", [11, 26])
def test_batch_normalization_other_axes(opset, check_export, wrap):
    model = wrap(lambda m, x: m.bn(x), bn=_trained_bn((4, 3)))
    check_export(model, IMG, opset_version=opset)
    model = wrap(lambda m, x: m.bn(x), bn=_trained_bn(2, axis=(0, 1, 2)))
    check_export(model, IMG, opset_version=opset)


@pytest.mark.parametrize("opset", [11, 26])
def test_batch_normalization_train_mode_uses_batch_statistics_and_leaves_model_unchanged(opset, run_onnx, wrap):
    model = wrap(lambda m, x: m.bn(x), bn=_trained_bn(4))
    before = model.bn.avg_mean.copy(), model.bn.avg_var.copy()
    onnx_model, inputs, outputs = onnx_chainer.export(
        model, IMG, opset_version=opset, train=True, return_named_inout=True
    )
    numpy.testing.assert_array_equal(model.bn.avg_mean, before[0])
    numpy.testing.assert_array_equal(model.bn.avg_var, before[1])
    got = run_onnx(onnx_model, {"Input_0": IMG})["Output_0"]
    mean = IMG.mean(axis=(0, 2, 3), keepdims=True)
    var = IMG.var(axis=(0, 2, 3), keepdims=True)
    expected = 1.5 * (IMG - mean) / numpy.sqrt(var + 2e-5) - 0.25
    numpy.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_local_response_normalization(check_export, wrap):
    x = gen.increasing(2, 7, 3, 2) * 3
    check_export(wrap(lambda m, x: F.local_response_normalization(x, n=5, k=1.5, alpha=0.1, beta=0.75)), x, rtol=1e-5)
    check_export(wrap(lambda m, x: F.local_response_normalization(x, n=3)), x, opset_version=7, rtol=1e-5)


@pytest.mark.parametrize("opset", [9, 26])
def test_normalize_l2(opset, check_export, wrap):
    check_export(wrap(lambda m, x: F.normalize(x, axis=1)), gen.increasing(3, 4), opset_version=opset)


@pytest.mark.parametrize("opset", [9, 12, 26])
def test_dropout_is_identity_at_inference(opset, run_onnx, wrap):
    x = gen.increasing(4, 5)
    model = wrap(lambda m, x: F.dropout(x, 0.3) * 2)
    onnx_model = onnx_chainer.export(model, x, opset_version=opset, train=True)
    assert "Dropout" in [n.op_type for n in onnx_model.graph.node]
    numpy.testing.assert_allclose(run_onnx(onnx_model, {"Input_0": x})["Output_0"], x * 2, rtol=1e-6)
    # In test mode dropout is not even in the graph.
    with chainer.using_config("train", False):
        onnx_model = onnx_chainer.export(model, x, opset_version=opset)
    assert [n.op_type for n in onnx_model.graph.node] == ["Mul"]
