"""Testing utilities: array assertions, parameterised classes, backend injection and
the function test harness; ``get_trainer_with_mock_updater`` (needs chainer-training)."""

from chainer.testing import attr, condition
from chainer.testing._link_test import LinkInitializersTestCase, LinkTestCase
from chainer.testing.array import assert_allclose
from chainer.testing.backend import BackendConfig, inject_backend_tests
from chainer.testing.function_link import FunctionTestCase
from chainer.testing.helper import assert_warns, with_requires
from chainer.testing.parameterized import parameterize, product, product_dict
from chainer.testing.random import fix_random
from chainer.testing.serializer import save_and_load, save_and_load_hdf5, save_and_load_npz
from chainer.testing.training import get_trainer_with_mock_updater
from chainer.testing.unary_math_function_test import unary_math_function_unittest

__all__ = [
    "BackendConfig",
    "FunctionTestCase",
    "LinkInitializersTestCase",
    "LinkTestCase",
    "assert_allclose",
    "assert_warns",
    "attr",
    "condition",
    "fix_random",
    "get_trainer_with_mock_updater",
    "inject_backend_tests",
    "parameterize",
    "product",
    "product_dict",
    "save_and_load",
    "save_and_load_hdf5",
    "save_and_load_npz",
    "unary_math_function_unittest",
    "with_requires",
]
