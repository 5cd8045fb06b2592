"""The CuPy backend: devices, transfers and kernel helpers.

This module imports without CuPy. CuPy itself is imported on first use, and the backend
counts as available only when CuPy imports *and* a CUDA device answers; otherwise every
GPU request raises a ``RuntimeError`` that says why (CuPy missing, or the versions of
CuPy, the CUDA runtime and the driver that were found).

CuPy 14 no longer ships cuDNN bindings: cuDNN comes from a plugin (the ``chainer-cudnn``
distribution, see :mod:`chainer.backends.cudnn_library`), and ``cudnn_enabled`` says
whether one is installed and can run here.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
import threading
import warnings
import weakref
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy

from chainer import _backend

_integer_types = (int, numpy.integer)


def _format_cuda_version(version: int) -> str:
    return f"{version // 1000}.{version % 1000 // 10}"


def _describe_versions(cupy: ModuleType) -> str:
    parts = [f"CuPy {cupy.__version__}"]
    for label, getter in (("CUDA runtime", "runtimeGetVersion"), ("driver supports CUDA", "driverGetVersion")):
        try:
            parts.append(f"{label} {_format_cuda_version(getattr(cupy.cuda.runtime, getter)())}")
        except Exception as exc:
            parts.append(f"{label} unknown ({type(exc).__name__})")
    return ", ".join(parts)


@functools.cache
def _unavailable_reason() -> str | None:
    try:
        cupy = importlib.import_module("cupy")
    except ImportError:
        return (
            "CuPy is not installed; install it with the CUDA extra, pip install 'chainer-core[cuda]', "
            "or the cupy-cudaXXx wheel that matches your CUDA driver"
        )
    except Exception as exc:
        return (
            f"CuPy is installed but failed to import ({type(exc).__name__}: {exc}); its CUDA "
            "libraries probably do not match the installed driver"
        )
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return f"no usable CUDA device ({type(exc).__name__}: {exc}); found {_describe_versions(cupy)}"
    if count == 0:
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        return f"no CUDA device is visible (CUDA_VISIBLE_DEVICES={visible!r}); found {_describe_versions(cupy)}"
    return None


def check_cuda_available() -> None:
    """Raise ``RuntimeError`` saying why CUDA cannot be used, if it cannot."""
    reason = _unavailable_reason()
    if reason is not None:
        raise RuntimeError(f"CUDA environment is not available: {reason}")


def _cupy() -> ModuleType:
    check_cuda_available()
    return sys.modules["cupy"]


class _UnavailableCupy:
    """Stands in for the ``cupy`` module when CUDA cannot be used; any use says why."""

    def __getattr__(self, name: str) -> Any:
        check_cuda_available()
        raise AssertionError("unreachable")  # pragma: no cover

    def __repr__(self) -> str:
        return "<cupy: not available>"


class _CudnnVersion:
    """What Chainer 7.8.1 code reads from CuPy's cuDNN modules, which CuPy 14 removed.

    Chainer 7.8.1 exposed CuPy's cuDNN bindings as ``cuda.cudnn`` (``cupy.cudnn``),
    ``cuda.libcudnn`` and ``cuda.cuda.cudnn`` (``cupy.cuda.cudnn``), and code written for it
    reads the version there (``cuda.cuda.cudnn.getVersion() >= 7000``). Where a cuDNN
    plugin can run, these names are this object, which answers with the version of the
    cuDNN the plugin runs. The rest of those modules (handles, descriptors, direct calls)
    has no counterpart: the plugin drives cuDNN through NVIDIA's cuDNN frontend.
    """

    def __init__(self, library: Any) -> None:
        self._library = library

    def getVersion(self) -> int:  # CuPy's name
        """cuDNN's version number, as ``cudnnGetVersion`` gives it (e.g. ``91900``)."""
        return int(self._library.version())

    def get_build_version(self) -> int:
        """The same number: the plugin runs the cuDNN it loads (CuPy reported the cuDNN it
        was compiled against)."""
        return int(self._library.version())

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(
            f"chainer.backends.cuda.cudnn has no {name!r}: CuPy 14 removed its cuDNN bindings "
            "(cupy.cudnn, cupy.cuda.cudnn); the cuDNN plugin runs the convolutions and batch "
            "normalization itself, and only getVersion() and get_build_version() are provided here"
        )

    def __repr__(self) -> str:
        return f"<cuDNN {self.getVersion()} through the cuDNN plugin>"


