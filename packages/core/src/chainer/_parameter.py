"""Parameter: a variable that a link owns and an optimizer updates."""

from __future__ import annotations

import warnings
import weakref
from typing import Any

import numpy

import chainer
from chainer import backend, initializers, variable
from chainer.backends import cuda

_PENDING_GRAD_MESSAGE = (
    "Cannot retrieve Parameter.grad: the gradient of a parameter created without an array is made by "
    "initialize(); until then set it, or call cleargrad() (or Link.cleargrads()) first."
)


def _is_array(value: Any) -> bool:
    return isinstance(value, numpy.ndarray) or backend._entry_for_array_type(type(value)) is not None


def _rebuild_parameter(state: dict[str, Any]) -> Parameter:
    param = Parameter.__new__(Parameter)
    param.__setstate__(state)
    return param


def _stored(data: Any, layout: Any) -> Any:
    # An array made in the semantic shape, as stored in ``layout``.
    if layout is None:
        return data
    return variable._memory_layouts()._to_layout(data, None, layout)


class Parameter(variable.Variable):
    """A :class:`~chainer.Variable` registered to a link and updated by an optimizer.

    ``Parameter(initializer=None, shape=None, name=None, *, layout=None)``

    Args:
        initializer: How to fill the array: an :class:`~chainer.Initializer`, a scalar, an
            array (used as the data itself when ``shape`` is ``None``), or ``None``
            (NaN: the value must be set before use).
        shape: Shape of the array. If ``None``, the parameter stays uninitialized until
            :meth:`initialize` is called (links infer shapes from their first input).
        name: Name of the parameter.
        layout: The memory layout of the array (see :mod:`chainer.memory_layouts`). An
            array given as ``initializer`` (without ``shape``) is taken as stored in
            it; ``shape`` (and the shape given to :meth:`initialize`) is the semantic,
            channel-first one.

    Attributes:
        initializer: The initializer used by :meth:`initialize`.
        update_rule: The :class:`~chainer.UpdateRule` an optimizer set, or ``None``.

    As in Chainer 7, the gradient of a parameter created by an initializer is filled with
    NaN until :meth:`cleargrad` (or :meth:`~chainer.Link.cleargrads`) is called, so that a
    backward pass that forgot to clear the gradients shows NaN instead of silently
    accumulating. The gradient of a parameter that is not initialized yet cannot be read
    (``RuntimeError``) until it is set or cleared; :meth:`initialize` then creates it
    NaN-filled (zero-filled after :meth:`zerograd`). A parameter given its array directly
    starts with no gradient.
    """

    def __init__(
        self, initializer: Any = None, shape: Any = None, name: str | None = None, *, layout: Any = None
    ) -> None:
        if initializer is None:
            initializer = initializers.NaN()
        elif numpy.isscalar(initializer) or isinstance(initializer, numpy.generic):
            initializer = initializers.Constant(initializer)
        elif not _is_array(initializer) and not callable(initializer):
            raise TypeError(
                f"chainer.Parameter: initializer must be None, a scalar, an array or an initializer, "
                f"got {type(initializer).__name__}"
            )
        data = grad = None
        grad_initializer: Any = None
        if shape is None:
            if _is_array(initializer):
                data = initializer
                initializer = initializers.Constant(initializer)
            else:
                grad_initializer = initializers.NaN()
        else:
            if _is_array(initializer):
                # With a shape, an array is a value to fill with (broadcast), as in Chainer 7.
                initializer = initializers.Constant(initializer)
            data = _stored(initializers.generate_array(initializer, shape, numpy), layout)
            grad = numpy.full_like(data, numpy.nan) if data.dtype.kind in "fc" else numpy.zeros_like(data)
        super().__init__(data, name=name, grad=grad, layout=layout)
        self.initializer = initializer
        self.update_rule: Any = None
        self._initial_device: backend.Device | None = None
        # How initialize() creates the gradient; None: no gradient until backprop makes one.
        self._grad_initializer = grad_initializer
        # Reading .grad is an error until the gradient is set, cleared or created (Chainer 7).
        self._grad_unset = grad_initializer is not None
        # The parameters of Link.copy(mode='share') copies that share this one's array slot.
        self._share_group: list[weakref.ref[Parameter]] | None = None

    # -- state -------------------------------------------------------------------------

    # The getters of array and grad check memory layouts only once one was used in the
    # process: _enable_layout_checks replaces them then (a parameter's .array is read
    # dozens of times per optimizer update).
    @property
    def array(self) -> Any:
        """The underlying array (shared with the parameters of share-mode link copies)."""
        return self._array

    @array.setter
    def array(self, value: Any) -> None:
        set_array = variable.Variable.array.fset  # type: ignore[attr-defined]
        set_array(self, value)
        group = self._share_group
        if group is not None:
            for ref in group:
                other = ref()
                if other is not None and other is not self:
                    set_array(other, value)

    data = array

    def _share_array_with(self, other: Parameter) -> None:
        """Make ``other`` (a fresh copy of this parameter) see every array this one is given
        and vice versa, like the copies of Chainer 7's ``Link.copy(mode='share')``."""
        group = self._share_group
        if group is None:
            group = self._share_group = [weakref.ref(self)]
        group[:] = [ref for ref in group if ref() is not None]
        group.append(weakref.ref(other))
        other._share_group = group

    def _leave_share_group(self) -> None:
        group = self._share_group
        if group is not None:
            group[:] = [ref for ref in group if ref() is not None and ref() is not self]
            self._share_group = None

    @property
    def dtype(self) -> Any:
        array = self._array
        if array is not None:
            return array.dtype
        initializer = self.initializer
        if not hasattr(initializer, "dtype"):
            # A plain function as initializer: the array it fills decides (Chainer 7).
            raise RuntimeError(
                "Parameter.dtype: the parameter is not initialized and its initializer states no dtype; "
                "give the initializer a dtype attribute or initialize the parameter first"
            )
        return chainer.get_dtype(initializer.dtype)

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
        layout = self._layout
        data = _stored(initializers.generate_array(self.initializer, shape, numpy, device=device), layout)
        if layout is None:
            self.array = data
        else:
            # (The array setter refuses a variable with a layout; the raw array is set here.)
            self._array = data
            self._node_if_any()._set_data_info(data)  # type: ignore[union-attr]  # a parameter always has a node
        grad_initializer = self._grad_initializer
        self._grad_initializer = None
        self._grad_unset = False
        if grad_initializer is None:
            self._grad_var = None
        else:
            fill = numpy.nan if data.dtype.kind in "fc" and isinstance(grad_initializer, initializers.NaN) else 0
            self._grad_var = variable.Variable(self.device.xp.full_like(data, fill), requires_grad=False, layout=layout)

    # -- gradients ------------------------------------------------------------------------

    @property
    def grad(self) -> Any:
        """The gradient array; see the class description for its initial state."""
        gv = self._grad_var
        if gv is None:
            if self._grad_unset:
                raise RuntimeError(_PENDING_GRAD_MESSAGE)
            return None
        return gv._array

    @grad.setter
    def grad(self, g: Any) -> None:
        variable.Variable.grad.fset(self, g)  # type: ignore[attr-defined]
        self._grad_unset = False

    def cleargrad(self) -> None:
        self._grad_var = None
        self._grad_initializer = None
        self._grad_unset = False

    def zerograd(self) -> None:
        """Fill the gradient with zeros (deprecated as in Chainer 7: use :meth:`cleargrad`)."""
        warnings.warn(
            "Parameter.zerograd is deprecated. Use Parameter.cleargrad instead.", DeprecationWarning, stacklevel=2
        )
        self._zerograd()

    def _zerograd(self) -> None:
        self._grad_unset = False
        if self._array is None:
            # Zero the gradient once the array exists.
            self._grad_initializer = initializers.Zero()
            return
        self._grad_initializer = None
        gv = self._grad_var
        if gv is None or gv._array is None:
            self._grad_var = variable.Variable(
                self.device.xp.zeros_like(self._array), requires_grad=False, layout=self._layout
            )
        else:
            gv._array.fill(0)
            gv.unchain()

    def addgrad(self, var: variable.Variable) -> None:
        # A gradient still waiting for initialize() counts as none: the added one replaces it.
        if self._grad_var is None and var._grad is not None:
            self._grad_initializer = None
            self._grad_unset = False
        super().addgrad(var)

    def update(self) -> None:
        """Update the array with :attr:`update_rule` (no-op without one)."""
        if self.update_rule is not None:
            self.update_rule.update(self)

    # -- devices ---------------------------------------------------------------------------

    def to_device(self, device: Any) -> Parameter:
        dev = backend._get_device_compat(device)
        # A parameter on another device no longer shares its array slot with link copies.
        self._leave_share_group()
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

    def __copy__(self) -> Parameter:
        # A shallow copy shares the array slot, as in Chainer 7: an array given to either
        # one later (initialize() of an uninitialized parameter, a new .array) is the
        # other's too. Link.copy(mode='share') relies on the same group.
        new = _rebuild_parameter(self.__getstate__())
        self._share_array_with(new)
        return new

    def __getstate__(self) -> dict[str, Any]:
        return {
            "array": self._array,
            "grad": None if self._grad_var is None else self._grad_var._array,
            "grad_initializer": self._grad_initializer,
            "grad_unset": self._grad_unset,
            "name": self._name,
            "layout": self._layout,
            "initializer": self.initializer,
            "update_rule": self.update_rule,
            "initial_device": self._initial_device,
            "extra": {k: v for k, v in getattr(self, "__dict__", {}).items() if k not in _PARAM_ATTRS},
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        layout = state.get("layout")
        variable.Variable.__init__(self, state["array"], name=state["name"], layout=layout)
        if state["grad"] is not None:
            self._grad_var = variable.Variable(state["grad"], requires_grad=False, layout=layout)
        self.initializer = state["initializer"]
        self.update_rule = state["update_rule"]
        self._initial_device = state["initial_device"]
        self._grad_initializer = state.get("grad_initializer")
        self._grad_unset = state.get("grad_unset", False)
        self._share_group = None
        for key, value in state["extra"].items():
            setattr(self, key, value)


_PARAM_ATTRS = frozenset(
    {"initializer", "update_rule", "_initial_device", "_grad_initializer", "_grad_unset", "_share_group"}
)


def _enable_layout_checks() -> None:
    """Give :class:`Parameter` the getters of ``array`` and ``grad`` that refuse a
    parameter with a non-standard memory layout (see :mod:`chainer.memory_layouts`);
    called once, when the first such layout is used."""
    plain_array, plain_grad = Parameter.array, Parameter.grad

    def array(self: Parameter) -> Any:
        if self._layout is not None and not variable._raw_access.allowed:
            raise RuntimeError(variable._NO_ARRAY_MESSAGE.format(self._layout))
        return self._array

    def grad(self: Parameter) -> Any:
        if self._layout is not None and not variable._raw_access.allowed:
            raise RuntimeError(variable._NO_GRAD_MESSAGE.format("retrieve", self._layout))
        return plain_grad.fget(self)

    Parameter.array = Parameter.data = property(array, plain_array.fset, doc=plain_array.__doc__)  # type: ignore[method-assign,assignment]
    Parameter.grad = property(grad, plain_grad.fset, doc=plain_grad.__doc__)  # type: ignore[method-assign,assignment]
