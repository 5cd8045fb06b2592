import io
import warnings

import numpy
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import chainer  # noqa: E402
import chainer.functions as F  # noqa: E402
import chainer.links as L  # noqa: E402
import onnx_chainer  # noqa: E402
from chainer import function_hook, plugins  # noqa: E402
from onnx_chainer import onnx_helper  # noqa: E402
from onnx_chainer.export import RetainInputHook, check_onnx_model, format_customized_shapes  # noqa: E402
from onnx_chainer.testing import input_generator as gen  # noqa: E402


class LeNet(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(1, 4, 5, pad=2)
            self.conv2 = L.Convolution2D(4, 6, 3)
            self.fc1 = L.Linear(None, 16)
            self.fc2 = L.Linear(16, 10)

    def forward(self, x):
        h = F.max_pooling_2d(F.relu(self.conv1(x)), 2)
        h = F.max_pooling_2d(F.relu(self.conv2(h)), 2)
        h = F.dropout(F.relu(self.fc1(h)))
        return F.softmax(self.fc2(h))


class MLPBN(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(6, 8)
            self.bn1 = L.BatchNormalization(8)
            self.l2 = L.Linear(8, 3)

    def forward(self, x):
        return self.l2(F.tanh(self.bn1(self.l1(x))))


def _output(run_onnx, onnx_model, feeds):
    """The value of the only output."""
    (value,) = run_onnx(onnx_model, feeds).values()
    return value


@pytest.mark.parametrize("opset", [7, 11, 26])
def test_lenet_matches_chainer(opset, check_export, op_types):
    model = LeNet()
    x = numpy.random.rand(2, 1, 16, 16).astype(numpy.float32)
    onnx_model = check_export(model, x, opset_version=opset, rtol=1e-4, atol=1e-6)
    ops = op_types(onnx_model)
    assert ops.count("Conv") == 2 and ops.count("MaxPool") == 2 and ops.count("Gemm") == 2
    assert "Dropout" not in ops  # test mode: dropout is the identity and not recorded
    assert onnx_model.opset_import[0].version == opset


def test_mlp_with_batch_normalization_matches_chainer(check_export):
    model = MLPBN()
    with chainer.using_config("train", True):
        for _ in range(3):
            model(numpy.random.randn(5, 6).astype(numpy.float32))
    onnx_model = check_export(model, numpy.random.randn(4, 6).astype(numpy.float32), rtol=1e-5, atol=1e-5)
    names = {i.name for i in onnx_model.graph.initializer}
    assert {"param_bn1_avg_mean", "param_bn1_avg_var", "param_bn1_gamma", "param_bn1_beta"} <= names


def test_default_opset_and_pinned_ir_version():
    model = chainer.Sequential(L.Linear(3, 2))
    onnx_model = onnx_chainer.export(model, gen.increasing(1, 3))
    assert onnx_model.opset_import[0].version == min(onnx.defs.onnx_opset_version(), 26)
    assert onnx_model.ir_version <= 13
    assert onnx_chainer.MINIMUM_OPSET_VERSION == 7 and onnx_chainer.MAXIMUM_OPSET_VERSION == 26
    assert onnx_chainer.export(model, gen.increasing(1, 3), opset_version=7).ir_version == 4
    assert onnx_model.producer_name == "Chainer"


@pytest.mark.parametrize("opset", [6, 27, "11", True])
def test_bad_opset_version(opset):
    model = chainer.Sequential(L.Linear(3, 2))
    with pytest.raises((ValueError, TypeError), match="onnx_chainer.export: opset_version"):
        onnx_chainer.export(model, gen.increasing(1, 3), opset_version=opset)


def test_outputs_are_named_after_the_functions_that_made_them():
    model = chainer.Sequential(L.Linear(3, 3), F.relu, L.Linear(3, 2))
    onnx_model = onnx_chainer.export(model, gen.increasing(1, 3))
    assert [o.name for o in onnx_model.graph.output] == ["LinearFunction_1"]
    # A function of several outputs numbers them.
    onnx_model = onnx_chainer.export(lambda x: F.split_axis(x, 2, axis=1), gen.increasing(2, 4))
    assert [o.name for o in onnx_model.graph.output] == ["SplitAxis_0_0", "SplitAxis_0_1"]


def test_names_of_inputs_outputs_and_multiple_io(run_onnx):
    class Two(chainer.Chain):
        def forward(self, a, b):
            return a * b, F.relu(a - b)

    a, b = gen.increasing(2, 3), gen.positive_increasing(2, 3)
    onnx_model, inputs, outputs = onnx_chainer.export(
        Two(), (a, b), input_names=["a", "b"], output_names=["prod", "diff"], return_named_inout=True
    )
    assert [i.name for i in onnx_model.graph.input] == ["a", "b"]
    assert [o.name for o in onnx_model.graph.output] == ["prod", "diff"]
    assert list(inputs) == ["a", "b"] and list(outputs) == ["prod", "diff"]
    got = run_onnx(onnx_model, {"a": a, "b": b})
    numpy.testing.assert_allclose(got["prod"], a * b)
    numpy.testing.assert_allclose(got["diff"], numpy.maximum(a - b, 0))


def test_dict_inputs_and_outputs(run_onnx):
    class D(chainer.Chain):
        def forward(self, x, y):
            return {"sum": x + y, "x_again": x}

    x, y = gen.increasing(3), gen.positive_increasing(3)
    onnx_model = onnx_chainer.export(
        D(), {"x": x, "y": y}, input_names={"y": "why"}, output_names={"sum": "total", "x_again": "copy"}
    )
    assert [i.name for i in onnx_model.graph.input] == ["x", "why"]
    assert [o.name for o in onnx_model.graph.output] == ["total", "copy"]
    got = run_onnx(onnx_model, {"x": x, "why": y})
    numpy.testing.assert_allclose(got["total"], x + y)
    # An output that is a graph input goes through an Identity node.
    numpy.testing.assert_array_equal(got["copy"], x)


def test_wrong_names():
    model = chainer.Sequential(F.relu)
    with pytest.raises(ValueError, match="input_names has 2 name"):
        onnx_chainer.export(model, gen.increasing(3), input_names=["a", "b"])
    with pytest.raises(ValueError, match="unknown key"):
        onnx_chainer.export(model, gen.increasing(3), output_names={"nope": "x"})
    with pytest.raises(ValueError, match="names must be unique"):
        onnx_chainer.export(lambda a, b: a + b, (gen.increasing(3), gen.increasing(3)), input_names=["a", "a"])


def test_bad_args():
    with pytest.raises(TypeError, match=r"args\[0\] must be an array"):
        onnx_chainer.export(chainer.Sequential(F.relu), [1, 2])


@pytest.mark.parametrize(
    "returned, error",
    [
        (lambda x: x.array, RuntimeError),  # not a variable nor a collection of them
        (lambda x: 3, RuntimeError),
        (lambda x: (x, x.array), ValueError),  # a collection holding an array
        (lambda x: ([x],), ValueError),  # nested collections
    ],
)
def test_outputs_must_be_variables(returned, error):
    with pytest.raises(error, match="Unexpected output type|must be Chainer Variable"):
        onnx_chainer.export(lambda x: returned(x), gen.increasing(3))


def test_constants_fed_to_the_graph_are_embedded(run_onnx):
    c = numpy.array([1.0, -2.0, 3.0], numpy.float32)
    onnx_model = onnx_chainer.export(lambda x: F.add(x, c) * F.exp(x), gen.increasing(3))
    assert [i.name for i in onnx_model.graph.input] == ["Input_0"]
    x = gen.increasing(3)
    got = _output(run_onnx, onnx_model, {"Input_0": x})
    numpy.testing.assert_allclose(got, (x + c) * numpy.exp(x), rtol=1e-6)


def test_functions_of_constants_only_are_in_the_graph(run_onnx, op_types):
    # F.sigmoid of an array the model computed: no input requires grad, yet the function
    # is exported (as Chainer 7.8.1 recorded it), with the array as a constant.
    onnx_model = onnx_chainer.export(lambda x: F.sigmoid(x.array * 2), gen.increasing(3))
    assert op_types(onnx_model) == ["Sigmoid"]
    assert onnx_model.graph.node[-1].input[0] != "Input_0"
    got = _output(run_onnx, onnx_model, {"Input_0": gen.increasing(3)})
    numpy.testing.assert_allclose(got, 1 / (1 + numpy.exp(-2 * gen.increasing(3))), rtol=1e-6)


def test_export_params_false_makes_parameters_inputs(run_onnx):
    model = chainer.Sequential(L.Linear(3, 2))
    x = gen.increasing(1, 3)
    onnx_model = onnx_chainer.export(model, x, export_params=False)
    assert [i.name for i in onnx_model.graph.input] == ["Input_0", "param_0_W", "param_0_b"]
    assert len(onnx_model.graph.initializer) == 0
    W, b = model[0].W.array, model[0].b.array
    got = _output(run_onnx, onnx_model, {"Input_0": x, "param_0_W": W, "param_0_b": b})
    numpy.testing.assert_allclose(got, x @ W.T + b, rtol=1e-6)


def test_filename_save_text_and_file_object(tmp_path):
    model = chainer.Sequential(L.Linear(3, 2), F.relu)
    path = tmp_path / "m.onnx"
    onnx_model = onnx_chainer.export(model, gen.increasing(1, 3), filename=str(path), save_text=True, graph_name="G")
    loaded = onnx.load(str(path))
    assert loaded == onnx_model and loaded.graph.name == "G"
    assert "Gemm" in (tmp_path / "m.onnx.txt").read_text()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary left
    buf = io.BytesIO()
    onnx_chainer.export(model, gen.increasing(1, 3), filename=buf, graph_name="G", no_testcase=True)
    assert onnx.load_from_string(buf.getvalue()) == onnx_model


def test_node_names_are_unique_and_say_where_they_come_from():
    model = chainer.Sequential(L.Linear(3, 3), F.relu, L.Linear(3, 3), F.relu)
    onnx_model = onnx_chainer.export(model, gen.increasing(1, 3))
    names = [n.name for n in onnx_model.graph.node]
    assert names == ["LinearFunction_0", "ReLU_0", "LinearFunction_1", "ReLU_1"]


def test_unsupported_function_names_the_node_and_the_remedy():
    class Odd(chainer.FunctionNode):
        def forward(self, inputs):
            return (inputs[0] * 2,)

    with pytest.raises(ValueError, match=r"no ONNX converter for the function node 'Odd'.*external_converters"):
        onnx_chainer.export(lambda x: Odd().apply((x,))[0], gen.increasing(3))


def _double(func, opset_version, input_names, output_names, context):
    two = context.add_const(numpy.array(2, numpy.float32), "two")
    return onnx_helper.make_node("Mul", [input_names[0], two], output_names)


def _double_external(params):
    return _double(params.func, params.opset_version, params.input_names, params.output_names, params.context)


class Twice(chainer.FunctionNode):
    def forward(self, inputs):
        return (inputs[0] * 2,)


def test_external_converter_takes_params_and_overrides(run_onnx, op_types):
    x = gen.increasing(3)
    onnx_model = onnx_chainer.export(
        lambda v: Twice().apply((v,))[0], x, external_converters={"Twice": _double_external}
    )
    numpy.testing.assert_allclose(_output(run_onnx, onnx_model, {"Input_0": x}), 2 * x)
    # An external converter replaces a builtin one for this export only.
    onnx_model = onnx_chainer.export(chainer.Sequential(F.relu), x, external_converters={"ReLU": _double_external})
    assert op_types(onnx_model) == ["Mul"]
    assert op_types(onnx_chainer.export(chainer.Sequential(F.relu), x)) == ["Relu"]


def test_plugin_registered_converter_is_used(run_onnx):
    class Plugin:
        @plugins.hookimpl
        def chainer_register_onnx_converters(self, register):
            register("Twice", _double)

    x = gen.increasing(3)
    plugins.register(Plugin(), name="test-onnx-twice")
    try:
        assert onnx_chainer.mapping.registered_converters.origin("Twice") == "test-onnx-twice"
        onnx_model = onnx_chainer.export(lambda v: Twice().apply((v,))[0], x)
        numpy.testing.assert_allclose(_output(run_onnx, onnx_model, {"Input_0": x}), 2 * x)
    finally:
        plugins.unregister(name="test-onnx-twice")
    assert "Twice" not in onnx_chainer.mapping.registered_converters
    with pytest.raises(ValueError, match="no ONNX converter"):
        onnx_chainer.export(lambda v: Twice().apply((v,))[0], x)


def test_builtin_converters_register_through_the_hook():
    registry = onnx_chainer.mapping.registered_converters
    assert registry.origin("ReLU") == "onnx_chainer.builtin_converters"
    assert set(onnx_chainer.mapping.converters) <= set(registry)


def test_invalid_plugin_registration_warns():
    class Bad:
        @plugins.hookimpl
        def chainer_register_onnx_converters(self, register):
            register("Bad", "not callable")

    plugins.register(Bad(), name="test-onnx-bad")
    try:
        with pytest.warns(plugins.PluginWarning, match="test-onnx-bad.*not callable"):
            assert "Bad" not in onnx_chainer.mapping.registered_converters
    finally:
        plugins.unregister(name="test-onnx-bad")


def test_convert_parameter():
    model = chainer.Sequential(L.Linear(3, 2))
    ctx = onnx_chainer.context.Context(model)
    tensor = onnx_chainer.convert_parameter(model[0].W, ctx)
    assert tensor.name == "param_0_W"
    numpy.testing.assert_array_equal(onnx.numpy_helper.to_array(tensor), model[0].W.array)
    assert ctx.get_link(model[0].W) is model[0]
    with pytest.raises(TypeError, match="convert_parameter"):
        onnx_chainer.convert_parameter(3, ctx)


def test_context_names_constants_and_parameters():
    ctx = onnx_chainer.context.Context(chainer.Sequential(L.Linear(3, 2)))
    v = chainer.Variable(gen.increasing(2))
    name = ctx.get_name(v)
    assert ctx.get_name(v) == name
    ctx.set_name(v, "mine", pinned=True)
    assert ctx.get_name(v) == "mine" and ctx.is_pinned(v)
    ctx.set_name(v, "other")
    assert ctx.get_name(v) == "mine"
    onnx_helper.set_func_name("F_0")
    # Constants are Constant nodes, parameters initializers.
    assert ctx.add_const(numpy.arange(3), "c") == "F_0_const_c"
    assert ctx.add_const(numpy.zeros(1), "c") == "F_0_const_c_1"
    assert [n.op_type for n in ctx.constants] == ["Constant", "Constant"]
    numpy.testing.assert_array_equal(onnx.numpy_helper.to_array(ctx.constants[0].attribute[0].t), numpy.arange(3))
    assert ctx.add_param(numpy.zeros(1), "w") == "F_0_param_w"
    assert ctx.add_param(numpy.zeros(1), "w", use_original_name=True) == "w"
    assert [t.name for t in ctx.initializers()] == ["F_0_param_w", "w"]


def test_integer_constants_before_opset_9_are_cast_from_float(op_types):
    # Constant holds floating point values only before opset 9.
    onnx_model = onnx_chainer.export(lambda x: F.reshape(x, (3, 2)), gen.increasing(2, 3), opset_version=7)
    onnx.checker.check_model(onnx_model, full_check=True)
    assert len(onnx_model.graph.initializer) == 0
    assert [n.op_type for n in onnx_model.graph.node] == ["Constant", "Cast", "Reshape"]


def test_retain_input_hook_keeps_the_leaves_a_forward_creates():
    class Child(chainer.Chain):
        def forward(self, x, h):
            return F.stack([x, chainer.as_variable(h)])

    class Parent(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.child = Child()

        def forward(self, x):
            seven = chainer.Variable(numpy.array(7, numpy.float32))
            return self.child(x, seven) + F.stack([x, x])

    x = chainer.Variable(numpy.array(3, numpy.float32))
    with RetainInputHook() as hook:
        Parent()(x)
    # The variable made by the parent and passed to the child is retained; the model's
    # own input (held by the caller) is not.
    assert len(hook.retain_inputs) == 1
    assert float(hook.retain_inputs[0].array) == 7.0
    # Both hook kinds are off again.
    assert not function_hook.get_function_hooks()


def test_uninitialized_parameters_warn():
    class Partly(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.used = L.Linear(None, 2)
                self.unused = L.Linear(None, 2)

        def forward(self, x):
            return self.used(x)

    with pytest.warns(UserWarning, match=r"\['/unused/W'\] are not initialized"):
        onnx_model = onnx_chainer.export(Partly(), gen.increasing(1, 3))
    assert sorted(i.name for i in onnx_model.graph.initializer) == ["param_used_W", "param_used_b"]


def test_input_shapes_declare_symbolic_dimensions(run_onnx):
    model = chainer.Sequential(L.Linear(3, 2), F.relu)
    onnx_model = onnx_chainer.export(model, gen.increasing(4, 3), input_shapes=("batch", 3))
    dims = onnx_model.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param == "batch" and dims[1].dim_value == 3
    assert onnx_model.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    # The exported graph runs on another batch size.
    x = gen.increasing(7, 3)
    expected = numpy.maximum(x @ model[0].W.array.T + model[0].b.array, 0)
    numpy.testing.assert_allclose(_output(run_onnx, onnx_model, {"Input_0": x}), expected, rtol=1e-6)


@pytest.mark.parametrize(
    "args, shapes",
    [
        (numpy.zeros((2, 3), numpy.float32), "?"),  # not a shape
        (numpy.zeros((2, 3), numpy.float32), ("?", 3, 1)),  # wrong rank
        ((numpy.zeros((2, 3), numpy.float32),) * 2, [("?", 3)]),  # one shape for two inputs
        ({"a": numpy.zeros((2, 3), numpy.float32)}, {"b": ("?", 3)}),  # unknown key
    ],
)
def test_bad_input_shapes(args, shapes):
    with pytest.raises(ValueError, match="input_shapes"):
        onnx_chainer.export(lambda *xs, **kw: F.relu((list(xs) + list(kw.values()))[0]), args, input_shapes=shapes)


def test_format_customized_shapes():
    x = numpy.zeros((2, 3), numpy.float32)
    fmt = format_customized_shapes
    assert fmt(x, ("b", 3)) == [("b", 3)]
    assert fmt([x, x], [("b", 3), (2, "c")]) == [("b", 3), (2, "c")]
    assert fmt({"p": x, "q": x}, {"q": (2, 3), "p": ("b", 3)}) == [("b", 3), (2, 3)]


def test_custom_operators_pass_with_a_warning_or_a_domain():
    class Dummy(chainer.FunctionNode):
        def forward(self, inputs):
            return (numpy.ones_like(inputs[0]),)

    def converter(params, domain=None):
        return onnx_helper.make_node("Dummy", params.input_names, params.output_names, domain=domain)

    def model(v):
        return Dummy().apply((v,))[0]

    x = gen.increasing(2, 3)
    # Without a domain the checker rejects the unknown operator: saved with a warning.
    with pytest.warns(UserWarning, match="checker rejects the model"):
        onnx_chainer.export(model, x, external_converters={"Dummy": converter})
    assert onnx_helper.is_support_non_standard_domain()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        onnx_model = onnx_chainer.export(
            model,
            x,
            external_converters={"Dummy": lambda p: converter(p, "my.domain")},
            external_opset_imports={"my.domain": 1},
        )
    assert ("my.domain", 1) in [(o.domain, o.version) for o in onnx_model.opset_import]
    # Without external converters an invalid model is an error.
    bad = onnx_chainer.export(chainer.Sequential(F.relu), x)
    bad.graph.node[0].op_type = "NoSuchOp"
    with pytest.raises(onnx.checker.ValidationError):
        check_onnx_model(bad, None, None)


def test_argmax_exports_from_the_graph(run_onnx):
    x = numpy.random.RandomState(0).rand(3, 4).astype(numpy.float32)
    onnx_model = onnx_chainer.export(lambda v: F.argmax(v, axis=1), x)
    assert len(onnx_model.graph.initializer) == 0
    numpy.testing.assert_array_equal(_output(run_onnx, onnx_model, {"Input_0": x}), x.argmax(axis=1))
