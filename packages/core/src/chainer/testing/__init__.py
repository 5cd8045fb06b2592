"""Testing utilities: array assertions, parameterised classes, backend injection and
the function and link test harnesses; ``get_trainer_with_mock_updater`` (needs
chainer-training)."""

from chainer.testing import array, attr, backend, condition, function_link, helper, parameterized, serializer, training
from chainer.testing import random as random
from chainer.testing.array import assert_allclose
from chainer.testing.backend import BackendConfig, inject_backend_tests
from chainer.testing.distribution_test import distribution_unittest
from chainer.testing.function_link import (
    FunctionTestCase,
    FunctionTestError,
    InitializerArgument,
    LinkInitializersTestCase,
    LinkTestCase,
    LinkTestError,
)
from chainer.testing.helper import assert_warns, patch, with_requires, without_requires
from chainer.testing.matrix import generate_matrix
from chainer.testing.parameterized import (
    from_pytest_parameterize,
    parameterize,
    parameterize_pytest,
    product,
    product_dict,
)
from chainer.testing.random import fix_random, generate_seed
from chainer.testing.serializer import save_and_load, save_and_load_hdf5, save_and_load_npz
from chainer.testing.training import get_trainer_with_mock_updater
from chainer.testing.unary_math_function_test import unary_math_function_unittest


def run_module(name: str, file: str) -> None:
    """Run the tests of a test module when it is executed as a script.

    Test modules end with ``testing.run_module(__name__, __file__)``: imported (by
    pytest), it does nothing; run as ``python test_foo.py``, it runs pytest on the file
    and exits with pytest's status.
    """
    if name != "__main__":
        return
    import sys

    import pytest

    sys.exit(pytest.main([file, "-vvs", "-x", "--pdb"]))


__all__ = [
    "BackendConfig",
    "FunctionTestCase",
    "FunctionTestError",
    "InitializerArgument",
    "LinkInitializersTestCase",
    "LinkTestCase",
    "LinkTestError",
    "assert_allclose",
    "assert_warns",
    "attr",
    "condition",
    "distribution_unittest",
    "fix_random",
    "from_pytest_parameterize",
    "generate_matrix",
    "generate_seed",
    "get_trainer_with_mock_updater",
    "inject_backend_tests",
    "parameterize",
    "parameterize_pytest",
    "patch",
    "product",
    "product_dict",
    "run_module",
    "save_and_load",
    "save_and_load_hdf5",
    "save_and_load_npz",
    "unary_math_function_unittest",
    "with_requires",
    "without_requires",
]
