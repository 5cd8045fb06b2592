"""Batch normalization's optional cuDNN operations, without a GPU.

Core asks a registered cuDNN library for batch normalization only where the library
implements the (optional) methods, ``use_cudnn`` allows it and the call normalizes per
channel; a library without them, or one that declines a call, leaves the CuPy code to
compute. Checked with stand-in libraries on a machine whose CUDA is declared usable, and
array stand-ins that are not NumPy arrays (the dispatch's test for a GPU array).
"""

import numpy
import pytest

import chainer
from chainer import _runtime_info
from chainer.backends import cuda, cudnn_library
from chainer.functions.normalization import _layout
from chainer.functions.normalization import batch_normalization as bn

plugin = pytest.importorskip("chainer_cudnn.plugin", reason="chainer-cudnn is not installed")
from chainer_cudnn import _library  # noqa: E402

from ._stand_ins import StandInLibrary, registered  # noqa: E402


class _DeviceArray:
    """Not a NumPy array: what the dispatch takes for a CuPy array."""

    def __init__(self, shape, dtype=numpy.float32):
        self.shape = tuple(shape)
        self.ndim = len(self.shape)
        self.dtype = numpy.dtype(dtype)


class _WithBatchNormalization(StandInLibrary):
    """Records each call and answers with distinct marker objects (or declines)."""

    def __init__(self, decline=False):
        self.calls = []
        self.decline = decline

    def batch_normalization_forward(self, *args, **kwargs):
        self.calls.append(("forward", args, kwargs))
        return None if self.decline else ("y", "mean", "inv_std")

    def batch_normalization_backward(self, *args, **kwargs):
        self.calls.append(("backward", args, kwargs))
        return None if self.decline else ("gx", "ggamma", "gbeta")

    def batch_normalization_inference(self, *args, **kwargs):
        self.calls.append(("inference", args, kwargs))
        return None if self.decline else "y_fixed"


@pytest.fixture
def stand_in(monkeypatch):
    library = _WithBatchNormalization()
    with registered(monkeypatch, library, "stand_in_cudnn_bn"):
        yield library


@pytest.fixture
def without_methods(monkeypatch):
    library = StandInLibrary()
    with registered(monkeypatch, library, "stand_in_cudnn_bn"):
        yield library


def test_the_optional_operations_are_not_required():
    assert cudnn_library.OPTIONAL == (
        "batch_normalization_forward",
        "batch_normalization_backward",
        "batch_normalization_inference",
    )
    assert not set(cudnn_library.OPTIONAL) & set(cudnn_library._REQUIRED)
    assert all(callable(getattr(plugin.LIBRARY, name)) for name in cudnn_library.OPTIONAL)


def test_forward_backward_and_inference_ask_the_library(stand_in):
    x = _DeviceArray((4, 3, 5, 5))
    gamma = beta = _DeviceArray((3,))
    running_mean, running_var = object(), object()
    node = bn.BatchNormalization(1e-3, running_mean, running_var, 0.8)
    with chainer.using_config("use_cudnn", "auto"), chainer.using_config("cudnn_deterministic", True):
        assert node.forward((x, gamma, beta)) == ("y",)
        assert (node.mean, node.inv_std) == ("mean", "inv_std")
        grad = bn.BatchNormalizationGrad(1e-3, node.layout, node.mean, node.inv_std)
        assert grad.forward((x, gamma, "gy")) == ("gx", "ggamma", "gbeta")
        fixed = bn.FixedBatchNormalization(1e-3)
        assert fixed.forward((x, gamma, beta, "m", "v")) == ("y_fixed",)
    forward, backward, inference = stand_in.calls
    assert forward == ("forward", (x, gamma, beta, 1e-3, running_mean, running_var, 0.8), {"deterministic": True})
    assert backward == ("backward", (x, gamma, "gy", "mean", "inv_std"), {"deterministic": True})
    assert inference == ("inference", (x, gamma, beta, "m", "v", 1e-3), {"deterministic": True})


