"""chainer.exporters.caffe: the exported network, read back with Caffe's message classes
and run by chainer.links.caffe.CaffeFunction (an independent reader)."""

import importlib
import os

import numpy as np
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer.exporters import caffe

caffe_pb2 = pytest.importorskip("chainer.links.caffe.protobuf3.caffe_pb2")


class Net(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(3, 2, ksize=3, stride=1, pad=1)
            self.bn = L.BatchNormalization(2, eps=1e-3)
            self.fc = L.Linear(None, 4)

    def forward(self, x):
        h = F.max_pooling_2d(F.relu(self.bn(self.conv(x))), 2, 2)
        return F.softmax(self.fc(h) + self.fc(h))


def test_export_writes_a_network_caffe_function_reproduces(tmp_path):
    model = Net()
    rng = np.random.RandomState(0)
    model.bn.avg_mean[...] = rng.rand(2)
    model.bn.avg_var[...] = rng.rand(2) + 0.5
    x = rng.rand(1, 3, 6, 6).astype(np.float32)
    caffe.export(model, (x,), str(tmp_path), graph_name="net")

    net = caffe_pb2.NetParameter.FromString((tmp_path / "chainer_model.caffemodel").read_bytes())
    assert net.name == "net" and list(net.input) == ["data"]
    # (Linear may flatten its input with a Reshape layer first.)
    types = [layer.type for layer in net.layer if layer.type != "Reshape"]
    assert types == [
        "Convolution",
        "BatchNorm",
        "Scale",
        "ReLU",
        "Pooling",
        "InnerProduct",
        "InnerProduct",
        "Eltwise",
        "Softmax",
    ]
    conv = net.layer[0]
    np.testing.assert_array_equal(np.asarray(conv.blobs[0].data).reshape(2, 3, 3, 3), model.conv.W.array)
    assert list(conv.bottom) == ["data"]
    assert (conv.convolution_param.kernel_h, conv.convolution_param.pad_w) == (3, 1)
    fcs = [layer for layer in net.layer if layer.type == "InnerProduct"]
    (add,) = [layer for layer in net.layer if layer.type == "Eltwise"]
    assert list(add.bottom) == [fcs[0].top[0], fcs[1].top[0]]
    assert os.path.getsize(tmp_path / "chainer_model.prototxt") > 0

    reread = L.caffe.CaffeFunction(str(tmp_path / "chainer_model.caffemodel"))
    with chainer.using_config("train", False):
        expected = model(x).array
        (y,) = reread(inputs={"data": x}, outputs=[net.layer[-1].top[0]])
    np.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-5)


def test_export_refuses_functions_without_a_caffe_layer(tmp_path):
    class Odd(chainer.Chain):
        def forward(self, x):
            return F.tanh(x)

    with pytest.raises(NotImplementedError, match="no Caffe layer for the function"):
        caffe.export(Odd(), (np.ones((1, 2), np.float32),), str(tmp_path))


def test_export_module_is_reachable_from_chainer():
    assert importlib.import_module("chainer.exporters").caffe is caffe
