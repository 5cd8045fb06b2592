"""FunctionNode and old-style Function, following the docs' "Define your own function"."""

import io

import numpy as np
import pytest

import chainer
import chainer.functions as F
from chainer import Function, FunctionNode, Variable, backend, gradient_check
from chainer.function_hooks import PrintHook, TimerHook
from chainer.utils import type_check


class MulAdd(FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, y, z = inputs
        return (x * y + z,)

    def backward(self, target_input_indexes, grad_outputs):
        x, y = self.get_retained_inputs()
        (gw,) = grad_outputs
        return y * gw, x * gw, gw


class ExpAdd(FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(*inputs)
        x, y = inputs
        return (xp.exp(x) + xp.exp(y),)

    def backward(self, target_input_indexes, grad_outputs):
        x, y = self.get_retained_inputs()
        (gz,) = grad_outputs
        return gz * F.exp(x), gz * F.exp(y)


class OldMulAdd(Function):
    def forward(self, inputs):
        x, y, z = inputs
        return (x * y + z,)

    def backward(self, inputs, grad_outputs):
        x, y, z = inputs
        (gw,) = grad_outputs
        return y * gw, x * gw, gw


def _rand(*shape):
    return np.random.uniform(-1, 1, shape).astype(np.float32)


def test_docs_new_style_muladd():
    x, y, z = (Variable(_rand(3, 2)) for _ in range(3))
    (w,) = MulAdd().apply((x, y, z))
    np.testing.assert_allclose(w.array, x.array * y.array + z.array)
    w.grad = np.ones((3, 2), np.float32)
    w.backward()
    np.testing.assert_allclose(x.grad, y.array)
    np.testing.assert_allclose(y.grad, x.array)
    np.testing.assert_allclose(z.grad, np.ones((3, 2)))
    gradient_check.check_backward(
        lambda a, b, c: MulAdd().apply((a, b, c))[0],
        (_rand(3, 2), _rand(3, 2), _rand(3, 2)),
        _rand(3, 2),
        dtype=np.float64,
        atol=1e-4,
        rtol=1e-3,
    )


def test_docs_new_style_supports_double_backprop():
    args = (_rand(2, 2), _rand(2, 2), _rand(2, 2))
    gradient_check.check_double_backward(
        lambda a, b, c: MulAdd().apply((a, b, c))[0], args, _rand(2, 2), args, dtype=np.float64, atol=1e-4, rtol=1e-3
    )
    gradient_check.check_double_backward(
        lambda a, b: ExpAdd().apply((a, b))[0], args[:2], _rand(2, 2), args[:2], dtype=np.float64, atol=1e-4, rtol=1e-3
    )


def test_docs_old_style_muladd():
    x, y, z = (Variable(_rand(3, 2)) for _ in range(3))
    w = OldMulAdd()(x, y, z)
    assert isinstance(w, Variable)
    np.testing.assert_allclose(w.array, x.array * y.array + z.array)
    assert isinstance(w.creator, OldMulAdd)
    w.grad = np.ones((3, 2), np.float32)
    w.backward()
    np.testing.assert_allclose(x.grad, y.array)
    np.testing.assert_allclose(z.grad, np.ones((3, 2)))


def test_old_style_refuses_second_order_instead_of_returning_zero():
    x, y, z = (Variable(_rand(2)) for _ in range(3))
    w = OldMulAdd()(x, y, z)
    (gx,) = chainer.grad([F.sum(w)], [x], enable_double_backprop=True)
    with pytest.raises(NotImplementedError, match="old-style chainer.Function"):
        chainer.grad([F.sum(gx * gx)], [y])


def test_apply_returns_tuple_and_accepts_arrays():
    out = MulAdd().apply((_rand(2), _rand(2), _rand(2)))
    assert isinstance(out, tuple) and isinstance(out[0], Variable)
    # No input requires a gradient: the output names its creator but nothing flows back.
    assert type(out[0].creator) is MulAdd and not out[0].requires_grad
    assert out[0].creator.inputs is None


def test_functions_of_constants_name_their_creator_with_the_rank_of_a_full_graph():
    # Code written for Chainer reads attributes of the creator (dropout's mask) after
    # applying a function to plain arrays; the output's rank is one more than the deepest
    # input's, as if the whole graph had been recorded.
    x = np.ones((50, 4), np.float32)
    y = F.dropout(x, 0.5)
    mask = y.creator.mask
    np.testing.assert_array_equal(y.array, x * mask)
    assert set(np.unique(mask)) <= {0.0, 2.0}
    assert y.rank == 1 and F.relu(y).rank == 2 and F.relu(F.relu(y)).creator.rank == 2
    with chainer.no_backprop_mode():
        assert F.dropout(x, 0.5).creator is None


def test_an_old_style_function_applied_twice_to_constants_gets_two_nodes():
    f = OldMulAdd()
    a = f(_rand(2), _rand(2), _rand(2))
    b = f(_rand(2), _rand(2), _rand(2))
    assert a.creator is f and b.creator is f
    assert a.creator_node is not b.creator_node
    assert a.creator_node.function is f


def test_functions_of_constants_keep_no_inputs_alive():
    # The creator of such an output holds no edge to its inputs, so a chain of them
    # (inference without no_backprop_mode) does not keep earlier arrays alive.
    import weakref

    class Holder(np.ndarray):
        pass

    x = np.ones(3, np.float32).view(Holder)
    ref = weakref.ref(x)
    y = F.identity(F.exp(x))
    del x
    assert ref() is None
    np.testing.assert_allclose(y.array, np.exp(np.ones(3)), rtol=1e-6)


def test_a_function_of_constants_feeds_a_differentiable_graph():
    # The constant branch (creator without edges) is skipped by backprop; the gradient of
    # w is d/dw sum(exp(x) * w) = exp(x).
    x = np.arange(3, dtype=np.float32)
    w = Variable(np.ones(3, np.float32))
    F.sum(F.exp(x) * w).backward()
    np.testing.assert_allclose(w.grad, np.exp(np.arange(3.0)), rtol=1e-6)
    z = F.exp(x)
    z.grad = np.ones(3, np.float32)
    z.backward()  # nothing to compute, and no error


def test_default_backward_passes_no_gradient():
    # A FunctionNode without a backward gives its inputs no gradient (Chainer 7.8.1's default).
    class ForwardOnly(FunctionNode):
        def forward(self, inputs):
            return (inputs[0] * 3,)

    a = Variable(_rand(2))
    b = Variable(_rand(2))
    (y,) = ForwardOnly().apply((a,))
    F.sum(y + b).backward()
    assert a.grad is None
    np.testing.assert_array_equal(b.grad, np.ones(2))
    assert ForwardOnly().backward((0, 1), (None,)) == (None, None)


def test_no_backprop_mode_records_no_graph():
    x = Variable(_rand(3))
    with chainer.no_backprop_mode():
        y = x * 2
        with chainer.force_backprop_mode():
            z = x * 2
    assert y.creator is None
    assert z.creator is not None


def test_rank_and_inputs():
    x = Variable(_rand(2))
    h = x * 2
    y = h + x
    assert h.creator.rank == 0 and y.creator.rank == 1 and y.rank == 2
    assert y.creator.inputs[0] is h.node and y.creator.inputs[1] is x.node


def test_forward_must_return_tuple():
    class Bad(FunctionNode):
        def forward(self, inputs):
            return inputs[0]

    with pytest.raises(TypeError, match=r"Bad: forward output must be a tuple of ndarrays, got ndarray"):
        Bad().apply((_rand(2),))


def test_backward_with_wrong_gradient_shape_is_reported():
    class BadGrad(FunctionNode):
        def forward(self, inputs):
            return (inputs[0] * 2,)

        def backward(self, indexes, grad_outputs):
            return (F.sum(grad_outputs[0]),)

    x = Variable(_rand(3))
    y = BadGrad().apply((x,))[0]
    with pytest.raises(
        ValueError, match=r"BadGrad.backward returned a gradient of shape \(\) for input 0, whose shape is \(3,\)"
    ):
        F.sum(y).backward()


def test_forward_error_names_the_function_and_inputs():
    class Boom(FunctionNode):
        def forward(self, inputs):
            raise ValueError("inner")

    with pytest.raises(ValueError) as info:
        Boom().apply((_rand(2, 3),))
    assert "forward of Boom" in info.value.__notes__[0]
    assert "float32 (2, 3)" in info.value.__notes__[0]


def test_type_check_message_names_function_and_values():
    class NeedsMatrix(FunctionNode):
        def check_type_forward(self, in_types):
            type_check._argname(in_types, ("x",))
            type_check.expect(in_types[0].ndim == 2)

        def forward(self, inputs):
            return inputs

    with pytest.raises(type_check.InvalidType) as info:
        NeedsMatrix().apply((np.zeros((1, 2, 3), np.float32),))
    message = str(info.value)
    assert "Invalid operation is performed in: NeedsMatrix (Forward)" in message
    assert "Expect: x.ndim == 2\nActual: 3 != 2" in message


def test_type_check_can_be_disabled():
    class NeedsMatrix(FunctionNode):
        def check_type_forward(self, in_types):
            type_check.expect(in_types[0].ndim == 2)

        def forward(self, inputs):
            return inputs

    with chainer.using_config("type_check", False):
        NeedsMatrix().apply((np.zeros(3, np.float32),))


def test_debug_mode_names_function_producing_nan():
    x = Variable(np.array([-1.0, 4.0], dtype=np.float32))
    with chainer.using_config("debug", True):
        with pytest.raises(RuntimeError, match=r"NaN is detected on forward computation of log"):
            with np.errstate(invalid="ignore"):
                F.log(x)


def test_debug_mode_names_function_producing_nan_in_backward():
    class NaNGrad(FunctionNode):
        def forward(self, inputs):
            return (inputs[0] * 1,)

        def backward(self, indexes, grad_outputs):
            return (Variable(np.full(2, np.nan, np.float32)),)

    x = Variable(_rand(2))
    with chainer.using_config("debug", True):
        y = F.sum(NaNGrad().apply((x,))[0])
        with pytest.raises(RuntimeError, match=r"NaN is detected on backward computation of NaNGrad") as info:
            y.backward()
    # Debug mode puts where the function was applied into the message itself.
    assert "Stacktrace" in str(info.value)
    assert "y = F.sum(NaNGrad().apply((x,))[0])" in str(info.value)


def test_debug_mode_names_the_inner_function_of_a_backward():
    class NaNScale(FunctionNode):
        def forward(self, inputs):
            return (inputs[0] * 1,)

        def backward(self, indexes, grad_outputs):
            return (grad_outputs[0] * np.float32("nan"),)

    x = Variable(_rand(2))
    with chainer.using_config("debug", True):
        y = F.sum(NaNScale().apply((x,))[0])
        with pytest.raises(RuntimeError, match=r"NaN is detected on forward computation of _ \* nan") as info:
            y.backward()
    assert "(raised in the backward of NaNScale)" in info.value.__notes__


def test_debug_mode_reports_inf():
    with chainer.using_config("debug", True), np.errstate(divide="ignore"):
        with pytest.raises(RuntimeError, match=r"Inf is detected on forward computation of log"):
            F.log(Variable(np.array([0.0], np.float32)))


def test_global_and_local_hooks():
    x = Variable(_rand(2))
    timer = TimerHook()
    with timer:
        F.sum(F.tanh(x)).backward()
    labels = [label for label, _ in timer.call_history]
    assert labels.count("Tanh") == 2  # forward and backward
    assert "TanhGrad" in labels
    assert timer.total_time() > 0
    summary = timer.summary()
    assert summary["Tanh"]["occurrence"] == 2

    out = io.StringIO()
    y = F.tanh(x)
    node = y.creator
    node.add_hook(PrintHook(file=out))
    with pytest.raises(KeyError, match="already registered"):
        node.add_hook(PrintHook(file=out))
    F.sum(y).backward()
    assert "function\tTanh" in out.getvalue() and "output gradient" in out.getvalue()
    node.delete_hook("PrintHook")
    assert not node.local_function_hooks


def test_hook_names_must_be_unique_in_a_thread():
    with TimerHook():
        with pytest.raises(KeyError, match="already active"):
            with TimerHook():
                pass


def test_retained_outputs_survive_dropping_the_output_variable():
    x = Variable(np.array([0.5, -0.5], dtype=np.float32))
    y = F.exp(x)
    s = F.sum(y)
    del y
    s.backward()
    np.testing.assert_allclose(x.grad, np.exp(x.array), rtol=1e-6)


def test_backward_may_return_gradients_for_all_inputs():
    class AllGrads(FunctionNode):
        def forward(self, inputs):
            return (inputs[0] + inputs[1],)

        def backward(self, indexes, grad_outputs):
            return grad_outputs[0], grad_outputs[0]

    x = Variable(_rand(2))
    c = Variable(_rand(2), requires_grad=False)
    F.sum(AllGrads().apply((x, c))[0]).backward()
    np.testing.assert_array_equal(x.grad, np.ones(2))
    assert c.grad is None


def test_backward_accumulate_override_receives_accumulated_gradients():
    seen = []

    class Acc(FunctionNode):
        def forward(self, inputs):
            return (inputs[0] * 1,)

        def backward(self, indexes, grad_outputs):
            return (grad_outputs[0],)

        def backward_accumulate(self, indexes, grad_outputs, grad_inputs):
            seen.append(grad_inputs)
            return super().backward_accumulate(indexes, grad_outputs, grad_inputs)

    x = Variable(_rand(2))
    y = Acc().apply((x,))[0] + x * 3
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, np.full(2, 4.0))
    assert len(seen) == 1


def test_forward_that_changes_config_does_not_lose_the_graph():
    """A forward applying other functions under another configuration must still record
    its own node (the per-thread configuration snapshot is refreshed inside forward)."""

    class InnerNoBackprop(FunctionNode):
        def forward(self, inputs):
            with chainer.no_backprop_mode():
                F.exp(chainer.Variable(inputs[0]))
            return (inputs[0] * 2,)

        def backward(self, indexes, grad_outputs):
            return (grad_outputs[0] * 2,)

    x = Variable(_rand(2))
    y = InnerNoBackprop().apply((x,))[0]
    assert y.creator is not None
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, np.full(2, 2.0))


