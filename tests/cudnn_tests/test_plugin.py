"""chainer-cudnn without a GPU, and core's cuDNN switches with a stand-in library.

On a machine without CUDA (CI) the plugin must install and register, stay unused, and
say why; `chainer.should_use_cudnn` must follow `chainer.config.use_cudnn` once a library
can run (simulated here by a stand-in library on a machine whose CUDA is declared usable).
"""

import subprocess
import sys

import numpy
import pytest

import chainer
from chainer.backends import cuda, cudnn_library
from chainer.functions.connection import _conv_kernels

plugin = pytest.importorskip("chainer_cudnn.plugin", reason="chainer-cudnn is not installed")
from chainer_cudnn import _library  # noqa: E402

from ._stand_ins import StandInLibrary, registered  # noqa: E402


def test_the_plugin_registers_its_library_first_party():
    assert cudnn_library.libraries.get("cudnn") is plugin.LIBRARY
    assert cudnn_library.origin() == "cudnn"


@pytest.mark.skipif(cuda.available, reason="checks the machine without CUDA")
def test_without_cuda_it_is_unused_and_says_why():
    library, reason = cudnn_library.status()
    assert library is plugin.LIBRARY
    assert reason.startswith("CUDA is not usable here: ")
    assert cuda.cudnn_enabled is False
    assert chainer.should_use_cudnn(">=auto") is False
    assert chainer.should_use_cudnn_tensor_core(numpy.float16) is False


def test_the_doctor_reports_the_cudnn_row_in_a_fresh_process():
    out = subprocess.run([sys.executable, "-m", "chainer", "doctor"], capture_output=True, text=True, check=True).stdout
    row = next(line for line in out.splitlines() if line.startswith("cuDNN:"))
    if cuda.available:
        assert "not in use" not in row or "cuDNN library could not be loaded" in row, row
    else:
        assert "not in use: CUDA is not usable here" in row, row


def test_a_library_without_the_protocol_is_refused_with_a_warning():
    class Incomplete:
        def version(self):
            return 90000

    class BadPlugin:
        @chainer.hookimpl
        def chainer_register_cudnn(self, register):
            register(Incomplete())

    chainer.plugins.register(BadPlugin(), name="bad_cudnn")
    try:
        with pytest.warns(
            chainer.plugins.PluginWarning, match="lacks unavailable_reason, describe, convolution_forward"
        ):
            cudnn_library.libraries.get("cudnn")
    finally:
        chainer.plugins.unregister(name="bad_cudnn")


@pytest.fixture
def usable_stand_in(monkeypatch):
    """A stand-in library preferred over the real one, on a machine whose CUDA counts as usable."""
    with registered(monkeypatch, StandInLibrary(), "stand_in_cudnn"):
        yield cudnn_library.libraries.get("cudnn")


@pytest.mark.parametrize(
    "level, allowed",
    [
        ("==always", {"always"}),
        (">=auto", {"always", "auto"}),
        ("==auto", {"auto"}),
        ("==never", {"never"}),
        (">=never", {"always", "auto", "never"}),
    ],
)
def test_should_use_cudnn_follows_the_documented_levels(usable_stand_in, level, allowed):
    assert isinstance(usable_stand_in, StandInLibrary)
    for mode in ("always", "auto", "never"):
        with chainer.using_config("use_cudnn", mode):
            assert chainer.should_use_cudnn(level) == (mode in allowed), (level, mode)


def test_should_use_cudnn_checks_the_lowest_version(usable_stand_in):
    with chainer.using_config("use_cudnn", "always"):
        assert chainer.should_use_cudnn("==always", 91300)
        assert not chainer.should_use_cudnn("==always", 91301)
    with pytest.raises(ValueError, match="level must be one of"):
        chainer.should_use_cudnn("always")


def test_cudnn_enabled_and_tensor_cores(usable_stand_in):
    assert cuda.cudnn_enabled is True
    with chainer.using_config("use_cudnn_tensor_core", "auto"):
        assert chainer.should_use_cudnn_tensor_core(numpy.float16)
        assert not chainer.should_use_cudnn_tensor_core(numpy.float32)
    with chainer.using_config("use_cudnn_tensor_core", "always"):
        assert chainer.should_use_cudnn_tensor_core(numpy.float32)
    with chainer.using_config("use_cudnn_tensor_core", "never"):
        assert not chainer.should_use_cudnn_tensor_core(numpy.float16)


class _FakeCupy:
    """Anything but numpy counts as a GPU module for the dispatch."""


