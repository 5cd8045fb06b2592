"""The examples in the docstrings of chainer.graph_optimizations run and print what they show."""

import doctest
import importlib

import numpy
import pytest

import chainer
import chainer.functions as F


@pytest.mark.parametrize("name", ["static_graph", "static_graph_utilities"])
def test_docstring_examples(name):
    module = importlib.import_module(f"chainer.graph_optimizations.{name}")
    result = doctest.testmod(
        module, extraglobs={"np": numpy, "F": F, "chainer": chainer}, optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted > 0, f"{module.__name__} has no docstring example"
    assert result.failed == 0
