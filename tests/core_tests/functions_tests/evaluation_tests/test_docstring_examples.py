"""The examples in the docstrings of chainer.functions.evaluation run and print what they show."""

import doctest
import importlib
import pkgutil

import numpy
import pytest

import chainer
import chainer.functions as F

_PACKAGE = importlib.import_module("chainer.functions.evaluation")
_MODULES = sorted(info.name for info in pkgutil.iter_modules(_PACKAGE.__path__) if not info.name.startswith("_"))


@pytest.mark.parametrize("name", _MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"chainer.functions.evaluation.{name}")
    state = numpy.random.get_state()
    try:
        numpy.random.seed(0)
        result = doctest.testmod(
            module, extraglobs={"np": numpy, "F": F, "chainer": chainer}, optionflags=doctest.NORMALIZE_WHITESPACE
        )
    finally:
        numpy.random.set_state(state)
    assert result.attempted > 0, f"{module.__name__} has no docstring example"
    assert result.failed == 0