def test_recomputation_leaves_the_running_statistics_alone(stand_in):
    node = bn.BatchNormalization(2e-5, object(), object(), 0.9)
    with chainer.using_config("use_cudnn", "always"), chainer.using_config("in_recomputing", True):
        node.forward((_DeviceArray((2, 3)), _DeviceArray((3,)), _DeviceArray((3,))))
    ((_, args, kwargs),) = stand_in.calls
    assert args[4:6] == (None, None) and kwargs == {"deterministic": False}


@pytest.mark.parametrize(
    "x_shape, gamma_shape, axis",
    [
        ((4, 3, 5, 5), (3, 5), None),  # parameters over two axes
        ((4, 3, 5, 5), (4,), (1, 2, 3)),  # normalized per batch entry
        ((4, 3, 5, 5), (5,), (0, 1, 2)),  # channels last
    ],
)
def test_only_per_channel_normalization_is_offered(stand_in, x_shape, gamma_shape, axis):
    layout = _layout.get_layout(x_shape, _layout.reduced_axes(len(x_shape), len(gamma_shape), axis))
    with chainer.using_config("use_cudnn", "always"):
        assert bn._cudnn_operation("batch_normalization_forward", _DeviceArray(x_shape), layout) is None
        per_channel = _layout.get_layout(x_shape, (0, 2, 3))
        assert bn._cudnn_operation("batch_normalization_forward", _DeviceArray(x_shape), per_channel) is not None


def test_numpy_arrays_and_use_cudnn_never_keep_the_library_out(stand_in):
    layout = _layout.get_layout((4, 3), (0,))
    with chainer.using_config("use_cudnn", "always"):
        assert bn._cudnn_operation("batch_normalization_forward", numpy.zeros((4, 3), "f"), layout) is None
    with chainer.using_config("use_cudnn", "never"):
        assert bn._cudnn_operation("batch_normalization_forward", _DeviceArray((4, 3)), layout) is None
    # and the NumPy computation is the reference one, untouched by the library
    x = numpy.array([[1.0, 10.0], [3.0, 20.0]], "f")
    with chainer.using_config("use_cudnn", "always"):
        y = chainer.functions.batch_normalization(x, numpy.ones(2, "f"), numpy.zeros(2, "f"), eps=0.0)
    numpy.testing.assert_allclose(y.array, [[-1, -1], [1, 1]], rtol=1e-6)
    assert stand_in.calls == []


class _Recorder:
    """Stands in for the CuPy computation: records that the fallback reached it."""

    def __init__(self):
        self.calls = []

    def forward(self, x, gamma, beta, eps, layout, stats=None):
        self.calls.append("forward")
        return "y_cupy", numpy.array([1.0, 2.0]), numpy.array([4.0, 9.0]), "inv_std_cupy"

    def backward(self, *args):
        self.calls.append("backward")
        return ("gx_cupy", "gg_cupy", "gb_cupy")


def test_a_declined_call_falls_back_to_the_cupy_code(monkeypatch):
    library = _WithBatchNormalization(decline=True)
    recorder = _Recorder()
    monkeypatch.setattr(bn, "_IMPL", recorder)
    running_mean, running_var = numpy.zeros(2), numpy.ones(2)
    with registered(monkeypatch, library, "stand_in_cudnn_bn"):
        node = bn.BatchNormalization(2e-5, running_mean, running_var, 0.5)
        with chainer.using_config("use_cudnn", "always"):
            assert node.forward((_DeviceArray((3, 2)), _DeviceArray((2,)), _DeviceArray((2,)))) == ("y_cupy",)
            grad = bn.BatchNormalizationGrad(2e-5, node.layout, node.mean, node.inv_std)
            assert grad.forward((_DeviceArray((3, 2)), _DeviceArray((2,)), "gy")) == ("gx_cupy", "gg_cupy", "gb_cupy")
    assert [c[0] for c in library.calls] == ["forward", "backward"]
    assert recorder.calls == ["forward", "backward"]
    # the running statistics were updated once, by core, with the unbiased variance (m = 3)
    numpy.testing.assert_allclose(running_mean, [0.5, 1.0])
    numpy.testing.assert_allclose(running_var, [0.5 + 0.5 * 4 * 1.5, 0.5 + 0.5 * 9 * 1.5])


