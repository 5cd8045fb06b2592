"""Trainer: the loop, extension registration and ordering, error handling, serialization."""

from __future__ import annotations

import time

import numpy
import pytest
from _training_testlib import Classifier, Linear, make_trainer

import chainer
import chainer.functions as F
from chainer import serializers, testing, training
from chainer.training import extensions


def mock_trainer(tmp_path, stop=(10, "iteration"), iter_per_epoch=10):
    trainer = testing.get_trainer_with_mock_updater(stop, iter_per_epoch)
    trainer.out = str(tmp_path / "out")
    return trainer


class Recorder:
    """Records the iterations at which it is called."""

    def __init__(self, log, name, **attrs):
        self.log = log
        self.tag = self.default_name = name
        for key, value in attrs.items():
            setattr(self, key, value)

    def __call__(self, trainer):
        self.log.append((self.tag, trainer.updater.iteration))


# -- the loop -------------------------------------------------------------------------------


def test_run_until_stop_trigger(tmp_path):
    trainer = mock_trainer(tmp_path, stop=(3, "epoch"), iter_per_epoch=4)
    trainer.run()
    assert trainer.updater.iteration == 12
    assert (tmp_path / "out").is_dir()


def test_stop_trigger_none_never_stops(tmp_path):
    trainer = testing.get_trainer_with_mock_updater(None)
    trainer.out = str(tmp_path)

    class Stop(Exception):
        pass

    def stopper(trainer):
        if trainer.updater.iteration == 25:
            raise Stop

    trainer.extend(stopper)
    with pytest.raises(Stop):
        trainer.run(show_loop_exception_msg=False)
    assert trainer.updater.iteration == 25


def test_run_twice_is_an_error(tmp_path):
    trainer = mock_trainer(tmp_path, stop=(1, "iteration"))
    trainer.run()
    with pytest.raises(RuntimeError, match="cannot be run twice"):
        trainer.run()


def test_elapsed_time(tmp_path):
    trainer = mock_trainer(tmp_path, stop=(3, "iteration"))
    with pytest.raises(RuntimeError, match="not been started"):
        trainer.elapsed_time  # noqa: B018
    seen = []
    trainer.extend(lambda t: (time.sleep(0.01), seen.append(t.elapsed_time)), name="clock")
    trainer.run()
    assert 0 < seen[0] < seen[1] < seen[2] <= trainer.elapsed_time
    # After the run the value is frozen.
    frozen = trainer.elapsed_time
    time.sleep(0.01)
    assert trainer.elapsed_time == frozen


def test_is_before_training(tmp_path):
    trainer = mock_trainer(tmp_path, stop=(2, "iteration"))
    seen = []
    trainer.extend(lambda t: seen.append(t.is_before_training), name="probe", call_before_training=True)
    trainer.run()
    assert seen == [True, False, False]


# -- extend(): names, triggers, priorities ------------------------------------------------


def test_extension_names(tmp_path):
    trainer = mock_trainer(tmp_path)

    def my_ext(trainer):
        pass

    class NamedExt(training.Extension):
        def __call__(self, trainer):
            pass

    trainer.extend(my_ext)
    trainer.extend(my_ext)
    trainer.extend(NamedExt())
    trainer.extend(NamedExt(), name="custom")
    log_report = extensions.LogReport()
    trainer.extend(log_report)
    assert list(trainer._extensions) == ["my_ext", "my_ext_1", "NamedExt", "custom", "LogReport"]
    assert trainer.get_extension("LogReport") is log_report
    assert log_report.name == "LogReport"
    with pytest.raises(ValueError, match="extension 'nothing' not found"):
        trainer.get_extension("nothing")


def test_extension_name_errors(tmp_path):
    trainer = mock_trainer(tmp_path)

    class Anonymous:
        __slots__ = ()

        def __call__(self, trainer):
            pass

    with pytest.raises(TypeError, match="no name given"):
        trainer.extend(Anonymous())
    with pytest.raises(ValueError, match='"training" is reserved'):
        trainer.extend(lambda t: None, name="training")
    with pytest.raises(TypeError, match="the name must be hashable"):
        trainer.extend(lambda t: None, name=["a"])
    with pytest.raises(TypeError, match="must be callable"):
        trainer.extend(42)
    with pytest.raises(ValueError, match="invoke_before_training was removed"):
        trainer.extend(lambda t: None, invoke_before_training=True)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        trainer.extend(lambda t: None, bogus=1)


