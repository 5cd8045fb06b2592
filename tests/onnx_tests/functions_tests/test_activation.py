import numpy
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import chainer.functions as F
import chainer.links as L
from onnx_chainer.testing import input_generator as gen

X4 = gen.nonzero_increasing(2, 3, 4, 5)
X3 = gen.nonzero_increasing(2, 3, 4)

CASES = {
    "relu": (lambda m, x: F.relu(x), X4, {}, "Relu"),
    "leaky_relu": (lambda m, x: F.leaky_relu(x, slope=0.3), X4, {}, "LeakyRelu"),
    "elu": (lambda m, x: F.elu(x, alpha=0.5), X4, {}, "Elu"),
    "sigmoid": (lambda m, x: F.sigmoid(x), X4, {}, "Sigmoid"),
    "tanh": (lambda m, x: F.tanh(x), X4, {}, "Tanh"),
    "softmax_last": (lambda m, x: F.softmax(x, axis=2), X3, {}, "Softmax"),
    "softmax_axis1": (lambda m, x: F.softmax(x * 3, axis=1), X3, {}, "Softmax"),
    "log_softmax_axis1": (lambda m, x: F.log_softmax(x * 3, axis=1), X3, {}, "LogSoftmax"),
    "clipped_relu": (lambda m, x: F.clipped_relu(x, z=0.5), X4, {}, "Clip"),
    "hard_sigmoid": (lambda m, x: F.hard_sigmoid(x * 4), X4, {}, "HardSigmoid"),
    "softplus": (lambda m, x: F.softplus(x, beta=2.0), X4, {}, "Softplus"),
    "prelu": (lambda m, x: m.p(x), X4, {"p": lambda: L.PReLU((3,), init=0.25)}, "PRelu"),
    "swish": (lambda m, x: m.s(x), X4, {"s": lambda: L.Swish((3,), beta_init=1.5)}, "Sigmoid"),
}


@pytest.mark.parametrize("opset", [9, 11, 26])
@pytest.mark.parametrize("case", sorted(CASES))
def test_activation(case, opset, check_export, wrap):
    fn, x, links, op = CASES[case]
    model = wrap(fn, **{k: v() for k, v in links.items()})
    onnx_model = check_export(model, x, opset_version=opset)
    assert op in [n.op_type for n in onnx_model.graph.node]


def test_prelu_parameter_is_named_after_its_link(check_export, wrap):
    model = wrap(lambda m, x: m.p(x), p=L.PReLU((3,), init=0.25))
    onnx_model = check_export(model, X4)
    assert [i.name for i in onnx_model.graph.initializer if i.name.startswith("param")] == ["param_p_W"]
    numpy.testing.assert_array_equal(
        numpy.frombuffer(onnx_model.graph.initializer[0].raw_data, numpy.float32), numpy.full(3, 0.25, numpy.float32)
    )
