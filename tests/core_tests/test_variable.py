"""Variable semantics, including the printed results of the docs' "Variables and
Derivatives" and "Higher-Order Derivatives" sections."""

import copy
import pickle
import weakref

import numpy as np
import pytest

import chainer
import chainer.functions as F
from chainer import Variable


def test_docs_variables_and_derivatives():
    x_data = np.array([5], dtype=np.float32)
    x = Variable(x_data)
    y = x**2 - 2 * x + 1
    np.testing.assert_array_equal(y.array, np.array([16.0], dtype=np.float32))
    assert y.array.dtype == np.float32
    # The docs start from a one-element array of shape (1,), which Chainer 7 still treats
    # as a scalar but warns about (a scalar is 0-dimensional).
    with pytest.warns(DeprecationWarning, match=r"shape \(1,\) as a scalar"):
        y.backward()
    np.testing.assert_array_equal(x.grad, np.array([8.0], dtype=np.float32))

    z = 2 * x
    y = x**2 - z + 1
    with pytest.warns(DeprecationWarning):
        y.backward(retain_grad=True)
    np.testing.assert_array_equal(z.grad, np.array([-1.0], dtype=np.float32))


def test_docs_multi_element_backward():
    x = Variable(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32))
    y = x**2 - 2 * x + 1
    y.grad = np.ones((2, 3), dtype=np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, np.array([[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]], dtype=np.float32))


def test_docs_higher_order_derivatives():
    x = chainer.Variable(np.array([[0, 2, 3], [4, 5, 6]], dtype=np.float32))
    y = x**3
    y.grad = np.ones((2, 3), dtype=np.float32)
    y.backward(enable_double_backprop=True)
    assert repr(x.grad_var) == "variable([[  0.,  12.,  27.],\n          [ 48.,  75., 108.]])"
    assert x.grad_var.array is x.grad
    assert (x.grad == (3 * x**2).array).all()
    gx = x.grad_var
    x.cleargrad()
    gx.grad = np.ones((2, 3), dtype=np.float32)
    gx.backward()
    np.testing.assert_array_equal(x.grad, np.array([[0.0, 12.0, 18.0], [24.0, 30.0, 36.0]], dtype=np.float32))
    assert (x.grad == (6 * x).array).all()


def test_gradients_accumulate_across_backward_calls():
    x = Variable(np.array([1.0, 2.0], dtype=np.float32))
    for _ in range(2):
        y = F.sum(x * x)
        y.backward()
    np.testing.assert_array_equal(x.grad, 2 * 2 * x.array)
    x.cleargrad()
    assert x.grad is None


def test_gradient_of_reused_variable_is_summed():
    x = Variable(np.array(3.0, dtype=np.float32))
    y = x * x + x  # dy/dx = 2x + 1
    y.backward()
    np.testing.assert_array_equal(x.grad, 7.0)


def test_intermediate_gradients_are_released_by_default():
    x = Variable(np.array(2.0, dtype=np.float32))
    h = x * 3
    y = h * h
    y.backward()
    assert h.grad is None
    np.testing.assert_array_equal(x.grad, 2 * 3 * 6.0)


def test_output_gradient_is_consumed_unless_retained():
    x = Variable(np.array([1.0, 2.0], dtype=np.float32))
    y = x * 3
    y.grad = np.ones(2, np.float32)
    y.backward()
    assert y.grad is None  # used up by backprop (Chainer 6 and later)
    np.testing.assert_array_equal(x.grad, [3.0, 3.0])
    y = x * 3
    g = Variable(np.ones(2, np.float32))
    y.grad_var = g
    y.backward(retain_grad=True)
    assert y.grad_var is g


def test_backward_of_multi_element_variable_without_grad_is_an_error():
    x = Variable(np.ones((2, 2), dtype=np.float32))
    y = x * 2
    with pytest.raises(ValueError, match=r"4 elements and no gradient"):
        y.backward()


def test_backward_on_leaf_sets_its_initial_gradient():
    # As in Chainer: a scalar leaf gets the gradient backprop starts from, d x / d x = 1.
    x = Variable(np.array(4.0, dtype=np.float32))
    x.backward()
    np.testing.assert_array_equal(x.grad, 1.0)


