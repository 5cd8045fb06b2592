"""chainer.Parameter: gradients before and after initialization, and shared copies."""

import copy

import numpy as np
import pytest

import chainer
from chainer import Parameter, initializers


def test_gradient_is_nan_until_cleared():
    # A parameter created from a shape, or initialized later, has a NaN gradient: a
    # forgotten cleargrads() then shows as NaN instead of adding to stale gradients.
    p = Parameter(initializers.One(), (3,))
    assert np.isnan(p.grad).all() and p.grad.dtype == p.dtype
    p.cleargrad()
    assert p.grad is None
    q = Parameter()
    q.initialize((2,))
    assert q.grad.shape == (2,) and np.isnan(q.grad).all()


def test_parameter_from_an_array_has_no_gradient():
    a = np.ones(3, np.float32)
    p = Parameter(a)
    assert p.array is a and p.grad is None


def test_gradient_of_an_uninitialized_parameter_cannot_be_read_unless_cleared():
    p = Parameter()
    with pytest.raises(RuntimeError, match="not initialized yet"):
        p.grad  # noqa: B018
    assert p.grad_var is None and p._grad is None
    p.cleargrad()
    assert p.grad is None
    p.initialize((2, 2))
    assert p.grad is None  # cleared stays cleared


def test_zerograd_before_initialization_gives_zeros_of_the_parameters_dtype():
    p = Parameter(initializers.Zero(np.float16))
    with pytest.warns(DeprecationWarning):
        p.zerograd()
    p.initialize((3, 2))
    assert p.grad.dtype == np.float16
    np.testing.assert_array_equal(p.grad, np.zeros((3, 2)))


def test_dtype_of_an_uninitialized_parameter_comes_from_its_initializer():
    assert Parameter(initializers.One(np.float64)).dtype == np.float64

    class NoDtype:
        def __call__(self, array):
            array.fill(0)

    with pytest.raises(RuntimeError, match="does not say its dtype"):
        Parameter(NoDtype()).dtype  # noqa: B018


def test_shallow_copy_shares_the_array_with_the_original():
    p = Parameter()
    c = copy.copy(p)
    p.initialize((2,))
    assert c.array is p.array and np.isnan(c.grad).all()
    p.array = np.array([1.0, 2.0], np.float32)
    assert c.array is p.array
    c.to_cpu()
    assert p.array is c.array
    d = copy.deepcopy(p)
    p.array = np.zeros(2, np.float32)
    np.testing.assert_array_equal(d.array, [1.0, 2.0])  # a deep copy is independent


def test_addgrad_and_copydata_initialize_an_uninitialized_parameter():
    src = Parameter(np.array([1.0, 2.0], np.float32))
    src.grad = np.array([3.0, 4.0], np.float32)
    dst = Parameter()
    dst.cleargrad()
    dst.addgrad(src)
    np.testing.assert_array_equal(dst.grad, [3.0, 4.0])
    assert dst.array.shape == (2,)
    target = chainer.Variable(np.full(2, 7.0, np.float32))
    lazy = Parameter(initializers.Constant(5.0))
    target.copydata(lazy)  # the source is initialized to the target's shape first
    np.testing.assert_array_equal(lazy.array, [5.0, 5.0])
    np.testing.assert_array_equal(target.array, [5.0, 5.0])
