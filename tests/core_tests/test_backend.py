"""Device specifiers, array modules and the GPU/iDeep/ChainerX errors on a CPU-only machine."""

import sys

import numpy as np
import pytest

import chainer
from chainer import backend
from chainer.backends import cuda, intel64

requires_no_cupy = pytest.mark.skipif(cuda.available, reason="checks the messages shown without a usable GPU")


def test_numpy_specifiers():
    cpu = chainer.get_device("@numpy")
    assert isinstance(cpu, backend.CpuDevice)
    assert cpu.name == "@numpy" and cpu.xp is np and str(cpu) == "@numpy"
    assert chainer.get_device(np) == cpu
    assert chainer.get_device((np, 0)) == cpu
    assert chainer.get_device(cpu) is cpu
    assert hash(cpu) == hash(backend.CpuDevice())


@pytest.mark.parametrize(
    ("spec", "error", "pattern"),
    [
        ("@numpy:0", ValueError, r"'@numpy' takes no device index"),
        ("@cupy:x", ValueError, r"the device index in '@cupy:x' must be an integer"),
        ("@cupy:-1", ValueError, "must not be negative"),
        ("@nope", ValueError, r"unknown backend '@nope' .* registered backends: '@numpy', '@cupy'"),
        # As in Chainer, a string without '@' names a ChainerX device (not part of this distribution).
        ("numpy", RuntimeError, r"'numpy'.*without the '@' prefix names a ChainerX device"),
        ("1.0", RuntimeError, r"without the '@' prefix names a ChainerX device"),
        ("@numpy:", ValueError, r"ends with ':' but gives no device index"),
        ("@cupy", ValueError, r"needs a device index, as in '@cupy:0'"),
        (1.5, TypeError, r"expected a device specifier such as '@numpy'"),
        (True, TypeError, r"expected a device specifier such as '@numpy'"),
        (cuda.DummyDevice, TypeError, r"expected a device specifier such as '@numpy'"),
    ],
)
def test_invalid_specifiers(spec, error, pattern):
    with pytest.raises(error, match=pattern):
        chainer.get_device(spec)
    # using_device checks its specifier at once, not when the block is entered.
    with pytest.raises(error, match=pattern):
        chainer.using_device(spec)


def test_device_reprs_and_to_cpu():
    from chainer.backends import _cpu

    assert repr(chainer.get_device("@numpy")) == "<CpuDevice (numpy)>"
    assert str(chainer.get_device("@numpy")) == "@numpy"
    a = np.ones(2)
    assert _cpu._to_cpu(a) is a and _cpu._to_cpu(None) is None
    converted = _cpu._to_cpu([a, (np.float32(3), None)])
    assert isinstance(converted, list) and converted[0] is a
    assert isinstance(converted[1], tuple) and converted[1][0].shape == () and converted[1][1] is None


@pytest.mark.parametrize("spec", [-1, -2, "-1", np.int64(-1)])
def test_legacy_integer_specifiers_name_the_cpu(spec):
    # Chainer's example scripts pass their ``--device`` option (default '-1', or an int
    # from the deprecated ``--gpu``) straight to chainer.get_device.
    assert chainer.get_device(spec) == chainer.get_device("@numpy")
    assert backend._get_device_compat(spec) == chainer.get_device("@numpy")


@requires_no_cupy
def test_gpu_requests_explain_why_cupy_is_unavailable():
    for request in (
        lambda: chainer.get_device("@cupy:0"),
        lambda: chainer.get_device(0),
        lambda: chainer.get_device("1"),
        lambda: backend._get_device_compat(0),
    ):
        with pytest.raises(
            RuntimeError,
            match=r"'@cupy' backend is not available: CuPy is not installed; install it with the CUDA extra, pip install 'chainer-core\[cuda\]'",
        ):
            request()
    with pytest.raises(RuntimeError, match="CUDA environment is not available: CuPy is not installed"):
        cuda.to_gpu(np.ones(2))
    with pytest.raises(RuntimeError, match="CuPy is not installed"):
        cuda.cupy.zeros(3)
    assert cuda.available is False
    assert not isinstance(np.ones(1), cuda.ndarray)
    assert cuda.get_device_from_array(np.ones(1)) is cuda.DummyDevice
    assert cuda.get_device_from_id(None) is cuda.DummyDevice
    with pytest.raises(RuntimeError, match="CuPy is not installed"):
        chainer.Variable(np.ones(1, np.float32)).to_gpu()


def test_cupy_version_mismatch_reason_names_versions(monkeypatch):
    """A CuPy that imports but finds no device reports the versions it found."""

    class FakeRuntime:
        @staticmethod
        def getDeviceCount():
            raise RuntimeError("cudaErrorInsufficientDriver: CUDA driver version is insufficient")

        @staticmethod
        def runtimeGetVersion():
            return 12040

        @staticmethod
        def driverGetVersion():
            return 11080

    class FakeCuda:
        runtime = FakeRuntime

    class FakeCupy:
        __version__ = "14.0.0"
        cuda = FakeCuda

    monkeypatch.setitem(sys.modules, "cupy", FakeCupy)
    cuda._unavailable_reason.cache_clear()
    try:
        reason = cuda._unavailable_reason()
    finally:
        cuda._unavailable_reason.cache_clear()
    assert "no usable CUDA device" in reason
    assert "CuPy 14.0.0, CUDA runtime 12.4, driver supports CUDA 11.8" in reason
    assert "CUDA driver version is insufficient" in reason


