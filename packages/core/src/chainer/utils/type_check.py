"""Type checks of function inputs with readable error messages.

A function's ``check_type_forward(in_types)`` states its preconditions with
:func:`expect`, e.g. ``expect(x_type.ndim == 2, x_type.dtype.kind == 'f')``.

It runs in two modes. In *light* mode (every call) ``in_types`` is a
:class:`LightTypeInfoTuple` of the input arrays themselves, so the conditions are plain
booleans and cost almost nothing. Only if a condition fails (or light mode cannot
evaluate it) is the check run again in *full* mode, where ``in_types`` holds
:class:`Expr` trees; ``expect`` then reports the failed condition as written
(``in_types[0].ndim >= 2``) together with the actual values (``1 < 2``).

The expression classes (:class:`Constant`, :class:`Variable`, :class:`GetAttr`,
:class:`GetItem`, :class:`Call`, :class:`UnaryOperator`, :class:`BinaryOperator`,
:class:`BoolBinaryOperator`) take the constructor arguments of Chainer 7's, so code
that builds expressions by hand keeps working.
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


def in_light_mode() -> bool:
    """Whether a type check runs in light mode on this thread."""
    return _state.light


_in_light_mode = in_light_mode


class LightMode:
    """Context manager that runs the type checks inside it in light mode."""

    def __enter__(self) -> None:
        self._previous = _state.light
        _state.light = True

    def __exit__(self, *exc_info: Any) -> None:
        _state.light = self._previous


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


# Binding strength, higher binds tighter (used to parenthesise when printing).
_ATOM_PRIORITY = 8
_POW_PRIORITY = 7
_UNARY_PRIORITY = 6
_COMPARISON_PRIORITY = -1


def _repr(value: Any) -> str:
    """Text of a value inside an expression: expressions as written, lists and tuples
    element by element, anything else as its ``repr``."""
    if isinstance(value, Expr):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_repr(v) for v in value) + "]"
    if isinstance(value, tuple):
        if len(value) == 1:
            return f"({_repr(value[0])},)"
        return "(" + ", ".join(_repr(v) for v in value) + ")"
    return repr(value)


def _eval_expr(value: Any) -> Any:
    """Evaluate an expression, and the expressions inside lists and tuples."""
    if isinstance(value, Expr):
        return value.eval()
    if isinstance(value, list):
        return [_eval_expr(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_eval_expr(v) for v in value)
    return value


def eval(exp: Any) -> Any:
    """Evaluate ``exp``: an :class:`Expr` in full mode, the value itself in light mode."""
    if isinstance(exp, Expr):
        return exp.eval()
    if _state.light:
        return exp
    return _eval_expr(exp)


def _parenthesised(value: Any, needed: bool) -> str:
    return f"({_repr(value)})" if needed else _repr(value)


def _operand(value: Any, needed: bool) -> str:
    # Operands of operators print as str (``x.dtype.kind == f``, as Chainer's messages
    # read); values nested in lists, items and calls print as repr.
    if isinstance(value, Expr):
        return _parenthesised(value, needed)
    if isinstance(value, (list, tuple)):
        return _repr(value)
    return str(value)


def _priority(value: Any) -> int:
    return value.priority if isinstance(value, Expr) else _ATOM_PRIORITY


class Expr:
    """An expression tree built lazily from type information, evaluated by :meth:`eval`.

    ``priority`` is how tightly the expression binds when printed inside another.
    """

    def __init__(self, priority: int) -> None:
        self.priority = priority

    def eval(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.eval is not implemented")

    def __bool__(self) -> bool:
        raise RuntimeError(
            "An Expr of chainer.utils.type_check cannot be used as a bool; pass it to "
            "type_check.expect(), or evaluate it with type_check.eval()"
        )

    def __getattr__(self, name: str) -> Expr:
        if name.startswith("__"):
            raise AttributeError(name)
        return GetAttr(self, name)

    def __getitem__(self, key: Any) -> Expr:
        return GetItem(self, key)

    def __call__(self, *args: Any) -> Expr:
        return Call(self, args)

    __hash__ = object.__hash__


def _make_bin_operator(
    exp: str, priority: int, func: Callable[[Any, Any], Any], right_associative: bool = False, reflected: bool = False
) -> Callable[[Any, Any], Expr]:
    def method(self: Expr, other: Any) -> Expr:
        lhs, rhs = (other, self) if reflected else (self, other)
        return BinaryOperator(priority, lhs, rhs, exp, func, right_associative)

    return method


def _make_bool_operator(exp: str, inv: str, func: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Expr]:
    def method(self: Expr, other: Any) -> Expr:
        return BoolBinaryOperator(self, other, exp, inv, func)

    return method


def _make_un_operator(exp: str, priority: int, func: Callable[[Any], Any]) -> Callable[[Expr], Expr]:
    def method(self: Expr) -> Expr:
        return UnaryOperator(priority, self, exp, func)

    return method


_BINARY_OPERATORS: tuple[tuple[str, str, int, Callable[[Any, Any], Any]], ...] = (
    ("add", "+", 4, operator.add),
    ("sub", "-", 4, operator.sub),
    ("mul", "*", 5, operator.mul),
    ("truediv", "/", 5, operator.truediv),
    ("floordiv", "//", 5, operator.floordiv),
    ("mod", "%", 5, operator.mod),
    ("lshift", "<<", 3, operator.lshift),
    ("rshift", ">>", 3, operator.rshift),
    ("and", "&", 2, operator.and_),
    ("xor", "^", 1, operator.xor),
    ("or", "|", 0, operator.or_),
)
for _name, _exp, _prio, _func in _BINARY_OPERATORS:
    setattr(Expr, f"__{_name}__", _make_bin_operator(_exp, _prio, _func))
    setattr(Expr, f"__r{_name}__", _make_bin_operator(_exp, _prio, _func, reflected=True))
# ** binds tighter than unary minus and groups to the right: -x ** y ** z is -(x ** (y ** z)).
Expr.__pow__ = _make_bin_operator("**", _POW_PRIORITY, operator.pow, right_associative=True)  # type: ignore[assignment,operator]
Expr.__rpow__ = _make_bin_operator("**", _POW_PRIORITY, operator.pow, True, reflected=True)  # type: ignore[attr-defined]

_COMPARISONS: tuple[tuple[str, str, str, Callable[[Any, Any], Any]], ...] = (
    ("eq", "==", "!=", operator.eq),
    ("ne", "!=", "==", operator.ne),
    ("lt", "<", ">=", operator.lt),
    ("le", "<=", ">", operator.le),
    ("gt", ">", "<=", operator.gt),
    ("ge", ">=", "<", operator.ge),
)
for _name, _exp, _inv, _func in _COMPARISONS:
    setattr(Expr, f"__{_name}__", _make_bool_operator(_exp, _inv, _func))

for _name, _exp, _ufunc in (("neg", "-", operator.neg), ("pos", "+", operator.pos), ("invert", "~", operator.invert)):
    setattr(Expr, f"__{_name}__", _make_un_operator(_exp, _UNARY_PRIORITY, _ufunc))


class Atom(Expr):
    """An expression that needs no parentheses: a value, an attribute, an item or a call."""

    def __init__(self) -> None:
        super().__init__(_ATOM_PRIORITY)


class Constant(Atom):
    """An unnamed value in an expression, shown as itself."""

    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value

    def __str__(self) -> str:
        return _repr(self.value)

    def eval(self) -> Any:
        return self.value


class Variable(Atom):
    """A named value in an expression; its name is what error messages show."""

    def __init__(self, value: Any, name: str) -> None:
        super().__init__()
        self.value = value
        self.name = name

    def __str__(self) -> str:
        return self.name

    def eval(self) -> Any:
        return self.value


class GetAttr(Atom):
    """``obj.name`` (``getattr(obj, name)`` when ``name`` is not a string)."""

    def __init__(self, obj: Any, name: Any) -> None:
        super().__init__()
        self.obj = obj
        self.name = name

    def __str__(self) -> str:
        name = self.name.value if isinstance(self.name, Constant) else self.name
        if isinstance(name, str):
            return f"{_parenthesised(self.obj, _priority(self.obj) < self.priority)}.{name}"
        return f"getattr({_repr(self.obj)}, {_repr(name)})"

    def eval(self) -> Any:
        return getattr(_eval_expr(self.obj), _eval_expr(self.name))


def _str_subscript(exp: Any) -> str:
    if exp is Ellipsis:
        return "..."
    if isinstance(exp, slice):
        parts = ["" if p is None else _repr(p) for p in (exp.start, exp.stop)]
        if exp.step is not None:
            parts.append(_repr(exp.step))
        return ":".join(parts)
    if isinstance(exp, tuple):
        return ", ".join(_str_subscript(e) for e in exp)
    return _repr(exp)


def _eval_subscript(exp: Any) -> Any:
    if isinstance(exp, slice):
        return slice(_eval_expr(exp.start), _eval_expr(exp.stop), _eval_expr(exp.step))
    if isinstance(exp, tuple):
        return tuple(_eval_subscript(e) for e in exp)
    return _eval_expr(exp)


class GetItem(Atom):
    """``obj[key]``; ``key`` may hold slices, ``...`` and expressions."""

    def __init__(self, obj: Any, key: Any) -> None:
        super().__init__()
        self.obj = obj
        self.key = key

    def __str__(self) -> str:
        return f"{_parenthesised(self.obj, _priority(self.obj) < self.priority)}[{_str_subscript(self.key)}]"

    def eval(self) -> Any:
        return _eval_expr(self.obj)[_eval_subscript(self.key)]


class Call(Atom):
    """``obj(*args)``."""

    def __init__(self, obj: Any, args: Sequence[Any]) -> None:
        if not isinstance(args, (tuple, list)):
            raise TypeError(f"type_check.Call: args must be a tuple or list, got {type(args).__name__}")
        super().__init__()
        self.obj = obj
        self.args = tuple(args)

    def __str__(self) -> str:
        callee = _parenthesised(self.obj, _priority(self.obj) < self.priority)
        return f"{callee}({', '.join(_repr(a) for a in self.args)})"

    def eval(self) -> Any:
        return _eval_expr(self.obj)(*[_eval_expr(a) for a in self.args])


class UnaryOperator(Expr):
    """A prefix operator ``exp`` (``-``, ``+``, ``~``) applied to ``term`` by ``func``."""

    def __init__(self, priority: int, term: Any, exp: str, func: Callable[[Any], Any]) -> None:
        super().__init__(priority)
        self.term = term
        self.exp = exp
        self.func = func

    def __str__(self) -> str:
        return f"{self.exp}{_operand(self.term, _priority(self.term) < self.priority)}"

    def eval(self) -> Any:
        return self.func(_eval_expr(self.term))


class BinaryOperator(Expr):
    """An infix operator ``exp`` applied to ``lhs`` and ``rhs`` by ``func``.

    Printing parenthesises an operand that binds more loosely, and the operand on the
    side opposite to the operator's associativity when it binds equally.
    """

    def __init__(
        self,
        priority: int,
        lhs: Any,
        rhs: Any,
        exp: str,
        func: Callable[[Any, Any], Any],
        right_associative: bool = False,
    ) -> None:
        super().__init__(priority)
        self.lhs = lhs
        self.rhs = rhs
        self.exp = exp
        self.func = func
        self.right_associative = right_associative

    def __str__(self) -> str:
        lhs_priority, rhs_priority = _priority(self.lhs), _priority(self.rhs)
        if self.right_associative:
            lhs_paren = lhs_priority <= self.priority
            rhs_paren = rhs_priority < self.priority
        else:
            lhs_paren = lhs_priority < self.priority
            rhs_paren = rhs_priority <= self.priority
        return f"{_operand(self.lhs, lhs_paren)} {self.exp} {_operand(self.rhs, rhs_paren)}"

    def eval(self) -> Any:
        return self.func(_eval_expr(self.lhs), _eval_expr(self.rhs))


class Testable:
    """A condition that :func:`expect` can test: it has an ``expect()`` method that
    raises :class:`InvalidType` when the condition does not hold."""

    def expect(self) -> None:
        raise NotImplementedError(f"{type(self).__name__}.expect is not implemented")


class BoolBinaryOperator(BinaryOperator, Testable):
    """A comparison ``lhs exp rhs``; ``inv`` is the operator that describes a failure
    (``!=`` for ``==``), as in ``Actual: 1 < 2``."""

    def __init__(self, lhs: Any, rhs: Any, exp: str, inv: str, func: Callable[[Any, Any], Any]) -> None:
        super().__init__(_COMPARISON_PRIORITY, lhs, rhs, exp, func)
        self.inv = inv

    def expect(self) -> None:
        left = _eval_expr(self.lhs)
        right = _eval_expr(self.rhs)
        if not self.func(left, right):
            raise InvalidType(str(self), f"{left} {self.inv} {right}")


class TypeInfo:
    """Type information of one array: ``shape``, ``dtype`` and ``ndim``."""

    def __init__(self, shape: tuple[int, ...], dtype: Any) -> None:
        self.shape = shape
        self.dtype = dtype
        self.ndim = len(shape)

    def size(self) -> int:
        """Number of elements (a method here; light mode's arrays have it as an attribute)."""
        return int(numpy.prod(self.shape, dtype=numpy.int64))


class TypeInfoTuple(tuple):  # type: ignore[type-arg]
    """Full-mode type information of all inputs: a tuple of :class:`Variable` expressions."""

    name: str = "in_types"

    def size(self) -> Expr:
        """Number of inputs, as an expression."""
        return Variable(len(self), f"{self.name}.size()")


class LightTypeInfoTuple(tuple):  # type: ignore[type-arg]
    """Light-mode type information: the input arrays themselves (or :class:`TypeInfo` s)."""

    def size(self) -> int:
        return len(self)


def _get_type(name: str, index: int, array: Any, accept_none: bool, shape: Any = None) -> Variable:
    var_name = f"{name}[{index}]"
    if array is None:
        if not accept_none:
            raise InvalidType(f"{var_name} is an array", "None")
        return Variable(None, var_name)
    return Variable(TypeInfo(array.shape if shape is None else shape, array.dtype), var_name)


def get_types(data: tuple[Any, ...], name: str, accept_none: bool, *, shapes: Any = None) -> TypeInfoTuple:
    """Full-mode type information of ``data`` (a tuple of arrays, ``None`` if accepted)."""
    assert isinstance(data, tuple), f"type_check.get_types: data must be a tuple, got {type(data).__name__}"
    if shapes is None:
        shapes = (None,) * len(data)
    result = TypeInfoTuple(_get_type(name, i, x, accept_none, s) for i, (x, s) in enumerate(zip(data, shapes)))
    result.name = name
    return result


def get_light_types(data: tuple[Any, ...], *, shapes: Any = None) -> LightTypeInfoTuple:
    """Light-mode type information of ``data``: the arrays, or :class:`TypeInfo` s with
    ``shapes`` in place of the arrays' own shapes."""
    if shapes is None:
        return LightTypeInfoTuple(data)
    return LightTypeInfoTuple(TypeInfo(s, x.dtype) for x, s in zip(data, shapes))


def make_variable(value: Any, name: str) -> Any:
    """A named value for conditions: the value itself in light mode, a :class:`Variable`
    in full mode (so that messages show ``name``)."""
    if _state.light:
        return value
    return Variable(value, name)


def expect(*bool_exprs: Any) -> None:
    """Check every condition; raise :class:`InvalidType` at the first that fails.

    Each condition is a comparison built from ``in_types`` (a :class:`Testable`
    expression in full mode, a plain bool in light mode) or a bool computed by the caller.
    """
    if _state.light:
        for cond in bool_exprs:
            if not cond:
                # Light mode only detects the failure; the full-mode run explains it.
                raise InvalidType("", "")
        return
    for cond in bool_exprs:
        if isinstance(cond, Testable):
            cond.expect()
        elif isinstance(cond, Expr):
            if not cond.eval():
                raise InvalidType(str(cond), "False")
        elif isinstance(cond, (bool, numpy.bool_)):
            if not cond:
                raise InvalidType("a condition given as a plain bool", "False")
        else:
            raise TypeError(
                f"type_check.expect: expected comparisons of type information or bools, got {type(cond).__name__}"
            )


def same_types(*arrays: Any) -> bool:
    """Whether all arrays belong to one array library (all NumPy or all CuPy, ...)."""
    kinds = set()
    for a in arrays:
        if a is None:
            continue
        kinds.add(numpy.ndarray if isinstance(a, numpy.ndarray) else type(a))
    return len(kinds) <= 1


def _argname(in_types: Sequence[Any], names: Sequence[str]) -> None:
    """Name the inputs for messages (``x``, ``W``...) and check their number."""
    if len(in_types) != len(names):
        raise InvalidType(f"{len(names)} argument(s): {', '.join(names)}", f"{len(in_types)} argument(s)")
    if type(in_types) is not LightTypeInfoTuple:
        for info, name in zip(in_types, names):
            if isinstance(info, Variable):
                info.name = name


argname = _argname


class _FunctionCheckContext:
    def __init__(self, function: Any) -> None:
        self.function = function

    def __enter__(self) -> None:
        self._previous = getattr(_state, "function", None)
        _state.function = self.function

    def __exit__(self, *exc_info: Any) -> None:
        _state.function = self._previous


def get_function_check_context(f: Any) -> Any:
    """Context manager under which type checks are attributed to the function ``f``."""
    return _FunctionCheckContext(f)


def run_check(check: Callable[[Any], None], in_data: Sequence[Any], label: str, direction: str = "Forward") -> None:
    """Run ``check(in_types)`` in light mode, then in full mode if it fails.

    Raises :class:`InvalidType` naming ``label`` (the function) and the failed condition.
    """
    state = _state
    previous = state.light
    state.light = True
    try:
        check(LightTypeInfoTuple(in_data))
        return
    except Exception:  # light mode may fail on expressions only full mode can evaluate
        pass
    finally:
        state.light = previous
    state.light = False
    try:
        check(get_types(tuple(in_data), "in_types", False))
    except InvalidType as exc:
        raise InvalidType(
            exc.expect,
            exc.actual,
            msg=f"\nInvalid operation is performed in: {label} ({direction})\n\nExpect: {exc.expect}\nActual: {exc.actual}",
        ) from None
    finally:
        state.light = previous


def _prod_impl(xs: Any) -> int:
    result = 1
    for x in xs:
        result *= int(x)
    return result


def prod(xs: Any) -> Any:
    """Product of a shape: a number in light mode, a ``prod(...)`` expression in full mode."""
    if _state.light:
        return _prod_impl(xs)
    return Call(Variable(_prod_impl, "prod"), (xs,))


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
    shapes = [_eval_expr(s) for s in shape_types]
    if all(s == shapes[0] for s in shapes[1:]):
        return
    if _broadcast_shape(shapes) is None:
        if _state.light:
            raise InvalidType("", "")
        names = " and ".join(_repr(s) for s in shape_types)
        raise InvalidType(f"{names} can be broadcast together", " and ".join(_repr(s) for s in shapes) + " cannot")
