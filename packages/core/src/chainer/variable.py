"""Variables: arrays that remember how they were computed.

A :class:`Variable` holds an array, its gradient and a :class:`VariableNode`, the
variable's place in the computational graph. The graph itself is made of nodes, not
variables: a function keeps its inputs' nodes, and a node keeps its array only when a
function retained it for backward. So the array of an intermediate variable is freed as
soon as the user drops the variable, even while the graph stays alive.
"""

from __future__ import annotations

import threading
import warnings
import weakref
from typing import TYPE_CHECKING, Any

import numpy

from chainer import _backprop, backend
from chainer.backends import _chainerx, cuda

if TYPE_CHECKING:
    from chainer import function_node as _function_node


def _check_array(array: Any, where: str) -> None:
    if array is None or isinstance(array, numpy.ndarray):
        return
    if backend._entry_for_array_type(type(array)) is None:
        raise TypeError(
            f"{where}: expected an array (numpy.ndarray, cupy.ndarray or an array of a registered "
            f"backend) or None, got {type(array).__name__}"
        )


_NO_ARRAY_MESSAGE = (
    "Cannot directly retrieve the underlying array from a variable with non-standard layout ({}): "
    "use .raw_array (the array as stored) or .as_layout(None) (a standard variable)."
)
_NO_GRAD_MESSAGE = (
    "Cannot directly {} the gradient array of a variable with non-standard layout ({}): "
    "use .grad_var (a variable in the same layout)."
)


# Whether a variable with a non-standard memory layout was ever made (set for good by
# chainer.memory_layouts._enable): until then the accessors below skip their layout checks.
_layouts_enabled = False


class _RawAccess(threading.local):
    # Whether .array and .grad of variables with a non-standard memory layout give their
    # arrays as stored (see chainer.memory_layouts._raw_access): machinery that works
    # elementwise on the stored arrays (optimizers, copies of parameters) turns it on.
    allowed = False


_raw_access = _RawAccess()


def _memory_layouts() -> Any:
    # chainer.memory_layouts builds on this module; only variables with a layout need it.
    from chainer import memory_layouts

    return memory_layouts


def _check_grad(var: Variable, grad: Any, where: str) -> None:
    array = var._array
    if grad is None or array is None:
        return
    _check_array(grad, where)
    if type(grad) is not type(array):
        raise TypeError(
            f"{where}: the gradient is a {type(grad).__name__} but the variable holds a {type(array).__name__}"
        )
    if grad.dtype != array.dtype:
        raise TypeError(f"{where}: the gradient has dtype {grad.dtype} but the variable has dtype {array.dtype}")
    if grad.shape != array.shape:
        raise ValueError(f"{where}: the gradient has shape {grad.shape} but the variable has shape {array.shape}")


