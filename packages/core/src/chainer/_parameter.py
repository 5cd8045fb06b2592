"""Parameter: a variable that a link owns and an optimizer updates."""

from __future__ import annotations

from typing import Any

import numpy

import chainer
from chainer import backend, initializers, variable
from chainer.backends import cuda


def _is_array(value: Any) -> bool:
    return isinstance(value, numpy.ndarray) or backend._entry_for_array_type(type(value)) is not None


def _rebuild_parameter(state: dict[str, Any]) -> Parameter:
    param = Parameter.__new__(Parameter)
    param.__setstate__(state)
    return param


class Parameter(variable.Variable):
    """A :class:`~chainer.Variable` registered to a link and updated by an optimizer.

    ``Parameter(initializer=None, shape=None, name=None)``

    Args:
        initializer: How to fill the array: an :class:`~chainer.Initializer`, a scalar, an
            array (used as the data itself when ``shape`` is ``None``), or ``None``
            (NaN: the value must be set before use).
        shape: Shape of the array. If ``None``, the parameter stays uninitialized until
            :meth:`initialize` is called (links infer shapes from their first input).
        name: Name of the parameter.

    Attributes:
        initializer: The initializer used by :meth:`initialize`.
        update_rule: The :class:`~chainer.UpdateRule` an optimizer set, or ``None``.
    """

    def __init__(
        self, initializer: Any = None, shape: Any = None, name: str | None = None, *, layout: Any = None
    ) -> None:
        if layout is not None:
            raise NotImplementedError("Parameter: only the standard memory layout (layout=None) is supported")
        if initializer is None:
            initializer = initializers.NaN()
        elif numpy.isscalar(initializer) or isinstance(initializer, numpy.generic):
            initializer = initializers.Constant(initializer)
        elif not _is_array(initializer) and not callable(initializer):
            raise TypeError(
                f"chainer.Parameter: initializer must be None, a scalar, an array or an initializer, "
                f"got {type(initializer).__name__}"
            )
        data = None
        if shape is None:
            if _is_array(initializer):
                data = initializer
                initializer = initializers.Constant(initializer)
        else:
            if _is_array(initializer):
                # With a shape, an array is a value to fill with (broadcast), as in Chainer 7.
                initializer = initializers.Constant(initializer)
            data = initializers.generate_array(initializer, shape, numpy)
        super().__init__(data, name=name)
        self.initializer = initializer
        self.update_rule: Any = None
        self._initial_device: backend.Device | None = None
        self._grad_initializer: Any = None

    # -- state -------------------------------------------------------------------------

    @property
    def dtype(self) -> Any:
        array = self._array
        if array is not None:
            return array.dtype
        init_dtype = getattr(self.initializer, "dtype", None)
        return chainer.get_dtype(init_dtype)

    def is_initialized(self) -> bool:
        """Whether the array has been created."""
        return self._array is not None

    @property
    def device(self) -> backend.Device:
        # _initial_device is the device last given to to_device, initialized or not.
        return self._given_or_array_device(self._initial_device)

    def initialize(self, shape: Any) -> None:
        """Create the array of ``shape`` with :attr:`initializer` (on the device the
        parameter was sent to, if any)."""
        device = self._initial_device
        data = initializers.generate_array(self.initializer, shape, numpy, device=device)
        self.array = data
        if self._grad_initializer is not None:
            self.grad = self.device.xp.zeros_like(data)
            self._grad_initializer = None

    # -- gradients ------------------------------------------------------------------------

    def cleargrad(self) -> None:
        super().cleargrad()
        self._grad_initializer = None

    def zerograd(self) -> None:
        if self._array is None:
            # Zero the gradient once the array exists.
            self._grad_initializer = initializers.Zero()
            return
        super().zerograd()

    def update(self) -> None:
        """Update the array with :attr:`update_rule` (no-op without one)."""
        if self.update_rule is not None:
            self.update_rule.update(self)

    # -- devices ---------------------------------------------------------------------------

    def to_device(self, device: Any) -> Parameter:
        dev = backend._get_device_compat(device)
        if self._array is None:
            self._initial_device = dev
            return self
        self._initial_device = dev
        super().to_device(dev)
        return self

    def to_cpu(self) -> Parameter:
        return self.to_device(backend.cpu())

    def to_gpu(self, device: Any = None) -> Parameter:
        if device is None:
            return self.to_device(cuda.GpuDevice(cuda._cupy().cuda.Device()))
        return self.to_device(backend._get_device_compat(device))

    # -- copying and pickling ------------------------------------------------------------

    def __reduce__(self) -> Any:
        return _rebuild_parameter, (self.__getstate__(),)

    def __getstate__(self) -> dict[str, Any]:
        return {
            "array": self._array,
            "grad": self.grad,
            "name": self._name,
            "initializer": self.initializer,
            "update_rule": self.update_rule,
            "initial_device": self._initial_device,
            "extra": {k: v for k, v in getattr(self, "__dict__", {}).items() if k not in _PARAM_ATTRS},
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        variable.Variable.__init__(self, state["array"], name=state["name"])
        if state["grad"] is not None:
            self._grad_var = variable.Variable(state["grad"], requires_grad=False)
        self.initializer = state["initializer"]
        self.update_rule = state["update_rule"]
        self._initial_device = state["initial_device"]
        self._grad_initializer = None
        for key, value in state["extra"].items():
            setattr(self, key, value)


_PARAM_ATTRS = frozenset({"initializer", "update_rule", "_initial_device", "_grad_initializer"})
