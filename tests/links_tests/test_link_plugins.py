"""Links registered by plugins are reachable as chainer.links.<Name>."""

import importlib.metadata
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import plugins


class _Doubler(chainer.Link):
    def forward(self, x):
        return x * 2


class _Plugin:
    @chainer.hookimpl
    def chainer_register_links(self, register):
        register(_Doubler, "Doubler")


def test_in_process_plugin_link():
    plugin = _Plugin()
    plugins.register(plugin, name="doubler-plugin")
    try:
        assert L.Doubler is _Doubler
        assert "Doubler" in dir(L)
        np.testing.assert_array_equal(L.Doubler()(chainer.Variable(np.ones(2, np.float32))).array, [2.0, 2.0])
    finally:
        plugins.unregister(plugin)
    with pytest.raises(AttributeError, match="has no attribute 'Doubler'"):
        L.Doubler  # noqa: B018


def test_invalid_link_registrations_warn():
    class Bad:
        @chainer.hookimpl
        def chainer_register_links(self, register):
            register(object)

    plugin = Bad()
    plugins.register(plugin, name="bad-links")
    try:
        with pytest.warns(
            plugins.PluginWarning, match=r"'bad-links' made an invalid chainer_register_links registration"
        ):
            with pytest.raises(AttributeError):
                L.object  # noqa: B018
    finally:
        plugins.unregister(plugin)


def test_installed_link_plugin_distribution():
    names = [ep.name for ep in importlib.metadata.entry_points(group="chainer")]
    assert "tinylink" in names, "install tests/plugins/chainer-plugin-tinylink (nox does)"
    env = dict(os.environ)
    env.pop("CHAINER_DISABLE_PLUGIN_AUTOLOAD", None)
    code = textwrap.dedent(
        """
        import numpy, chainer, chainer.links as L
        layer = L.TinyScale(3.0)
        y = chainer.functions.sum(layer(numpy.ones(4, numpy.float32)))
        y.backward()
        print(type(layer).__module__, float(y.array), float(layer.s.grad))
        """
    )
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["chainer_plugin_tinylink", "12.0", "4.0"]
