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


def convert_scaled_add(params):
    gb = onnx_helper.GraphBuilder()
    scale = params.context.add_const(numpy.array(params.func.scale, numpy.float32), "scale")
    h = gb.op("Mul", [gb.op("Exp", [params.input_names[1]]), scale])
    gb.op("Add", [params.input_names[0], h])
    return gb.nodes(params.output_names)


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
    (got,) = run_onnx(onnx_model, {"Input_0": x, "Input_1": y}).values()
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


def test_defaults_of_the_wrapped_function_are_attributes():
    @replace_func.as_funcnode("AddConstant", rename_attributes=[("b", "value")])
    def add(x, b=0.25):
        return x + b

    y = add(chainer.Variable(gen.increasing(2)))
    assert y.creator.value == 0.25
    numpy.testing.assert_allclose(y.array, gen.increasing(2) + 0.25)


def test_inputs_and_outputs_in_nested_structures(run_onnx):
    def f(pair, scale=2.0):
        a, b = pair
        return {"sum": a + b, "parts": [a * scale, b * scale]}

    wrapped = replace_func.fake_as_funcnode(f, "Nested", experimental_warning=False)
    a, b = chainer.Variable(gen.increasing(3)), chainer.Variable(gen.positive_increasing(3))
    out = wrapped([a, b], scale=3.0)
    # The structure comes back with the node's outputs in it.
    assert set(out) == {"sum", "parts"} and len(out["parts"]) == 2
    node = out["sum"].creator
    assert node.label == "Nested" and node.scale == 3.0
    assert [n is v.node for n, v in zip(node.inputs, (a, b))] == [True, True]
    assert all(v.creator is node for v in out["parts"])
    numpy.testing.assert_allclose(out["parts"][1].array, 3.0 * b.array)


def test_wrapped_function_returning_arrays():
    wrapped = replace_func.fake_as_funcnode(lambda x: x.array * 2, "Twice", experimental_warning=False)
    x = chainer.Variable(gen.increasing(3))
    y = wrapped(x)
    assert isinstance(y, chainer.Variable) and y.creator.label == "Twice"
    numpy.testing.assert_allclose(y.array, 2 * gen.increasing(3))
    with pytest.raises(ValueError, match="Twice: the function wrapped by fake_as_funcnode returned arrays"):
        F.sum(y).backward()


def test_backward_does_not_touch_other_gradients():
    a, b = chainer.Variable(numpy.array(2.0)), chainer.Variable(numpy.array(3.0))
    x0 = a * b
    x1 = chainer.Variable(numpy.array(5.0))
    f = replace_func.fake_as_funcnode(lambda p, q: p * q, "Prod", experimental_warning=False)
    gx0, gx1 = chainer.grad([f(x0, x1)], [x0, x1], set_grad=True)
    # d(pq)/dp = q, d(pq)/dq = p; nothing beyond x0 receives a gradient.
    assert float(gx0.array) == 5.0 and float(gx1.array) == 6.0
    assert x0.grad is not None and x1.grad is not None
    assert a.grad is None and b.grad is None
