"""Arithmetic on variables: the operators of :class:`~chainer.Variable`.

``x + y`` with two variables (or a variable and an array) records an :class:`Add`
node; ``x + 2.0`` with a real scalar records an :class:`AddConstant`. An array operand
is a constant variable cast to the variable's dtype (as Chainer always did), while two
variables must share a dtype; operands broadcast by NumPy's rules and each gradient is
summed back to its input's shape. Results keep the dtype of the variable operand.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable
from typing import Any

import numpy

from chainer import backend, function_node, utils, variable
from chainer.functions import _scalar_arrays
from chainer.functions.math import sum as sum_module
from chainer.functions.math._basic_math_grads import (
    AbsoluteGrad,
    DivFromConstantGrad,
    DivGrad,
    PowConstVarGrad,
    PowVarConstGrad,
    PowVarVarGrad,
)
from chainer.utils import type_check

_Variable = variable.Variable
_ndarray = numpy.ndarray
_constant_arrays = _scalar_arrays.arrays


def _as_array(y: Any, dtype: Any) -> Any:
    # NumPy turns 0-dimensional results into scalars and promotes by value types.
    if type(y) is not _ndarray:
        if isinstance(y, numpy.generic):
            return numpy.asarray(y, dtype=dtype)
    if y.dtype != dtype:
        return y.astype(dtype)
    return y


def _is_scalar(value: Any) -> bool:
    # Real numbers only: a complex constant would silently lose its imaginary part.
    return isinstance(value, (numbers.Real, numpy.bool_)) and not isinstance(value, bool)


def _classify(value: Any, like: Any) -> Any:
    """Return ``value`` as a Variable (operand), a scalar (constant), or NotImplemented.

    An array becomes a constant variable of the dtype of ``like`` (the other operand),
    so that ``x + numpy.ones(3)`` works for a float32 ``x``; ``like=None`` keeps its dtype.
    """
    if isinstance(value, _Variable):
        return value
    if type(value) is float or type(value) is int:
        return value
    if isinstance(value, bool):
        return int(value)
    if _is_scalar(value):
        # A NumPy scalar becomes the Python number of the same value: constants then
        # combine in double precision (1 / c, log(c), c - 1) and do not promote the result.
        return value.item() if isinstance(value, numpy.generic) else value
    if isinstance(value, numpy.ndarray) or backend._entry_for_array_type(type(value)) is not None:
        if value.dtype.kind == "c":
            return NotImplemented
        if value.ndim == 0 and isinstance(value, numpy.ndarray):
            return value.item()
        if like is not None and value.dtype != like.dtype:
            value = value.astype(like.dtype, copy=False)
        return _Variable(value, requires_grad=False)
    return NotImplemented


def _is_array_or_variable(value: Any) -> bool:
    return isinstance(value, (_Variable, numpy.ndarray)) or backend._entry_for_array_type(type(value)) is not None


def _check_same_dtype(in_types: Any, names: tuple[str, ...]) -> None:
    type_check._argname(in_types, names)
    first = in_types[0]
    type_check.expect(*[t.dtype == first.dtype for t in in_types[1:]])
    type_check.expect_broadcast_shapes(*[t.shape for t in in_types])


class _FloatInput(function_node.FunctionNode):
    """A node of one variable ``x`` that must be floating point."""

    _type_check_reads_inputs_only = True

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")


class _ConstantOperand(function_node.FunctionNode):
    """A node of one variable and a constant ``value`` (a real scalar or an array).

    Its label is ``_label_format`` with the constant in place of ``{}``.
    """

    # Elementwise: accepts inputs of one shared memory layout (see FunctionNode.check_layout_forward).
    _layout_elementwise = True

    _label_format: str

    def __init__(self, value: Any) -> None:
        self.value = value

    @property
    def label(self) -> str:
        return self._label_format.format(_convert_value_to_string(self.value))


class _Broadcasting(function_node.FunctionNode):
    """A node of two variables of one dtype (``lhs`` and ``rhs``; :class:`Add` takes more)
    whose shapes broadcast together; each gradient is summed back to its input's shape.

    A subclass gives :meth:`_input_grads`, the gradients before that sum.
    """

    # Elementwise: accepts inputs of one shared memory layout (see FunctionNode.check_layout_forward).
    _layout_elementwise = True

    # Whether the operands must be floating point (a constant of the class: the check,
    # which reads it, is remembered per class and input signature).
    _float_only = False
    _type_check_reads_inputs_only = True

    def check_type_forward(self, in_types: Any) -> None:
        _check_same_dtype(in_types, ("lhs", "rhs"))
        if self._float_only:
            type_check.expect(in_types[0].dtype.kind == "f")

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        inputs: Any = self.inputs
        result = []
        # A loop rather than a comprehension: this runs once per node in every backprop.
        for i, g in zip(indexes, self._input_grads(indexes, grad_outputs[0])):
            result.append(sum_module.sum_to(g, inputs[i].shape))
        return tuple(result)

    def _input_grads(self, indexes: tuple[int, ...], gy: Any) -> list[Any]:
        """The gradients of the inputs ``indexes`` (in that order), in the output's shape."""
        raise NotImplementedError(f"{type(self).__name__} must implement _input_grads(indexes, gy)")


