"""unary_math_function_unittest generates tests that pass for correct functions and fail
for wrong ones."""

import sys
import types
import unittest

import numpy as np
import pytest

import chainer
import chainer.functions as F
from chainer import testing


@testing.unary_math_function_unittest(F.sin)
class TestSin(unittest.TestCase):
    pass


@testing.unary_math_function_unittest(
    F.exp, make_data=lambda shape, dtype: (np.random.uniform(-1, 1, shape).astype(dtype),) * 2
)
class TestExpWithTwoArrays(unittest.TestCase):
    pass


@testing.unary_math_function_unittest(F.identity, func_expected=lambda x: x, label_expected="Identity", is_linear=True)
class TestIdentityLinear(unittest.TestCase):
    pass


def _generated(func, **kwargs):
    """Decorate a class living in a scratch module and return the classes generated there."""
    module = types.ModuleType("_unary_scratch")
    sys.modules[module.__name__] = module
    try:
        base = type("Case", (unittest.TestCase,), {"__module__": module.__name__})
        testing.unary_math_function_unittest(func, **kwargs)(base)
        return [v for k, v in vars(module).items() if k.startswith("Case_param")]
    finally:
        del sys.modules[module.__name__]


def _run_all(classes, method):
    results = []
    for cls in classes:
        result = unittest.TestResult()
        cls(method).run(result)
        results.append(result)
    return results


def test_six_classes_for_shapes_and_dtypes():
    classes = _generated(F.sin)
    assert sorted((c.shape, np.dtype(c.dtype).name) for c in classes) == sorted(
        (s, d) for s in [(3, 2), ()] for d in ("float16", "float32", "float64")
    )
    # The decorated name no longer binds a class (which pytest would collect without
    # its parameters) but the bundle of generated classes.
    assert not isinstance(TestSin, type)
    assert len(TestSin.cases) == 6


def test_wrong_reference_fails_forward():
    results = _run_all(_generated(F.sin, func_expected=np.cos), "test_forward_cpu")
    assert all(len(r.failures) == 1 for r in results)


def test_wrong_label_fails():
    results = _run_all(_generated(F.sin, label_expected="Sine"), "test_forward_cpu")
    assert all(len(r.failures) == 1 and "expected 'Sine'" in r.failures[0][1] for r in results)


class _BadGrad(chainer.FunctionNode):
    @property
    def label(self):
        return "bad_sin"

    def forward(self, inputs):
        self.retain_inputs((0,))
        return (np.sin(inputs[0]),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * F.cos(x) * 1.5,)


def bad_sin(x):
    return _BadGrad().apply((x,))[0]


def test_wrong_gradient_fails_backward():
    classes = [c for c in _generated(bad_sin, func_expected=np.sin) if c.dtype == np.float64]
    assert all(r.wasSuccessful() for r in _run_all(classes, "test_forward_cpu"))
    assert all(len(r.failures) == 1 for r in _run_all(classes, "test_backward_cpu"))


def test_invalid_arguments():
    with pytest.raises(ValueError, match="NumPy has no function named 'bad_sin'"):
        testing.unary_math_function_unittest(bad_sin)
    with pytest.raises(TypeError, match="func must be callable"):
        testing.unary_math_function_unittest(3)
    with pytest.raises(TypeError, match="unittest.TestCase subclass"):
        testing.unary_math_function_unittest(F.sin)(object)
