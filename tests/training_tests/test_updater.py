"""Updater: the abstract interface, and the older import paths of the updaters."""

import pytest

from chainer import training
from chainer.training import updater, updaters


def test_abstract_methods():
    base = training.Updater()
    base.connect_trainer(None)
    base.finalize()
    for call in (
        lambda: base.get_optimizer("main"),
        base.get_all_optimizers,
        base.update,
        lambda: base.serialize(None),
    ):
        with pytest.raises(NotImplementedError, match="Updater must implement"):
            call()


def test_pre_v3_paths():
    assert updater.StandardUpdater is updaters.StandardUpdater
    assert updater.ParallelUpdater is updaters.ParallelUpdater
    with pytest.raises(AttributeError, match="has no attribute 'Nothing'"):
        updater.Nothing  # noqa: B018
