"""The plugin system: builtin backends, in-process plugins, entry-point plugins."""

import importlib.metadata
import json
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
    # '@intel64' comes from the chainer-intel64 plugin, when it is installed.
    assert names[:2] == ["numpy", "cupy"]
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


class _LinkProvider:
    """Registers the links ``Clash`` and ``Only<value>``, both as ``value``."""

    def __init__(self, value):
        self.value = value

    @chainer.hookimpl
    def chainer_register_links(self, register):
        register("Clash", self.value)
        register(f"Only{self.value}", self.value)


def _links_registry():
    return plugins.Registry("chainer_register_links", lambda name, value: (name, value))


def test_builtin_entries_win_even_when_their_plugin_registers_after_a_third_party_one():
    """Entry-point plugins are loaded at `import chainer`, before e.g. chainer.training
    registers its builtins; a third-party name clash must still keep the builtin entry."""
    registry = _links_registry()
    third, builtin = _LinkProvider("third"), _LinkProvider("builtin")
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


@pytest.mark.parametrize("error", [RuntimeError("boom"), SystemExit(3)], ids=["RuntimeError", "SystemExit"])
def test_plugin_raising_in_hook_only_warns(error):
    class Raising:
        @chainer.hookimpl
        def chainer_register_backends(self, register):
            raise error

    plugin = Raising()
    plugins.register(plugin, name="raising")
    try:
        with pytest.warns(
            plugins.PluginWarning,
            match=rf"plugin 'raising' failed in chainer_register_backends: {type(error).__name__}: {error}",
        ):
            assert "numpy" in backend.backends
    finally:
        plugins.unregister(plugin)


def _run(code, extra_path=None, **env_changes):
    """Run ``code`` in a child process with plugin autoload on, ``extra_path`` (one path or
    several) first on ``sys.path``, and the environment variables ``env_changes`` set
    (``None`` removes one)."""
    env = dict(os.environ)
    env.pop("CHAINER_DISABLE_PLUGIN_AUTOLOAD", None)
    for name, value in env_changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    if extra_path:
        paths = [extra_path] if isinstance(extra_path, (str, os.PathLike)) else list(extra_path)
        env["PYTHONPATH"] = os.pathsep.join([*map(str, paths), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-W", "error::UserWarning", "-c", code], env=env, capture_output=True, text=True
    )


def _fake_distribution(root, dist_name, modules, entry_points):
    """A distribution made of modules and a dist-info folder in ``root`` (a directory to
    put on ``sys.path``): ``modules`` maps module names to their source, ``entry_points``
    the entry-point names of group ``chainer`` to their values."""
    root.mkdir(exist_ok=True)
    for name, source in modules.items():
        (root / f"{name}.py").write_text(textwrap.dedent(source))
    dist_info = root / f"{dist_name.replace('-', '_')}-1.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist_name}\nVersion: 1.0\n")
    lines = "".join(f"{name} = {value}\n" for name, value in entry_points.items())
    (dist_info / "entry_points.txt").write_text(f"[chainer]\n{lines}")
    return root


_IMPORT_RECORDING_WARNINGS = """
import json, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter('always')
    import numpy, chainer
    from chainer.backends import cpu_kernels
    {body}
print(json.dumps([str(w.message) for w in caught if w.category.__name__ == 'PluginWarning']))
"""


def _import_recording_warnings(body, extra_path, **env_changes):
    """Import chainer in a child process, run ``body`` (indented into the import's block)
    and return (its output lines, the plugin warnings of the import and the body)."""
    code = _IMPORT_RECORDING_WARNINGS.format(body=textwrap.indent(textwrap.dedent(body), "    ").strip())
    result = _run(code, extra_path, **env_changes)
    assert result.returncode == 0, result.stderr
    *lines, warned = result.stdout.splitlines()
    return lines, json.loads(warned)


_NO_OP_KERNELS = """
import chainer

@chainer.hookimpl
def chainer_register_cpu_kernels(register):
    # "Done", having done nothing: gradients come out wrong, Adam stops.
    register("relu_backward", lambda *args: True)
    register("adam", lambda *args: True)
"""