def _cudnn_version() -> _CudnnVersion | None:
    from chainer.backends import cudnn_library

    library = cudnn_library.usable()
    return None if library is None else _CudnnVersion(library)


class _CupyCuda(ModuleType):
    """``cupy.cuda`` with the ``cudnn`` it had before CuPy 14 (a :class:`_CudnnVersion`)
    where a cuDNN plugin can run: every other name is ``cupy.cuda``'s own."""

    def __init__(self, module: ModuleType) -> None:
        super().__init__(module.__name__, module.__doc__)
        self._module = module

    def __getattr__(self, name: str) -> Any:
        if name == "cudnn" and (found := _cudnn_version()) is not None:
            return found
        return getattr(self._module, name)

    def __dir__(self) -> list[str]:
        return sorted({*dir(self._module), *(("cudnn",) if _cudnn_version() is not None else ())})


@functools.cache
def _cupy_cuda(module: ModuleType) -> _CupyCuda:
    return _CupyCuda(module)


class _NoCupyArray:
    """Placeholder for ``cuda.ndarray`` without CuPy: no object is an instance of it."""


class DummyDeviceType:
    """A do-nothing stand-in for ``cupy.cuda.Device``, used for CPU arrays."""

    id = -1

    def __int__(self) -> int:
        return -1

    def __enter__(self) -> DummyDeviceType:
        return self

    def __exit__(self, *args: Any) -> None:
        pass

    def use(self) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DummyDeviceType)

    def __hash__(self) -> int:
        return hash(DummyDeviceType)


DummyDevice = DummyDeviceType()


def __getattr__(name: str) -> Any:
    # Lazily resolved so that `import chainer` never imports CuPy.
    if name == "available":
        return _unavailable_reason() is None
    if name == "cudnn_enabled":
        from chainer.backends import cudnn_library

        return cudnn_library.usable() is not None
    if name == "cupy":
        return sys.modules["cupy"] if _unavailable_reason() is None else _UnavailableCupy()
    if name == "cuda":
        # cupy.cuda, as Chainer 7.8.1's `from cupy import cuda` made it (cuda.cuda.Device, ...),
        # with the cudnn of CuPy before 14 where a cuDNN plugin runs (cuda.cuda.cudnn.getVersion()).
        return _cupy_cuda(sys.modules["cupy"].cuda) if _unavailable_reason() is None else _UnavailableCupy()
    if name in ("cudnn", "libcudnn"):
        # Chainer 7.8.1's handles on cupy.cudnn and cupy.cuda.cudnn: None without cuDNN.
        return _cudnn_version()
    if name == "ndarray":
        return sys.modules["cupy"].ndarray if _unavailable_reason() is None else _NoCupyArray
    if name == "Device":
        return sys.modules["cupy"].cuda.Device if _unavailable_reason() is None else DummyDeviceType
    if name in ("Event", "Stream"):
        # CuPy's classes; without CuPy, a class whose instances cannot be made (saying why).
        if _unavailable_reason() is None:
            return getattr(sys.modules["cupy"].cuda, name)
        return _unavailable_class(name)
    if name == "memory_pool":
        return _cupy().get_default_memory_pool()
    if name == "pinned_memory_pool":
        return _cupy().get_default_pinned_memory_pool()
    raise AttributeError(f"module 'chainer.backends.cuda' has no attribute {name!r}")


@functools.cache
def _unavailable_class(name: str) -> type:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        check_cuda_available()

    return type(name, (), {"__init__": __init__, "__doc__": f"cupy.cuda.{name} (CuPy is not available here)"})


def _cupy_array_types() -> tuple[type, ...]:
    cupy = sys.modules.get("cupy")
    return (cupy.ndarray,) if cupy is not None else ()


class _InvalidDeviceIdError(TypeError, ValueError):
    """A device ID that is not a non-negative integer (Chainer 7.8.1 raised ValueError)."""