def test_names_that_are_not_str_are_accepted_as_in_chainer7(tmp_path):
    # A mock whose every attribute is a mock, and a trigger passed where the name goes
    # (extend's second positional argument): Chainer 7 registered both under these names.
    from unittest import mock

    trainer = mock_trainer(tmp_path, stop=(2, "iteration"))
    ext = mock.MagicMock()
    ext.priority = training.PRIORITY_READER
    trainer.extend(ext)
    assert trainer.get_extension(ext.name) is ext
    log = []
    trainer.extend(Recorder(log, "tuple"), (1, "iteration"))
    assert trainer.get_extension((1, "iteration")).tag == "tuple"
    trainer.run()
    assert ext.call_count == 2 and [it for _, it in log] == [1, 2]


def test_a_priority_that_is_not_an_int_fails_when_the_loop_starts(tmp_path):
    trainer = mock_trainer(tmp_path, stop=(2, "iteration"))
    trainer.extend(lambda t: None, name="odd", priority="high")  # registered, as in Chainer 7
    with pytest.raises(TypeError, match="the priority of extension 'odd' must be an int, got str"):
        trainer.run()


def test_trigger_precedence(tmp_path):
    """The trigger of extend() wins over the extension's own; without either, every iteration."""
    trainer = mock_trainer(tmp_path, stop=(6, "iteration"), iter_per_epoch=3)
    log = []
    trainer.extend(Recorder(log, "own", trigger=(2, "iteration")))
    trainer.extend(Recorder(log, "given", trigger=(2, "iteration")), name="given", trigger=(3, "iteration"))
    trainer.extend(Recorder(log, "default"), name="default")
    trainer.extend(Recorder(log, "epoch"), name="epoch", trigger=(1, "epoch"))
    trainer.run()
    by_name = {}
    for name, it in log:
        by_name.setdefault(name, []).append(it)
    assert by_name == {
        "own": [2, 4, 6],
        "given": [3, 6],
        "default": [1, 2, 3, 4, 5, 6],
        "epoch": [3, 6],
    }


def test_priority_order(tmp_path):
    """Higher priority first; equal priorities in the order of registration."""
    trainer = mock_trainer(tmp_path, stop=(1, "iteration"))
    log = []
    trainer.extend(Recorder(log, "reader1"), name="reader1")
    trainer.extend(Recorder(log, "snapshot", priority=training.PRIORITY_SNAPSHOT), name="snapshot")
    trainer.extend(Recorder(log, "writer", priority=training.PRIORITY_WRITER), name="writer")
    trainer.extend(Recorder(log, "reader2"), name="reader2")
    trainer.extend(Recorder(log, "editor"), name="editor", priority=training.PRIORITY_EDITOR)
    trainer.run()
    assert [name for name, _ in log] == ["writer", "editor", "reader1", "reader2", "snapshot"]
    assert training.PRIORITY_WRITER > training.PRIORITY_EDITOR > training.PRIORITY_READER > training.PRIORITY_SNAPSHOT


def test_call_before_training(tmp_path):
    trainer = mock_trainer(tmp_path, stop=(2, "iteration"))
    log = []
    trainer.extend(Recorder(log, "before"), name="before", call_before_training=True, trigger=(1, "epoch"))
    trainer.run()
    assert log == [("before", 0)]


def test_call_before_training_is_skipped_when_resuming(tmp_path):
    # A run resumed from a snapshot taken after some iterations does not call the
    # before-training extensions again.
    trainer = mock_trainer(tmp_path, stop=(4, "iteration"))
    log = []
    trainer.extend(Recorder(log, "before"), name="before", call_before_training=True, trigger=(10, "iteration"))
    trainer.updater.iteration = 2
    trainer.run()
    assert log == []


# -- lifecycle: initialize, finalize, on_error ----------------------------------------------


class Lifecycle(training.Extension):
    def __init__(self, events):
        self.events = events

    def initialize(self, trainer):
        self.events.append(("initialize", trainer.updater.iteration))

    def __call__(self, trainer):
        self.events.append(("call", trainer.updater.iteration))

    def on_error(self, trainer, exc, tb):
        self.events.append(("on_error", type(exc).__name__, tb is not None))

    def finalize(self, trainer=None):
        self.events.append(("finalize", trainer is not None))


def test_lifecycle(tmp_path):
    trainer = mock_trainer(tmp_path, stop=(2, "iteration"))
    events = []
    trainer.extend(Lifecycle(events))
    trainer.run()
    assert events == [("initialize", 0), ("call", 1), ("call", 2), ("finalize", True)]


