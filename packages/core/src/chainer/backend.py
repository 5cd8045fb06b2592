"""Devices and array modules: ``chainer.get_device`` and friends.

Backends come from the ``chainer_register_backends`` hook (NumPy, CuPy and Intel64 are
builtin plugins registered through the same hook as third-party ones). A device
specifier names a backend: ``'@numpy'``, ``'@cupy:0'``, ``'@intel64'``, or a plugin's
``'@name'`` / ``'@name:N'``.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import numpy

from chainer import _backend, plugins
from chainer.backends import _chainerx, _cpu
from chainer.backends import cuda as _cuda
from chainer.backends import intel64 as _intel64

# Code written for Chainer 7.8.1 imports the module from here (``from chainer.backend import cuda``).
cuda = _cuda
Device = _backend.Device
CpuDevice = _cpu.CpuDevice
GpuDevice = _cuda.GpuDevice
Intel64Device = _intel64.Intel64Device
ChainerxDevice = _chainerx.ChainerxDevice

# Set by chainer.variable at import: the classes whose ``.array`` get_array_module unwraps.
_variable_types: tuple[type, ...] = ()

_CPU = CpuDevice()


class BackendEntry:
    """One registered backend: its name, Device class, array types and availability."""

    def __init__(
        self,
        name: str,
        device_class: type[Device],
        array_types: tuple[type, ...] | Callable[[], tuple[type, ...]],
        factory: Callable[[int | None], Device] | None,
        check_available: Callable[[], str | None] | None,
    ) -> None:
        self.name = name
        self.device_class = device_class
        self._array_types = array_types
        self._factory = factory
        self._check_available = check_available
        self._reason: str | None = None
        self._checked = False

    @property
    def array_types(self) -> tuple[type, ...]:
        types = self._array_types
        return types() if callable(types) else types

    def unavailable_reason(self) -> str | None:
        """``None`` if usable here, else why not (checked once, then cached)."""
        if not self._checked:
            try:
                self._reason = None if self._check_available is None else self._check_available()
            except Exception as exc:
                self._reason = f"its availability check failed: {type(exc).__name__}: {exc}"
            self._checked = True
        return self._reason

    def create(self, index: int | None) -> Device:
        if self._factory is not None:
            return self._factory(index)
        return self.device_class() if index is None else self.device_class(index)  # type: ignore[call-arg]


def _make_backend_entry(
    name: str,
    device_class: type[Device],
    *,
    array_types: tuple[type, ...] | Callable[[], tuple[type, ...]] = (),
    factory: Callable[[int | None], Device] | None = None,
    check_available: Callable[[], str | None] | None = None,
) -> tuple[str, BackendEntry]:
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"backend name must be an identifier such as 'mydev', got {name!r}")
    if not (isinstance(device_class, type) and issubclass(device_class, Device)):
        raise TypeError(
            f"backend {name!r}: device_class must be a subclass of chainer.backend.Device, got {device_class!r}"
        )
    return name, BackendEntry(name, device_class, array_types, factory, check_available)


backends: plugins.Registry[BackendEntry] = plugins.Registry("chainer_register_backends", _make_backend_entry)


def _backend_or_error(name: str, spec: object) -> BackendEntry:
    entry = backends.get(name)
    if entry is None:
        if name == "intel64":  # documented by Chainer, served by a distribution of its own
            raise RuntimeError(f"chainer.get_device({spec!r}): {_intel64._ideep_import_error()}")
        known = ", ".join(f"'@{n}'" for n in backends)
        raise ValueError(
            f"chainer.get_device: unknown backend '@{name}' in device specifier {spec!r}; registered backends: {known}"
        )
    reason = entry.unavailable_reason()
    if reason is not None:
        raise RuntimeError(f"chainer.get_device({spec!r}): the '@{name}' backend is not available: {reason}")
    return entry


def _device_from_integer(index: int, spec: Any) -> Device:
    # The integers of Chainer's older APIs: negative is the CPU, N >= 0 is GPU N.
    if index < 0:
        return _CPU
    return _backend_or_error("cupy", spec).create(index)


def _parse_string(spec: str) -> Device:
    try:
        # '-1', '0', '1', ...: what the ``--device`` option of Chainer's example scripts passes.
        number = int(spec)
    except ValueError:
        pass
    else:
        return _device_from_integer(number, spec)
    if spec.startswith("@"):
        name, colon, index_text = spec[1:].partition(":")
        index: int | None = None
        if colon and not index_text:
            raise ValueError(f"chainer.get_device: {spec!r} ends with ':' but gives no device index")
        if name == "cupy" and not index_text:
            # As in Chainer: a GPU is always named by its index.
            raise ValueError(f"chainer.get_device: {spec!r} needs a device index, as in '@cupy:0'")
        if index_text:
            try:
                index = int(index_text)
            except ValueError:
                raise ValueError(
                    f"chainer.get_device: the device index in {spec!r} must be an integer, as in '@{name}:0'"
                ) from None
            if index < 0:
                raise ValueError(f"chainer.get_device: the device index in {spec!r} must not be negative")
        return _backend_or_error(name, spec).create(index)
    # As in Chainer, a specifier without '@' names a ChainerX device.
    raise _chainerx.not_available_error(
        f"chainer.get_device({spec!r}): a device specifier without the '@' prefix names a ChainerX device; "
        "expected '@numpy', '@cupy:N', '@intel64' or '@<backend>[:N]' of a registered backend otherwise"
    )


def get_device(device_spec: Any) -> Device:
    """Return the :class:`Device` a specifier names.

    Args:
        device_spec: One of

            - a :class:`Device` (returned as is);
            - ``'@numpy'``; ``'@cupy:N'`` (GPU ``N``); ``'@intel64'``; ``'@name'`` or
              ``'@name:N'`` of a backend registered by a plugin;
            - the ``numpy`` or ``cupy`` module, or ``(cupy, N)``;
            - a ``cupy.cuda.Device``;
            - an integer or a string of one, as Chainer's older APIs and the ``--device``
              option of its example scripts take them: a negative one is the CPU
              (``'@numpy'``), ``N >= 0`` is ``'@cupy:N'``.

    ChainerX specifiers (``'native:0'``, ``'cuda:0'``) raise an error: ChainerX is not
    part of this distribution.

    Example:
        >>> chainer.get_device('@numpy')
        <CpuDevice (numpy)>
    """
    if isinstance(device_spec, Device):
        return device_spec
    if isinstance(device_spec, str):
        return _parse_string(device_spec)
    if device_spec is numpy:
        return _CPU
    if isinstance(device_spec, ModuleType) and device_spec.__name__ == "cupy":
        return _backend_or_error("cupy", device_spec).create(None)
    if isinstance(device_spec, tuple) and len(device_spec) == 2 and isinstance(device_spec[1], int):
        module, index = device_spec
        if module is numpy or module == "@numpy":
            return _CPU
        if (isinstance(module, ModuleType) and module.__name__ == "cupy") or module == "@cupy":
            return _backend_or_error("cupy", device_spec).create(index)
        if module == "native" or module == "cuda" or getattr(module, "__name__", None) == "chainerx":
            raise _chainerx.not_available_error(f"chainer.get_device({device_spec!r})")
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(device_spec, cupy.cuda.Device):
        return _backend_or_error("cupy", device_spec).create(device_spec.id)
    if isinstance(device_spec, (int, numpy.integer)) and not isinstance(device_spec, (bool, numpy.bool_)):
        return _device_from_integer(int(device_spec), device_spec)
    raise TypeError(
        "chainer.get_device: expected a device specifier such as '@numpy' or '@cupy:0', a Device, "
        f"the numpy/cupy module or a cupy.cuda.Device; got {type(device_spec).__name__}: {device_spec!r}"
    )


def _get_device_compat(device_spec: Any) -> Device:
    """:func:`get_device` (kept for the callers written when it did not take integers)."""
    return get_device(device_spec)


def using_device(device_spec: Any) -> contextlib.AbstractContextManager[Any]:
    """Context manager making a device current for the duration of the block.

    The specifier is checked at once (a bad one raises here, not at ``with``).
    """
    return _using(get_device(device_spec))


@contextlib.contextmanager
def _using(device: Device) -> Iterator[Device]:
    with device.create_context():
        yield device


# Owners found by _entry_for_array_type, valid for one plugin generation (a plugin
# registered or removed clears them). Only found owners are kept: a backend whose array
# types are computed may own more types later (CuPy's, once it is imported).
_owners: dict[type, BackendEntry] = {}
_owners_generation = -1


def _entry_for_array_type(array_type: type) -> BackendEntry | None:
    """The backend owning ``array_type``: the one registering the closest base class
    (a third party's NumPy subclass belongs to that third party, not to '@numpy')."""
    global _owners_generation
    if _owners_generation != plugins._manager.generation:
        _owners.clear()
        _owners_generation = plugins._manager.generation
    owner = _owners.get(array_type)
    if owner is not None:
        return owner
    best = None
    best_distance = None
    mro = array_type.__mro__
    for _, entry in backends.items():
        for owned in entry.array_types:
            if owned in mro:
                distance = mro.index(owned)
                if best_distance is None or distance < best_distance:
                    best, best_distance = entry, distance
    if best is not None:
        _owners[array_type] = best
    return best


def get_device_from_array(*arrays: Any) -> Device:
    """Return the device of the first array among ``arrays`` (the CPU if there is none)."""
    for array in arrays:
        if isinstance(array, _variable_types):
            array = array.array  # type: ignore[attr-defined]
        if array is None:
            continue
        if type(array) is numpy.ndarray:
            return _CPU
        entry = _entry_for_array_type(type(array))
        if entry is not None:
            from_array = getattr(entry.device_class, "from_array", None)
            if from_array is not None:
                device = from_array(array)
                if device is not None:
                    return device
            return entry.create(None)
    return _CPU


def get_array_module(*args: Any) -> ModuleType:
    """Return the array module (``numpy``, ``cupy``, ...) that suits the arguments.

    Variables are looked through to their arrays. Returns ``numpy`` when no argument
    belongs to another backend.
    """
    for arg in args:
        if isinstance(arg, _variable_types):
            arg = arg.array  # type: ignore[attr-defined]
        if arg is None or type(arg) is numpy.ndarray or isinstance(arg, numpy.generic):
            continue
        if _entry_for_array_type(type(arg)) is not None:
            # A Device's xp may be a property (CuPy's is), so ask a device, not its class.
            return get_device_from_array(arg).xp
    return numpy


def copyto(dst: Any, src: Any) -> None:
    """Copy the elements of ``src`` into ``dst``, across devices if needed."""
    if isinstance(dst, numpy.ndarray):
        numpy.copyto(dst, _CPU.send_array(src))
        return
    device = get_device_from_array(dst)
    if device == _CPU:
        raise TypeError(f"chainer.backend.copyto: dst must be an array, got {type(dst).__name__}")
    with device.create_context():
        device.xp.copyto(dst, device.send_array(src))


def to_chx(array: Any) -> Any:
    """Convert arrays to ChainerX. Always an error: ChainerX is not part of this distribution."""
    raise _chainerx.not_available_error("chainer.backend.to_chx")


def from_chx(array: Any) -> Any:
    """Convert ChainerX arrays to NumPy/CuPy ones. No ChainerX array can exist here,
    so the argument is returned unchanged."""
    return array


def cpu() -> CpuDevice:
    """The CPU device (the same object on every call)."""
    return _CPU


__all__ = [
    "ChainerxDevice",
    "CpuDevice",
    "Device",
    "GpuDevice",
    "Intel64Device",
    "copyto",
    "from_chx",
    "get_array_module",
    "get_device",
    "get_device_from_array",
    "to_chx",
    "using_device",
]
