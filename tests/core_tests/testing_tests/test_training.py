"""get_trainer_with_mock_updater: a trainer that only counts iterations."""

import importlib

import pytest

from chainer import testing


def _training():
    try:
        return importlib.import_module("chainer.training")
    except ImportError as exc:  # chainer-training is a separate distribution
        pytest.skip(str(exc))


def test_iter_per_epoch_must_be_positive():
    _training()
    with pytest.raises(ValueError, match="iter_per_epoch must be a positive int"):
        testing.get_trainer_with_mock_updater(iter_per_epoch=0)


def test_runs_until_the_stop_trigger_and_counts_epochs():
    training = _training()
    seen = []

    @training.make_extension(trigger=(1, "iteration"))
    def record(trainer):
        u = trainer.updater
        seen.append((u.iteration, u.epoch, u.epoch_detail, u.previous_epoch_detail, u.is_new_epoch))

    trainer = testing.get_trainer_with_mock_updater(stop_trigger=(2, "epoch"), iter_per_epoch=3, extensions=[record])
    trainer.run()
    assert trainer.updater.update_core.call_count == 6
    assert [s[0] for s in seen] == [1, 2, 3, 4, 5, 6]
    assert [s[1] for s in seen] == [0, 0, 1, 1, 1, 2]
    assert seen[3][2:] == (4 / 3, 1.0, False)
    assert [s[4] for s in seen] == [False, False, True, False, False, True]
    assert trainer.updater.get_all_optimizers() == {}


def test_default_stop_trigger_is_ten_iterations():
    _training()
    trainer = testing.get_trainer_with_mock_updater()
    trainer.run()
    assert trainer.updater.iteration == 10