# -- graph recording and backprop details that code written for Chainer relies on ----------


def test_rank_is_one_more_than_the_deepest_input():
    a = Variable(_rand(2))
    b = Variable(_rand(2))
    a._node._rank = 1  # a user variable has its node from the start
    b._node._rank = 3
    (y,) = MulAdd().apply((a, b, a))
    assert y.rank == 4 and y.node.rank == 4


def test_type_check_set_on_the_instance_is_run():
    seen = []

    class Plain(FunctionNode):
        def forward(self, inputs):
            return (inputs[0] * 2,)

    f = Plain()
    f.check_type_forward = lambda in_types: seen.append((type(in_types).__name__, in_types[0].shape))
    f.apply((np.zeros((2, 3), np.float32),))
    assert seen == [("LightTypeInfoTuple", (2, 3))]


def test_none_inputs_and_outputs():
    class Sparse(FunctionNode):
        def forward(self, inputs):
            a, x, b = inputs
            assert a is None and b is None
            self.retain_inputs((1, 2))
            self.retain_outputs((1, 2))
            return None, x * 3, None

        def backward(self, indexes, grad_outputs):
            assert indexes == (1,)
            x, b = self.get_retained_inputs()
            y, none_output = self.get_retained_outputs()
            assert b is None and none_output is None
            np.testing.assert_array_equal(y.array, 3 * x.array)
            return None, grad_outputs[1] * 3, None

    x = Variable(np.array([1.0, 2.0], np.float32))
    y0, y1, y2 = Sparse().apply((None, x, None))
    assert y0.array is None and y2.array is None
    y1.grad = np.ones(2, np.float32)
    y1.backward()
    np.testing.assert_array_equal(x.grad, [3.0, 3.0])


