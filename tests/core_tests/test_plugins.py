"""The plugin system: builtin backends, in-process plugins, entry-point plugins."""

import importlib.metadata
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import chainer
from chainer import backend, plugins


class _TinyDevice(backend.Device):
    xp = np
    supported_array_types = ()

    @property
    def name(self):
        return "@tiny"

    def send_array(self, array):
        return np.asarray(array)


class _TinyPlugin:
    @chainer.hookimpl
    def chainer_register_backends(self, register):
        register("tiny", _TinyDevice, check_available=lambda: None)


def test_builtin_backends_are_registered_through_the_hook():
    names = list(backend.backends)
    assert names[:3] == ["numpy", "cupy", "intel64"]
    assert backend.backends.origin("numpy") == "chainer.builtin_backends"
    assert ("chainer.builtin_backends", "builtin") in plugins.list_plugins()


def test_in_process_plugin_register_and_unregister():
    plugin = _TinyPlugin()
    plugins.register(plugin, name="tiny-plugin")
    try:
        assert isinstance(chainer.get_device("@tiny"), _TinyDevice)
        assert backend.backends.origin("tiny") == "tiny-plugin"
    finally:
        plugins.unregister(plugin)
    with pytest.raises(ValueError, match=r"unknown backend '@tiny'"):
        chainer.get_device("@tiny")


def test_invalid_registration_warns_and_names_the_plugin():
    class BadPlugin:
        @chainer.hookimpl
        def chainer_register_backends(self, register):
            register("bad", object)

    plugin = BadPlugin()
    plugins.register(plugin, name="bad-plugin")
    try:
        with pytest.warns(
            plugins.PluginWarning, match=r"plugin 'bad-plugin' made an invalid chainer_register_backends registration"
        ):
            assert "bad" not in backend.backends
    finally:
        plugins.unregister(plugin)


def test_plugin_cannot_replace_a_builtin_backend():
    class Shadow:
        @chainer.hookimpl
        def chainer_register_backends(self, register):
            register("numpy", _TinyDevice)

    plugin = Shadow()
    plugins.register(plugin, name="shadow")
    try:
        with pytest.warns(plugins.PluginWarning, match="already provides; the first one is kept"):
            assert backend.backends.get("numpy").device_class is backend.CpuDevice
    finally:
        plugins.unregister(plugin)


def test_builtin_entries_win_even_when_their_plugin_registers_after_a_third_party_one():
    """Entry-point plugins are loaded at `import chainer`, before e.g. chainer.training
    registers its builtins; a third-party name clash must still keep the builtin entry."""
    registry = plugins.Registry("chainer_register_links", lambda name, value: (name, value))

    class Provider:
        def __init__(self, value):
            self.value = value

        @chainer.hookimpl
        def chainer_register_links(self, register):
            register("Clash", self.value)
            register(f"Only{self.value}", self.value)

    third, builtin = Provider("third"), Provider("builtin")
    plugins.register(third, name="test-third")
    plugins.register(builtin, name="test-builtin", builtin=True)
    try:
        with pytest.warns(
            plugins.PluginWarning, match="'test-third' registered 'Clash'.*'test-builtin' already provides"
        ):
            assert registry.get("Clash") == "builtin"
        assert registry.origin("Clash") == "test-builtin"
        assert registry.get("Onlythird") == "third" and registry.get("Onlybuiltin") == "builtin"
        assert ("test-builtin", "builtin") in plugins.list_plugins()
    finally:
        plugins.unregister(builtin)
        plugins.unregister(third)
    assert "test-builtin" not in plugins._builtin_plugins


def test_plugin_raising_in_hook_only_warns():
    class Raising:
        @chainer.hookimpl
        def chainer_register_backends(self, register):
            raise RuntimeError("boom")

    plugin = Raising()
    plugins.register(plugin, name="raising")
    try:
        with pytest.warns(
            plugins.PluginWarning, match=r"plugin 'raising' failed in chainer_register_backends: RuntimeError: boom"
        ):
            assert "numpy" in backend.backends
    finally:
        plugins.unregister(plugin)


