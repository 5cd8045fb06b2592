import numpy
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import chainer
import chainer.functions as F
import onnx_chainer
from chainer import gradient_check
from onnx_chainer import onnx_helper, replace_func
from onnx_chainer.testing import input_generator as gen


@replace_func.as_funcnode("ScaledAdd", rename_attributes=[("alpha", "scale")])
def scaled_add(x, y, alpha=1.0):
    return x + alpha * F.exp(y)


def convert_scaled_add(func, opset_version, input_names, output_names, context):
    gb = onnx_helper.GraphBuilder()
    scale = context.add_const(numpy.array(func.scale, numpy.float32), "scale")
    h = gb.op("Mul", [gb.op("Exp", [input_names[1]]), scale])
    gb.op("Add", [input_names[0], h])
    return gb.nodes(output_names)


def test_wrapped_function_is_one_node_with_attributes():
    x = chainer.Variable(gen.increasing(3))
    y = scaled_add(x, gen.increasing(3), alpha=2.0)
    assert y.creator.label == "ScaledAdd" and y.creator.scale == 2.0
    numpy.testing.assert_allclose(y.array, gen.increasing(3) + 2.0 * numpy.exp(gen.increasing(3)), rtol=1e-6)
    assert y.creator.inputs[0] is x.node


def test_wrapped_function_exports_with_its_converter(run_onnx):
    x, y = gen.increasing(2, 3), gen.positive_increasing(2, 3)
    model = lambda a, b: scaled_add(a, b, alpha=0.5)
    with pytest.raises(ValueError, match="no ONNX converter for the function node 'ScaledAdd'"):
        onnx_chainer.export(model, (x, y))
    onnx_model = onnx_chainer.export(model, (x, y), external_converters={"ScaledAdd": convert_scaled_add})
    got = run_onnx(onnx_model, {"Input_0": x, "Input_1": y})["Output_0"]
    numpy.testing.assert_allclose(got, x + 0.5 * numpy.exp(y), rtol=1e-6)


def test_gradients_are_those_of_the_wrapped_function():
    x = numpy.random.randn(3).astype(numpy.float64)
    y = numpy.random.randn(3).astype(numpy.float64)
    gy = numpy.random.randn(3).astype(numpy.float64)
    gradient_check.check_backward(lambda a, b: scaled_add(a, b, alpha=1.5), (x, y), gy)
    ggx = numpy.random.randn(3).astype(numpy.float64)
    gradient_check.check_double_backward(lambda a, b: scaled_add(a, b, alpha=1.5), (x, y), gy, (ggx, ggx))


def test_fake_as_funcnode_positional_attributes_and_warning(monkeypatch):
    import sys

    # The experimental warning is emitted once per process: forget earlier ones.
    monkeypatch.setattr(sys.modules["chainer.utils.experimental"], "_warned", set())
    with pytest.warns(FutureWarning, match="fake_as_funcnode is experimental"):
        f = replace_func.fake_as_funcnode(lambda x, k: x * k, "Times", rename_attributes=[(1, "k")])
    y = f(chainer.Variable(gen.increasing(2)), 3.0)
    assert y.creator.label == "Times" and y.creator.k == 3.0
    g = replace_func.fake_as_funcnode(lambda x, k: x * k, "Times", experimental_warning=False)
    assert g(chainer.Variable(gen.increasing(2)), 4.0).creator.arg1 == 4.0
    with pytest.raises(ValueError, match="Times: the wrapped function got no variable"):
        g(1.0, 2.0)