def test_gradient_of_an_unchained_output_stays_out_of_its_old_creator():
    # d/dx [sum(h0) + sum(h1)] with h0 cut from x: only h1's rows get a gradient.
    x = Variable(np.arange(4, dtype=np.float32).reshape(2, 2))
    h0, h1 = F.split_axis(x, [1], axis=0)
    w = F.sum(h0) + F.sum(h1)
    h0.unchain()
    (gx,) = chainer.grad([w], [x])
    np.testing.assert_array_equal(gx.array, [[0.0, 0.0], [1.0, 1.0]])


def test_grad_inputs_flow_on_from_intermediate_inputs():
    # y = 4 * h, h = 2 * x. With an extra gradient g_h at h, d/dx = 2 * (4 * gy + g_h).
    x = Variable(np.array(1.0, np.float32))
    h = x * 2
    y = h * 4
    gx, gh = chainer.grad([y], [x, h], [np.array(1.0, np.float32)], [None, np.array(10.0, np.float32)])
    np.testing.assert_array_equal(gh.array, 4 + 10)
    np.testing.assert_array_equal(gx.array, 2 * (4 + 10))
    with pytest.raises(TypeError, match="grad_inputs must be a tuple or list"):
        chainer.grad([y], [x], None, Variable(np.array(1.0, np.float32)))