def test_requires_grad_false_gets_no_gradient():
    x = Variable(np.ones(3, dtype=np.float32), requires_grad=False)
    w = Variable(np.full(3, 2.0, dtype=np.float32))
    F.sum(x * w).backward()
    assert x.grad is None
    np.testing.assert_array_equal(w.grad, np.ones(3))


def test_loss_scale_multiplies_gradients():
    x = Variable(np.array([1.0, 2.0], dtype=np.float32))
    F.sum(x * x).backward(loss_scale=8.0)
    np.testing.assert_array_equal(x.grad, 8.0 * 2 * x.array)


def test_grad_setter_validates_shape_and_dtype():
    x = Variable(np.ones((2, 3), dtype=np.float32))
    with pytest.raises(ValueError, match=r"gradient has shape \(3,\) but the variable has shape \(2, 3\)"):
        x.grad = np.ones(3, dtype=np.float32)
    with pytest.raises(TypeError, match="dtype float64 but the variable has dtype float32"):
        x.grad = np.ones((2, 3), dtype=np.float64)


def test_constructor_rejects_non_arrays():
    with pytest.raises(TypeError, match=r"chainer.Variable: expected an array .* got list"):
        Variable([1, 2, 3])
    with pytest.raises(TypeError, match="got float"):
        Variable(1.0)


def test_properties():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = Variable(a, name="x")
    assert x.shape == (2, 3) and x.ndim == 2 and x.size == 6 and x.dtype == np.float32
    assert len(x) == 2
    assert x.array is a and x.data is a
    assert x.name == "x" and x.node.name == "x"
    assert x.label == "(2, 3), float32"
    assert x.xp is np
    assert x.device == chainer.get_device("@numpy")
    np.testing.assert_array_equal(x.T.array, a.T)
    np.testing.assert_array_equal(x.reshape(3, 2).array, a.reshape(3, 2))
    np.testing.assert_array_equal(x.reshape((6,)).array, a.reshape(6))
    np.testing.assert_array_equal(x.transpose(1, 0).array, a.T)
    assert Variable(np.array([4.0])).item() == 4.0
    assert str(Variable(np.array([1.0, 2.0], np.float32))) == "variable([1. 2.])"


def test_comparison_truth_value_and_hash_are_refused():
    x = Variable(np.ones(1, np.float32))
    with pytest.raises(TypeError, match="compare the arrays"):
        x < x  # noqa: B015
    with pytest.raises(TypeError, match="compare the arrays"):
        x == x  # noqa: B015
    with pytest.raises(TypeError, match="cannot be used as a bool"):
        bool(x)
    with pytest.raises(TypeError, match="unhashable"):
        hash(x)
    assert x in [x]  # containment by identity still works


def test_unchain_backward_stops_gradients():
    x = Variable(np.array(1.0, dtype=np.float32))
    h = x * 2
    y = h * 3
    h.unchain_backward()
    y.backward()
    assert x.grad is None
    assert h.creator is None


def test_unchain_cuts_only_above():
    x = Variable(np.array(1.0, dtype=np.float32))
    h = x * 2
    y = h * 3
    h.unchain()
    y.backward(retain_grad=True)
    assert x.grad is None
    np.testing.assert_array_equal(h.grad, 3.0)


def test_intermediate_array_is_freed_when_variable_is_dropped():
    x = Variable(np.ones(4, dtype=np.float32))
    h = x + 1  # AddConstant retains nothing
    ref = weakref.ref(h.array) if hasattr(h.array, "__weakref__") else None
    y = h * 2
    del h
    if ref is not None:
        assert ref() is None
    y.grad = np.ones(4, np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, np.full(4, 2.0))


