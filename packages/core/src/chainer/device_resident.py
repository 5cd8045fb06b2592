"""Objects that live on a device, and the visitors that move them.

A :class:`DeviceResident` (a :class:`~chainer.Link`, an optimizer, a user class) owns
arrays, variables and other device residents. Moving it to a device walks that
hierarchy with a :class:`DeviceResidentsVisitor`: the object calls
:meth:`DeviceResidentsVisitor.visit_device_resident` for itself, then
``visit_variable``/``visit_array`` for what it owns and ``device_resident_accept`` of its
children. Links, optimizers and user classes therefore share one traversal, and a new
kind of resident only has to say what it owns.
"""

from __future__ import annotations

import warnings
from typing import Any

from chainer import _backend, backend
from chainer.backends import _chainerx, cuda

# The legacy per-class move methods. A subclass that overrides one of them (Chainer <= 5
# style, e.g. to move extra arrays in ``to_gpu``) is moved through its override.
_LEGACY_METHODS = ("to_cpu", "to_gpu", "to_intel64")
# The methods that every move goes through: a subclass cannot replace them.
_SEALED_METHODS = ("to_device", "to_chx", "from_chx")
_LEGACY_TARGETS = {"to_cpu": "'@numpy'", "to_gpu": "'@cupy:N'", "to_intel64": "'@intel64'"}


def _warn_legacy(method: str) -> None:
    # No stacklevel: attributed to Chainer as in Chainer 7, so that Python's default
    # filters keep it out of the output of unchanged Chainer 7 scripts.
    warnings.warn(
        f"{method} is deprecated. Please use to_device({_LEGACY_TARGETS[method]}) instead.", DeprecationWarning
    )


class DeviceResidentsVisitor:
    """Base class of visitors that walk a hierarchy of device residents.

    Subclasses override any of the three ``visit_*`` methods. The walk itself is done
    by :meth:`DeviceResident.device_resident_accept` of each object.
    """

    def visit_device_resident(self, device_resident: DeviceResident) -> None:
        """Visit a :class:`DeviceResident` (before what it owns is visited)."""

    def visit_array(self, arr: Any) -> Any:
        """Visit an array owned by a device resident; return the array to keep in its place."""
        return arr

    def visit_variable(self, param: Any) -> None:
        """Visit a :class:`~chainer.Variable` (typically a :class:`~chainer.Parameter`)."""