def test_a_library_without_the_methods_registers_and_falls_back(without_methods, monkeypatch):
    assert cudnn_library.usable() is without_methods
    assert cudnn_library.operation("batch_normalization_forward") is None
    recorder = _Recorder()
    monkeypatch.setattr(bn, "_IMPL", recorder)
    node = bn.BatchNormalization(2e-5, None, None, 0.9)
    with chainer.using_config("use_cudnn", "always"):
        assert node.forward((_DeviceArray((3, 2)), _DeviceArray((2,)), _DeviceArray((2,)))) == ("y_cupy",)
    assert recorder.calls == ["forward"]


def test_the_doctor_reports_a_library_without_the_methods(without_methods):
    assert _runtime_info._cudnn_row().startswith("stand-in 9.13.0")
    assert cuda.cudnn_enabled is True


def test_the_plugin_declines_what_cudnn_has_no_engine_for_without_a_gpu():
    library = _library.FrontendCudnn()
    f8, f4, f2 = numpy.float64, numpy.float32, numpy.float16
    x64, g64 = numpy.zeros((4, 8, 3, 3), f8), numpy.zeros(8, f8)
    assert library.batch_normalization_forward(x64, g64, g64, 2e-5, None, None, 0.9, deterministic=False) is None
    assert library.batch_normalization_backward(x64, g64, x64, g64, g64, deterministic=False) is None
    assert library.batch_normalization_inference(x64, g64, g64, g64, g64, 2e-5, deterministic=False) is None
    x = numpy.zeros((4, 8, 3, 3), f4)
    g = numpy.zeros(8, f4)
    assert library._bn_supported(x, g, g.astype(f2))
    assert not library._bn_supported(x, numpy.zeros(4, f4))  # not one entry per channel
    assert not library._bn_supported(x, g, g.astype(f8))
    assert not library._bn_supported(numpy.zeros(8, f4), g)  # no channel axis
    # a single element per channel has no unbiased variance
    one = numpy.zeros((1, 8), f4)
    assert library.batch_normalization_forward(one, g, g, 2e-5, None, None, 0.9, deterministic=False) is None
    # float64 statistics (of a CuPy forward with float64 parameters)
    assert library.batch_normalization_backward(x, g, x, g.astype(f8), g, deterministic=False) is None
    assert library._plans == {}


@pytest.mark.parametrize(
    "shape, dims", [((4, 8, 3, 5), [4, 8, 3, 5]), ((32, 16), [32, 16, 1, 1]), ((2, 4, 3, 5, 7), [2, 4, 105, 1])]
)
def test_the_4d_description_of_a_per_channel_input(shape, dims):
    assert _library._bn_dims(shape) == dims
    assert numpy.prod(dims) == numpy.prod(shape)


def test_one_inference_refusal_stops_the_asking_on_that_device(monkeypatch):
    """cuDNN 9.19 has no batchnorm_inference engine on an H200: after one declined plan the
    plugin answers None at once instead of looking a plan up per call."""
    import sys
    import types

    runtime = types.SimpleNamespace(getDevice=lambda: 3)
    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=runtime)))
    library = _library.FrontendCudnn()
    asked = []
    monkeypatch.setattr(library, "_plan", lambda key: asked.append(key))
    g = numpy.zeros(8, numpy.float32)
    for shape in ((4, 8, 3, 3), (2, 8, 5, 5)):
        x = numpy.zeros(shape, numpy.float32)
        assert library.batch_normalization_inference(x, g, g, g, g, 2e-5, deterministic=False) is None
    assert asked == [("bn_inf", (4, 8, 3, 3), "f", False)]
    assert library._no_inference_engine == {3}