class GpuDevice(_backend.Device):
    """A CUDA GPU, computing with CuPy. Its specifier is ``'@cupy:N'``.

    Args:
        device: The ``cupy.cuda.Device`` to wrap.
    """

    def __init__(self, device: Any) -> None:
        cupy = _cupy()
        if not isinstance(device, cupy.cuda.Device):
            raise TypeError(f"GpuDevice: expected a cupy.cuda.Device, got {type(device).__name__}")
        self.device = device

    @staticmethod
    def from_device_id(device_id: int) -> GpuDevice:
        """Return the :class:`GpuDevice` of GPU ``device_id``."""
        cupy = _cupy()
        if not isinstance(device_id, _integer_types) or isinstance(device_id, bool):
            raise _InvalidDeviceIdError(
                f"GpuDevice.from_device_id: device_id must be an int, got {type(device_id).__name__}"
            )
        if device_id < 0:
            raise _InvalidDeviceIdError(f"GpuDevice.from_device_id: device_id must be >= 0, got {device_id}")
        # As in Chainer 7.8.1, a device that is not there is found when it is first used
        # (CuPy then raises cudaErrorInvalidDevice), not here.
        return GpuDevice(cupy.cuda.Device(int(device_id)))

    @staticmethod
    def from_array(array: Any) -> GpuDevice | None:
        """Return the device of a CuPy array, or ``None`` for any other object."""
        cupy = sys.modules.get("cupy")
        if cupy is not None and isinstance(array, cupy.ndarray):
            return GpuDevice(array.device)
        return None

    @property
    def xp(self) -> ModuleType:  # type: ignore[override]
        return sys.modules["cupy"]

    @property
    def supported_array_types(self) -> tuple[type, ...]:  # type: ignore[override]
        return _cupy_array_types()

    @property
    def name(self) -> str:
        return f"@cupy:{self.device.id}"

    def __repr__(self) -> str:
        return f"<GpuDevice (cupy):{self.device.id}>"

    def create_context(self) -> Any:
        return self.device

    def use(self) -> None:
        self.device.use()

    def is_array_supported(self, array: Any) -> bool:
        cupy = sys.modules.get("cupy")
        return cupy is not None and isinstance(array, cupy.ndarray) and array.device.id == self.device.id

    def send_array(self, array: Any) -> Any:
        if self.is_array_supported(array):
            return array
        with self.device:
            return sys.modules["cupy"].asarray(array)


def _gpu_device_factory(index: int | None) -> GpuDevice:
    if index is None:
        return GpuDevice(_cupy().cuda.Device())
    return GpuDevice.from_device_id(index)


def get_device_from_id(device_id: int | None) -> Any:
    """Return the ``cupy.cuda.Device`` of ``device_id`` (``DummyDevice`` for ``None``)."""
    if device_id is None:
        return DummyDevice
    if not isinstance(device_id, _integer_types) or isinstance(device_id, bool):
        raise TypeError(f"cuda.get_device_from_id: device_id must be an int or None, got {type(device_id).__name__}")
    return _cupy().cuda.Device(int(device_id))


def get_device_from_array(*arrays: Any) -> Any:
    """Return the ``cupy.cuda.Device`` of the first CuPy array, or ``DummyDevice``."""
    cupy = sys.modules.get("cupy")
    for array in arrays:
        array = getattr(array, "array", array) if not isinstance(array, numpy.ndarray) else array
        if cupy is not None and isinstance(array, cupy.ndarray):
            return array.device
    return DummyDevice


def get_device(*args: Any) -> Any:
    """Older API: the CUDA device of an ID integer or of CuPy arrays (``DummyDevice`` otherwise).

    Deprecated, as in Chainer 7 (whose message Chainer 7's tests match).
    """
    # No stacklevel: attributed to Chainer as in Chainer 7 (Python's default filters hide it).
    warnings.warn(
        "get_device is deprecated. Please use get_device_from_id or get_device_from_array instead.",
        DeprecationWarning,
    )
    cupy = sys.modules.get("cupy")
    for arg in args:
        if isinstance(arg, _integer_types) and not isinstance(arg, bool):
            return DummyDevice if arg < 0 else get_device_from_id(int(arg))
        if cupy is not None and isinstance(arg, cupy.cuda.Device):
            return arg
        device = get_device_from_array(arg)
        if device is not DummyDevice:
            return device
    return DummyDevice


def _resolve_cuda_device(device: Any) -> Any:
    cupy = _cupy()
    if device is None:
        return cupy.cuda.Device()
    if isinstance(device, GpuDevice):
        return device.device
    if isinstance(device, cupy.cuda.Device):
        return device
    if isinstance(device, _integer_types) and not isinstance(device, bool):
        return cupy.cuda.Device(int(device))
    if isinstance(device, str) and device.startswith("@cupy"):
        from chainer import backend

        return backend.get_device(device).device  # type: ignore[attr-defined]
    raise TypeError(f"cuda.to_gpu: device must be None, an int, '@cupy:N' or a cupy.cuda.Device, got {device!r}")


