"""Testing utilities: array assertions, parameterised classes, backend injection and
the function test harness; ``get_trainer_with_mock_updater`` (needs chainer-training)."""

from chainer.testing import attr, condition
from chainer.testing.array import assert_allclose
from chainer.testing.backend import BackendConfig, inject_backend_tests
from chainer.testing.function_link import FunctionTestCase
from chainer.testing.helper import assert_warns, with_requires
from chainer.testing.parameterized import parameterize, product, product_dict
from chainer.testing.random import fix_random
from chainer.testing.training import get_trainer_with_mock_updater

__all__ = [
    "BackendConfig",
    "FunctionTestCase",
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
    "with_requires",
]