def test_zerograd_addgrad_copydata():
    x = Variable(np.array([1.0, 2.0], dtype=np.float32))
    with pytest.warns(DeprecationWarning, match="use Variable.cleargrad"):
        x.zerograd()
    np.testing.assert_array_equal(x.grad, [0.0, 0.0])
    other = Variable(np.array([5.0, 6.0], dtype=np.float32))
    other.grad = np.array([1.0, 1.0], dtype=np.float32)
    x.addgrad(other)
    x.addgrad(other)
    np.testing.assert_array_equal(x.grad, [2.0, 2.0])
    x.copydata(other)
    np.testing.assert_array_equal(x.array, [5.0, 6.0])


def test_pickle_and_deepcopy_drop_the_graph():
    x = Variable(np.array([1.0], dtype=np.float32), name="x")
    y = x * 2
    y.grad = np.array([1.0], np.float32)
    for clone in (pickle.loads(pickle.dumps(y)), copy.deepcopy(y)):
        assert clone.creator is None
        np.testing.assert_array_equal(clone.array, [2.0])
        np.testing.assert_array_equal(clone.grad, [1.0])


def test_debug_print_and_summary():
    x = Variable(np.array([1.0, 3.0], dtype=np.float32), name="w")
    text = x.debug_print()
    assert "mean=2.00000000" in text and "std=1.00000000" in text and "grad: None" in text
    assert x.summary() == "<variable w>"
    assert x.label == "(2), float32"  # Chainer's label format: no trailing comma
    lines = x.debug_print().splitlines()
    assert lines[:5] == [
        "<variable w>",
        "- device: CPU",
        "- backend: <class 'numpy.ndarray'>",
        "- shape: (2,)",
        "- dtype: float32",
    ]
    empty = Variable().debug_print()
    for field in ("device", "backend", "shape", "dtype", "statistics", "grad"):
        assert f"- {field}: None" in empty


def test_as_variable_and_as_array():
    a = np.ones(2, np.float32)
    v = chainer.as_variable(a)
    assert isinstance(v, Variable) and not v.requires_grad and v.array is a
    assert chainer.as_variable(v) is v
    assert chainer.as_array(v) is a and chainer.as_array(a) is a


def test_retained_input_variable_is_recreated_after_release():
    x = Variable(np.array([2.0, 3.0], dtype=np.float32))
    h = x * 1.0
    y = h * h  # Mul retains both inputs
    del h
    (gx,) = chainer.grad([F.sum(y)], [x], enable_double_backprop=True)
    np.testing.assert_array_equal(gx.array, 2 * x.array)
    (ggx,) = chainer.grad([F.sum(gx)], [x])
    np.testing.assert_array_equal(ggx.array, [2.0, 2.0])


# -- the node and construction details that code written for Chainer reaches into ---------


def test_user_variable_has_its_node_at_once():
    x = Variable(np.ones(2, np.float32), name="x")
    assert isinstance(x._node, chainer.variable.VariableNode) and x._node is x.node
    assert x.node._rank == 0 and x.node.rank == 0 and x.node._requires_grad is True
    assert x._has_chainerx_array is False
    with pytest.raises(ValueError, match="'grad'"):
        chainer.variable.VariableNode(x, "n", grad=None)


def test_init_unchecked_skips_the_type_check_but_builds_a_full_variable():
    a = np.ones(2, np.float32)
    x = Variable._init_unchecked(a, name="u", requires_grad=False)
    assert x.array is a and x.name == "u" and x.node.name == "u" and not x.requires_grad
    with pytest.raises(RuntimeError, match="ChainerX"):
        Variable._init_unchecked(a, is_chainerx_array=True)


def test_set_creator_updates_the_rank_and_none_keeps_it():
    f = chainer.FunctionNode()
    f.rank = 10
    v = Variable(np.ones(2, np.float32))
    v.creator_node = f
    assert v.rank == 11 and v.creator is f
    v.creator = None
    assert v.creator is None and v.rank == 11


def test_repr_of_an_empty_array_shows_its_shape_as_numpy_does():
    assert repr(Variable(np.zeros((0, 3), np.float32))) == "variable([], shape=(0, 3))"
    assert repr(Variable(np.zeros((0,), np.float32))) == "variable([])"
    assert str(Variable(np.zeros((0, 3), np.float32), name="e")) == "variable e([])"


