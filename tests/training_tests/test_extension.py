"""Extension base class and make_extension."""

import pytest

from chainer import training


def test_extension_defaults():
    class MyExtension(training.Extension):
        def __call__(self, trainer):
            pass

    ext = MyExtension()
    assert ext.default_name == "MyExtension"
    assert ext.trigger == (1, "iteration")
    assert ext.priority == training.PRIORITY_READER
    assert ext.name is None
    ext.initialize(None)
    ext.finalize()
    ext.on_error(None, ValueError(), None)
    ext.serialize(None)


def test_call_is_abstract():
    with pytest.raises(NotImplementedError, match="Extension must implement __call__"):
        training.Extension()(None)


def test_make_extension_sets_attributes():
    def finalizer():
        pass

    def initializer(trainer):
        pass

    def on_error(trainer, exc, tb):
        pass

    @training.make_extension(
        trigger=(10, "epoch"), default_name="drop", priority=training.PRIORITY_WRITER, finalizer=finalizer,
        initializer=initializer, on_error=on_error,
    )  # fmt: skip
    def lr_drop(trainer):
        pass

    assert lr_drop.trigger == (10, "epoch")
    assert lr_drop.default_name == "drop"
    assert lr_drop.priority == training.PRIORITY_WRITER
    assert lr_drop.finalize is finalizer
    assert lr_drop.initialize is initializer
    assert lr_drop.on_error is on_error


def test_make_extension_defaults():
    @training.make_extension()
    def lr_drop(trainer):
        pass

    assert lr_drop.trigger == (1, "iteration")
    assert lr_drop.default_name == "lr_drop"
    assert lr_drop.priority == training.PRIORITY_READER
    assert lr_drop.finalize is None and lr_drop.initialize is None and lr_drop.on_error is None


def test_make_extension_errors():
    with pytest.raises(ValueError, match="invoke_before_training was removed"):
        training.make_extension(invoke_before_training=True)
    with pytest.raises(TypeError, match="unexpected keyword"):
        training.make_extension(bogus=True)
    with pytest.raises(TypeError, match="finalizer must be callable"):
        training.make_extension(finalizer=3)
    with pytest.raises(TypeError, match="priority must be an int"):
        training.make_extension(priority="high")