def test_error_handlers_and_finalizers_run(tmp_path, capsys):
    trainer = mock_trainer(tmp_path, stop=(10, "iteration"))
    events = []
    trainer.extend(Lifecycle(events))

    def failing_handler(trainer, exc, tb):
        raise RuntimeError("handler broke")

    @training.make_extension(on_error=failing_handler)
    def boom(trainer):
        if trainer.updater.iteration == 3:
            raise ZeroDivisionError("boom at 3")

    trainer.extend(boom)
    with pytest.raises(ZeroDivisionError, match="boom at 3"):
        trainer.run()
    assert events[-2:] == [("on_error", "ZeroDivisionError", True), ("finalize", True)]
    err = capsys.readouterr().err
    assert "Exception in main training loop: boom at 3" in err
    assert "Will finalize trainer extensions and updater before reraising the exception." in err
    assert "handler broke" in err


def test_show_loop_exception_msg_false(tmp_path, capsys):
    trainer = mock_trainer(tmp_path)

    def boom(trainer):
        raise ValueError("quiet")

    trainer.extend(boom)
    with pytest.raises(ValueError, match="quiet"):
        trainer.run(show_loop_exception_msg=False)
    assert "Exception in main training loop" not in capsys.readouterr().err


def test_finalize_without_trainer_argument(tmp_path):
    """Extensions written for Chainer 7 define finalize(self)."""
    calls = []

    class OldStyle(training.Extension):
        def __call__(self, trainer):
            pass

        def finalize(self):
            calls.append("finalized")

    trainer = mock_trainer(tmp_path, stop=(1, "iteration"))
    trainer.extend(OldStyle())
    trainer.extend(training.make_extension(finalizer=lambda: calls.append("function"))(lambda t: None), name="fn")
    trainer.run()
    assert sorted(calls) == ["finalized", "function"]


def test_initializer_skipped_for_finished_trigger(tmp_path):
    trainer = mock_trainer(tmp_path, stop=(1, "iteration"))
    events = []
    trigger = training.triggers.OnceTrigger()
    trigger(trainer)  # used up
    trainer.extend(Lifecycle(events), trigger=trigger)
    trainer.run()
    assert events == [("finalize", True)]


# -- observation and naming ---------------------------------------------------------------------


