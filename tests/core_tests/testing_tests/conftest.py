"""A scratch module for the classes that the test case generators of chainer.testing
make: they are put in the module of the decorated class, which here is a throwaway
module instead of the test module (where pytest would collect them)."""

import sys
import types
import unittest

import pytest


class Scratch:
    def __init__(self, module):
        self.module = module

    def expand(self, decorator, cls):
        """Apply ``decorator`` to ``cls`` as if ``cls`` were defined in the scratch
        module; return the classes it put there, by name."""
        cls.__module__ = self.module.__name__
        setattr(self.module, cls.__name__, cls)
        before = dict(vars(self.module))
        decorator(cls)
        return {name: value for name, value in vars(self.module).items() if before.get(name) is not value}


@pytest.fixture
def scratch():
    module = types.ModuleType("_chainer_testing_scratch")
    sys.modules[module.__name__] = module
    try:
        yield Scratch(module)
    finally:
        del sys.modules[module.__name__]


def run_test(klass, method_name):
    """Run one test method of a unittest class; return the TestResult."""
    result = unittest.TestResult()
    klass(method_name).run(result)
    return result


@pytest.fixture
def run():
    return run_test
