"""chainer.memory_layouts: variables stored channel-last, the functions that accept them,
and backprop through them. References are NumPy transposes written here and numerical
gradients on the semantic (channel-first) view."""

import copy
import io
import pickle
import subprocess
import sys

import numpy as np
import pytest

import chainer
import chainer.functions as F
from chainer import function_node, gradient_check, optimizers, serializers
from chainer import memory_layouts as ml

X = ml.CUDNN_CHANNEL_LAST_X
W = ml.CUDNN_CHANNEL_LAST_W


def nhwc(a):
    return np.ascontiguousarray(np.moveaxis(a, 1, -1))


def nchw(a):
    return np.moveaxis(a, -1, 1)


@pytest.fixture
def rng():
    return np.random.default_rng(0)


# -- shape arithmetic ----------------------------------------------------------------------


def test_semantic_shape_of_a_channel_last_image():
    raw = np.zeros((2, 3, 4, 5))  # (N, H, W, C)
    assert ml.get_raw_shape(raw) == (2, 3, 4, 5)
    assert ml.get_semantic_shape(raw) == (2, 3, 4, 5)  # the standard layout by default
    assert ml.get_semantic_shape(raw, assumed_layout=X) == (2, 5, 3, 4)
    assert ml.get_semantic_shape(chainer.Variable(raw)) == (2, 3, 4, 5)
    v = chainer.Variable(raw, layout=X)
    assert ml.get_semantic_shape(v) == (2, 5, 3, 4)
    assert ml.get_raw_shape(v) == (2, 3, 4, 5)


def test_transposes_round_trip():
    a = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    raw = ml._transpose_array(a, None, X)
    np.testing.assert_array_equal(raw, np.moveaxis(a, 1, -1))
    np.testing.assert_array_equal(ml._transpose_array(raw, X, None), a)
    axes = ml._get_layout_transpose_axes(4, None, W, inverse=True)
    np.testing.assert_array_equal(raw.transpose(axes), a)


def test_standard_names_of_chainer_7():
    assert ml.CUDNN_CHANNEL_FIRST_X is None and ml.CUDNN_CHANNEL_FIRST_W is None


# -- variables -------------------------------------------------------------------------------


def test_a_channel_last_variable_presents_the_semantic_shape(rng):
    raw = rng.standard_normal((2, 4, 5, 3)).astype(np.float32)
    v = chainer.Variable(raw, layout=X)
    assert v.layout == X
    assert v.shape == (2, 3, 4, 5)
    assert (v.ndim, v.size, len(v), v.dtype) == (4, raw.size, 2, np.float32)
    assert v.raw_array is raw
    assert v.node.shape == raw.shape  # the node knows the stored shape (gradients are checked against it)
    assert "(2, 3, 4, 5)" in v.label
    # 3-D and 5-D inputs: the last stored axis is the channel.
    assert chainer.Variable(np.zeros((2, 7, 3)), layout=X).shape == (2, 3, 7)
    assert chainer.Variable(np.zeros((2, 4, 5, 6, 3)), layout=X).shape == (2, 3, 4, 5, 6)


def test_a_channel_last_variable_refuses_direct_array_access():
    v = chainer.Variable(np.zeros((2, 4, 5, 3), np.float32), layout=X)
    for read in (lambda: v.array, lambda: v.data, lambda: chainer.as_array(v), lambda: v.grad):
        with pytest.raises(RuntimeError, match="non-standard layout"):
            read()
    with pytest.raises(RuntimeError, match="Cannot directly set the underlying array"):
        v.array = np.zeros((2, 4, 5, 3), np.float32)
    with pytest.raises(RuntimeError, match="Cannot directly set the gradient array"):
        v.grad = np.zeros((2, 4, 5, 3), np.float32)
    with pytest.raises(AttributeError):
        v.raw_array = np.zeros((2, 4, 5, 3), np.float32)
    v.grad = None  # clearing is always allowed


def test_repr_shows_the_values_by_meaning():
    raw = np.arange(2 * 2 * 3, dtype=np.float32).reshape(1, 2, 2, 3)
    text = repr(chainer.Variable(raw, layout=X))
    assert text.endswith(f"layout={X})")
    assert text.startswith("variable([[[[ 0.,  3.]")  # channel 0 of the first row: raw[0, 0, :, 0]


