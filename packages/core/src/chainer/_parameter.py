"""Parameter: a variable that a link owns and an optimizer updates."""

from __future__ import annotations

import weakref
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

    As in Chainer, the gradient of a parameter created with its array from a shape (or
    created later by :meth:`initialize`) is filled with NaN until :meth:`cleargrad` (or
    the deprecated :meth:`zerograd`) is called, so that a forgotten ``cleargrads``
    shows up as NaN instead of silently adding stale gradients. Before the array exists
    the gradient cannot be read (``RuntimeError``), except after :meth:`cleargrad`.

    A shallow copy (``copy.copy``, ``Link.copy()``) shares the array with the original:
    setting, initializing or moving the array of one is seen by the other, as with
    Chainer's parameters.
    """

    # The shallow copies that share this parameter's array (None: no copy was made).
    _peers: list[weakref.ReferenceType[Parameter]] | None = None

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
        nan_grad = False
        if shape is None:
            if _is_array(initializer):
                data = initializer
                initializer = initializers.Constant(initializer)
        else:
            if _is_array(initializer):
                # With a shape, an array is a value to fill with (broadcast), as in Chainer 7.
                initializer = initializers.Constant(initializer)
            data = initializers.generate_array(initializer, shape, numpy)
            nan_grad = True
        super().__init__(data, name=name)
        self.initializer = initializer
        self.update_rule: Any = None
        self._initial_device: backend.Device | None = None
        # What the gradient becomes when the array is created: NaN by default, nothing
        # after cleargrad, zeros after zerograd.
        self._grad_initializer: Any = initializers.NaN() if data is None else None
        if nan_grad:
            self._grad_var = variable.Variable(_nan_grad(data))

    # -- state -------------------------------------------------------------------------

    @property
    def dtype(self) -> Any:
        array = self._array
        if array is not None:
            return array.dtype
        if not hasattr(self.initializer, "dtype"):
            raise RuntimeError(
                "Parameter.dtype: the parameter is not initialized and its initializer "
                f"{self.initializer!r} does not say its dtype (no 'dtype' attribute)"
            )
        return chainer.get_dtype(self.initializer.dtype)

    @property
    def array(self) -> Any:
        """The underlying array (``None`` until initialized)."""
        return self._array

    @array.setter
    def array(self, value: Any) -> None:
        variable.Variable.array.fset(self, value)  # type: ignore[attr-defined]
        self._share_array()

    data = array

    @property
    def grad(self) -> Any:
        """The gradient array; reading it before the array exists is an error unless
        :meth:`cleargrad` was called."""
        gv = self._grad_var
        if gv is not None:
            return gv._array
        if self._array is None and self._grad_initializer is not None:
            raise RuntimeError(
                "Parameter.grad: the parameter is not initialized yet, so its gradient does not exist; "
                "call cleargrad() to make it None, or initialize the parameter first"
            )
        return None

    @grad.setter
    def grad(self, g: Any) -> None:
        variable.Variable.grad.fset(self, g)  # type: ignore[attr-defined]
        self._grad_initializer = None

    @property
    def _grad(self) -> Any:
        # The gradient array as stored (None when there is none), never raising.
        gv = self._grad_var
        return None if gv is None else gv._array

    def is_initialized(self) -> bool:
        """Whether the array has been created."""
        return self._array is not None

    @property
    def device(self) -> backend.Device:
        if self._array is None and self._initial_device is not None:
            return self._initial_device
        return super().device

    def initialize(self, shape: Any) -> None:
        """Create the array of ``shape`` with :attr:`initializer` (on the device the
        parameter was sent to, if any)."""
        device = self._initial_device
        data = initializers.generate_array(self.initializer, shape, numpy, device=device)
        grad_initializer = self._grad_initializer
        self.array = data
        if grad_initializer is not None:
            if isinstance(grad_initializer, initializers.NaN):
                grad = _nan_grad(data)
            else:
                grad = self.device.xp.zeros_like(data)
            self._grad_var = variable.Variable(grad)
        self._grad_initializer = None

    # -- gradients ------------------------------------------------------------------------

    def cleargrad(self) -> None:
        super().cleargrad()
        self._grad_initializer = None

    def _zerograd(self) -> None:
        if self._array is None:
            # Zero the gradient once the array exists.
            self._grad_initializer = initializers.Zero()
            return
        super()._zerograd()

    def addgrad(self, var: variable.Variable) -> None:
        """Add the gradient of ``var``; an uninitialized parameter is first initialized
        with ``var``'s shape (so its gradient exists)."""
        if self._array is None and isinstance(var, variable.Variable) and var._array is not None:
            self.initialize(var.shape)
        super().addgrad(var)

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
        self._share_array()
        return self

    def to_cpu(self) -> Parameter:
        return self.to_device(backend.cpu())

    def to_gpu(self, device: Any = None) -> Parameter:
        if device is None:
            return self.to_device(cuda.GpuDevice(cuda._cupy().cuda.Device()))
        return self.to_device(backend._get_device_compat(device))

    # -- copying and pickling ------------------------------------------------------------

    def _share_array(self) -> None:
        peers = self._peers
        if peers is None:
            return
        array = self._array
        for ref in peers:
            peer = ref()
            if peer is not None and peer is not self and peer._array is not array:
                variable.Variable.array.fset(peer, array)  # type: ignore[attr-defined]
                if peer._grad_initializer is not None and array is not None:
                    peer._grad_var = variable.Variable(
                        _nan_grad(array)
                        if isinstance(peer._grad_initializer, initializers.NaN)
                        else peer.device.xp.zeros_like(array)
                    )
                    peer._grad_initializer = None

    def __copy__(self) -> Parameter:
        new = _rebuild_parameter(self.__getstate__())
        new._grad_var = self._grad_var
        new._grad_initializer = self._grad_initializer
        peers = self._peers
        if peers is None:
            peers = self._peers = [weakref.ref(self)]
        peers[:] = [ref for ref in peers if ref() is not None]
        peers.append(weakref.ref(new))
        new._peers = peers
        return new

    def __reduce__(self) -> Any:
        return _rebuild_parameter, (self.__getstate__(),)

    def __getstate__(self) -> dict[str, Any]:
        return {
            "array": self._array,
            "grad": self._grad,
            "name": self._name,
            "initializer": self.initializer,
            "update_rule": self.update_rule,
            "initial_device": self._initial_device,
            "grad_initializer": self._grad_initializer,
            "extra": {k: v for k, v in getattr(self, "__dict__", {}).items() if k not in _PARAM_ATTRS},
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        variable.Variable.__init__(self, state["array"], name=state["name"])
        if state["grad"] is not None:
            self._grad_var = variable.Variable(state["grad"], requires_grad=False)
        self.initializer = state["initializer"]
        self.update_rule = state["update_rule"]
        self._initial_device = state["initial_device"]
        self._grad_initializer = None if state["array"] is not None else state.get("grad_initializer")
        for key, value in state["extra"].items():
            setattr(self, key, value)


_PARAM_ATTRS = frozenset({"initializer", "update_rule", "_initial_device", "_grad_initializer", "_peers"})


def _nan_grad(data: Any) -> Any:
    # NaN marks a gradient nobody computed; integer parameters (rare) get zeros instead.
    xp = backend.get_array_module(data)
    if data.dtype.kind in "fc":
        return xp.full_like(data, numpy.nan)
    return xp.zeros_like(data)