def _convert_each(array: Any, convert_one: Callable[[Any], Any]) -> Any:
    """``convert_one`` applied to ``array`` or to each array of a (nested) list or tuple,
    ``None`` kept. An array listed twice is converted once and both places get the same
    result, as in Chainer 7."""
    results: dict[int, tuple[Any, Any]] = {}  # id -> (the array, kept alive; its result)

    def convert(a: Any) -> Any:
        if a is None:
            return None
        if isinstance(a, (list, tuple)):
            return type(a)(convert(x) for x in a)
        if id(a) not in results:
            results[id(a)] = (a, convert_one(a))
        return results[id(a)][1]

    return convert(array)


def to_gpu(array: Any, device: Any = None, stream: Any = None) -> Any:
    """Copy a CPU array (or a list/tuple of them) to a GPU.

    Args:
        array: A NumPy/CuPy array, ``None``, or a list/tuple of them.
        device: Target GPU: ``None`` (current), an ID, ``'@cupy:N'`` or ``cupy.cuda.Device``.
        stream: Optional CUDA stream for the transfer.
    """
    cuda_device = _resolve_cuda_device(device)
    cupy = sys.modules["cupy"]
    if stream is not None:
        # Deprecated in Chainer 7.8.1 too (its tests expect the warning); still honoured.
        warnings.warn("The stream option of to_gpu is deprecated. Use a stream context instead.", DeprecationWarning)

    def convert_one(a: Any) -> Any:
        if isinstance(a, cupy.ndarray) and a.device.id == cuda_device.id:
            return a
        if not isinstance(a, (numpy.ndarray, numpy.generic, cupy.ndarray)):
            raise TypeError(f"cuda.to_gpu: expected a numpy.ndarray or cupy.ndarray, got {type(a).__name__}")
        with cuda_device:
            if stream is not None:
                with stream:
                    return cupy.asarray(a)
            return cupy.asarray(a)

    return _convert_each(array, convert_one)


def to_cpu(array: Any, stream: Any = None) -> Any:
    """Copy a GPU array (or a list/tuple of arrays) to host memory as NumPy arrays."""
    if array is None:
        return None
    if isinstance(array, numpy.ndarray):
        return array
    if isinstance(array, numpy.generic):
        return numpy.asarray(array)
    if isinstance(array, (list, tuple)):
        return _convert_each(array, lambda a: to_cpu(a, stream))
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(array, cupy.ndarray):
        return array.get(stream)
    if hasattr(array, "__array__"):
        return numpy.asarray(array)
    raise TypeError(f"cuda.to_cpu: expected a numpy.ndarray, cupy.ndarray or None, got {type(array).__name__}")


def copy(array: Any, out: Any = None, out_device: Any = None, stream: Any = None) -> Any:
    """Copy a CuPy array, possibly to another GPU."""
    cupy = _cupy()
    if not isinstance(array, cupy.ndarray):
        raise TypeError(f"cuda.copy: expected a cupy.ndarray, got {type(array).__name__}")
    if out is None:
        target = array.device if out_device is None else _resolve_cuda_device(out_device)
        with target:
            out = cupy.empty_like(array)
    with out.device:
        if stream is not None:
            with stream:
                cupy.copyto(out, cupy.asarray(array))
        else:
            cupy.copyto(out, cupy.asarray(array))
    return out


def get_array_module(*args: Any) -> ModuleType:
    """Return ``cupy`` if any argument is a CuPy array (or a Variable holding one), else ``numpy``."""
    from chainer import backend

    return backend.get_array_module(*args)


_memoized: weakref.WeakSet[Any] = weakref.WeakSet()
_memo_lock = threading.Lock()


class _Memoized:
    def __init__(self, func: Callable[..., Any], for_each_device: bool) -> None:
        functools.update_wrapper(self, func)
        self._func = func
        self._for_each_device = for_each_device
        self._cache: dict[Any, Any] = {}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        key: tuple[Any, ...] = (args, tuple(sorted(kwargs.items())))
        if self._for_each_device:
            cupy = sys.modules.get("cupy")
            key += (cupy.cuda.Device().id if cupy is not None else -1,)
        try:
            return self._cache[key]
        except KeyError:
            value = self._cache[key] = self._func(*args, **kwargs)
            return value

    def clear(self) -> None:
        self._cache.clear()