def test_bad_layouts_are_refused():
    with pytest.raises(ValueError, match=r"chainer.Variable: memory layout must be one of .* got 'NHWC'"):
        chainer.Variable(np.zeros((1, 2, 3, 4)), layout="NHWC")
    with pytest.raises(ValueError, match="needs an array of at least 3 dimensions"):
        chainer.Variable(np.zeros((2, 3)), layout=X)
    with pytest.raises(ValueError, match="AsLayout: memory layout must be one of"):
        ml.AsLayout("NHWC")
    with pytest.raises(ValueError, match="Variable.as_layout"):
        chainer.Variable(np.zeros((1, 2, 3, 4))).as_layout(1)


def test_gradients_keep_the_layout():
    v = chainer.Variable(np.zeros((2, 4, 5, 3), np.float32), layout=X)
    with pytest.raises(ValueError, match="the gradient has memory layout None but the variable has"):
        v.grad_var = chainer.Variable(np.zeros((2, 3, 4, 5), np.float32))
    with pytest.raises(ValueError, match="the gradient has shape"):
        chainer.Variable(np.zeros((2, 4, 5, 3), np.float32), layout=X, grad=np.zeros((2, 3, 4, 5), np.float32))
    g = chainer.Variable(np.ones((2, 4, 5, 3), np.float32), layout=X)
    v.grad_var = g
    assert v.grad_var is g
    v.cleargrad()
    v._zerograd()
    assert v.grad_var.layout == X and not v.grad_var.raw_array.any()


def test_copies_keep_layout_and_values(rng):
    raw = rng.standard_normal((2, 4, 5, 3)).astype(np.float32)
    v = chainer.Variable(raw, layout=X, grad=raw * 2)
    for c in (copy.copy(v), copy.deepcopy(v), pickle.loads(pickle.dumps(v))):
        assert c.layout == X
        np.testing.assert_array_equal(c.raw_array, raw)
        np.testing.assert_array_equal(c.grad_var.raw_array, raw * 2)
    assert v.to_device("@numpy").layout == X


def test_copydata_copies_by_meaning(rng):
    a = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    v = chainer.Variable(np.zeros((2, 4, 5, 3), np.float32), layout=X)
    v.copydata(chainer.Variable(a))
    np.testing.assert_array_equal(v.raw_array, nhwc(a))
    s = chainer.Variable(np.zeros_like(a))
    s.copydata(v)
    np.testing.assert_array_equal(s.array, a)


# -- conversions -----------------------------------------------------------------------------


def test_as_layout_converts_and_back(rng):
    a = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    s = chainer.Variable(a)
    assert s.as_layout(None) is s
    v = s.as_layout(X)
    assert (v.layout, v.shape) == (X, (2, 3, 4, 5))
    np.testing.assert_array_equal(v.raw_array, nhwc(a))
    assert v.raw_array.flags.c_contiguous  # the memory order is what a layout is for
    assert v.as_layout(X) is v
    back = v.as_layout(None)
    assert back.layout is None
    np.testing.assert_array_equal(back.array, a)
    (w,) = ml.AsLayout(None).apply((v,))
    np.testing.assert_array_equal(w.array, a)
    # The two channel-last layouts store their axes alike.
    np.testing.assert_array_equal(v.as_layout(W).raw_array, nhwc(a))


def test_as_layout_gradients(rng):
    a = rng.standard_normal((2, 3, 4, 3))
    gradient_check.check_backward(lambda x: x.as_layout(X).as_layout(None) * x, a, rng.standard_normal(a.shape))
    v = chainer.Variable(nhwc(a), layout=X)
    gy = rng.standard_normal(a.shape)
    y = v.as_layout(None)
    y.grad = gy
    y.backward()
    assert v.grad_var.layout == X
    np.testing.assert_array_equal(v.grad_var.raw_array, nhwc(gy))


# -- functions -------------------------------------------------------------------------------