def test_the_convolutions_ask_cudnn_only_where_the_config_and_dtypes_allow(usable_stand_in):
    x = numpy.zeros((1, 2, 3, 3), numpy.float32)
    w = numpy.zeros((2, 2, 1, 1), numpy.float32)
    with chainer.using_config("use_cudnn", "auto"), chainer.using_config("cudnn_deterministic", True):
        library, flags = _conv_kernels._cudnn(_FakeCupy, x, w)
        assert library is usable_stand_in
        assert flags == {"deterministic": True, "autotune": False, "tensor_core": False}
        # the CPU never, mixed dtypes never (CuPy's code promotes them)
        assert _conv_kernels._cudnn(numpy, x, w) == (None, {})
        assert _conv_kernels._cudnn(_FakeCupy, x, w.astype(numpy.float16)) == (None, {})
    with chainer.using_config("use_cudnn", "never"):
        assert _conv_kernels._cudnn(_FakeCupy, x, w) == (None, {})


@pytest.mark.parametrize("size, k, s, p, d", [(7, 3, 2, 1, 1), (8, 3, 3, 0, 1), (10, 2, 1, 2, 3), (5, 5, 1, 0, 1)])
def test_end_padding_makes_exactly_outsize_windows_fit(size, k, s, p, d):
    span = (k - 1) * d + 1
    for cover_all in (False, True):
        out = (size + 2 * p - span + (s - 1 if cover_all else 0)) // s + 1
        post = _library._end_padding(size, out, k, s, p, d)
        assert post is not None and post >= 0
        # the window sweep over the input padded by p before and post after
        assert (size + p + post - span) // s + 1 == out
    # more windows than any padding of p before can give with a short input: fine (post grows);
    # fewer windows than the input holds would need negative padding: declined
    assert _library._end_padding(size + 3 * s, (size + 2 * p - span) // s + 1, k, s, p, d) is None


def test_geometry_beyond_three_spatial_axes_is_declined():
    assert _library.FrontendCudnn._post_padding((4,) * 4, (2,) * 4, (3,) * 4, (1,) * 4, (0,) * 4, (1,) * 4) is None
    assert _library.FrontendCudnn._post_padding((4, 4), (2, 2), (3, 3), (1, 1), (0, 0), (1, 1)) == (0, 0)


def test_contiguous_strides():
    assert _library._contiguous_strides((2, 3, 4, 5)) == [60, 20, 5, 1]
    assert _library._contiguous_strides((7,)) == [1]


def test_without_a_usable_library_chainer_7s_cudnn_handles_are_none(monkeypatch):
    monkeypatch.setattr(cudnn_library, "usable", lambda: None)
    assert cuda.cudnn is None and cuda.libcudnn is None


def test_chainer_7s_cudnn_handles_give_the_plugins_version(usable_stand_in):
    # Code written for Chainer 7.8.1 gates on these (its own tests among it).
    assert cuda.cudnn.getVersion() == 91300
    assert cuda.libcudnn.get_build_version() == 91300
    from chainer.backends.cuda import cudnn

    assert cudnn.getVersion() == 91300
    with chainer.using_config("use_cudnn", "always"):
        assert chainer.should_use_cudnn(">=auto", cuda.cudnn.getVersion())
        assert not chainer.should_use_cudnn(">=auto", cuda.cudnn.getVersion() + 1)
    # CuPy's direct cuDNN calls have no counterpart: a clear error, and hasattr says no.
    with pytest.raises(AttributeError, match="CuPy 14 removed its cuDNN bindings.*getVersion"):
        cuda.cudnn.convolution_forward  # noqa: B018
    assert not hasattr(cuda.libcudnn, "CUDNN_DATA_FLOAT")


def test_cuda_cuda_is_cupy_cuda_with_its_former_cudnn(usable_stand_in, monkeypatch):
    import types

    fake_cupy = types.ModuleType("cupy")
    fake_cupy.cuda = types.ModuleType("cupy.cuda")
    fake_cupy.cuda.Device = type("Device", (), {})
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy)
    assert cuda.cuda.Device is fake_cupy.cuda.Device
    assert cuda.cuda.__name__ == "cupy.cuda"
    assert cuda.cuda.cudnn.getVersion() == 91300
    assert "cudnn" in dir(cuda.cuda) and "Device" in dir(cuda.cuda)
    with pytest.raises(AttributeError):
        cuda.cuda.no_such_name  # noqa: B018
    # Without a usable cuDNN, cupy.cuda has no cudnn, as in CuPy 14.
    monkeypatch.setattr(cudnn_library, "usable", lambda: None)
    with pytest.raises(AttributeError):
        cuda.cuda.cudnn  # noqa: B018
