import io
import re
import subprocess
import sys

import numpy

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
