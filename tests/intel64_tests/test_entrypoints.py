"""The plugin loads by its entry point and provides '@intel64' as Chainer documents it:
the device, to_intel64/to_device, use_ideep and CHAINER_USE_IDEEP, is_ideep_available,
and the runtime report."""

import importlib.metadata
import io
import subprocess
import sys

import numpy
import pytest
from chainer_intel64 import _library
from chainer_intel64 import plugin as intel64_plugin

import chainer
from chainer import backend
from chainer.backends import intel64


def test_entry_point_loads_by_name():
    (ep,) = [ep for ep in importlib.metadata.entry_points(group="chainer") if ep.name == "intel64"]
    assert ep.load() is intel64_plugin
    assert ep.dist.name == "chainer-intel64"
    assert backend.backends.origin("intel64") == "intel64"
    assert intel64.kernels.origin("convolution_forward") == "intel64"


def test_every_slot_has_a_kernel():
    assert set(intel64_plugin.KERNELS) == set(intel64.SLOTS)


def test_library_is_found_where_pip_put_it():
    path = _library.library_path()
    assert path is not None and path.endswith("libdnnl.so.3")
    assert _library.unavailable_reason() is None
    major, minor, _, _ = _library.dnnl().version()
    assert (major, minor) == (3, 2)


def test_device():
    device = chainer.get_device("@intel64")
    assert isinstance(device, backend.Intel64Device)
    assert device.xp is numpy and device.name == "@intel64" and str(device) == "@intel64"
    assert device == backend.Intel64Device() and hash(device) == hash(backend.Intel64Device())
    a = numpy.ones(3, numpy.float32)
    assert device.send(a) is a
    assert device.is_array_supported(a)
    # NumPy arrays belong to '@numpy'; '@intel64' claims none of its own.
    assert backend.Intel64Device.from_array(a) is None
    with pytest.raises(ValueError, match="'@intel64' takes no device index"):
        chainer.get_device("@intel64:0")


def test_is_ideep_available_and_should_use_ideep():
    assert intel64.is_ideep_available() is True
    for mode, always, auto in [("never", False, False), ("auto", False, True), ("always", True, True)]:
        with chainer.using_config("use_ideep", mode):
            assert intel64.should_use_ideep("==always") is always
            assert intel64.should_use_ideep(">=auto") is auto
    with chainer.using_config("use_ideep", "sometimes"):
        with pytest.raises(ValueError, match="use_ideep must be 'always', 'auto' or 'never', got 'sometimes'"):
            intel64.should_use_ideep(">=auto")
    assert intel64.inputs_all_ready((numpy.ones((2, 3)), None)) is True
    assert intel64.inputs_all_ready((numpy.ones(3),)) is False


def test_bad_use_ideep_value_is_a_clear_error():
    x = numpy.ones((1, 1, 3, 3), numpy.float32)
    with chainer.using_config("use_ideep", "yes"), pytest.raises(ValueError, match="got 'yes'"):
        chainer.functions.convolution_2d(x, x)


@pytest.mark.parametrize(("value", "expected"), [(None, "never"), ("auto", "auto"), ("always", "always")])
def test_chainer_use_ideep_environment_variable(value, expected):
    env = {"CHAINER_DISABLE_PLUGIN_AUTOLOAD": "1"}
    if value is not None:
        env["CHAINER_USE_IDEEP"] = value
    code = "import chainer; print(chainer.config.use_ideep, chainer.backends.intel64.is_ideep_available())"
    import os

    done = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == [expected, "True"]


def test_links_move_to_intel64():
    links = pytest.importorskip("chainer.links", reason="chainer-links is not installed")
    model = links.Linear(3, 2)
    assert model.to_device("@intel64") is model
    assert model.device == backend.Intel64Device()
    assert type(model.W.array) is numpy.ndarray
    with pytest.warns(DeprecationWarning):
        model.to_intel64()
    assert model.device == backend.Intel64Device()
    model.to_device("@numpy")
    assert model.device == backend.CpuDevice()


def test_runtime_info_reports_onednn_and_isa():
    out = io.StringIO()
    chainer.print_runtime_info(out)
    text = out.getvalue()
    assert "oneDNN 3.2.0" in text and "ISA " in text
    row = intel64.runtime_info()
    assert row.startswith("oneDNN 3.2.0") and _library.dnnl().isa() in row