_RELU_GRADIENT_AND_ADAM_STEP = """
import chainer.functions as F
print(cpu_kernels.origin('relu_backward'), cpu_kernels.origin('adam'))
x = chainer.Variable(numpy.array([-1.0, 2.0], numpy.float32))
F.sum(F.relu(x)).backward()
link = chainer.Link()
with link.init_scope():
    link.w = chainer.Parameter(numpy.ones(3, numpy.float32))
opt = chainer.optimizers.Adam(alpha=0.5).setup(link)
link.w.grad = numpy.ones(3, numpy.float32)
opt.update()
print(x.grad.tolist(), numpy.round(link.w.array, 5).tolist())
"""


def _needs_cpu_kernels():
    pytest.importorskip("chainer_cpu_kernels.plugin", reason="chainer-cpu-kernels is not installed")


def test_a_first_party_kernel_wins_over_a_third_party_one_found_first(tmp_path):
    """The no-op kernels' distribution comes first on sys.path, and its plugin's name
    first in the alphabet: chainer-cpu-kernels' kernels serve all the same."""
    _needs_cpu_kernels()
    root = _fake_distribution(tmp_path, "aaa-noop", {"aaa_noop_mod": _NO_OP_KERNELS}, {"aaa_noop": "aaa_noop_mod"})
    lines, warned = _import_recording_warnings(_RELU_GRADIENT_AND_ADAM_STEP, root, CHAINER_DISABLE_PLUGINS=None)
    assert lines[0] == "cpu_kernels cpu_kernels"
    # d/dx sum(relu(x)) is the step function; Adam's first step is alpha * sign(grad).
    assert lines[1] == "[0.0, 1.0] [0.5, 0.5, 0.5]"
    for slot in ("relu_backward", "adam"):
        assert any(
            f"plugin 'aaa_noop' registered {slot!r} through chainer_register_cpu_kernels, which plugin "
            "'cpu_kernels' already provides; the first one is kept ('cpu_kernels': it is Chainer's own). "
            "To use 'aaa_noop''s, set CHAINER_PREFER_PLUGINS=aaa_noop" in message
            for message in warned
        ), warned


def test_the_user_may_prefer_a_third_party_kernel(tmp_path):
    """CHAINER_PREFER_PLUGINS is the explicit choice: the preferred plugin serves, and the
    first-party entries it replaces give no warning."""
    _needs_cpu_kernels()
    root = _fake_distribution(tmp_path, "aaa-noop", {"aaa_noop_mod": _NO_OP_KERNELS}, {"aaa_noop": "aaa_noop_mod"})
    body = "print(cpu_kernels.origin('relu_backward'), cpu_kernels.origin('adam'), cpu_kernels.origin('im2col'))"
    lines, warned = _import_recording_warnings(
        body, root, CHAINER_DISABLE_PLUGINS=None, CHAINER_PREFER_PLUGINS="aaa_noop"
    )
    assert lines == ["aaa_noop aaa_noop cpu_kernels"]
    assert warned == []


def test_between_third_party_plugins_the_entry_point_names_decide(tmp_path):
    """Two third-party plugins provide one slot: the one whose entry-point name comes
    first serves, whichever distribution is found first, and the warning names both."""
    source = """
    import chainer

    @chainer.hookimpl
    def chainer_register_cpu_kernels(register):
        register("momentum_sgd", lambda *args: False)
    """
    first = _fake_distribution(tmp_path / "first", "zzz-kernels", {"zzz_mod": source}, {"zzz_kernels": "zzz_mod"})
    second = _fake_distribution(tmp_path / "second", "aaa-kernels", {"aaa_mod": source}, {"aaa_kernels": "aaa_mod"})
    for path in ([first, second], [second, first]):
        lines, warned = _import_recording_warnings("print(cpu_kernels.origin('momentum_sgd'))", path)
        assert lines == ["aaa_kernels"]
        assert any(
            "plugin 'zzz_kernels' registered 'momentum_sgd' through chainer_register_cpu_kernels, which plugin "
            "'aaa_kernels' already provides; the first one is kept ('aaa_kernels': it was registered first)" in m
            for m in warned
        ), warned


def test_an_override_registration_wins_over_builtin_ones_silently():
    registry = _links_registry()
    builtin, mine = _LinkProvider("builtin"), _LinkProvider("mine")
    plugins.register(builtin, name="test-builtin", builtin=True)
    plugins.register(mine, name="test-mine", override=True)
    try:
        assert registry.get("Clash") == "mine"  # no warning: filterwarnings=error would raise
        assert registry.origin("Clash") == "test-mine"
    finally:
        plugins.unregister(mine)
        plugins.unregister(builtin)
    assert "test-mine" not in plugins._override_plugins
    with pytest.raises(ValueError, match="either builtin or an override"):
        plugins.register(_LinkProvider("both"), name="test-both", builtin=True, override=True)


