"""unchain_variables cuts the graphs of the reported variables."""

import numpy
from _training_testlib import FakeTrainer

import chainer
from chainer.training import extensions


def test_unchains_reported_variables():
    x = chainer.Variable(numpy.ones(3, numpy.float32))
    y = chainer.functions.sum(x * 2)
    trainer = FakeTrainer()
    trainer.observation = {"loss": y, "other": 1.0}
    assert y.creator is not None
    extensions.unchain_variables()(trainer)
    assert y.creator is None
    assert extensions.unchain_variables.priority == -1
