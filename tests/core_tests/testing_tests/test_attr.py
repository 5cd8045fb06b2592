"""attr markers and the availability helpers of chainer.testing's modules."""

import pytest

from chainer.backends import cuda
from chainer.testing import attr, doctest_helper, unary_math_function_test
from chainer.testing import training as testing_training


def _marks(f):
    return {m.name: m for m in getattr(f, "pytestmark", [])}


def _fresh():
    # A new named function each time (marks accumulate on a function; pytest's
    # markers take a lambda for a marker argument, not for a test).
    def test_function():
        pass

    return test_function


def test_gpu_marks_and_skips_where_no_gpu_is_usable():
    marks = _marks(attr.gpu(_fresh()))
    assert "gpu" in marks
    assert marks["skipif"].args[0] is (cuda._unavailable_reason() is not None)


def test_multi_gpu_asks_for_the_number_of_devices():
    marks = _marks(attr.multi_gpu(2)(_fresh()))
    assert {"gpu", "multi_gpu", "skipif"} <= set(marks)


@pytest.mark.parametrize("name", ["slow", "cudnn", "ideep", "chainerx"])
def test_plain_markers(name):
    assert name in _marks(getattr(attr, name)(_fresh()))


def test_availability_helpers():
    assert attr.is_available() and attr.get_error() is None
    attr.check_available()
    assert testing_training.is_available() and testing_training.get_error() is None
    testing_training.check_available()
    assert unary_math_function_test.is_available()
    unary_math_function_test.check_available()


def test_doctest_skip_conditions():
    assert doctest_helper.skipif(1) is True and doctest_helper.skipif(0) is False
    assert doctest_helper.skipif_requires_satisfied("numpy")
    assert not doctest_helper.skipif_requires_satisfied("numpy", "surely-not-installed-dist")
    assert doctest_helper.skipif_not_enough_cuda_devices(10**6)