class Neg(function_node.FunctionNode):
    # Elementwise: accepts inputs of one shared memory layout (see FunctionNode.check_layout_forward).
    _layout_elementwise = True

    _label = "__neg__"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        return (utils.force_array(-x),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (neg(grad_outputs[0]),)


class Absolute(_FloatInput):
    # Elementwise: accepts inputs of one shared memory layout (see FunctionNode.check_layout_forward).
    _layout_elementwise = True

    _label = "|_|"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return (utils.force_array(abs(inputs[0])),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return AbsoluteGrad().apply((x, grad_outputs[0]))


class Add(_Broadcasting):
    """Sum of two or more variables (broadcasting)."""

    _label = "_ + _"
    _type_check_reads_inputs_only = True

    def check_type_forward(self, in_types: Any) -> None:
        _check_same_dtype(in_types, tuple(f"x{i}" for i in range(len(in_types))))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y = inputs[0] + inputs[1]
        for x in inputs[2:]:
            y = y + x
        return (utils.force_array(y),)

    def _input_grads(self, indexes: tuple[int, ...], gy: Any) -> list[Any]:
        return [gy] * len(indexes)


class MultiAdd(Add):
    """The sum of three or more variables (broadcasting): the node of :func:`add` with
    more than two operands."""


class AddConstant(_ConstantOperand):
    _label_format = "_ + {}"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        value = self.value
        if type(value) is float and type(x) is _ndarray:
            # A 0-dimensional array of x's dtype for the constant: the same sum, faster (see
            # _scalar_arrays); the result has x's dtype, but is a scalar if x is 0-dimensional.
            c = _constant_arrays.get((value, x.dtype))
            if c is not None:
                y = x + c
                return (y if type(y) is _ndarray else numpy.asarray(y),)
            value = _scalar_arrays.operand(value, x)
        return (_as_array(x + value, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (grad_outputs[0],)


class Sub(_Broadcasting):
    _label = "_ - _"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x0, x1 = inputs
        return (utils.force_array(x0 - x1),)

    def _input_grads(self, indexes: tuple[int, ...], gy: Any) -> list[Any]:
        return [gy if i == 0 else -gy for i in indexes]


class SubFromConstant(_ConstantOperand):
    _label_format = "{} - _"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        return (_as_array(self.value - x, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (-grad_outputs[0],)


class Mul(_Broadcasting):
    _label = "_ * _"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        return (utils.force_array(x0 * x1),)

    def _input_grads(self, indexes: tuple[int, ...], gy: Any) -> list[Any]:
        x0, x1 = self.get_retained_inputs()
        return [gy * (x1 if i == 0 else x0) for i in indexes]


class MulConstant(_ConstantOperand):
    _label_format = "_ * {}"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        value = self.value
        if type(value) is float and type(x) is _ndarray:
            # A 0-dimensional array of x's dtype for the constant: the same product, faster (see
            # _scalar_arrays); the result has x's dtype, but is a scalar if x is 0-dimensional.
            c = _constant_arrays.get((value, x.dtype))
            if c is not None:
                y = x * c
                return (y if type(y) is _ndarray else numpy.asarray(y),)
            value = _scalar_arrays.operand(value, x)
        return (_as_array(x * value, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return MulConstant(self.value).apply(grad_outputs)


class DivByConstant(_ConstantOperand):
    # True division rather than a product with 1 / c: the result is correctly rounded,
    # as NumPy's x / c, and x / 0 gives infinities instead of a ZeroDivisionError.
    _label_format = "_ / {}"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        return (_as_array(x / self.value, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (DivByConstant(self.value).apply(grad_outputs)[0],)


class Div(_Broadcasting):
    _label = "_ / _"
    _float_only = True

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        return (utils.force_array(x0 / x1),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x0, x1 = self.get_retained_inputs()
        grads = DivGrad().apply((x0, x1, grad_outputs[0]))
        return tuple(grads[i] for i in indexes)


class DivFromConstant(_FloatInput, _ConstantOperand):
    _label_format = "{} / _"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x = inputs[0]
        return (_as_array(self.value / x, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return DivFromConstantGrad(self.value).apply((x, grad_outputs[0]))


class FloorDiv(function_node.FunctionNode):
    """``x // y``: piecewise constant, so its gradient is zero everywhere it exists."""

    _label = "_ // _"

    def __init__(self, value: Any = None, reflected: bool = False) -> None:
        self.value = value
        self.reflected = reflected

    def check_type_forward(self, in_types: Any) -> None:
        if self.value is None:
            _check_same_dtype(in_types, ("lhs", "rhs"))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        if self.value is None:
            x0, x1 = inputs
            return (utils.force_array(x0 // x1),)
        x = inputs[0]
        y = self.value // x if self.reflected else x // self.value
        return (_as_array(y, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(None for _ in indexes)


class PowVarVar(_Broadcasting):
    _label = "_ ** _"
    _float_only = True

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        return (utils.force_array(x0**x1),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x0, x1 = self.get_retained_inputs()
        grads = PowVarVarGrad().apply((x0, x1, grad_outputs[0]))
        return tuple(grads[i] for i in indexes)


class PowVarConst(_FloatInput, _ConstantOperand):
    _label_format = "_ ** {}"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x = inputs[0]
        return (_as_array(x**self.value, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return PowVarConstGrad(self.value).apply((x, grad_outputs[0]))


class PowConstVar(_FloatInput, _ConstantOperand):
    _label_format = "{} ** _"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x = inputs[0]
        return (_as_array(self.value**x, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return PowConstVarGrad(self.value).apply((x, grad_outputs[0]))


def _convert_value_to_string(value: Any) -> str:
    """How a constant operand appears in a node's label (as in Chainer 7): a number as
    Python prints it, in parentheses when negative; an array or variable as
    ``constant array``."""
    if isinstance(value, variable.Variable):
        value = value.array
    if isinstance(value, numpy.generic):
        value = value.item()
    if isinstance(value, (int, float)):
        return f"({value})" if value < 0 else str(value)
    return "constant array"


def neg(self: Any) -> variable.Variable:
    """Elementwise negation, ``-x``."""
    return Neg().apply((self,))[0]


def absolute(self: Any) -> variable.Variable:
    """Elementwise absolute value, ``abs(x)``."""
    return Absolute().apply((self,))[0]


def add(*xs: Any) -> variable.Variable:
    """Elementwise sum of two or more variables (broadcasting), or a variable and a scalar.

    Example:
        >>> x, y, z = (np.full(2, v, np.float32) for v in (1, 2, 3))
        >>> F.add(x, y, z)  # same as x + y + z, recorded as one node
        variable([6., 6.])
    """
    if len(xs) == 1:
        # Chainer 7 accepts a single operand (a sum of one term), so generic code such
        # as ``F.add(*terms)`` works for any non-empty list.
        return variable.as_variable(xs[0])
    if not xs:
        raise TypeError("chainer.functions.add expects at least 1 argument, got 0")
    if len(xs) == 2:
        lhs, rhs = xs
        if not _is_array_or_variable(lhs):
            # Addition commutes: a scalar first operand is fine if the second is an operand.
            lhs, rhs = rhs, lhs
        if not _is_array_or_variable(lhs):
            raise TypeError(
                "chainer.functions.add: expected a variable or an array among the operands, got "
                f"{type(xs[0]).__name__} and {type(xs[1]).__name__}"
            )
        result = add_operator(lhs, rhs)
        if result is NotImplemented:
            raise TypeError(f"chainer.functions.add: unsupported operand type {type(rhs).__name__}")
        return result
    operands = []
    for x in xs:
        c = _classify(x, None)
        if not isinstance(c, _Variable):
            raise TypeError(
                "chainer.functions.add: with more than 2 arguments all must be variables or arrays, "
                f"got {type(x).__name__}"
            )
        operands.append(c)
    return MultiAdd().apply(tuple(operands))[0]


def _binary_operator(
    name: str, doc: str, var_var: Callable[[], Any], var_const: Callable[[Any], Any], reflected: bool = False
) -> Callable[[Any, Any], Any]:
    """An arithmetic operator of :class:`~chainer.Variable`: ``var_var()`` applied to two
    variables (the operand first if ``reflected``), ``var_const(c)`` to the variable alone
    for a constant ``c``, ``NotImplemented`` for operands it does not support (as
    operators must)."""

    def operator(self: Any, other: Any) -> Any:
        if type(other) is float or type(other) is int:  # the common case first
            return var_const(other).apply((self,))[0]
        c = _classify(other, self)
        if c is NotImplemented:
            return NotImplemented
        if isinstance(c, _Variable):
            return var_var().apply((c, self) if reflected else (self, c))[0]
        return var_const(c).apply((self,))[0]

    operator.__name__ = operator.__qualname__ = name
    operator.__doc__ = doc
    return operator


add_operator = _binary_operator("add_operator", "Elementwise sum, ``x + y``.", Add, AddConstant)
sub = _binary_operator("sub", "Elementwise difference, ``x - y``.", Sub, lambda c: AddConstant(-c))
rsub = _binary_operator(
    "rsub", "Elementwise difference with the variable on the right, ``c - x``.", Sub, SubFromConstant, True
)
mul = _binary_operator("mul", "Elementwise product, ``x * y``.", Mul, MulConstant)
div = _binary_operator("div", "Elementwise quotient, ``x / y``.", Div, DivByConstant)
rdiv = _binary_operator(
    "rdiv", "Elementwise quotient with the variable on the right, ``c / x``.", Div, DivFromConstant, True
)
floordiv = _binary_operator(
    "floordiv", "Elementwise floor division, ``x // y`` (its gradient is zero).", FloorDiv, FloorDiv
)
rfloordiv = _binary_operator(
    "rfloordiv",
    "Elementwise floor division with the variable on the right, ``c // x``.",
    FloorDiv,
    functools.partial(FloorDiv, reflected=True),
    True,
)
pow = _binary_operator("pow", "Elementwise power, ``x ** y``.", PowVarVar, PowVarConst)
rpow = _binary_operator(
    "rpow", "Elementwise power with the variable as exponent, ``c ** x``.", PowVarVar, PowConstVar, True
)


def matmul(self: Any, rhs: Any) -> variable.Variable:
    """Matrix product, ``x @ y`` (see :func:`chainer.functions.matmul`)."""
    from chainer.functions.math import matmul as matmul_module

    rhs_c = _classify(rhs, self)
    if rhs_c is NotImplemented or not isinstance(rhs_c, _Variable):
        return NotImplemented
    return matmul_module.matmul(self, rhs_c)


def rmatmul(self: Any, lhs: Any) -> variable.Variable:
    """Matrix product with the variable on the right, ``a @ x``."""
    from chainer.functions.math import matmul as matmul_module

    lhs_c = _classify(lhs, self)
    if lhs_c is NotImplemented or not isinstance(lhs_c, _Variable):
        return NotImplemented
    return matmul_module.matmul(lhs_c, self)


def install_variable_arithmetics() -> None:
    """Give :class:`~chainer.Variable` its arithmetic operators (defined here because
    they are functions on variables). Done when this module is imported; calling it
    again reinstalls them."""
    V = variable.Variable
    V.__neg__ = neg  # type: ignore[method-assign,assignment]
    V.__abs__ = absolute  # type: ignore[method-assign,assignment]
    V.__add__ = V.__radd__ = add_operator  # type: ignore[method-assign,assignment]
    V.__sub__ = sub  # type: ignore[method-assign,assignment]
    V.__rsub__ = rsub  # type: ignore[method-assign,assignment]
    V.__mul__ = V.__rmul__ = mul  # type: ignore[method-assign,assignment]
    V.__truediv__ = div  # type: ignore[method-assign,assignment]
    V.__rtruediv__ = rdiv  # type: ignore[method-assign,assignment]
    V.__floordiv__ = floordiv  # type: ignore[method-assign,assignment]
    V.__rfloordiv__ = rfloordiv  # type: ignore[method-assign,assignment]
    V.__pow__ = pow  # type: ignore[method-assign,assignment]
    V.__rpow__ = rpow  # type: ignore[method-assign,assignment]
    V.__matmul__ = matmul  # type: ignore[method-assign,assignment]
    V.__rmatmul__ = rmatmul  # type: ignore[method-assign,assignment]


install_variable_arithmetics()

__all__ = ["absolute", "add"]