def test_first_party_kernels_load_with_autoload_off():
    """CHAINER_DISABLE_PLUGIN_AUTOLOAD keeps third-party plugins out, not Chainer's own
    compiled kernels; CHAINER_DISABLE_PLUGINS=cpu_kernels takes those out."""
    _needs_cpu_kernels()
    code = "import chainer; from chainer.backends import cpu_kernels; "
    code += "print(cpu_kernels.origin('adam'), 'fakedev' in chainer.backend.backends)"
    on = _run(code, CHAINER_DISABLE_PLUGIN_AUTOLOAD="1", CHAINER_DISABLE_PLUGINS=None)
    assert on.stdout.split() == ["cpu_kernels", "False"], on.stderr
    off = _run(code, CHAINER_DISABLE_PLUGIN_AUTOLOAD="1", CHAINER_DISABLE_PLUGINS="fakedev, cpu_kernels")
    assert off.stdout.split() == ["None", "False"], off.stderr


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


def test_a_plugin_that_exits_at_import_only_warns(tmp_path):
    root = _fake_distribution(
        tmp_path, "exiting-plugin", {"exiting_mod": "import sys\nsys.exit(3)\n"}, {"exiting": "exiting_mod"}
    )
    lines, warned = _import_recording_warnings("print(chainer.get_device('@numpy').name)", root)
    assert lines == ["@numpy"]
    assert warned == [
        "chainer: plugin 'exiting' (exiting_mod from exiting-plugin 1.0) failed to load and was skipped: SystemExit: 3"
    ]


def test_a_keyboard_interrupt_during_a_plugin_import_goes_through(tmp_path):
    root = _fake_distribution(tmp_path, "slow-plugin", {"slow_mod": "raise KeyboardInterrupt\n"}, {"slow": "slow_mod"})
    code = "try:\n    import chainer\nexcept KeyboardInterrupt:\n    print('interrupted')"
    result = _run(code, root)
    assert result.returncode == 0 and result.stdout.strip() == "interrupted", result.stderr


def test_an_entry_point_naming_no_hook_implementation_is_refused(tmp_path):
    """``VALUE = 42`` or a module without hooks is no plugin: pluggy would register it and
    list it, and never call it. It gets a warning naming it and is left out; so is an
    object whose attribute lookups raise."""
    modules = {
        "plain_mod": "VALUE = 42\n",
        "empty_mod": "def chainer_register_links(register):\n    pass\n",
        "hostile_mod": "class Hostile:\n    def __getattr__(self, name):\n        raise RuntimeError(name)\n"
        "VALUE = Hostile()\n",
    }
    entry_points = {"plain": "plain_mod:VALUE", "empty": "empty_mod", "hostile": "hostile_mod:VALUE"}
    root = _fake_distribution(tmp_path, "plain-plugin", modules, entry_points)
    body = "print(sorted(name for name, origin in chainer.plugins.list_plugins()))"
    lines, warned = _import_recording_warnings(body, root)
    assert not {"plain", "empty", "hostile"} & set(json.loads(lines[0].replace("'", '"')))
    expected = [
        "chainer: plugin 'empty' (empty_mod from plain-plugin 1.0) was not registered: a plugin is a module or "
        "object with functions marked @chainer.hookimpl named after a hook (chainer_register_backends, ",
        "chainer: plugin 'hostile' (hostile_mod:VALUE from plain-plugin 1.0) could not be registered: RuntimeError: ",
        "chainer: plugin 'plain' (plain_mod:VALUE from plain-plugin 1.0) was not registered: a plugin is ",
    ]
    assert len(warned) == 3, warned
    for message, start in zip(warned, expected):
        assert message.startswith(start), message
    assert "; got module <module 'empty_mod' from " in warned[0]
    assert warned[2].endswith("got int 42, which implements none")


def test_registering_an_object_without_hooks_is_a_type_error():
    with pytest.raises(TypeError, match=r"chainer.plugins.register: a plugin is a module or object .* got int 42"):
        plugins.register(42, name="forty-two")
    assert "forty-two" not in [name for name, _ in plugins.list_plugins()]


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