@pytest.mark.parametrize(
    "returned, pattern",
    [
        (lambda xp: (Variable(xp.array([2.0, 3.0], np.float32)),), "shape of gradients returned from backward is"),
        (lambda xp: (xp.array([2.0], np.float32),), "type of gradients returned from backward is incorrect"),
        (lambda xp: (), "number of gradients returned from backward is incorrect"),
        (lambda xp: (Variable(xp.array([np.nan], np.float32)),), "NaN is detected on backward computation"),
    ],
)
def test_debug_mode_checks_the_returned_gradients(returned, pattern):
    class Bad(FunctionNode):
        def forward(self, inputs):
            return (inputs[0] * 1,)

        def backward(self, indexes, grad_outputs):
            return returned(np)

    x = Variable(np.array([1.0], np.float32))
    y = Bad().apply((x,))[0]
    y.grad = np.ones(1, np.float32)
    with chainer.using_config("debug", True), pytest.raises((ValueError, RuntimeError), match=pattern):
        y.backward()


def test_debug_mode_puts_the_applying_line_into_backward_errors():
    class WrongShape(FunctionNode):
        def forward(self, inputs):
            return (inputs[0] * 1,)

        def backward(self, indexes, grad_outputs):
            return (Variable(np.ones(3, np.float32)),)

    x = Variable(np.array([1.0], np.float32))
    with chainer.using_config("debug", True):
        y = WrongShape().apply((x,))[0]  # the line reported
    y.grad = np.ones(1, np.float32)
    with pytest.raises(ValueError) as info:
        y.backward()
    assert "Stacktrace" in str(info.value) and "y = WrongShape().apply((x,))[0]" in str(info.value)