def test_elementwise_functions_keep_the_layout(rng):
    raw = rng.standard_normal((2, 4, 5, 3)).astype(np.float32)
    raw2 = rng.uniform(1, 2, (2, 4, 5, 3)).astype(np.float32)
    v, v2 = chainer.Variable(raw, layout=X), chainer.Variable(raw2, layout=X)
    cases = [
        (F.relu(v), np.maximum(raw, 0)),
        (v * 2, raw * 2),
        (v + v2, raw + raw2),
        (v - v2, raw - raw2),
        (v * v2, raw * raw2),
        (v / v2, raw / raw2),
        (1 / v2, 1 / raw2),
        (-v, -raw),
        (abs(v), np.abs(raw)),
        (v2**2, raw2**2),
        (2**v, 2**raw),
        (v2**v, raw2**raw),
        (F.add(v, v2, v), raw + raw2 + raw),
    ]
    for y, expected in cases:
        assert (y.layout, y.shape) == (X, (2, 3, 4, 5)), y.creator.label
        np.testing.assert_allclose(y.raw_array, expected, rtol=1e-6)
    # Broadcasting of stored arrays agrees with broadcasting by meaning: (1, C, 1, 1) is stored (1, 1, 1, C).
    b = chainer.Variable(np.arange(3, dtype=np.float32).reshape(1, 1, 1, 3), layout=X)
    assert b.shape == (1, 3, 1, 1)
    y = v + b
    np.testing.assert_allclose(nchw(y.raw_array), nchw(raw) + np.arange(3).reshape(1, 3, 1, 1))


def test_functions_without_a_layout_check_refuse(rng):
    v = chainer.Variable(rng.standard_normal((2, 4, 5, 3)).astype(np.float32), layout=X)
    for f, name in [
        (F.sum, "Sum"),
        (lambda a: F.reshape(a, (2, -1)), "Reshape"),
        (lambda a: a[0], "GetItem"),
        (lambda a: a.T, "Transpose"),
        (F.tanh, "Tanh"),
    ]:
        with pytest.raises(RuntimeError, match=rf"without explicit `check_layout_forward`.*\nFunction: {name}\n"):
            f(v)


def test_elementwise_functions_refuse_mixed_layouts(rng):
    v = chainer.Variable(np.zeros((2, 4, 5, 3), np.float32), layout=X)
    s = chainer.Variable(np.zeros((2, 3, 4, 5), np.float32))
    with pytest.raises(RuntimeError, match=r"mixed memory layouts.*\nFunction: _ \+ _\nInput layouts: .*X, None"):
        v + s
    with pytest.raises(RuntimeError, match="mixed memory layouts"):
        s * v


def test_type_checks_see_the_semantic_shapes():
    v = chainer.Variable(np.zeros((2, 4, 5, 3), np.float32), layout=X)
    w = chainer.Variable(np.zeros((2, 3, 4, 5), np.float32).reshape(2, 3, 5, 4), layout=X)  # semantic (2, 4, 3, 5)
    with pytest.raises(chainer.utils.type_check.InvalidType, match=r"\(2, 3, 4, 5\)"):
        v + w


def test_backward_through_elementwise_functions(rng):
    def f(a):
        x = a.as_layout(X)
        return (F.relu(x) * x + x / (x * x + 1) - (x - 2) ** 2).as_layout(None)

    a = rng.standard_normal((2, 3, 4, 3))
    gradient_check.check_backward(f, a, rng.standard_normal(a.shape), dtype=np.float64)
    gradient_check.check_double_backward(
        f, a, rng.standard_normal(a.shape), rng.standard_normal(a.shape), dtype=np.float64
    )


def test_gradients_of_a_reused_variable_are_summed_in_its_layout(rng):
    raw = rng.standard_normal((2, 4, 5, 3))
    v = chainer.Variable(raw, layout=X)
    F.sum((v * v + v).as_layout(None)).backward()
    assert v.grad_var.layout == X
    np.testing.assert_allclose(v.grad_var.raw_array, 2 * raw + 1)


def test_a_function_that_understands_layouts():
    class ChannelSum(function_node.FunctionNode):
        def check_layout_forward(self, inputs):
            assert inputs[0].layout == X
            self.output_layouts = (None,)

        def forward(self, inputs):
            return (inputs[0].sum(axis=-1),)  # the stored channel axis

    raw = np.arange(2 * 4 * 5 * 3, dtype=np.float32).reshape(2, 4, 5, 3)
    node = ChannelSum()
    (y,) = node.apply((chainer.Variable(raw, layout=X),))
    assert y.layout is None
    np.testing.assert_array_equal(y.array, raw.sum(axis=-1))
    assert node.input_layouts == (X,) and node.output_layouts == (None,)
    with pytest.raises(ValueError, match="output_layouts: memory layout must be one of"):
        node.output_layouts = ("NHWC",)


