"""CaffeFunction: .caffemodel files built here with the protobuf messages, run through
Chainer and compared with NumPy computations of what Caffe's layers compute."""

import numpy
import pytest

pytest.importorskip("google.protobuf")

import chainer
from chainer.links import caffe
from chainer.links.caffe.protobuf3 import caffe_pb2


def _blob(layer, shape, values):
    blob = layer.blobs.add()
    blob.shape.dim.extend(shape)
    blob.data.extend(numpy.asarray(values, numpy.float32).ravel().tolist())


def _layer(net, name, type_name, bottom, top):
    layer = net.layer.add()
    layer.name, layer.type = name, type_name
    layer.bottom.extend(bottom)
    layer.top.extend(top)
    return layer


def _save(net, tmp_path):
    path = tmp_path / "net.caffemodel"
    path.write_bytes(net.SerializeToString())
    return str(path)


def _conv_reference(x, W, b, stride, pad):
    """A direct (loop) 2-D cross-correlation, as Caffe's convolution computes."""
    n, c, h, w = x.shape
    out_c, _, kh, kw = W.shape
    xp = numpy.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (w + 2 * pad - kw) // stride + 1
    y = numpy.zeros((n, out_c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride : i * stride + kh, j * stride : j * stride + kw]
            y[:, :, i, j] = numpy.einsum("nchw,ochw->no", patch, W)
    return y + b[None, :, None, None]


def test_small_network_matches_numpy(tmp_path):
    rng = numpy.random.RandomState(0)
    W1 = rng.uniform(-1, 1, (4, 3, 3, 3))
    b1 = rng.uniform(-1, 1, 4)
    W2 = rng.uniform(-1, 1, (5, 4 * 2 * 2))
    b2 = rng.uniform(-1, 1, 5)
    net = caffe_pb2.NetParameter()
    _layer(net, "data", "Input", [], ["data"])
    conv = _layer(net, "conv1", "Convolution", ["data"], ["conv1"])
    conv.convolution_param.num_output = 4
    conv.convolution_param.kernel_size.append(3)
    conv.convolution_param.pad.append(1)
    _blob(conv, W1.shape, W1)
    _blob(conv, b1.shape, b1)
    relu = _layer(net, "relu1", "ReLU", ["conv1"], ["conv1"])
    relu.relu_param.negative_slope = 0.25
    pool = _layer(net, "pool1", "Pooling", ["conv1"], ["pool1"])
    pool.pooling_param.pool = caffe_pb2.PoolingParameter.MAX
    pool.pooling_param.kernel_size = 2
    pool.pooling_param.stride = 2
    fc = _layer(net, "fc", "InnerProduct", ["pool1"], ["fc"])
    fc.inner_product_param.num_output = 5
    _blob(fc, W2.shape, W2)
    _blob(fc, b2.shape, b2)
    _layer(net, "prob", "Softmax", ["fc"], ["prob"])
    func = caffe.CaffeFunction(_save(net, tmp_path))

    x = rng.uniform(-1, 1, (2, 3, 4, 4)).astype(numpy.float32)
    with chainer.using_config("train", False):
        fc_out, prob = func(inputs={"data": x}, outputs=["fc", "prob"])

    h = _conv_reference(x.astype(numpy.float64), W1, b1, 1, 1)
    h = numpy.where(h > 0, h, 0.25 * h)
    h = h.reshape(2, 4, 2, 2, 2, 2).max(axis=(3, 5))  # 2x2 max pooling, stride 2
    expected = h.reshape(2, -1) @ W2.T + b2
    numpy.testing.assert_allclose(fc_out.array, expected, rtol=1e-5, atol=1e-5)
    e = numpy.exp(expected - expected.max(axis=1, keepdims=True))
    numpy.testing.assert_allclose(prob.array, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)
    assert [name for name, _, _ in func.layers] == ["conv1", "relu1", "pool1", "fc", "prob"]
    assert isinstance(func.conv1, chainer.links.Convolution2D)


def test_grouped_convolution_equals_two_separate_convolutions(tmp_path):
    rng = numpy.random.RandomState(1)
    W = rng.uniform(-1, 1, (4, 2, 3, 3))  # 2 groups: 2 output channels each, from 2 inputs each
    net = caffe_pb2.NetParameter()
    conv = _layer(net, "conv", "Convolution", ["x"], ["y"])
    conv.convolution_param.kernel_size.append(3)
    conv.convolution_param.group = 2
    conv.convolution_param.bias_term = False
    _blob(conv, W.shape, W)
    func = caffe.CaffeFunction(_save(net, tmp_path))
    x = rng.uniform(-1, 1, (1, 4, 5, 5)).astype(numpy.float32)
    (y,) = func(inputs={"x": x}, outputs=["y"])
    zero = numpy.zeros(2)
    first = _conv_reference(x[:, :2].astype(numpy.float64), W[:2], zero, 1, 0)
    second = _conv_reference(x[:, 2:].astype(numpy.float64), W[2:], zero, 1, 0)
    numpy.testing.assert_allclose(y.array, numpy.concatenate([first, second], axis=1), rtol=1e-5, atol=1e-5)


def test_eltwise_concat_slice_split_and_batch_norm(tmp_path):
    rng = numpy.random.RandomState(2)
    net = caffe_pb2.NetParameter()
    split = _layer(net, "split", "Split", ["a"], ["a1", "a2"])
    assert split.name == "split"
    summed = _layer(net, "sum", "Eltwise", ["a1", "b"], ["s"])
    summed.eltwise_param.coeff.extend([2.0, -1.0])
    _layer(net, "prod", "Eltwise", ["a2", "b"], ["p"]).eltwise_param.operation = caffe_pb2.EltwiseParameter.PROD
    _layer(net, "cat", "Concat", ["s", "p"], ["c"])
    sliced = _layer(net, "slice", "Slice", ["c"], ["c1", "c2", "c3"])
    sliced.slice_param.slice_point.extend([1, 5])
    bn = _layer(net, "bn", "BatchNorm", ["c2"], ["n"])
    mean, var = rng.uniform(-1, 1, 4), rng.uniform(0.5, 1, 4)
    _blob(bn, (4,), mean * 2)
    _blob(bn, (4,), var * 2)
    _blob(bn, (1,), [2.0])  # Caffe's scale factor of the stored sums
    func = caffe.CaffeFunction(_save(net, tmp_path))
    assert func.split_map == {"a1": "a", "a2": "a"}
    a = rng.uniform(-1, 1, (2, 3)).astype(numpy.float32)
    b = rng.uniform(-1, 1, (2, 3)).astype(numpy.float32)
    with chainer.using_config("train", False):
        c1, c2, n = func(inputs={"a": a, "b": b}, outputs=["c1", "c2", "n"])
    c = numpy.concatenate([2 * a - b, a * b], axis=1)
    numpy.testing.assert_allclose(c1.array, c[:, :1], rtol=1e-6)
    numpy.testing.assert_allclose(c2.array, c[:, 1:5], rtol=1e-6)
    expected = (c[:, 1:5] - mean) / numpy.sqrt(var + 1e-5)
    numpy.testing.assert_allclose(n.array, expected, rtol=1e-4, atol=1e-5)


def test_old_layer_format_is_read(tmp_path):
    net = caffe_pb2.NetParameter()
    layer = net.layers.add()
    layer.name, layer.type = "fc", caffe_pb2.V1LayerParameter.INNER_PRODUCT
    layer.bottom.append("x")
    layer.top.append("y")
    layer.inner_product_param.bias_term = False
    blob = layer.blobs.add()
    blob.num, blob.channels, blob.height, blob.width = 1, 1, 2, 3
    blob.data.extend([1, 2, 3, 4, 5, 6])
    relu = net.layers.add()
    relu.name, relu.type = "relu", caffe_pb2.V1LayerParameter.RELU
    relu.bottom.append("y")
    relu.top.append("z")
    func = caffe.CaffeFunction(_save(net, tmp_path))
    x = numpy.array([[1.0, -1.0, 0.0]], numpy.float32)
    (z,) = func(inputs={"x": x}, outputs=["z"])
    numpy.testing.assert_array_equal(z.array, [[0.0, 0.0]])  # [1-2, 4-5] -> relu
    assert func.fc.W.shape == (2, 3)


def test_unsupported_layers_and_bad_files(tmp_path):
    net = caffe_pb2.NetParameter()
    _layer(net, "acc", "Accuracy", ["x", "t"], ["acc"])
    with pytest.warns(UserWarning, match="skipping layer 'acc': the Accuracy layer type is not supported"):
        func = caffe.CaffeFunction(_save(net, tmp_path))
    assert func.layers == []
    with pytest.raises(KeyError, match="the blob 'acc' was not computed"):
        func(inputs={"x": numpy.zeros(1)}, outputs=["acc"])
    pooling = caffe_pb2.NetParameter()
    _layer(pooling, "p", "Pooling", ["x"], ["y"]).pooling_param.pool = caffe_pb2.PoolingParameter.STOCHASTIC
    with pytest.raises(RuntimeError, match="STOCHASTIC pooling is not supported"):
        caffe.CaffeFunction(_save(pooling, tmp_path))
    garbage = tmp_path / "garbage.caffemodel"
    garbage.write_bytes(b"\xff\xff\xff\xff")
    with pytest.raises(ValueError, match="is not a binary Caffe model"):
        caffe.CaffeFunction(str(garbage))
    with pytest.raises(TypeError, match="model_path must be a path"):
        caffe.CaffeFunction(3)


def test_messages_round_trip_and_constants():
    assert (caffe_pb2.TRAIN, caffe_pb2.TEST) == (0, 1)
    layer = caffe_pb2.LayerParameter(name="c", type="Convolution")
    layer.convolution_param.kernel_h = 3
    parsed = caffe_pb2.LayerParameter.FromString(layer.SerializeToString())
    assert parsed.convolution_param.kernel_h == 3 and parsed.convolution_param.HasField("kernel_h")
    assert not parsed.convolution_param.HasField("stride_h")
    assert parsed.convolution_param.bias_term is True  # proto2 default
    assert parsed.lrn_param.beta == pytest.approx(0.75)
