import numpy
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import onnx
import onnx.numpy_helper

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


@pytest.mark.parametrize("opset", [7, 11, 26])
def test_batch_normalization_train_mode_uses_batch_statistics_and_leaves_model_unchanged(opset, run_onnx, wrap):
    model = wrap(lambda m, x: m.bn(x), bn=_trained_bn(4))
    before = model.bn.avg_mean.copy(), model.bn.avg_var.copy()
    onnx_model = onnx_chainer.export(model, IMG, opset_version=opset, train=True)
    numpy.testing.assert_array_equal(model.bn.avg_mean, before[0])
    numpy.testing.assert_array_equal(model.bn.avg_var, before[1])
    (got,) = run_onnx(onnx_model, {"Input_0": IMG}).values()
    mean = IMG.mean(axis=(0, 2, 3), keepdims=True)
    var = IMG.var(axis=(0, 2, 3), keepdims=True)
    expected = 1.5 * (IMG - mean) / numpy.sqrt(var + 2e-5) - 0.25
    numpy.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    # The batch statistics take the names of the link's running statistics.
    initializers = {i.name: onnx.numpy_helper.to_array(i) for i in onnx_model.graph.initializer}
    assert sorted(initializers) == ["param_bn_avg_mean", "param_bn_avg_var", "param_bn_beta", "param_bn_gamma"]
    numpy.testing.assert_allclose(initializers["param_bn_avg_mean"], mean.ravel(), rtol=1e-6, atol=1e-7)


def test_batch_normalization_function_statistics_are_named_after_the_function(check_export, wrap):
    x = gen.increasing(3, 4)
    gamma, beta = numpy.full(4, 2.0, numpy.float32), numpy.full(4, 0.5, numpy.float32)
    # F.batch_normalization: the statistics of the batch.
    onnx_model = check_export(wrap(lambda m, x: F.batch_normalization(x, gamma, beta)), x)
    names = {i.name for i in onnx_model.graph.initializer}
    assert len(names) == 4 and {"BatchNormalization_0_param_avg_mean", "BatchNormalization_0_param_avg_var"} <= names
    # F.fixed_batch_normalization with statistics the model computed.
    mean, var = x.mean(axis=0), x.var(axis=0) + 0.5
    onnx_model = check_export(wrap(lambda m, x: F.fixed_batch_normalization(x, gamma, beta, mean, var)), x)
    names = {i.name for i in onnx_model.graph.initializer}
    assert len(names) == 4
    assert {"FixedBatchNormalization_0_param_avg_mean", "FixedBatchNormalization_0_param_avg_var"} <= names
    # Statistics given as inputs of the graph stay inputs.
    model = wrap(lambda m, x, g, b, mu, v: F.fixed_batch_normalization(x, g, b, mu, v))
    onnx_model = check_export(model, (x, gamma, beta, mean, var))
    assert len(onnx_model.graph.initializer) == 0


@pytest.mark.parametrize("opset", [9, 26])
def test_group_normalization(opset, check_export, wrap):
    model = wrap(lambda m, x: m.gn(x), gn=L.GroupNormalization(2, 4))
    model.gn.gamma.array[...] = numpy.linspace(0.5, 2.0, 4)
    check_export(model, IMG, opset_version=opset, train=True, rtol=1e-4, atol=1e-5)


def test_local_response_normalization(check_export, wrap):
    x = gen.increasing(2, 7, 3, 2) * 3
    check_export(wrap(lambda m, x: F.local_response_normalization(x, n=5, k=1.5, alpha=0.1, beta=0.75)), x, rtol=1e-5)
    check_export(wrap(lambda m, x: F.local_response_normalization(x, n=3)), x, opset_version=7, rtol=1e-5)


@pytest.mark.parametrize("opset", [9, 26])
def test_normalize_l2(opset, check_export, wrap):
    check_export(wrap(lambda m, x: F.normalize(x, axis=1)), gen.increasing(3, 4), opset_version=opset)
