"""get_trainer_with_mock_updater: a trainer that only counts iterations."""

import importlib

import pytest

from chainer import testing


def _training():
    try:
        return importlib.import_module("chainer.training")
    except ImportError as exc:  # chainer-training is a separate distribution
        pytest.skip(str(exc))


@pytest.mark.parametrize("bad", [0, -1.5, True, "3"])
def test_iter_per_epoch_must_be_a_positive_number(bad):
    _training()
    with pytest.raises(ValueError, match="iter_per_epoch must be a positive number"):
        testing.get_trainer_with_mock_updater(iter_per_epoch=bad)


@pytest.mark.parametrize("iter_per_epoch, new_epochs", [(0.5, [1, 2, 3, 4]), (2.5, [3, 5, 8, 10])])
def test_an_epoch_may_be_a_fraction_of_iterations(iter_per_epoch, new_epochs):
    training = _training()
    seen = []

    @training.make_extension(trigger=(1, "iteration"))
    def record(trainer):
        u = trainer.updater
        seen.append((u.iteration, u.epoch, u.epoch_detail, u.is_new_epoch))

    trainer = testing.get_trainer_with_mock_updater((4, "epoch"), iter_per_epoch, extensions=[record])
    trainer.run()
    # Four epochs of 0.5 iterations end within iteration 2; of 2.5 within iteration 10.
    assert [s[0] for s in seen] == list(range(1, int(-(-4 * iter_per_epoch // 1)) + 1))
    for iteration, epoch, detail, is_new in seen:
        assert epoch == iteration // iter_per_epoch
        assert detail == pytest.approx(iteration / iter_per_epoch)
        # A new epoch began during this iteration when an epoch boundary
        # (a multiple of iter_per_epoch) lies in (iteration - 1, iteration].
        boundaries = [k * iter_per_epoch for k in range(1, 100)]
        assert is_new == any(iteration - 1 < b <= iteration for b in boundaries)
    assert [s[0] for s in seen if s[3]] == [i for i in new_epochs if i <= len(seen)]


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