def test_backprop_step_accumulates_into_gradient_lists():
    from chainer import _backprop_utils

    class Double(FunctionNode):
        def backward(self, indexes, grad_outputs):
            return tuple(Variable(g * 2) for g in grad_outputs)

    f = Double()
    a, b = Variable(np.ones(2, np.float32)), Variable(np.ones(2, np.float32))
    f.inputs = (a.node, b.node)
    existing = Variable(np.full(2, 5.0, np.float32))
    table = {a.node: [existing], b.node: []}
    _backprop_utils.backprop_step(f, (0, 1), (np.ones(2, np.float32), np.full(2, 3.0, np.float32)), table, True)
    np.testing.assert_array_equal(_backprop_utils._reduce(table[a.node]).array, 5 + 2 * 1)
    np.testing.assert_array_equal(_backprop_utils._reduce(table[b.node]).array, 2 * 3)
    assert _backprop_utils._reduce([]) is None


def test_a_hook_can_ask_for_functions_of_constants_to_be_recorded():
    # Without an input that requires grad no edges are recorded, unless an active hook
    # sets _record_all_functions (onnx_chainer's exporter does, as Chainer 7.8.1 recorded
    # every function applied with backprop enabled).
    x = np.arange(3, dtype="f")
    assert F.exp(x).creator.inputs is None

    class RecordAll(chainer.FunctionHook):
        name = "RecordAll"
        _record_all_functions = True

    with RecordAll():
        y = F.exp(x)
        with chainer.no_backprop_mode():
            z = F.exp(x)
    assert type(y.creator).__name__ == "Exp" and not y.requires_grad
    assert len(y.creator.inputs) == 1
    np.testing.assert_allclose(y.array, np.exp(x))
    assert z.creator is None


def test_a_retained_input_given_as_none_is_retained_as_none():
    """A backward that passes an absent output gradient (None) on to another function
    gets None back from that function's get_retained_inputs, not a Variable of None."""
    seen = []

    class TakesOptional(FunctionNode):
        def forward(self, inputs):
            self.retain_inputs((0, 1))
            x, maybe = inputs
            return (x * 2,)

        def backward(self, indexes, grad_outputs):
            seen.append(self.get_retained_inputs())
            return (grad_outputs[0] * 2, None)

    x = Variable(_rand(3))
    y = TakesOptional().apply((x, None))[0]
    F.sum(y).backward()
    ((retained_x, retained_none),) = seen
    assert retained_none is None
    assert isinstance(retained_x, Variable)
    np.testing.assert_array_equal(x.grad, np.full(3, 2.0))


