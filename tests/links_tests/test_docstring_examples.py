"""The examples in the docstrings of the RNN, loss and model-zoo links run and print what they show."""

import doctest
import importlib

import numpy
import pytest

import chainer
import chainer.links as L

MODULES = [
    "rnn.lstm",
    "rnn.gru",
    "rnn.peephole",
    "rnn.zoneoutlstm",
    "rnn.mgu",
    "rnn.n_step_rnn",
    "rnn.n_step_lstm",
    "rnn.n_step_gru",
    "rnn.tree_lstm",
    "loss.crf1d",
    "loss.hierarchical_softmax",
    "loss.black_out",
    "loss.negative_sampling",
    "model.vision.resnet",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"chainer.links.{name}")
    state = numpy.random.get_state()
    try:
        numpy.random.seed(0)
        result = doctest.testmod(
            module,
            extraglobs={"np": numpy, "L": L, "chainer": chainer},
            optionflags=doctest.NORMALIZE_WHITESPACE,
        )
    finally:
        numpy.random.set_state(state)
    assert result.attempted > 0, f"{module.__name__} has no docstring example"
    assert result.failed == 0