def _run(code, extra_path=None):
    env = dict(os.environ)
    env.pop("CHAINER_DISABLE_PLUGIN_AUTOLOAD", None)
    if extra_path:
        env["PYTHONPATH"] = os.pathsep.join([extra_path, env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-W", "error::UserWarning", "-c", code], env=env, capture_output=True, text=True
    )


def test_installed_third_party_backend_plugin_is_discovered():
    names = [ep.name for ep in importlib.metadata.entry_points(group="chainer")]
    assert "fakedev" in names, (
        "the test plugin tests/plugins/chainer-plugin-fakedev must be installed in the test environment "
        "(nox installs it; locally: pip install -e tests/plugins/chainer-plugin-fakedev)"
    )
    result = _run(
        textwrap.dedent(
            """
            import numpy, chainer
            device = chainer.get_device('@fakedev:2')
            print(type(device).__name__, device.name)
            x = device.send(numpy.arange(3, dtype=numpy.float32))
            print(type(x).__name__, chainer.backend.get_device_from_array(x).name)
            print(chainer.backend.get_array_module(x).__name__)
            v = chainer.Variable(numpy.ones(2, numpy.float32))
            v.to_device('@fakedev:2')
            y = v * 3
            print(type(y.array).__name__, y.device.name, y.array.tolist())
            print([name for name, origin in chainer.plugins.list_plugins()])
            """
        )
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "FakeDevice @fakedev:2"
    assert lines[1] == "FakeArray @fakedev:2"
    assert lines[2] == "numpy"
    assert lines[3] == "FakeArray @fakedev:2 [3.0, 3.0]"
    assert "fakedev" in lines[4]


def test_autoload_can_be_disabled():
    env = dict(os.environ, CHAINER_DISABLE_PLUGIN_AUTOLOAD="1")
    code = "import chainer; print('fakedev' in chainer.backend.backends)"
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert result.stdout.strip() == "False", result.stderr


def test_plugin_that_raises_at_import_only_warns(tmp_path):
    # A distribution made of a dist-info folder on sys.path, with an entry point whose
    # module raises on import.
    (tmp_path / "broken_plugin_mod.py").write_text("raise ImportError('this plugin is broken')\n")
    dist_info = tmp_path / "broken_plugin-1.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 1.0\n")
    (dist_info / "entry_points.txt").write_text("[chainer]\nbroken = broken_plugin_mod\n")
    code = textwrap.dedent(
        """
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            import chainer
        messages = [str(w.message) for w in caught if w.category.__name__ == 'PluginWarning']
        print(len(messages))
        print(messages[0])
        print(chainer.get_device('@numpy').name)
        """
    )
    result = _run(code, extra_path=str(tmp_path))
    assert result.returncode == 0, result.stderr
    count, message, device = result.stdout.splitlines()
    assert count == "1"
    assert "plugin 'broken' (broken_plugin_mod from broken-plugin 1.0) failed to load and was skipped" in message
    assert "ImportError: this plugin is broken" in message
    assert device == "@numpy"


def test_get_array_module_of_a_backend_whose_xp_is_a_property():
    """CuPy's device exposes xp as a property; the module must come from a device."""
    import types

    fake_xp = types.ModuleType("fake_xp")

    class PropArray(np.ndarray):
        pass

    class PropDevice(backend.Device):
        supported_array_types = (PropArray,)

        @property
        def xp(self):
            return fake_xp

        @property
        def name(self):
            return "@propdev"

        @staticmethod
        def from_array(array):
            return PropDevice() if isinstance(array, PropArray) else None

        def send_array(self, array):
            return np.asarray(array).view(PropArray)

    class Plugin:
        @chainer.hookimpl
        def chainer_register_backends(self, register):
            register("propdev", PropDevice, array_types=(PropArray,))

    plugin = Plugin()
    plugins.register(plugin, name="propdev")
    try:
        assert backend.get_array_module(np.ones(2).view(PropArray)) is fake_xp
    finally:
        plugins.unregister(plugin)


def test_array_owners_follow_plugin_registration_and_removal():
    """Array types are matched to backends once and remembered; registering or removing a
    plugin must make a NumPy subclass change hands all the same."""

    class OwnedArray(np.ndarray):
        pass

    class OwnerDevice(_TinyDevice):
        supported_array_types = (OwnedArray,)

        @property
        def name(self):
            return "@owner"

    class Plugin:
        @chainer.hookimpl
        def chainer_register_backends(self, register):
            register("owner", OwnerDevice, array_types=(OwnedArray,), check_available=lambda: None)

    array = np.ones(2).view(OwnedArray)
    assert backend.get_device_from_array(array) == backend.CpuDevice()  # a NumPy subclass, before
    plugin = Plugin()
    plugins.register(plugin, name="owner")
    try:
        assert isinstance(backend.get_device_from_array(array), OwnerDevice)
        assert isinstance(backend.get_device_from_array(array), OwnerDevice)  # the remembered owner
    finally:
        plugins.unregister(plugin)
    assert backend.get_device_from_array(array) == backend.CpuDevice()