class VariableNode:
    """The node of a variable in the computational graph.

    It records the function that created the variable (:attr:`creator_node`), the
    variable's rank (depth in the graph), dtype and shape, and its array only if a
    function retained it (:attr:`data`). It refers to its variable weakly.
    """

    __slots__ = (
        "_variable",
        "creator_node",
        "data",
        "name",
        "_requires_grad",
        "_rank",
        "dtype",
        "shape",
        "__weakref__",
    )

    def __init__(self, variable: Variable, name: str | None, **kwargs: Any) -> None:
        if "grad" in kwargs:
            raise ValueError(
                "VariableNode() got the argument 'grad'; a node holds no gradient: give it to the Variable instead"
            )
        if kwargs:
            raise TypeError(f"VariableNode() got unexpected keyword arguments: {', '.join(kwargs)}")
        self._variable = weakref.ref(variable)
        self.creator_node: _function_node.FunctionNode | None = None
        self.data = None
        self.name = name
        self._requires_grad = variable._requires_grad
        self._rank = 0
        array = variable._array
        self.dtype = None if array is None else array.dtype
        self.shape = None if array is None else array.shape

    @property
    def rank(self) -> int:
        """Depth in the graph: one more than the rank of the creator's deepest input."""
        return self._rank

    @property
    def requires_grad(self) -> bool:
        """Whether backprop computes a gradient for this node's variable."""
        return self._requires_grad

    @property
    def creator(self) -> Any:
        """The function that created this node: the old-style :class:`~chainer.Function`
        if it was one, else the :class:`~chainer.FunctionNode` (``None`` for a leaf)."""
        node = self.creator_node
        if node is None:
            return None
        return getattr(node, "_old_style_function", node)

    @creator.setter
    def creator(self, func: Any) -> None:
        self.set_creator(func)

    def set_creator(self, creator: Any) -> None:
        """Set the creator; an old-style :class:`~chainer.Function` is given through its node."""
        self.set_creator_node(None if creator is None else getattr(creator, "node", creator))

    def set_creator_node(self, creator_node: _function_node.FunctionNode | None) -> None:
        """Set the creator node; the rank follows it (``None`` makes this node a leaf and keeps the rank)."""
        self.creator_node = creator_node
        if creator_node is not None:
            self._rank = creator_node.rank + 1

    def get_variable(self) -> Variable:
        """Return the variable of this node, recreating it (with the retained data, if
        any, and this very node) if the original variable was garbage-collected."""
        var = self._variable()
        if var is not None:
            return var
        var = Variable._from_node(self)
        return var

    def get_variable_or_none(self) -> Variable | None:
        """Return the variable of this node if it is still alive, else ``None``."""
        return self._variable()

    @property
    def grad(self) -> Any:
        var = self._variable()
        return None if var is None else var.grad

    @property
    def grad_var(self) -> Variable | None:
        var = self._variable()
        return None if var is None else var._grad_var

    @property
    def label(self) -> str:
        if self.shape is None:
            return "None"
        if self.shape == ():
            return str(self.dtype)
        return f"({', '.join(map(str, self.shape))}), {self.dtype}"

    def retain_data(self) -> None:
        """Keep the variable's array in this node (functions call this to use it in backward)."""
        var = self._variable()
        if var is None:
            raise RuntimeError("VariableNode.retain_data: the variable has already been released")
        self.data = var._array

    def unchain(self) -> None:
        """Forget the creator: backprop stops at this node."""
        self.creator_node = None

    def _set_data_info(self, array: Any) -> None:
        if array is None:
            self.dtype = self.shape = None
        else:
            self.dtype = array.dtype
            self.shape = array.shape
        if self.data is not None:
            self.data = array

    # The memory layout of the variable (see chainer.memory_layouts); only the nodes of
    # variables with a non-standard layout (a _LayoutNode) hold another, so the nodes of
    # all others are made as before. ``shape`` is always the shape of the array as
    # stored, which the gradients (in the same layout) are checked against.
    _layout: Any = None


class _LayoutNode(VariableNode):
    """The node of a variable with a non-standard memory layout."""

    __slots__ = ("_layout",)

    @property
    def label(self) -> str:
        if self.shape is None:
            return "None"
        shape = _memory_layouts()._transpose_shape(self.shape, self._layout, None)
        return f"({', '.join(map(str, shape))}), {self.dtype}, {self._layout}"


def _attach_layout_node(var: Variable, layout: Any) -> _LayoutNode:
    """Give ``var`` (a new variable, or one whose node nothing refers to yet) a node that
    holds ``layout``, with everything its current node knows."""
    old = var._node
    node = _LayoutNode.__new__(_LayoutNode)
    for slot in VariableNode.__slots__:
        if slot != "__weakref__":
            setattr(node, slot, getattr(old, slot) if old is not None else None)
    if old is None:
        node._variable = weakref.ref(var)
        node._requires_grad = var._requires_grad
        node._rank = 0
        node._set_data_info(var._array)
    node._layout = layout
    var._node = node
    return node


