"""Test-wide settings: no third-party plugin autoload, deterministic random numbers."""

import collections
import doctest
import importlib
import os
import pkgutil
import random
import re
import sys
import types
import zlib

import numpy
import pytest

# Plugins installed in the developer's environment must not change test outcomes; this
# must come before chainer is imported, which is when plugins are discovered. The
# first-party compiled kernels load even so: blocked by name, so that chainer-core's NumPy
# code runs unless a test asks for them (the ``cpu_code`` and ``compiled_cpu_kernels``
# fixtures). Child processes inherit both settings.
os.environ.setdefault("CHAINER_DISABLE_PLUGIN_AUTOLOAD", "1")
os.environ.setdefault("CHAINER_DISABLE_PLUGINS", "cpu_kernels")

import chainer


@pytest.fixture(autouse=True)
def _seed_from_test_id(request):
    """Seed NumPy's and Python's global generators from the test's id, so that every test
    sees the same random inputs whatever the order or the xdist worker it runs in."""
    seed = zlib.crc32(request.node.nodeid.encode())
    numpy.random.seed(seed)
    random.seed(seed)


@pytest.fixture(autouse=True)
def _restore_configuration():
    """Undo configuration changes a test leaves behind (global and this thread's), so
    that no test depends on the ones that ran before it on the same worker."""
    global_before = dict(vars(chainer.global_config))
    local_before = dict(chainer.config._local.__dict__)
    yield
    if vars(chainer.global_config) != global_before:
        for key in set(vars(chainer.global_config)) - set(global_before):
            delattr(chainer.global_config, key)
        for key, value in global_before.items():
            setattr(chainer.global_config, key, value)
    local = chainer.config._local.__dict__
    if local != local_before:
        local.clear()
        local.update(local_before)
        chainer.configuration._bump_version()


@pytest.fixture
def numpy_cpu_code():
    """Take the plugins that serve compiled CPU kernels out for one test (chainer-cpu-kernels'
    is there unless CHAINER_DISABLE_PLUGINS blocks it, as above), for tests that check
    chainer-core's NumPy paths."""
    from chainer.backends import cpu_kernels

    names = set(cpu_kernels.compiled().values())
    removed = [(name, chainer.plugins.get_plugin_manager().get_plugin(name)) for name in names]
    for name, _ in removed:
        chainer.plugins.unregister(name=name)
    try:
        yield
    finally:
        for name, plugin in removed:
            chainer.plugins.register(plugin, name=name)


@pytest.fixture
def compiled_cpu_kernels(numpy_cpu_code):
    """Register the compiled kernels of chainer-cpu-kernels for one test (skipped when that
    distribution is not installed, as in ``nox -s tests-core``) and yield a Counter of the
    calls, per slot, in which a kernel did the work (rather than declining it to NumPy).
    A kernel plugin already registered is taken out meanwhile, so that these counting ones serve."""
    plugin = pytest.importorskip("chainer_cpu_kernels.plugin", reason="chainer-cpu-kernels is not installed")
    calls = collections.Counter()

    def counting(slot, kernel):
        def counted(*args):
            done = kernel(*args)
            calls[slot] += bool(done)
            return done

        return counted

    class CountingKernels:
        @chainer.hookimpl
        def chainer_register_cpu_kernels(self, register):
            for slot, kernel in plugin.KERNELS.items():
                register(slot, counting(slot, kernel))

    registered = CountingKernels()
    chainer.plugins.register(registered, name="tests.compiled_cpu_kernels")
    try:
        yield calls
    finally:
        chainer.plugins.unregister(registered)


