"""The examples in the docstrings of chainer.distributions run and print what they show."""

import doctest
import importlib
import pkgutil

import numpy
import pytest

import chainer
import chainer.distributions as D
import chainer.functions as F

_PACKAGE = importlib.import_module("chainer.distributions")
_MODULES = sorted(info.name for info in pkgutil.iter_modules(_PACKAGE.__path__) if not info.name.startswith("_"))


@pytest.mark.parametrize("name", [*_MODULES, "chainer.distribution"])
def test_docstring_examples(name):
    module = importlib.import_module(name if "." in name else f"chainer.distributions.{name}")
    result = doctest.testmod(
        module,
        extraglobs={"np": numpy, "F": F, "D": D, "chainer": chainer},
        optionflags=doctest.NORMALIZE_WHITESPACE,
    )
    assert result.attempted > 0, f"{module.__name__} has no docstring example"
    assert result.failed == 0
