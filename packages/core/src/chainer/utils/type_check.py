"""Type checks of function inputs with readable error messages.

A function's ``check_type_forward(in_types)`` states its preconditions with
:func:`expect`, e.g. ``expect(x_type.ndim == 2, x_type.dtype.kind == 'f')``.

It runs in two modes. In *light* mode (every call) ``in_types`` holds the input arrays
themselves, so the conditions are plain booleans and cost almost nothing. Only if a
condition fails (or light mode cannot evaluate it) is the check run again in *full*
mode, where ``in_types`` holds :class:`Expr` trees; ``expect`` then reports the failed
condition as written (``x.shape[1] == W.shape[1]``) together with the actual values
(``3 != 4``).
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy


class _State(threading.local):
    light = False


_state = _State()


def _in_light_mode() -> bool:
    return _state.light


class InvalidType(Exception):
    """A type check failed.

    Attributes:
        expect: The failed condition, as text.
        actual: The actual values, as text.
    """

    def __init__(self, expect: str, actual: str, msg: str | None = None) -> None:
        if msg is None:
            msg = f"Expect: {expect}\nActual: {actual}"
        super().__init__(msg)
        self.expect = expect
        self.actual = actual

    def __reduce__(self) -> Any:
        return (type(self), (self.expect, self.actual, self.args[0]))


# Python operator precedence, higher binds tighter (used to parenthesise when printing).
_PRIORITY = {
    "call": 1,
    "getattr": 1,
    "getitem": 1,
    "**": 2,
    "unary": 3,
    "*": 4,
    "/": 4,
    "//": 4,
    "%": 4,
    "+": 5,
    "-": 5,
    "<<": 6,
    ">>": 6,
    "&": 7,
    "^": 8,
    "|": 9,
    "cmp": 10,
}


class Expr:
    """An expression tree built lazily from type information, evaluated by :meth:`eval`."""

    def __init__(self, priority: int) -> None:
        self.priority = priority

    def eval(self) -> Any:
        raise NotImplementedError

    def __bool__(self) -> bool:
        raise RuntimeError(
            "An Expr of chainer.utils.type_check cannot be used as a bool; pass it to "
            "type_check.expect(), or evaluate it with type_check.eval()"
        )

    def __getattr__(self, name: str) -> Expr:
        if name.startswith("__"):
            raise AttributeError(name)
        return _GetAttr(self, name)

    def __getitem__(self, key: Any) -> Expr:
        return _GetItem(self, key)

    def __call__(self, *args: Any) -> Expr:
        return _Call(self, args)

    __hash__ = object.__hash__


def _binary(op: str, func: Callable[[Any, Any], Any], reflected: bool = False) -> Callable[..., Expr]:
    priority = _PRIORITY.get(op, _PRIORITY["cmp"])

    if reflected:

        def method(self: Expr, other: Any) -> Expr:
            return _BinaryOperator(op, func, priority, other, self)
    else:

        def method(self: Expr, other: Any) -> Expr:
            return _BinaryOperator(op, func, priority, self, other)

    return method


for _op, _name, _func in (
    ("+", "add", operator.add),
    ("-", "sub", operator.sub),
    ("*", "mul", operator.mul),
    ("/", "truediv", operator.truediv),
    ("//", "floordiv", operator.floordiv),
    ("%", "mod", operator.mod),
    ("**", "pow", operator.pow),
    ("<<", "lshift", operator.lshift),
    (">>", "rshift", operator.rshift),
    ("&", "and", operator.and_),
    ("^", "xor", operator.xor),
    ("|", "or", operator.or_),
):
    setattr(Expr, f"__{_name}__", _binary(_op, _func))
    setattr(Expr, f"__r{_name}__", _binary(_op, _func, reflected=True))

for _op, _name, _func in (
    ("==", "eq", operator.eq),
    ("!=", "ne", operator.ne),
    ("<", "lt", operator.lt),
    ("<=", "le", operator.le),
    (">", "gt", operator.gt),
    (">=", "ge", operator.ge),
):
    setattr(Expr, f"__{_name}__", _binary(_op, _func))


def _unary(op: str, func: Callable[[Any], Any]) -> Callable[[Expr], Expr]:
    def method(self: Expr) -> Expr:
        return _UnaryOperator(op, func, self)

    return method


_UNARY: tuple[tuple[str, str, Callable[[Any], Any]], ...] = (
    ("-", "neg", operator.neg),
    ("+", "pos", operator.pos),
    ("~", "invert", operator.invert),
)
for _uop, _uname, _ufunc in _UNARY:
    setattr(Expr, f"__{_uname}__", _unary(_uop, _ufunc))


def _text(value: Any, priority: int = 0) -> str:
    if isinstance(value, Expr):
        text = str(value)
        return f"({text})" if value.priority > priority > 0 else text
    if isinstance(value, tuple):
        return "(" + ", ".join(_text(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, slice):
        parts = ["" if p is None else _text(p) for p in (value.start, value.stop, value.step)]
        return ":".join(parts[:2] if value.step is None else parts)
    return str(value)


def eval(exp: Any) -> Any:
    """Evaluate an :class:`Expr` (other values are returned as they are)."""
    return exp.eval() if isinstance(exp, Expr) else exp


class Variable(Expr):
    """A named value in an expression; its name is what error messages show."""

    def __init__(self, value: Any, name: str) -> None:
        super().__init__(0)
        self.value = value
        self.name = name

    def eval(self) -> Any:
        return self.value

    def __str__(self) -> str:
        return self.name


class Constant(Expr):
    """An unnamed value in an expression, shown as itself."""

    def __init__(self, value: Any) -> None:
        super().__init__(0)
        self.value = value

    def eval(self) -> Any:
        return self.value

    def __str__(self) -> str:
        return _text(self.value)


class _GetAttr(Expr):
    def __init__(self, obj: Expr, name: str) -> None:
        super().__init__(_PRIORITY["getattr"])
        self.obj = obj
        self.attr = name

    def eval(self) -> Any:
        return getattr(eval(self.obj), self.attr)

    def __str__(self) -> str:
        return f"{_text(self.obj, self.priority)}.{self.attr}"


class _GetItem(Expr):
    def __init__(self, obj: Expr, key: Any) -> None:
        super().__init__(_PRIORITY["getitem"])
        self.obj = obj
        self.key = key

    def eval(self) -> Any:
        key = self.key
        if isinstance(key, tuple):
            key = tuple(eval(k) for k in key)
        elif isinstance(key, slice):
            key = slice(eval(key.start), eval(key.stop), eval(key.step))
        else:
            key = eval(key)
        return eval(self.obj)[key]

    def __str__(self) -> str:
        key = self.key
        inner = ", ".join(_text(k) for k in key) if isinstance(key, tuple) else _text(key)
        return f"{_text(self.obj, self.priority)}[{inner}]"


class _Call(Expr):
    def __init__(self, func: Expr, args: tuple[Any, ...]) -> None:
        super().__init__(_PRIORITY["call"])
        self.func = func
        self.args = args

    def eval(self) -> Any:
        return eval(self.func)(*[eval(a) for a in self.args])

    def __str__(self) -> str:
        return f"{_text(self.func, self.priority)}({', '.join(_text(a) for a in self.args)})"


class _UnaryOperator(Expr):
    def __init__(self, op: str, func: Callable[[Any], Any], operand: Any) -> None:
        super().__init__(_PRIORITY["unary"])
        self.op = op
        self.func = func
        self.operand = operand

    def eval(self) -> Any:
        return self.func(eval(self.operand))

    def __str__(self) -> str:
        return f"{self.op}{_text(self.operand, self.priority)}"


_INVERSE = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}


class _BinaryOperator(Expr):
    def __init__(self, op: str, func: Callable[[Any, Any], Any], priority: int, lhs: Any, rhs: Any) -> None:
        super().__init__(priority)
        self.op = op
        self.func = func
        self.lhs = lhs
        self.rhs = rhs

    def eval(self) -> Any:
        return self.func(eval(self.lhs), eval(self.rhs))

    def __str__(self) -> str:
        # A right operand of equal priority needs parentheses: a - (b - c).
        rhs_priority = self.priority - 1 if self.priority < _PRIORITY["cmp"] else self.priority
        return f"{_text(self.lhs, self.priority)} {self.op} {_text(self.rhs, rhs_priority)}"

    def expect(self) -> None:
        """Raise :class:`InvalidType` if this comparison does not hold."""
        lhs, rhs = eval(self.lhs), eval(self.rhs)
        if not self.func(lhs, rhs):
            inverse = _INVERSE.get(self.op)
            actual = (
                f"{_text(lhs)} {inverse} {_text(rhs)}" if inverse else f"{_text(lhs)} {self.op} {_text(rhs)} is False"
            )
            raise InvalidType(str(self), actual)


class TypeInfo:
    """Type information of one array: ``shape``, ``dtype`` and ``ndim``."""

    def __init__(self, shape: tuple[int, ...], dtype: Any) -> None:
        self.shape = shape
        self.dtype = dtype
        self.ndim = len(shape)

    def size(self) -> Any:
        """Number of elements, as an expression in full mode."""
        return int(numpy.prod(self.shape, dtype=numpy.int64))


class TypeInfoTuple(tuple):  # type: ignore[type-arg]
    """Type information of all inputs (a tuple of :class:`Variable` expressions)."""

    name: str = "in_types"

    def size(self) -> Any:
        """Number of inputs, as an expression in full mode."""
        return Variable(len(self), f"{self.name}.size()")


class _LightTypeInfoTuple(tuple):  # type: ignore[type-arg]
    """Light mode: the input arrays themselves."""

    def size(self) -> int:
        return len(self)


def get_types(data: Sequence[Any], name: str, accept_none: bool, shapes: Sequence[Any] | None = None) -> TypeInfoTuple:
    """Build the full-mode type information of ``data`` (arrays, or ``None`` if accepted)."""
    infos = []
    for i, array in enumerate(data):
        var_name = f"{name}[{i}]"
        if array is None:
            if not accept_none:
                raise InvalidType(f"{var_name} is an array", "None")
            infos.append(Variable(None, var_name))
        else:
            shape = array.shape if shapes is None else shapes[i]
            infos.append(Variable(TypeInfo(shape, array.dtype), var_name))
    result = TypeInfoTuple(infos)
    result.name = name
    return result


def make_variable(value: Any, name: str) -> Any:
    """A named value for conditions: the value itself in light mode, a :class:`Variable`
    in full mode (so that messages show ``name``)."""
    if _in_light_mode():
        return value
    return Variable(value, name)


def expect(*bool_exprs: Any) -> None:
    """Check every condition; raise :class:`InvalidType` at the first that fails.

    Each condition is a comparison built from ``in_types`` (an :class:`Expr` in full
    mode, a plain bool in light mode) or a bool computed by the caller.
    """
    for cond in bool_exprs:
        if cond is True:
            continue
        if isinstance(cond, _BinaryOperator) and cond.op in _INVERSE:
            cond.expect()
        elif isinstance(cond, Expr):
            if not cond.eval():
                raise InvalidType(str(cond), "False")
        elif isinstance(cond, (bool, numpy.bool_)):
            if not cond:
                # In light mode this triggers the full-mode run that explains the failure.
                raise InvalidType("a condition given as a plain bool", "False")
        else:
            raise TypeError(
                f"type_check.expect: expected comparisons of type information or bools, got {type(cond).__name__}"
            )


def same_types(*arrays: Any) -> bool:
    """Whether all arrays belong to one array library (all NumPy or all CuPy, ...)."""
    kinds = {type(a) for a in arrays if a is not None}
    return len(kinds) <= 1


def _argname(in_types: Sequence[Any], names: Sequence[str]) -> None:
    """Name the inputs for messages (``x``, ``W``...) and check their number."""
    if len(in_types) != len(names):
        raise InvalidType(f"{len(names)} argument(s): {', '.join(names)}", f"{len(in_types)} argument(s)")
    if type(in_types) is not _LightTypeInfoTuple:
        for info, name in zip(in_types, names):
            if isinstance(info, Variable):
                info.name = name


argname = _argname


def run_check(check: Callable[[Any], None], in_data: Sequence[Any], label: str, direction: str = "Forward") -> None:
    """Run ``check(in_types)`` in light mode, then in full mode if it fails.

    Raises :class:`InvalidType` naming ``label`` (the function) and the failed condition.
    """
    state = _state
    state.light = True
    try:
        check(_LightTypeInfoTuple(in_data))
        return
    except Exception:  # light mode may fail on expressions only full mode can evaluate
        pass
    finally:
        state.light = False
    try:
        check(get_types(in_data, "in_types", False))
    except InvalidType as exc:
        raise InvalidType(
            exc.expect,
            exc.actual,
            msg=f"\nInvalid operation is performed in: {label} ({direction})\n\nExpect: {exc.expect}\nActual: {exc.actual}",
        ) from None


def prod(values: Any) -> Any:
    """Product of a shape (works in both modes)."""
    if isinstance(values, Expr):
        return _Call(Variable(_prod, "prod"), (values,))
    return _prod(values)


def _prod(values: Any) -> int:
    result = 1
    for v in values:
        result *= int(v)
    return result


def _broadcast_shape(shapes: Sequence[tuple[int, ...]]) -> tuple[int, ...] | None:
    ndim = max(len(s) for s in shapes)
    result = []
    for axis in range(-ndim, 0):
        size = 1
        for shape in shapes:
            if -axis <= len(shape):
                dim = shape[axis]
                if dim != 1:
                    if size != 1 and size != dim:
                        return None
                    size = dim
        result.append(size)
    return tuple(result)


def expect_broadcast_shapes(*shape_types: Any) -> None:
    """Expect that the given shapes broadcast together (NumPy rules)."""
    shapes = [eval(s) for s in shape_types]
    if all(s == shapes[0] for s in shapes[1:]):
        return
    if _broadcast_shape(shapes) is None:
        names = " and ".join(str(s) if isinstance(s, Expr) else _text(s) for s in shape_types)
        raise InvalidType(f"{names} can be broadcast together", " and ".join(_text(s) for s in shapes) + " cannot")