@pytest.fixture(params=["numpy", "compiled"])
def cpu_code(request):
    """How the CPU runs a test: chainer-core's NumPy code (``None``), or the compiled
    kernels of chainer-cpu-kernels (their Counter of calls). A test module may name the
    slots its compiled run must call in ``CPU_KERNEL_SLOTS``; each is checked afterwards."""
    if request.param == "numpy":
        yield None
        return
    calls = request.getfixturevalue("compiled_cpu_kernels")
    yield calls
    for slot in getattr(request.module, "CPU_KERNEL_SLOTS", ()):
        assert calls[slot] > 0, f"the compiled run never called the {slot!r} kernel"


# The names every docstring example may use without importing them: ``np`` (NumPy),
# ``chainer``, ``F`` (chainer.functions) and ``L`` (chainer.links, when chainer-links is
# installed). Examples import anything else themselves, so each can be pasted alone.
_EXAMPLE_OPTIONS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
_USES_LINKS = re.compile(r"(?<![\w.])L\.")


def _example_globals(scratch_name):
    import chainer.functions as F

    globs = {"__name__": scratch_name, "np": numpy, "chainer": chainer, "F": F}
    try:
        import chainer.links as L
    except ImportError:  # chainer-core tested alone (nox -s tests-core)
        pass
    else:
        globs["L"] = L
    return globs


@pytest.fixture
def run_docstring_examples(tmp_path_factory, monkeypatch):
    """``run(module_name)`` runs the ``>>>`` examples of every docstring of a module and
    fails with doctest's report if one does not print what it shows.

    Each docstring runs in a new empty directory as the working directory (examples write
    files: snapshots, plots, ``my.model``), with NumPy's global generator seeded with 0
    (restored afterwards), and in a scratch module namespace, so classes an example
    defines (e.g. with ``testing.parameterize``) do not land in the library module. Output
    is compared with NORMALIZE_WHITESPACE and ELLIPSIS. Returns the number of examples run.
    """

    def run(module_name):
        module = importlib.import_module(module_name)
        scratch = types.ModuleType(f"_docstring_examples_of_{module_name.replace('.', '_')}")
        globs = _example_globals(scratch.__name__)
        tests = [t for t in doctest.DocTestFinder().find(module, module_name, globs=globs) if t.examples]
        if "L" not in globs and any(_USES_LINKS.search(e.source) for t in tests for e in t.examples):
            pytest.skip(f"the examples of {module_name} use chainer.links (chainer-links is not installed)")
        monkeypatch.setitem(sys.modules, scratch.__name__, scratch)
        runner = doctest.DocTestRunner(optionflags=_EXAMPLE_OPTIONS)
        report = []
        state = numpy.random.get_state()
        try:
            for test in sorted(tests, key=lambda t: t.name):
                monkeypatch.chdir(tmp_path_factory.mktemp("doctest"))
                numpy.random.seed(0)
                runner.run(test, out=report.append)
        finally:
            numpy.random.set_state(state)
        assert runner.failures == 0, "".join(report)
        return runner.tries

    return run


def walk_modules(package_name, exclude=()):
    """Names of every module of ``package_name`` (itself included), recursively, except
    ``__main__`` and the sub-packages named in ``exclude`` (which belong to other
    distributions). Private modules are included: public names are implemented there."""
    package = importlib.import_module(package_name)
    names = [package_name]
    for info in pkgutil.walk_packages(package.__path__, package_name + "."):
        if info.name.rsplit(".", 1)[-1] == "__main__":
            continue
        if any(info.name == e or info.name.startswith(e + ".") for e in exclude):
            continue
        names.append(info.name)
    return sorted(names)


def pytest_generate_tests(metafunc):
    """A test taking ``docstring_module`` runs once per module of the packages its test
    module lists in ``DOCSTRING_PACKAGES`` (minus ``DOCSTRING_EXCLUDE``)."""
    if "docstring_module" in metafunc.fixturenames:
        exclude = getattr(metafunc.module, "DOCSTRING_EXCLUDE", ())
        names = [name for package in metafunc.module.DOCSTRING_PACKAGES for name in walk_modules(package, exclude)]
        metafunc.parametrize("docstring_module", names)
