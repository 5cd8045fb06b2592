"""observe_value and observe_lr report values every epoch by default."""

from _training_testlib import make_trainer

from chainer import training
from chainer.training import extensions


def test_observe_lr_and_value(tmp_path):
    trainer = make_trainer(tmp_path, stop=(2, "epoch"), lr=0.25)
    trainer.extend(extensions.observe_lr())
    trainer.extend(extensions.observe_value("iter_twice", lambda t: 2 * t.updater.iteration))
    trainer.extend(extensions.ExponentialShift("lr", 0.5), trigger=(1, "epoch"))
    trainer.extend(extensions.LogReport())
    trainer.run()
    log = trainer.get_extension("LogReport").log
    # observe_lr runs before ExponentialShift at the end of each epoch (writer priority).
    assert [entry["lr"] for entry in log] == [0.25, 0.125]
    assert [entry["iter_twice"] for entry in log] == [10.0, 20.0]
    ext = extensions.observe_lr()
    assert ext.trigger == (1, "epoch") and ext.priority == training.PRIORITY_WRITER


def test_observe_value_needs_a_callable():
    import pytest

    with pytest.raises(TypeError, match="target_func must be callable"):
        extensions.observe_value("x", 3)