def test_intel64_is_unavailable_with_a_clear_reason(without_intel64_plugin):
    assert intel64.is_ideep_available() is False
    with pytest.raises(RuntimeError, match=r"no plugin provides the '@intel64' backend: install chainer-intel64"):
        chainer.get_device("@intel64")
    assert intel64.inputs_all_ready((np.ones(2),)) is False


@pytest.mark.parametrize("spec", ["native", "native:0", "cuda:0", ("native", 0)])
def test_chainerx_specifiers_raise_clear_error(spec):
    with pytest.raises(RuntimeError, match="ChainerX is not part of this distribution"):
        chainer.get_device(spec)


def test_chainerx_conversions():
    a = np.ones(2)
    assert backend.from_chx(a) is a
    with pytest.raises(RuntimeError, match="ChainerX is not part of this distribution"):
        backend.to_chx(a)
    with pytest.raises(RuntimeError, match="ChainerX"):
        backend.ChainerxDevice()


def test_get_array_module_and_device_from_array():
    a = np.ones(3, np.float32)
    assert backend.get_array_module(a) is np
    assert backend.get_array_module(chainer.Variable(a)) is np
    assert backend.get_array_module() is np
    assert cuda.get_array_module(a) is np
    assert backend.get_device_from_array(a) == chainer.get_device("@numpy")
    assert backend.get_device_from_array(None, chainer.Variable(a)) == chainer.get_device("@numpy")
    assert backend.get_device_from_array(3.0) == chainer.get_device("@numpy")


def test_using_device_and_send_nested():
    with chainer.using_device("@numpy") as device:
        assert device.name == "@numpy"
        data = {"a": [np.ones(1), None], "b": (np.zeros(2),)}
        sent = device.send(data)
        assert isinstance(sent["a"], list) and sent["a"][1] is None
        assert isinstance(sent["b"], tuple)
        assert sent["a"][0] is data["a"][0]  # already on the device: no copy


def test_copyto():
    dst = np.zeros(3, np.float32)
    backend.copyto(dst, np.arange(3, dtype=np.float32))
    np.testing.assert_array_equal(dst, [0, 1, 2])
    with pytest.raises(TypeError, match="dst must be an array"):
        backend.copyto([0, 0], np.ones(2))


def test_cpu_send_rejects_non_arrays():
    with pytest.raises(TypeError, match=r"CpuDevice.send_array: expected an array .* got object"):
        chainer.get_device("@numpy").send_array(object())


def test_cuda_to_cpu_and_misc_on_cpu():
    a = np.ones(2)
    assert cuda.to_cpu(a) is a
    assert cuda.to_cpu(None) is None
    assert [x is a for x in cuda.to_cpu([a, a])] == [True, True]
    with pytest.raises(TypeError, match=r"cuda.to_cpu: expected .* got str"):
        cuda.to_cpu("x")
    cuda.set_max_workspace_size(1024)
    assert cuda.get_max_workspace_size() == 1024
    assert cuda.should_use_cudnn(">=auto") is False
    calls = []

    @cuda.memoize()
    def square(v):
        calls.append(v)
        return v * v

    assert square(3) == 9 and square(3) == 9 and calls == [3]
    cuda.clear_memo()
    assert square(3) == 9 and calls == [3, 3]
    assert cuda.fuse(square) is square


def test_variable_to_device_roundtrip_on_cpu():
    v = chainer.Variable(np.ones(2, np.float32))
    v.grad = np.ones(2, np.float32)
    assert v.to_device("@numpy") is v
    assert v.to_cpu() is v
    assert v.device.name == "@numpy"
    with pytest.raises(RuntimeError, match="ChainerX"):
        v.to_chx()
    assert v.from_chx() is v


@requires_no_cupy
def test_cupy_names_without_cupy():
    from chainer.function_hooks import cupy_memory_profile

    for name in ("Event", "Stream"):
        cls = getattr(cuda, name)
        assert cls.__name__ == name
        with pytest.raises(RuntimeError, match="CuPy is not installed"):
            cls()
    with pytest.raises(NotImplementedError, match="CuPy 14 no longer provides"):
        cuda.get_cudnn_dropout_states()
    assert cupy_memory_profile.memory_hook_available is False
    hook = cupy_memory_profile.CupyMemoryCumulativeHook()
    assert (hook.used_bytes, hook.acquired_bytes) == (0, 0)
    with pytest.raises(RuntimeError, match="CuPy is not installed"), hook:
        pass


def test_intel64_without_ideep(without_intel64_plugin):
    from chainer.backends import intel64

    assert not isinstance(np.ones(1), intel64.mdarray)
    with chainer.using_config("use_ideep", "always"):
        assert intel64.should_use_ideep("==always") is False
    with pytest.raises(ValueError, match="level must be"):
        intel64.should_use_ideep("==auto")