def memoize(for_each_device: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator caching a function's result per arguments (and per device if asked)."""

    def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
        memo = _Memoized(func, for_each_device)
        with _memo_lock:
            _memoized.add(memo)
        return memo

    return decorator


def clear_memo() -> None:
    """Clear the results cached by every :func:`memoize`-decorated function."""
    with _memo_lock:
        for memo in list(_memoized):
            memo.clear()


@memoize(for_each_device=True)
def elementwise(in_params: str, out_params: str, operation: str, name: str, **kwargs: Any) -> Any:
    """Create (once per device) a ``cupy.ElementwiseKernel``."""
    return _cupy().ElementwiseKernel(in_params, out_params, operation, name, **kwargs)


@memoize(for_each_device=True)
def reduce(
    in_params: str,
    out_params: str,
    map_expr: str,
    reduce_expr: str,
    post_map_expr: str,
    identity: Any,
    name: str,
    **kwargs: Any,
) -> Any:
    """Create (once per device) a ``cupy.ReductionKernel``."""
    return _cupy().ReductionKernel(
        in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, name, **kwargs
    )


@memoize(for_each_device=True)
def raw(code: str, name: str, *args: Any, **kwargs: Any) -> Any:
    """Create (once per device) a ``cupy.RawKernel``."""
    return _cupy().RawKernel(code, name, *args, **kwargs)


def fuse(*args: Any, **kwargs: Any) -> Any:
    """``cupy.fuse`` when CUDA is available; otherwise the function unchanged (NumPy runs it)."""
    if _unavailable_reason() is None:
        return sys.modules["cupy"].fuse(*args, **kwargs)
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda func: func


_max_workspace_size = 8 * 1024 * 1024


def get_max_workspace_size() -> int:
    """Return the workspace size kept for cuDNN-style algorithms (bytes)."""
    return _max_workspace_size


def set_max_workspace_size(size: int) -> None:
    """Set the workspace size kept for cuDNN-style algorithms (bytes)."""
    global _max_workspace_size
    if not isinstance(size, _integer_types) or size < 0:
        raise ValueError(f"cuda.set_max_workspace_size: size must be a non-negative int, got {size!r}")
    _max_workspace_size = int(size)


_CUDNN_LEVELS = {
    "==always": ("always",),
    ">=auto": ("always", "auto"),
    "==auto": ("auto",),
    "==never": ("never",),
    ">=never": ("always", "auto", "never"),
}


def should_use_cudnn(level: str, lowest_version: int = 0) -> bool:
    """Whether to call cuDNN: a cuDNN plugin can run here (:data:`cudnn_enabled`), its
    version is at least ``lowest_version``, and ``chainer.config.use_cudnn`` is one of the
    values ``level`` admits (``'==always'``, ``'>=auto'`` (always or auto), ``'==auto'``,
    ``'==never'`` or ``'>=never'``)."""
    allowed = _CUDNN_LEVELS.get(level)
    if allowed is None:
        raise ValueError(f"cuda.should_use_cudnn: level must be one of {', '.join(_CUDNN_LEVELS)}; got {level!r}")
    from chainer import configuration
    from chainer.backends import cudnn_library

    library = cudnn_library.usable()
    if library is None or not globals().get("cudnn_enabled", True):  # tests may patch cudnn_enabled off
        return False
    if lowest_version and library.version() < lowest_version:
        return False
    return configuration.config.use_cudnn in allowed


def get_cudnn_dropout_states() -> Any:
    """cuDNN's dropout states of the current thread and device.

    Not available: cuDNN dropout needs cuDNN, which CuPy 14 no longer binds (dropout
    runs on CuPy kernels instead).
    """
    raise NotImplementedError(
        "cuda.get_cudnn_dropout_states: cuDNN's dropout states need cuDNN, which CuPy 14 no longer provides; "
        "chainer.functions.dropout does not use them"
    )


def get_cudnn_dropout_states_core(thread_id: int) -> Any:
    """cuDNN's dropout states of one thread: not available, see :func:`get_cudnn_dropout_states`."""
    return get_cudnn_dropout_states()


def should_use_cudnn_tensor_core(dtype: Any) -> bool:
    """Whether cuDNN may use tensor cores for ``dtype``: ``chainer.config.use_cudnn_tensor_core``
    ``'always'`` allows them for every dtype (TF32 math for float32), ``'never'`` for none, and
    ``'auto'`` for float16, where they keep full precision (and only with a cuDNN plugin)."""
    from chainer import configuration

    mode = configuration.config.use_cudnn_tensor_core
    if mode == "always":
        return True
    if mode == "never":
        return False
    from chainer.backends import cudnn_library

    return numpy.dtype(dtype) == numpy.float16 and cudnn_library.usable() is not None
