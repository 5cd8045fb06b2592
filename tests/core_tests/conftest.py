"""Fixtures of the chainer-core tests."""

import pytest

import chainer


@pytest.fixture
def without_intel64_plugin():
    """chainer-core alone as far as '@intel64' goes: the chainer-intel64 plugin, when
    installed (the full suite installs every distribution), is unregistered for the test."""
    manager = chainer.plugins.get_plugin_manager()
    plugin = manager.get_plugin("intel64")
    if plugin is not None:
        chainer.plugins.unregister(name="intel64")
    try:
        yield
    finally:
        if plugin is not None:
            chainer.plugins.register(plugin, name="intel64")