class ReportingMLP(chainer.Chain):
    """The MLP of 'Customize your own logging': reports sum_y from a non-root link."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = Linear(None, 4)
            self.l2 = Linear(None, 3)

    def forward(self, x):
        y = self.l2(F.relu(self.l1(x)))
        chainer.report({"sum_y": F.sum(y)}, self)
        return y


def test_observation_names_follow_the_link_hierarchy(tmp_path):
    model = Classifier(ReportingMLP())
    trainer = make_trainer(tmp_path, stop=(1, "iteration"), model=model)
    seen = {}
    trainer.extend(lambda t: seen.update(t.observation), name="grab")
    trainer.run()
    assert set(seen) == {"main/loss", "main/accuracy", "main/predictor/sum_y"}
    assert isinstance(seen["main/loss"], chainer.Variable)
    # Reported variables do not keep the graph by default.
    assert seen["main/loss"].creator is None


def test_observers_of_several_optimizers(tmp_path):
    class Reporter(chainer.Link):
        def forward(self, x):
            chainer.report({"value": 1.0}, self)
            return x

    gen, dis = Reporter(), Reporter()
    opt_gen = chainer.optimizers.SGD().setup(gen)
    opt_dis = chainer.optimizers.SGD().setup(dis)

    class TwoModelUpdater(training.updaters.StandardUpdater):
        def update_core(self):
            next(self.get_iterator("main"))
            self.get_optimizer("gen").target(0)
            self.get_optimizer("dis").target(0)

    it = chainer.iterators.SerialIterator([0, 1, 2], 1)
    updater = TwoModelUpdater(it, {"main": opt_gen, "gen": opt_gen, "dis": opt_dis})
    trainer = training.Trainer(updater, (1, "iteration"), out=str(tmp_path))
    seen = {}
    trainer.extend(lambda t: seen.update(t.observation), name="grab")
    trainer.run()
    assert {"gen/value", "dis/value"} <= set(seen)


# -- serialization ---------------------------------------------------------------------------------


def test_serialize_keys_follow_chainer7(tmp_path):
    trainer = make_trainer(tmp_path, stop=(2, "iteration"))
    trainer.extend(extensions.LogReport(trigger=(1, "iteration")))
    trainer.run()
    s = serializers.DictionarySerializer()
    s.save(trainer)
    keys = set(s.target)
    expected = {
        "updater/iteration",
        "updater/iterator:main/current_position",
        "updater/iterator:main/epoch",
        "updater/optimizer:main/t",
        "updater/model:main/predictor/l1/W",
        "stop_trigger/previous_iteration",
        "extensions/LogReport/_log",
        "extension_triggers/LogReport/previous_iteration",
        "_snapshot_elapsed_time",
    }
    assert expected <= keys, expected - keys
    assert int(s.target["updater/iteration"]) == 2


def test_save_before_run_and_elapsed_time_restored(tmp_path):
    trainer = mock_trainer(tmp_path, stop=(3, "iteration"))
    path = tmp_path / "snap.npz"
    serializers.save_npz(str(path), trainer)  # before run: no elapsed time yet
    trainer.run()
    serializers.save_npz(str(path), trainer)
    elapsed = trainer.elapsed_time
    resumed = mock_trainer(tmp_path, stop=(5, "iteration"))
    serializers.load_npz(str(path), resumed)
    assert resumed.updater.iteration == 3
    resumed.run()
    assert resumed.updater.iteration == 5
    assert resumed.elapsed_time >= elapsed


def test_random_states_are_saved_and_restored(tmp_path):
    import random

    trainer = mock_trainer(tmp_path)
    numpy.random.seed(123)
    random.seed(456)
    path = str(tmp_path / "snap.npz")
    serializers.save_npz(path, trainer)
    expected_numpy = numpy.random.random_sample(5)
    expected_gauss = numpy.random.standard_normal()  # leaves a cached Gaussian
    expected_python = [random.random() for _ in range(3)]
    numpy.random.seed(0)
    random.seed(0)
    serializers.load_npz(path, mock_trainer(tmp_path))
    numpy.testing.assert_array_equal(numpy.random.random_sample(5), expected_numpy)
    assert numpy.random.standard_normal() == expected_gauss
    assert [random.random() for _ in range(3)] == expected_python


def test_loading_a_snapshot_without_random_states(tmp_path):
    """Snapshots of Chainer 7 have no _random_state: they load, the generators are kept."""
    trainer = mock_trainer(tmp_path)
    s = serializers.DictionarySerializer()
    s.save(trainer)
    entries = {k: v for k, v in s.target.items() if not k.startswith("_random_state/")}
    numpy.random.seed(7)
    expected = numpy.random.random_sample(3)
    numpy.random.seed(7)
    serializers.NpzDeserializer(entries).load(mock_trainer(tmp_path))
    numpy.testing.assert_array_equal(numpy.random.random_sample(3), expected)


def test_constructor_errors(tmp_path):
    with pytest.raises(TypeError, match="updater must be"):
        training.Trainer(object())
    trainer = mock_trainer(tmp_path)
    with pytest.raises(TypeError, match="out must be a path"):
        training.Trainer(trainer.updater, out=3)


def test_failing_initializer_finalizes_without_error_handlers(tmp_path):
    trainer = mock_trainer(tmp_path)
    events = []
    trainer.extend(Lifecycle(events))

    def broken(trainer):
        raise OSError("cannot read the snapshot")

    trainer.extend(training.make_extension(initializer=broken)(lambda t: None), name="broken")
    with pytest.raises(OSError, match="cannot read the snapshot"):
        trainer.run()
    assert events == [("initialize", 0), ("finalize", True)]
    assert trainer.updater.iteration == 0


def test_extensions_given_to_the_constructor(tmp_path):
    log_report = extensions.LogReport(trigger=(1, "iteration"))
    trainer = testing.get_trainer_with_mock_updater((2, "iteration"), extensions=[log_report])
    trainer.out = str(tmp_path)
    assert trainer.get_extension("LogReport") is log_report
    trainer.run()
    assert [entry["iteration"] for entry in log_report.log] == [1, 2]


def test_mock_updater_counters():
    trainer = testing.get_trainer_with_mock_updater((5, "iteration"), iter_per_epoch=4)
    updater = trainer.updater
    assert (updater.epoch, updater.epoch_detail, updater.previous_epoch_detail, updater.is_new_epoch) == (
        0,
        0,
        None,
        False,
    )
    for _ in range(4):
        updater.update()
    assert (updater.epoch, updater.epoch_detail, updater.previous_epoch_detail, updater.is_new_epoch) == (
        1,
        1.0,
        0.75,
        True,
    )
    # A positive number, not only an int: 7.8.1 takes epochs of 0.5 or 2.5 iterations.
    with pytest.raises(ValueError, match="iter_per_epoch must be a positive number"):
        testing.get_trainer_with_mock_updater(iter_per_epoch=0)
