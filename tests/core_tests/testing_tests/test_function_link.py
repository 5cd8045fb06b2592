"""The FunctionTestCase harness must fail on wrong forwards and backwards."""

import unittest

import numpy as np

import chainer
from chainer import testing


class _Double(chainer.FunctionNode):
    def __init__(self, grad_scale=2.0, second_scale=1.0):
        self.grad_scale = grad_scale
        self.second_scale = second_scale

    def forward(self, inputs):
        return (inputs[0] * 2,)

    def backward(self, indexes, grad_outputs):
        return (grad_outputs[0] * self.grad_scale,)


def _make_case(forward_scale=2.0, grad_scale=2.0):
    @testing.inject_backend_tests(None, [{}])
    class Case(testing.FunctionTestCase):
        def generate_inputs(self):
            return (np.random.uniform(-1, 1, (2, 3)).astype(np.float32),)

        def forward(self, inputs, device):
            return _Double(grad_scale).apply(inputs)

        def forward_expected(self, inputs):
            return (inputs[0] * forward_scale,)

    return Case


def _run(case, name):
    result = unittest.TestResult()
    case(name).run(result)
    return result


def test_correct_function_passes():
    case = _make_case()
    for name in ("test_forward__numpy", "test_backward__numpy", "test_double_backward__numpy"):
        result = _run(case, name)
        assert result.wasSuccessful(), result.failures + result.errors


def test_wrong_forward_fails():
    result = _run(_make_case(forward_scale=3.0), "test_forward__numpy")
    assert len(result.failures) == 1
    assert "forward output 0 differs from forward_expected()" in result.failures[0][1]


def test_wrong_backward_fails():
    result = _run(_make_case(grad_scale=2.5), "test_backward__numpy")
    assert len(result.failures) == 1
    assert "check_backward failed" in result.failures[0][1]


def test_inputs_are_non_contiguous_by_default():
    seen = []

    @testing.inject_backend_tests(None, [{}])
    class Case(testing.FunctionTestCase):
        def generate_inputs(self):
            return (np.ones((2, 3), np.float32),)

        def forward(self, inputs, device):
            seen.append(inputs[0].array.flags.c_contiguous)
            return (inputs[0] * 1,)

        def forward_expected(self, inputs):
            return (inputs[0],)

    assert _run(Case, "test_forward__numpy").wasSuccessful()
    assert seen == [False]


def test_parameterize_generates_classes_in_module():
    import sys

    module = sys.modules[__name__]

    @testing.parameterize(*testing.product({"a": [1, 2], "b": ["x"]}))
    class Param(unittest.TestCase):
        def test_a(self):
            assert self.a in (1, 2)

    generated = [name for name in vars(module) if name.startswith("Param_param_")]
    assert len(generated) == 2
    assert Param.__test__ is False
    assert all(getattr(module, name).__test__ for name in generated)
    for name in generated:
        delattr(module, name)


def test_product_and_product_dict():
    assert testing.product({"a": [1, 2], "b": [3]}) == [{"a": 1, "b": 3}, {"a": 2, "b": 3}]
    assert testing.product_dict([{"a": 1}, {"a": 2}], [{"b": 3}]) == [{"a": 1, "b": 3}, {"a": 2, "b": 3}]


def test_condition_repeat_and_retry():
    calls = []

    @testing.condition.retry(3)
    def flaky():
        calls.append(1)
        assert len(calls) >= 2

    flaky()
    assert len(calls) == 2

    @testing.condition.repeat_with_success_at_least(4, 3)
    def mostly_fails():
        raise AssertionError("no")

    try:
        mostly_fails()
    except AssertionError as exc:
        assert "passed 0 of 4 runs; at least 3" in str(exc)
    else:
        raise AssertionError("repeat_with_success_at_least did not fail")


def test_fix_random_is_reproducible():
    @testing.fix_random()
    def draw():
        return np.random.rand(3)

    np.testing.assert_array_equal(draw(), draw())


def test_assert_allclose_messages():
    testing.assert_allclose(np.array([1.0, 2.0]), chainer.Variable(np.array([1.0, 2.0 + 1e-6])))
    try:
        testing.assert_allclose(np.array([1.0, 2.0]), np.array([1.0, 2.5]))
    except AssertionError as exc:
        assert "worst element at index (1,)" in str(exc)
    else:
        raise AssertionError("assert_allclose did not fail")
    try:
        testing.assert_allclose(np.ones(2), np.ones(3))
    except AssertionError as exc:
        assert "shapes differ" in str(exc)


def test_assert_warns():
    import warnings

    with testing.assert_warns(DeprecationWarning):
        warnings.warn("old", DeprecationWarning)
    try:
        with testing.assert_warns(DeprecationWarning):
            pass
    except AssertionError as exc:
        assert "expected a DeprecationWarning" in str(exc)


def test_with_requires_parses_requirements():
    from chainer.testing import helper

    assert helper._requirement_met("numpy>=1.0")
    assert not helper._requirement_met("numpy<1.0")
    assert helper._requirement_met("numpy>=1.0,<100")
    assert not helper._requirement_met("surely-not-installed-dist>=1")
    assert helper._satisfies("1.4.2", "~=", "1.4")
    assert not helper._satisfies("2.0", "~=", "1.4")