class DeviceResident:
    """Base class of objects whose arrays live on one device and move together.

    Subclasses that own arrays, variables or other residents override
    :meth:`device_resident_accept` to show them to the visitor (calling the base
    implementation first). Everything else — :meth:`to_device`, :meth:`to_cpu`,
    :meth:`to_gpu`, :attr:`device`, :attr:`xp` — then works for them.
    """

    _device: _backend.Device = backend.cpu()

    def __init__(self) -> None:
        self._device = backend.cpu()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for method in _SEALED_METHODS:
            if method in cls.__dict__:
                raise TypeError(
                    f"{cls.__name__} overrides DeviceResident.{method}, which cannot be overridden: "
                    "override device_resident_accept() to show the visitor what the class owns"
                )
        for method in _LEGACY_METHODS:
            if method in cls.__dict__:
                warnings.warn(
                    f"{cls.__name__} overrides DeviceResident.{method}, which is deprecated (as in Chainer 7): "
                    "override device_resident_accept() instead",
                    DeprecationWarning,  # no stacklevel: from inside Chainer, as Chainer 7's warning
                )

    @property
    def _device_id(self) -> int | None:
        """The CUDA device ID of :attr:`device`, or ``None`` off the GPU (the Chainer v5
        attribute; deprecated, as in Chainer 7: use :attr:`device`)."""
        # No stacklevel: attributed to Chainer as in Chainer 7 (Python's default filters hide it).
        warnings.warn(
            f"{type(self).__name__}._device_id is left only for backward compatibility and likely to be removed. "
            f"Use {type(self).__name__}.device instead.",
            DeprecationWarning,
        )
        device = self._device
        if isinstance(device, backend.GpuDevice):
            return int(device.device.id)
        return None

    @property
    def device(self) -> _backend.Device:
        """The :class:`~chainer.backend.Device` this object lives on."""
        return self._device

    @property
    def xp(self) -> Any:
        """The array module (``numpy`` or ``cupy``) of :attr:`device`."""
        return self._device.xp

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        """Show this object, and everything it owns, to ``visitor``.

        The base implementation visits only ``self``; subclasses extend it.
        """
        visitor.visit_device_resident(self)

    # -- moving ---------------------------------------------------------------------------

    def to_device(self, device: Any) -> DeviceResident:
        """Move this object and everything it owns to ``device``, in place.

        Args:
            device: A device specifier (``'@numpy'``, ``'@cupy:0'``, a
                :class:`~chainer.backend.Device`, ...). The integers of the older
                APIs are accepted too (``-1`` is the CPU, ``N`` is GPU ``N``).

        Returns:
            ``self``.
        """
        dev = backend._get_device_compat(device)
        self._move(dev, _legacy_call_for(dev))
        return self

    def to_cpu(self) -> DeviceResident:
        """Move this object and everything it owns to the CPU, in place; returns ``self``.

        Deprecated as in Chainer 7: use ``to_device('@numpy')``.
        """
        _warn_legacy("to_cpu")
        self._move(backend.cpu(), ("to_cpu", ()))
        return self

    def to_gpu(self, device: Any = None) -> DeviceResident:
        """Move this object and everything it owns to a GPU, in place.

        Args:
            device: GPU to use: ``None`` (the current CUDA device), an integer ID,
                ``'@cupy:N'``, a ``cupy.cuda.Device`` or a GpuDevice.

        Returns:
            ``self``.

        Deprecated as in Chainer 7: use ``to_device('@cupy:N')``.
        """
        if isinstance(device, backend.GpuDevice):
            dev = device
        else:
            dev = backend.GpuDevice(cuda._resolve_cuda_device(device))
        _warn_legacy("to_gpu")  # once the GPU is found, as in Chainer 7
        self._move(dev, ("to_gpu", (dev.device.id,)))
        return self

    def to_intel64(self) -> DeviceResident:
        """Move this object to the Intel64 (iDeep) backend, in place (needs ``ideep4py``).

        Deprecated as in Chainer 7: use ``to_device('@intel64')``.
        """
        dev = backend.get_device("@intel64")
        _warn_legacy("to_intel64")  # once iDeep is found, as in Chainer 7
        self._move(dev, ("to_intel64", ()))
        return self

    def to_chx(self) -> DeviceResident:
        """Always an error: ChainerX is not part of this distribution."""
        raise _chainerx.not_available_error(f"{type(self).__name__}.to_chx")

    def from_chx(self) -> DeviceResident:
        """No-op (no ChainerX array can exist here); returns ``self``."""
        return self

    def _move(self, device: _backend.Device, legacy_call: tuple[str, tuple[Any, ...]] | None) -> None:
        visitor = _ToDeviceVisitor(device, entry=self, legacy_call=legacy_call)
        self.device_resident_accept(visitor)


def _legacy_call_for(device: _backend.Device) -> tuple[str, tuple[Any, ...]] | None:
    """The legacy method (and its arguments) that moves to ``device``, if there is one."""
    if isinstance(device, backend.CpuDevice):
        return ("to_cpu", ())
    if isinstance(device, backend.GpuDevice):
        return ("to_gpu", (device.device.id,))
    if isinstance(device, backend.Intel64Device):
        return ("to_intel64", ())
    return None


def _overrides(obj: DeviceResident, method: str) -> bool:
    impl = getattr(type(obj), method, None)
    return impl is not None and impl is not getattr(DeviceResident, method)


class _ToDeviceVisitor(DeviceResidentsVisitor):
    """Moves every visited array and variable to one device and records the device on
    every visited resident.

    A resident other than the entry point whose class overrides the legacy method of
    this move (``to_gpu`` for a GPU, ...) is moved by calling that override, which
    moves its whole sub-hierarchy; the rest of the walk then skips that sub-hierarchy.
    """

    def __init__(
        self,
        device: _backend.Device,
        entry: DeviceResident | None = None,
        legacy_call: tuple[str, tuple[Any, ...]] | None = None,
    ) -> None:
        self._device = device
        self._entry = entry
        self._legacy_call = legacy_call
        self._done: set[int] = set()

    def visit_device_resident(self, device_resident: DeviceResident) -> None:
        if id(device_resident) in self._done:
            return
        legacy = self._legacy_call
        if legacy is not None and device_resident is not self._entry and _overrides(device_resident, legacy[0]):
            getattr(device_resident, legacy[0])(*legacy[1])
            self._done.add(id(device_resident))
            links = getattr(device_resident, "links", None)
            if callable(links):
                self._done.update(id(link) for link in links())
            return
        device_resident._device = self._device

    def visit_array(self, arr: Any) -> Any:
        if arr is None:
            return None
        return self._device.send(arr)

    def visit_variable(self, param: Any) -> None:
        param.to_device(self._device)


__all__ = ["DeviceResident", "DeviceResidentsVisitor"]