def test_inputs_or_outputs_on_two_devices_are_a_type_error():
    # As in Chainer 7.8.1, an array of another device is an input of the wrong type.
    import chainer_plugin_fakedev as fakedev

    from chainer import plugins

    plugins.register(fakedev, name="mixed-devices")
    try:
        on_fake = chainer.get_device("@fakedev:1").send(np.ones(3, np.float32))
        with pytest.raises(TypeError, match=r"_ \+ _: all inputs must be on the same device; got arrays on "):
            chainer.Variable(np.ones(3, np.float32)) + chainer.Variable(on_fake)

        class TwoDevices(chainer.FunctionNode):
            def forward(self, inputs):
                return inputs[0], on_fake

        with pytest.raises(TypeError, match=r"TwoDevices: forward returned outputs on different devices: "):
            TwoDevices().apply((np.ones(3, np.float32),))
    finally:
        plugins.unregister(fakedev)


def test_single_outputs_of_a_checked_array_type_skip_the_check_until_plugins_change(monkeypatch):
    # A backend's array type (CuPy's, here the fake device's) is checked once per plugin
    # generation; a type no backend owns is refused every time.
    import chainer_plugin_fakedev as fakedev

    from chainer import function_node, plugins

    plugins.register(fakedev, name="checked-types")
    try:
        on_fake = chainer.get_device("@fakedev:1").send(np.ones(3, np.float32))

        class Fake(chainer.FunctionNode):
            def forward(self, inputs):
                return (on_fake,)

        calls = []
        original = chainer.FunctionNode._normalize_outputs

        def counting(self, outputs):
            calls.append(type(outputs[0]))
            return original(self, outputs)

        monkeypatch.setattr(chainer.FunctionNode, "_normalize_outputs", counting)
        assert Fake().apply((np.ones(3, np.float32),))[0].array is on_fake
        assert Fake().apply((np.ones(3, np.float32),))[0].array is on_fake
        assert calls == [type(on_fake)]
        plugins.unregister(fakedev)
        plugins.register(fakedev, name="checked-types")  # a new generation checks again
        Fake().apply((np.ones(3, np.float32),))
        assert calls == [type(on_fake)] * 2
        assert type(on_fake) in function_node._checked_output_types[plugins._manager.generation]

        class Unowned:
            dtype = np.dtype(np.float32)
            shape = (3,)

        class Bad(chainer.FunctionNode):
            def forward(self, inputs):
                return (Unowned(),)

        for _ in range(2):
            with pytest.raises(TypeError, match="forward output must be a tuple of ndarrays; output 0 is a Unowned"):
                Bad().apply((np.ones(3, np.float32),))
    finally:
        plugins.unregister(fakedev)


# -- absurd sizes (issue 23) ------------------------------------------------------------------

# More bytes than any 64-bit address space holds (4 PiB and up): the allocation fails at
# once on every machine, whatever its memory and overcommit settings.
_HUGE = 2**50


@pytest.mark.parametrize(
    "call, label, error, detail",
    [
        (lambda x: F.tile(x, _HUGE), "Tile", MemoryError, "Unable to allocate"),
        (lambda x: F.repeat(x, _HUGE), "Repeat", MemoryError, "Unable to allocate"),
        (lambda x: F.tile(x, 2**70), "Tile", OverflowError, "too large"),
    ],
    ids=["tile", "repeat", "tile-overflow"],
)
def test_failed_allocation_in_a_forward_names_the_function_and_its_inputs(call, label, error, detail):
    # NumPy's MemoryError names only the array and its OverflowError only the integer;
    # the error keeps its kind (code catching MemoryError still does) and says who asked.
    x = np.ones((2, 3), np.float32)
    with pytest.raises(error) as info:
        call(x)
    message = str(info.value)
    assert message.startswith(f"{label}: cannot run the forward on inputs numpy.ndarray float32 (2, 3): ")
    assert detail in message
    assert isinstance(info.value.__cause__, error)
