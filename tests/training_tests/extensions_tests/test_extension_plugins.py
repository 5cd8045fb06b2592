"""Extensions registered by plugins are reachable as chainer.training.extensions.<Name>."""

import importlib.metadata
import os
import subprocess
import sys
import textwrap

import pytest

from chainer import plugins, testing, training
from chainer.training import extensions


class _Halve(training.Extension):
    def __call__(self, trainer):
        pass


def _factory(value):
    return training.make_extension()(lambda trainer: None)


class _Plugin:
    @plugins.hookimpl
    def chainer_register_extensions(self, register):
        register(_Halve, "Halve")
        register(_factory, "make_noop")


def test_in_process_plugin_extensions():
    plugin = _Plugin()
    plugins.register(plugin, name="halve-plugin")
    try:
        assert extensions.Halve is _Halve
        assert extensions.make_noop is _factory
        assert {"Halve", "make_noop"} <= set(dir(extensions))
        assert extensions.registered_extensions.origin("Halve") == "halve-plugin"
        trainer = testing.get_trainer_with_mock_updater((2, "iteration"))
        trainer.extend(extensions.Halve())
        assert "_Halve" in trainer._extensions
    finally:
        plugins.unregister(plugin)
    with pytest.raises(AttributeError, match="has no attribute 'Halve'"):
        extensions.Halve  # noqa: B018


def test_builtins_register_through_the_same_hook():
    assert extensions.registered_extensions.get("Evaluator") is extensions.Evaluator
    assert extensions.registered_extensions.get("snapshot") is extensions.snapshot
    assert extensions.registered_extensions.origin("LogReport") == "chainer.builtin_extensions"


@pytest.mark.parametrize(
    "args,match",
    [
        ((object,), "must subclass chainer.training.Extension"),
        ((3,), "Extension subclass or a factory function"),
        ((_Halve, "not an identifier"), "must be an identifier"),
        ((_Halve, "LogReport"), "built-in name .* cannot be replaced"),
        ((_Halve, "snapshot_writers"), "built-in name .* cannot be replaced"),
    ],
)
def test_invalid_registrations_warn(args, match):
    class Bad:
        @plugins.hookimpl
        def chainer_register_extensions(self, register):
            register(*args)

    plugin = Bad()
    plugins.register(plugin, name="bad-extensions")
    try:
        with pytest.warns(plugins.PluginWarning, match=match):
            list(extensions.registered_extensions)
        assert extensions.LogReport.__module__ == "chainer.training.extensions.log_report"
    finally:
        plugins.unregister(plugin)


def test_installed_extension_plugin_distribution(tmp_path):
    names = [ep.name for ep in importlib.metadata.entry_points(group="chainer")]
    assert "tinyext" in names, "install tests/plugins/chainer-plugin-tinyext (nox does)"
    (entry_point,) = importlib.metadata.entry_points(group="chainer", name="tinyext")
    module = entry_point.load()
    assert entry_point.dist.name == "chainer-plugin-tinyext"
    assert callable(module.chainer_register_extensions) and issubclass(module.CountCalls, training.Extension)
    env = dict(os.environ)
    env.pop("CHAINER_DISABLE_PLUGIN_AUTOLOAD", None)
    code = textwrap.dedent(
        f"""
        from chainer import testing
        from chainer.training import extensions
        trainer = testing.get_trainer_with_mock_updater((3, 'iteration'), iter_per_epoch=1)
        trainer.out = {str(tmp_path)!r}
        trainer.extend(extensions.CountCalls())
        trainer.extend(extensions.report_constant('answer', 42))
        trainer.extend(extensions.LogReport(trigger=(1, 'iteration')))
        trainer.run()
        log = trainer.get_extension('LogReport').log
        print(type(trainer.get_extension('CountCalls')).__module__, [e['calls'] for e in log], log[-1]['answer'])
        """
    )
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split(None, 1) == ["chainer_plugin_tinyext", "[1.0, 2.0, 3.0] 42.0\n"]