def test_no_layout_no_layout_machinery():
    # The per-op path spends nothing on layouts until one is used.
    code = (
        "import numpy, chainer, chainer.functions as F; from chainer import function_node;"
        "x = chainer.Variable(numpy.ones((2, 3, 4, 5), 'f')); F.sum(F.relu(x) * 2).backward();"
        "print(function_node.FunctionNode.apply is function_node._apply_standard, chainer.variable._layouts_enabled);"
        "chainer.Variable(numpy.ones((2, 3, 4), 'f'), layout='CUDNN_CHANNEL_LAST_X');"
        "print(function_node.FunctionNode.apply is function_node._apply_standard, chainer.variable._layouts_enabled)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False", "False", "True"]


# -- batch normalization ---------------------------------------------------------------------


def _bn_reference(a, gamma, beta, axes, eps=2e-5):
    mean = a.mean(axis=axes, keepdims=True)
    var = a.var(axis=axes, keepdims=True)
    return (a - mean) / np.sqrt(var + eps) * gamma + beta


def test_batch_normalization_of_a_channel_last_input(rng):
    a = rng.standard_normal((3, 4, 5, 6)).astype(np.float32)
    gamma, beta = rng.uniform(0.5, 1.5, 4).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    running_mean, running_var = np.zeros(4, np.float32), np.ones(4, np.float32)
    y = F.batch_normalization(
        chainer.Variable(nhwc(a), layout=X), gamma, beta, running_mean=running_mean, running_var=running_var
    )
    assert (y.layout, y.shape) == (X, a.shape)
    expected = _bn_reference(a, gamma.reshape(1, 4, 1, 1), beta.reshape(1, 4, 1, 1), (0, 2, 3))
    np.testing.assert_allclose(nchw(y.raw_array), expected, atol=1e-5)
    np.testing.assert_allclose(running_mean, 0.1 * a.mean(axis=(0, 2, 3)), atol=1e-6)
    np.testing.assert_allclose(running_var, 0.9 + 0.1 * a.var(axis=(0, 2, 3), ddof=1), atol=1e-5)


def test_batch_normalization_with_parameters_over_channel_and_height(rng):
    # The kept axes (C, H) are stored in the order (H, C): computed on the semantic view.
    a = rng.standard_normal((3, 4, 5, 6)).astype(np.float32)
    gamma, beta = rng.uniform(0.5, 1.5, (4, 5)).astype(np.float32), rng.standard_normal((4, 5)).astype(np.float32)
    y = F.batch_normalization(chainer.Variable(nhwc(a), layout=X), gamma, beta, axis=(0, 3))
    assert y.raw_array.flags.c_contiguous
    expected = _bn_reference(a, gamma[None, :, :, None], beta[None, :, :, None], (0, 3))
    np.testing.assert_allclose(nchw(y.raw_array), expected, atol=1e-5)


@pytest.mark.parametrize("param_shape,axis", [((3,), None), ((3, 4), (0, 3))])
def test_batch_normalization_gradients(rng, param_shape, axis):
    a = rng.standard_normal((2, 3, 4, 3))
    gamma, beta = rng.uniform(0.5, 1.5, param_shape), rng.standard_normal(param_shape)

    def f(x, g, b):
        return F.batch_normalization(x.as_layout(X), g, b, axis=axis).as_layout(None)

    gy = rng.standard_normal(a.shape)
    gradient_check.check_backward(f, (a, gamma, beta), gy, dtype=np.float64, atol=1e-4, rtol=1e-4)
    ggs = (rng.standard_normal(a.shape), rng.standard_normal(param_shape), rng.standard_normal(param_shape))
    gradient_check.check_double_backward(f, (a, gamma, beta), gy, ggs, dtype=np.float64, atol=1e-4, rtol=1e-4)