def test_grad_setter_makes_a_grad_var_that_requires_grad():
    x = Variable(np.ones(2, np.float32), requires_grad=False)
    x.grad = np.zeros(2, np.float32)
    assert x.grad_var.requires_grad is True and x.requires_grad is False


def test_unary_plus_is_the_variable_itself():
    x = Variable(np.arange(3.0))
    assert +x is x


def test_grad_as_stored_and_addgrad_initializing_a_lazy_parameter():
    x = Variable(np.ones(2, np.float32))
    assert x._grad is None
    x.grad = np.full(2, 3.0, np.float32)
    assert x._grad is x.grad
    lazy = chainer.Parameter()
    lazy.cleargrad()
    src = chainer.Parameter(np.array([1.0, 2.0], np.float32))
    src.grad = np.array([5.0, 6.0], np.float32)
    lazy.addgrad(src)  # the parameter gets its array (of the source's shape) first
    assert lazy.array.shape == (2,)
    np.testing.assert_array_equal(lazy.grad, [5.0, 6.0])


def test_backward_of_a_variable_that_requires_no_gradient_does_nothing():
    # Nothing in its graph needs a gradient: as in 7.8.1, backward neither fails for
    # want of an initial gradient nor sets one (the result of a function of arrays only).
    x = np.ones((2, 3), np.float32)
    y = F.exp(x)
    assert not y.requires_grad
    y.backward()
    assert y.grad is None
    leaf = Variable(np.ones((2, 3)), requires_grad=False)
    leaf.backward()
    assert leaf.grad is None


class _NumpyHoldingDevice(chainer.backend.Device):
    """A device of a third-party backend whose arrays are plain NumPy arrays: the
    array alone cannot tell that a variable lives there."""

    xp = np
    supported_array_types = (np.ndarray,)

    def __init__(self, index):
        self.index = index

    def __eq__(self, other):
        return isinstance(other, _NumpyHoldingDevice) and other.index == self.index

    def __hash__(self):
        return hash(self.index)

    @property
    def name(self):
        return f"@numpyholder:{self.index}"

    def send_array(self, array):
        return np.array(array, copy=True)


def test_device_is_the_one_given_to_to_device():
    device = _NumpyHoldingDevice(3)
    x = Variable(np.ones(2, np.float32))
    assert x.device == chainer.backend.CpuDevice()
    x.to_device(device)
    assert x.device == device
    # A new array the device can hold keeps the device, as in Chainer 7.
    x.array = np.zeros(2, np.float32)
    assert x.device == device
    assert copy.copy(x).device == device and copy.deepcopy(x).device == device
    # Results of functions are where their arrays are.
    assert (x * 2).device == chainer.backend.CpuDevice()
    x.to_device("@numpy")
    assert x.device == chainer.backend.CpuDevice()
    empty = Variable(None)
    empty.to_device(device)
    assert empty.device == device


def test_parameter_device_survives_initialization():
    device = _NumpyHoldingDevice(1)
    param = chainer.Parameter(chainer.initializers.Constant(2.0))
    param.to_device(device)
    assert param.device == device
    param.initialize((2,))
    assert param.device == device
    np.testing.assert_array_equal(param.array, [2.0, 2.0])
    initialized = chainer.Parameter(np.ones(2, np.float32))
    initialized.to_device(device)
    assert initialized.device == device


def test_shallow_copies_of_a_parameter_share_its_array_slot():
    # copy.copy of a parameter sees the arrays given to the original later, and the
    # other way round (Chainer 7's Link.copy semantics); gradients stay separate.
    original = chainer.Parameter(chainer.initializers.Constant(3.0))
    clone = copy.copy(original)
    original.initialize((3, 2))
    assert clone.array is original.array
    np.testing.assert_array_equal(clone.array, np.full((3, 2), 3.0))
    clone.array = np.zeros((2,), np.float32)
    assert original.array is clone.array
    clone.grad = np.ones(2, np.float32)
    original.cleargrad()
    assert original.grad is None and clone.grad is not None
    # A deep copy is independent.
    other = copy.deepcopy(chainer.Parameter())
    assert other.array is None