class Variable:
    """An array together with its gradient and its place in the computational graph.

    ``Variable(data=None, *, name=None, grad=None, requires_grad=True, layout=None)``

    Args:
        data: The array (NumPy, CuPy or a registered backend's), or ``None``.
        name: A name shown in graphs and debug output.
        grad: Initial gradient array.
        requires_grad: Whether backprop computes a gradient for this variable.
        layout: The memory layout ``data`` (and ``grad``) are stored in (see
            :mod:`chainer.memory_layouts`); ``None`` is the standard one.

    Example:
        >>> x = chainer.Variable(np.array(5, dtype=np.float32))
        >>> y = x ** 2 - 2 * x + 1
        >>> y.backward()
        >>> x.grad
        array(8., dtype=float32)
    """

    __slots__ = ("_array", "_node", "_grad_var", "_requires_grad", "__dict__", "__weakref__")

    # Rarely set, so class-level defaults: new variables (one per function output) do
    # not pay for storing them.
    _name: str | None = None
    _loss_scale: float | None = None

    # Make NumPy defer to Variable's reflected operators (ndarray * Variable).
    __array_priority__ = 200

    # No ChainerX array can exist in this distribution (see chainer.backends._chainerx).
    _has_chainerx_array = False

    # The FunctionNode that made this variable from constants only (see
    # FunctionNode.apply): the variable's node, naming it as creator, is made on demand.
    _lazy_creator: _function_node.FunctionNode | None = None

    # The device given to to_device(), if any (an instance attribute only then, so
    # function outputs pay nothing): a backend may share an array type with another (a
    # custom device holding NumPy arrays), so the array alone cannot tell its device.
    _device: Any = None

    # The memory layout (see chainer.memory_layouts): an instance attribute only for a
    # non-standard one, so standard variables pay nothing.
    _layout: Any = None

    def __init__(
        self,
        data: Any = None,
        *,
        name: str | None = None,
        grad: Any = None,
        requires_grad: bool = True,
        layout: Any = None,
    ) -> None:
        if data is not None and type(data) is not numpy.ndarray:
            _check_array(data, "chainer.Variable")
        self._array = data
        self._grad_var: Variable | None = None
        self._requires_grad = bool(requires_grad)
        if name is not None:
            self._name = name
        # A variable made by the user gets its node at once (code written for Chainer
        # reaches it through ``_node``); function outputs get theirs from apply().
        self._node: VariableNode | None = VariableNode(self, name)
        if layout is not None:
            self._init_layout(layout, grad, "chainer.Variable")
        elif grad is not None:
            self.grad = grad

    def _init_layout(self, layout: Any, grad: Any, where: str) -> None:
        # A new variable's array (and ``grad``, if given) are stored in ``layout``.
        ml = _memory_layouts()
        ml._check_layout(layout, where)
        array = self._array
        if array is not None:
            ml._get_layout_transpose_axes(array.ndim, layout, None)  # the array has the dimensions it needs
        if layout is None:
            if grad is not None:
                self.grad = grad
            return
        ml._enable()
        self._layout = layout
        _attach_layout_node(self, layout)
        if grad is not None:
            _check_grad(self, grad, where)
            self._grad_var = Variable(grad, layout=layout)

    # -- construction shortcuts used by the graph machinery -------------------------

    @classmethod
    def _init_unchecked(
        cls,
        data: Any = None,
        name: str | None = None,
        grad: Any = None,
        requires_grad: bool = True,
        is_chainerx_array: bool | None = None,
        node: VariableNode | None = None,
        layout: Any = None,
    ) -> Variable:
        """A variable around ``data`` without checking its type (the caller vouches for it)."""
        if is_chainerx_array:
            raise _chainerx.not_available_error("Variable._init_unchecked(is_chainerx_array=True)")
        var = cls.__new__(cls)
        var._array = data
        var._grad_var = None
        var._requires_grad = bool(requires_grad)
        if name is not None:
            var._name = name
        if node is None:
            var._node = VariableNode(var, name)
        else:
            var._node = node
            node._variable = weakref.ref(var)
        if layout is not None:
            var._init_layout(layout, grad, "Variable._init_unchecked")
        elif grad is not None:
            var.grad = grad
        return var

    @classmethod
    def _from_node(cls, node: VariableNode) -> Variable:
        var = cls.__new__(cls)
        var._array = node.data
        var._node = node
        var._grad_var = None
        var._requires_grad = node._requires_grad
        if node.name is not None:
            var._name = node.name
        if (layout := node._layout) is not None:
            var._layout = layout
        node._variable = weakref.ref(var)
        return var

    @property
    def node(self) -> VariableNode:
        """The :class:`VariableNode` of this variable (created on first use)."""
        node = self._node
        if node is None:
            node = self._node = VariableNode(self, self._name)
            if self._layout is not None:
                node = _attach_layout_node(self, self._layout)
            creator = self._lazy_creator
            if creator is not None:
                node.set_creator_node(creator)
        return node

    def _node_if_any(self) -> VariableNode | None:
        # The node, made now if the variable has a creator but no node yet.
        node = self._node
        if node is None and self._lazy_creator is not None:
            node = self.node
        return node

    # -- array and gradient ------------------------------------------------------------

    @property
    def array(self) -> Any:
        """The underlying array (a variable with a non-standard memory layout refuses:
        see :attr:`raw_array`)."""
        if _layouts_enabled and self._layout is not None and not _raw_access.allowed:
            raise RuntimeError(_NO_ARRAY_MESSAGE.format(self._layout))
        return self._array

    @array.setter
    def array(self, value: Any) -> None:
        if _layouts_enabled and self._layout is not None and not _raw_access.allowed:
            raise RuntimeError(
                f"Cannot directly set the underlying array of a variable with non-standard layout ({self._layout})"
            )
        _check_array(value, "Variable.array")
        self._array = value
        if self._node is not None:
            self._node._set_data_info(value)

    data = array

    @property
    def raw_array(self) -> Any:
        """The array as stored, in the variable's memory layout (:attr:`layout`)."""
        return self._array

    @property
    def grad(self) -> Any:
        """The gradient array (``None`` until backprop computes one). A variable with a
        non-standard memory layout refuses: see :attr:`grad_var`."""
        if _layouts_enabled and self._layout is not None and not _raw_access.allowed:
            raise RuntimeError(_NO_GRAD_MESSAGE.format("retrieve", self._layout))
        gv = self._grad_var
        return None if gv is None else gv._array

    @grad.setter
    def grad(self, g: Any) -> None:
        if g is None:
            self._grad_var = None
            return
        if _layouts_enabled and self._layout is not None:
            if not _raw_access.allowed:
                raise RuntimeError(_NO_GRAD_MESSAGE.format("set", self._layout))
            _check_grad(self, g, "Variable.grad")
            self._grad_var = Variable(g, layout=self._layout)
            return
        _check_grad(self, g, "Variable.grad")
        self._grad_var = Variable(g)

    @property
    def grad_var(self) -> Variable | None:
        """The gradient as a :class:`Variable` (part of a graph after double backprop)."""
        return self._grad_var

    @grad_var.setter
    def grad_var(self, g: Variable | None) -> None:
        if g is not None:
            if not isinstance(g, Variable):
                raise TypeError(f"Variable.grad_var: expected a Variable or None, got {type(g).__name__}")
            if g._layout != self._layout:
                raise ValueError(
                    f"Variable.grad_var: the gradient has memory layout {g._layout} but the variable has {self._layout}"
                )
            _check_grad(self, g._array, "Variable.grad_var")
        self._grad_var = g

    @property
    def _grad(self) -> Any:
        # The gradient array as stored (code written for Chainer reads it), never raising.
        gv = self._grad_var
        return None if gv is None else gv._array

    def cleargrad(self) -> None:
        """Set the gradient to ``None`` (the next backprop will start from zero)."""
        self._grad_var = None

    def zerograd(self) -> None:
        """Set the gradient to an array of zeros.

        Deprecated (as in Chainer 7): use :meth:`cleargrad`, which lets the next backprop
        start from nothing instead of adding to zeros.
        """
        # No stacklevel: attributed to Chainer as in Chainer 7 (Python's default filters hide it).
        warnings.warn("Variable.zerograd is deprecated; use Variable.cleargrad instead", DeprecationWarning)
        self._zerograd()

    def _zerograd(self) -> None:
        array = self._array
        if array is None:
            return
        xp = backend.get_array_module(array)
        gv = self._grad_var
        if gv is None or gv._array is None:
            self._grad_var = Variable(xp.zeros_like(array), requires_grad=False, layout=self._layout)
        else:
            gv._array.fill(0)
            gv.unchain()

    def addgrad(self, var: Variable) -> None:
        """Add the gradient of ``var`` to this variable's gradient (across devices)."""
        if not isinstance(var, Variable):
            raise TypeError(f"Variable.addgrad: expected a Variable, got {type(var).__name__}")
        src = var._grad
        if src is None:
            return
        layout = self._layout
        if self._array is None and var._array is not None:
            # An uninitialized parameter is initialized to the source's shape first, as in Chainer.
            initialize = getattr(self, "initialize", None)
            if initialize is not None:
                initialize(var.shape)
        device = self.device
        src = device.send(_memory_layouts()._transpose_array(src, var._layout, layout))
        mine = self._grad
        if mine is None:
            self._grad_var = Variable(src.copy(), requires_grad=False, layout=layout)
        else:
            self._grad_var = Variable(mine + src, requires_grad=False, layout=layout)

    def copydata(self, var: Variable) -> None:
        """Copy the array of ``var`` into this variable's array in place (across devices)."""
        if isinstance(var, Variable):
            if var._array is None and self._array is not None:
                # An uninitialized parameter is initialized to this shape first, as in Chainer.
                initialize = getattr(var, "initialize", None)
                if initialize is not None:
                    initialize(self.shape)
            src = var._array
            if var._layout != self._layout and src is not None:
                # Copied by meaning: the source's values in this variable's layout.
                src = _memory_layouts()._transpose_array(src, var._layout, self._layout)
        else:
            # An array is taken as stored (in this variable's layout, as Variable(x, layout=...) takes it).
            src = var
        if self._array is None:
            self.array = self.device.send(src).copy() if src is not None else None
        else:
            backend.copyto(self._array, src)

    # -- metadata ------------------------------------------------------------------------

    @property
    def name(self) -> str | None:
        return self._name

    @name.setter
    def name(self, n: str | None) -> None:
        self._name = n
        if self._node is not None:
            self._node.name = n

    @property
    def requires_grad(self) -> bool:
        """Whether backprop computes a gradient for this variable."""
        return self._requires_grad

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape; in a non-standard memory layout, the semantic (channel-first) one
        (the stored one under ``memory_layouts._raw_access``)."""
        if not _layouts_enabled or self._layout is None or _raw_access.allowed:
            return self._array.shape
        return _memory_layouts()._transpose_shape(self._array.shape, self._layout, None)

    @property
    def ndim(self) -> int:
        return self._array.ndim

    @property
    def size(self) -> int:
        return self._array.size

    @property
    def dtype(self) -> numpy.dtype[Any]:
        return self._array.dtype

    @property
    def label(self) -> str:
        """A short description: shape and dtype."""
        return self.node.label

    @property
    def creator(self) -> Any:
        """The function (old-style :class:`~chainer.Function` or :class:`~chainer.FunctionNode`) that created this variable."""
        node = self._node_if_any()
        return None if node is None else node.creator

    @creator.setter
    def creator(self, func: Any) -> None:
        self.node.set_creator(func)

    @property
    def creator_node(self) -> Any:
        """The :class:`~chainer.FunctionNode` that created this variable (``None`` for a leaf)."""
        node = self._node_if_any()
        return None if node is None else node.creator_node

    @creator_node.setter
    def creator_node(self, func: Any) -> None:
        self.node.set_creator_node(func)

    def set_creator(self, gen_func: Any) -> None:
        self.node.set_creator(gen_func)

    def set_creator_node(self, fnode: Any) -> None:
        self.node.set_creator_node(fnode)

    @property
    def rank(self) -> int:
        node = self._node_if_any()
        return 0 if node is None else node.rank

    @property
    def layout(self) -> Any:
        """The memory layout of the array (see :mod:`chainer.memory_layouts`); ``None``
        is the standard one."""
        return self._layout

    def as_layout(self, layout: Any) -> Variable:
        """This variable in memory layout ``layout`` (differentiable); ``self`` if it is
        in that layout already."""
        ml = _memory_layouts()
        ml._check_layout(layout, "Variable.as_layout")
        if layout == self._layout:
            return self
        return ml.AsLayout(layout).apply((self,))[0]

    @property
    def xp(self) -> Any:
        """The array module (``numpy`` or ``cupy``) of the array."""
        array = self._array
        if array is None or isinstance(array, numpy.ndarray):
            return numpy
        return backend.get_array_module(array)

    @property
    def device(self) -> backend.Device:
        """The device the array lives on: the one given to :meth:`to_device` while the
        array is of a kind that device holds (as in Chainer 7), else the array's own."""
        return self._given_or_array_device(self._device)

    def _given_or_array_device(self, device: backend.Device | None) -> backend.Device:
        array = self._array
        if device is not None and (array is None or device.is_array_supported(array)):
            return device
        return backend.get_device_from_array(array)

    def item(self) -> Any:
        """The value of a one-element array as a Python scalar."""
        return self._array.item()

    def __len__(self) -> int:
        if self._array is None or self._array.ndim == 0:
            raise TypeError("len() of a 0-dimensional (or empty) Variable")
        return len(self._array)

    # -- graph operations --------------------------------------------------------------------

    def retain_data(self) -> None:
        """Keep the array in the node so that functions can use it in backward."""
        self.node.data = self._array

    def unchain(self) -> None:
        """Cut the link to the creator: backprop stops here."""
        node = self._node_if_any()
        if node is not None:
            node.creator_node = None

    def unchain_backward(self) -> None:
        """Cut every link backward-reachable from this variable (frees the graph)."""
        node = self._node_if_any()
        if node is None:
            return
        stack = [node.creator_node]
        node.creator_node = None
        seen = set()
        while stack:
            func = stack.pop()
            if func is None or id(func) in seen:
                continue
            seen.add(id(func))
            for in_node in func.inputs or ():
                stack.append(in_node.creator_node)
                in_node.creator_node = None

    def backward(
        self, retain_grad: bool = False, enable_double_backprop: bool = False, loss_scale: float | None = None
    ) -> None:
        """Run backprop from this variable.

        Args:
            retain_grad: Keep the gradients of intermediate variables too.
            enable_double_backprop: Record the backward computation as a graph, so that
                gradients can themselves be differentiated.
            loss_scale: Multiply the initial gradient by this factor (the optimizer
                divides parameter gradients by it before the update).

        A one-element variable without a gradient starts from ``1``. Any other variable
        needs its :attr:`grad` set first; otherwise this raises ``ValueError`` rather than
        silently computing nothing.
        """
        _backprop.backward_from_variable(self, retain_grad, enable_double_backprop, loss_scale)

    # -- devices -------------------------------------------------------------------------------

    def to_device(self, device: Any) -> Variable:
        """Move the array and gradient to ``device`` in place; returns ``self``."""
        dev = backend._get_device_compat(device)
        self._device = dev
        self._array = None if self._array is None else dev.send(self._array)
        if self._node is not None:
            self._node._set_data_info(self._array)
        gv = self._grad_var
        if gv is not None:
            gv._array = dev.send(gv._array)
        return self

    def to_cpu(self) -> Variable:
        """Move the array and gradient to the CPU in place."""
        return self.to_device(backend.cpu())

    def to_gpu(self, device: Any = None) -> Variable:
        """Move the array and gradient to a GPU in place (``None``: the current GPU)."""
        if device is None:
            return self.to_device(cuda.GpuDevice(cuda._cupy().cuda.Device()))
        return self.to_device(backend._get_device_compat(device))

    def to_intel64(self) -> Variable:
        """Move the array to the Intel64 (iDeep) backend (requires iDeep)."""
        return self.to_device("@intel64")

    def to_chx(self) -> Variable:
        raise _chainerx.not_available_error("Variable.to_chx")

    def from_chx(self) -> Variable:
        """No-op: no ChainerX array can exist in this distribution."""
        return self

    @property
    def chx_array(self) -> Any:
        raise _chainerx.not_available_error("Variable.chx_array")

    # -- copying and pickling: the graph is not part of a variable's value ---------------------

    def __reduce__(self) -> Any:
        args: tuple[Any, ...] = (self._array, self._name, self._grad, self._requires_grad)
        device = self._device
        if device is not None and device != backend.get_device_from_array(self._array):
            # A device the array cannot tell (see _device) travels with the copy.
            args += (device,)
        if self._layout is not None:
            args += (None,) * (5 - len(args)) + (self._layout,)
        return _rebuild_variable, args

    # -- printing --------------------------------------------------------------------------------

    def __repr__(self) -> str:
        return _format(self, repr_style=True)

    def __str__(self) -> str:
        return _format(self, repr_style=False)

    def summary(self) -> str:
        """``<variable NAME>``, or ``<variable at 0x...>`` for an unnamed variable."""
        if self._name is None:
            return f"<variable at 0x{id(self):x}>"
        return f"<variable {self._name}>"

    def debug_print(self) -> str:
        """A multi-line description: device, array type, shape, dtype, statistics of the
        array and of the gradient (``None`` for what does not exist)."""
        array = self._array
        lines = [self.summary()]
        if array is None:
            lines += ["- device: None", "- backend: None", "- shape: None", "- dtype: None", "- statistics: None"]
        else:
            device = self.device
            # Chainer 7 printed 'CPU' for NumPy arrays and the CuPy device object otherwise.
            lines.append(
                f"- device: {'CPU' if isinstance(array, numpy.ndarray) else getattr(device, 'device', device)}"
            )
            lines.append(f"- backend: {type(array)}")
            lines.append(f"- shape: {self.shape}")
            if self._layout is not None:
                lines.append(f"- layout: {self._layout}")
            lines.append(f"- dtype: {array.dtype}")
            lines.append(f"- statistics: {_statistics(array)}")
        grad = self._grad
        if grad is None:
            lines.append("- grad: None")
        elif not grad.any():
            lines.append("- grad: 0")
        else:
            lines.append(f"- grad: {_statistics(grad)}")
        return "\n".join(lines)

    # -- comparison is not differentiable, and a Variable is no truth value; refuse both ---

    def _refuse_comparison(self, other: Any) -> Any:
        raise TypeError(
            "chainer.Variable does not support comparison operators; compare the arrays instead "
            "(e.g. x.array < y.array)"
        )

    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _refuse_comparison
    # Unhashable, as in Chainer: == is refused, so equal-by-value keys make no sense.
    __hash__ = None  # type: ignore[assignment]

    def __bool__(self) -> bool:
        raise TypeError("a chainer.Variable cannot be used as a bool; test its array instead (e.g. x.array.any())")

    def __pos__(self) -> Variable:
        # Unary plus is the identity, as in 7.8.1 (test code writes ``+ a * b`` with Variables).
        return self

    # The arithmetic operators (+, -, *, /, //, **, @, unary - and abs) and indexing
    # (x[...]) are installed on this class by chainer.functions.math.basic_math and
    # chainer.functions.array.get_item, which build on Variable themselves. Their
    # signatures are declared here for type checkers.
    if TYPE_CHECKING:

        def __neg__(self) -> Variable: ...
        def __abs__(self) -> Variable: ...
        def __add__(self, other: Any) -> Variable: ...
        def __radd__(self, other: Any) -> Variable: ...
        def __sub__(self, other: Any) -> Variable: ...
        def __rsub__(self, other: Any) -> Variable: ...
        def __mul__(self, other: Any) -> Variable: ...
        def __rmul__(self, other: Any) -> Variable: ...
        def __truediv__(self, other: Any) -> Variable: ...
        def __rtruediv__(self, other: Any) -> Variable: ...
        def __floordiv__(self, other: Any) -> Variable: ...
        def __rfloordiv__(self, other: Any) -> Variable: ...
        def __pow__(self, other: Any) -> Variable: ...
        def __rpow__(self, other: Any) -> Variable: ...
        def __matmul__(self, other: Any) -> Variable: ...
        def __rmatmul__(self, other: Any) -> Variable: ...
        def __getitem__(self, slices: Any) -> Variable: ...

    def reshape(self, *shape: Any) -> Variable:
        """Reshaped variable (``x.reshape(2, 3)`` or ``x.reshape((2, 3))``)."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        from chainer.functions.array import reshape

        return reshape.reshape(self, shape)

    def transpose(self, *axes: Any) -> Variable:
        """Permuted variable (no argument reverses the axes)."""
        order: Any = axes
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            order = axes[0]
        from chainer.functions.array import transpose

        return transpose.transpose(self, order or None)

    @property
    def T(self) -> Variable:
        """The transposed variable."""
        from chainer.functions.array import transpose

        return transpose.transpose(self)

    def mean(self, axis: Any = None, *, weights: Any = None, keepdims: bool = False) -> Variable:
        """Weighted average along ``axis`` (see :func:`chainer.functions.average`)."""
        from chainer.functions.math import average

        return average.average(self, axis=axis, weights=weights, keepdims=keepdims)


def _statistics(array: Any) -> str:
    if not array.size:
        return "mean=nan, std=nan"
    return f"mean={float(array.mean()):.8f}, std={float(array.std()):.8f}"


def _format(var: Variable, repr_style: bool) -> str:
    array = var._array
    prefix = "variable" if var._name is None else f"variable {var._name}"
    if array is None:
        return f"{prefix}(None)"
    array = backend.cpu().send(array)
    if var._layout is not None:
        # The values by meaning (channel-first), and the layout they are stored in.
        semantic = _memory_layouts()._transpose_array(array, var._layout, None)
        return f"{_format_array(semantic, prefix, repr_style)[:-1]}, layout={var._layout})"
    return _format_array(array, prefix, repr_style)


def _format_array(array: Any, prefix: str, repr_style: bool) -> str:
    if repr_style:
        body = numpy.array2string(array, separator=", ", prefix=prefix + "(")
        # As numpy's repr does: an empty array other than 1-D shows its shape.
        if array.size == 0 and array.shape != (0,):
            body += f", shape={array.shape}"
    else:
        body = numpy.array2string(array, prefix=prefix + "(")
    return f"{prefix}({body})"


def variable_repr(var: Variable) -> str:
    """``repr`` of a variable: ``variable([...])`` (with its name, if any)."""
    return _format(var, repr_style=True)


def variable_str(var: Variable) -> str:
    """``str`` of a variable: ``variable([...])`` (with its name, if any)."""
    return _format(var, repr_style=False)


def _rebuild_variable(
    array: Any,
    name: str | None,
    grad: Any,
    requires_grad: bool,
    device: backend.Device | None = None,
    layout: Any = None,
) -> Variable:
    var = Variable(array, name=name, grad=grad, requires_grad=requires_grad, layout=layout)
    if device is not None:
        var._device = device
    return var


def as_variable(obj: Any) -> Variable:
    """Return ``obj`` if it is a :class:`Variable`, else wrap the array in one that does
    not require a gradient."""
    if isinstance(obj, Variable):
        return obj
    if isinstance(obj, VariableNode):
        return obj.get_variable()
    return Variable(obj, requires_grad=False)


def as_array(obj: Any) -> Any:
    """Return the array of a :class:`Variable`, or ``obj`` itself if it is an array."""
    if isinstance(obj, Variable):
        if _layouts_enabled and obj._layout is not None:
            raise RuntimeError(_NO_ARRAY_MESSAGE.format(obj._layout))
        return obj._array
    return obj


backend._variable_types = (Variable, VariableNode)


def __getattr__(name: str) -> Any:
    # chainer.variable.Parameter is defined in chainer._parameter (it builds on Variable).
    if name == "Parameter":
        from chainer import _parameter

        return _parameter.Parameter
    raise AttributeError(f"module 'chainer.variable' has no attribute {name!r}")