def test_fixed_batch_normalization(rng):
    a = rng.standard_normal((2, 3, 4, 5))
    gamma, beta = rng.uniform(0.5, 1.5, 3), rng.standard_normal(3)
    mean, var = rng.standard_normal(3), rng.uniform(0.5, 2, 3)
    y = F.fixed_batch_normalization(chainer.Variable(nhwc(a), layout=X), gamma, beta, mean, var)
    assert y.layout == X
    expected = (a - mean.reshape(1, 3, 1, 1)) / np.sqrt(var.reshape(1, 3, 1, 1) + 2e-5) * gamma.reshape(
        1, 3, 1, 1
    ) + beta.reshape(1, 3, 1, 1)
    np.testing.assert_allclose(nchw(y.raw_array), expected, rtol=1e-10)

    def f(x, g, b, m, v):
        return F.fixed_batch_normalization(x.as_layout(X), g, b, m, v).as_layout(None)

    gradient_check.check_backward(
        f, (a, gamma, beta, mean, var), rng.standard_normal(a.shape), dtype=np.float64, atol=1e-4, rtol=1e-4
    )


def test_batch_normalization_refuses_parameters_in_a_layout():
    x = chainer.Variable(np.zeros((2, 4, 5, 3), np.float32), layout=X)
    gamma = chainer.Variable(np.ones((1, 1, 3), np.float32), layout=X)  # semantic (1, 3, 1)
    with pytest.raises(RuntimeError, match="only x may have a non-standard memory layout"):
        F.batch_normalization(x, gamma, np.zeros((1, 3, 1), np.float32), axis=(0, 3))


# -- parameters --------------------------------------------------------------------------------


def test_parameter_with_a_layout(rng):
    p = chainer.Parameter(chainer.initializers.Constant(np.arange(6.0).reshape(2, 3, 1, 1)), (2, 3, 4, 5), layout=W)
    assert (p.layout, p.shape, p.raw_array.shape) == (W, (2, 3, 4, 5), (2, 4, 5, 3))
    np.testing.assert_array_equal(nchw(p.raw_array), np.broadcast_to(np.arange(6.0).reshape(2, 3, 1, 1), p.shape))
    assert p.grad_var.layout == W and np.isnan(p.grad_var.raw_array).all()
    lazy = chainer.Parameter(2.0, layout=W)
    assert lazy.layout == W and lazy.raw_array is None
    lazy.initialize((2, 3, 4, 5))
    assert lazy.raw_array.shape == (2, 4, 5, 3) and (lazy.raw_array == 2).all()
    raw = rng.standard_normal((2, 4, 5, 3))
    given = chainer.Parameter(raw, layout=W)  # an array is taken as stored
    assert given.raw_array is raw and given.shape == (2, 3, 4, 5)
    for c in (copy.deepcopy(given), pickle.loads(pickle.dumps(given))):
        assert c.layout == W
        np.testing.assert_array_equal(c.raw_array, raw)
    with pytest.raises(RuntimeError, match="non-standard layout"):
        _ = given.array


def test_optimizers_update_a_parameter_as_stored(rng):
    raw = rng.standard_normal((2, 4, 5, 3)).astype(np.float32)
    link = chainer.Link()
    with link.init_scope():
        link.p = chainer.Parameter(raw.copy(), layout=W)
    opt = optimizers.SGD(lr=0.5)
    opt.setup(link)
    opt.add_hook(chainer.optimizer_hooks.WeightDecay(0.1))
    link.cleargrads()
    F.sum((link.p * link.p).as_layout(None)).backward()
    opt.update()
    np.testing.assert_allclose(link.p.raw_array, raw - 0.5 * (2 * raw + 0.1 * raw), rtol=1e-6)
    assert link.p.grad_var.layout == W


def test_serializers_save_by_meaning(rng):
    a = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    link = chainer.Link()
    with link.init_scope():
        link.p = chainer.Parameter(nhwc(a), layout=W)
    f = io.BytesIO()
    serializers.save_npz(f, link)
    f.seek(0)
    np.testing.assert_array_equal(np.load(f)["p"], a)
    other = chainer.Link()
    with other.init_scope():
        other.p = chainer.Parameter(np.zeros((2, 4, 5, 3), np.float32), layout=W)
    f.seek(0)
    serializers.load_npz(f, other)
    np.testing.assert_array_equal(other.p.raw_array, nhwc(a))
