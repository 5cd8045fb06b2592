"""Parameterised test classes: ``@testing.parameterize(*testing.product({...}))``."""

from __future__ import annotations

import itertools
import types
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from chainer.testing import _bundle

_MAX_NAME_PART = 100


def _param_to_str(obj: Any) -> str:
    """A short readable form of a parameter value for class names: the name of what
    has one (a class, function or method), the repr of anything else (as 7.8.1 names
    its test classes)."""
    name = getattr(obj, "__name__", None)
    return name if isinstance(name, str) else repr(obj)


def _shorten(s: str, maxlen: int) -> str:
    """``s`` cut to ``maxlen`` characters, keeping its start and its end around ``...``."""
    if len(s) <= maxlen:
        return s
    ellipsis = "..."
    head = (maxlen - len(ellipsis)) // 2
    tail = maxlen - len(ellipsis) - head
    return s[:head] + ellipsis + (s[-tail:] if tail else "")


def _make_class_name(base_class_name: str, i_param: int, param: Mapping[str, Any]) -> str:
    # Each value is shortened by itself, so that every parameter shows in the name.
    summary = ", ".join(f"{k}={_shorten(_param_to_str(v), _MAX_NAME_PART)}" for k, v in sorted(param.items()))
    return f"{base_class_name}_param_{i_param}_{{{summary}}}"


def _as_member(value: Any) -> Any:
    # A plain function stored as a class attribute would become a method of the test
    # and receive the test as its first argument; the parameter is the function itself.
    if isinstance(value, types.FunctionType):
        return staticmethod(value)
    return value


def _parameterize_test_case(base: type, i: int, param: Mapping[str, Any]) -> tuple[str, dict[str, Any], None]:
    name = _make_class_name(base.__name__, i, param)
    members = {key: _as_member(value) for key, value in param.items()}

    def __str__(self: Any) -> str:
        return f"{base.__str__(self)}  parameter: {dict(param)}"

    members["__str__"] = __str__
    return name, members, None


def _parameterize_test_case_generator(
    base: type, params: Sequence[Mapping[str, Any]]
) -> Iterator[tuple[str, dict[str, Any], None]]:
    for i, param in enumerate(params):
        yield _parameterize_test_case(base, i, param)


def parameterize(*params: Mapping[str, Any]) -> Callable[[Any], Any]:
    """Class decorator: make one test class per parameter dict.

    Each generated class is a subclass of the decorated one whose attributes are the
    dict's items, so a test reads a parameter as ``self.<name>`` (a function given as a
    parameter stays a plain function, it is not bound to the test). The generated
    classes are put in the test module; the decorated class itself is no longer
    collected. Decorators of this kind (``parameterize``, ``inject_backend_tests``) may
    be stacked: every combination is generated.

    Example:
        >>> import unittest
        >>> from chainer import testing
        >>> @testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
        ... class TestFoo(unittest.TestCase):
        ...     def test_dtype(self):
        ...         assert self.dtype in (np.float32, np.float64)
    """
    for i, param in enumerate(params):
        if not isinstance(param, Mapping):
            raise TypeError(f"testing.parameterize: parameter {i} must be a dict, got {type(param).__name__}")
    frozen = [dict(p) for p in params]
    return _bundle.make_decorator(lambda base: _parameterize_test_case_generator(base, frozen))


def _values_to_dicts(names: str | Sequence[str], values: Iterable[Any]) -> list[dict[str, Any]]:
    """Parameter dicts from pytest-style ``names`` (``'a,b'`` or a list) and ``values``."""
    if isinstance(names, str):
        keys = [name.strip() for name in names.split(",") if name.strip()]
    else:
        keys = list(names)
    if len(keys) == 1:
        return [{keys[0]: value} for value in values]
    result = []
    for value in values:
        value = tuple(value)
        if len(value) != len(keys):
            raise ValueError(
                f"testing.parameterize_pytest: {len(keys)} names {keys} but a value of length {len(value)}: {value!r}"
            )
        result.append(dict(zip(keys, value)))
    return result


def from_pytest_parameterize(names: str | Sequence[str], values: Iterable[Any]) -> list[dict[str, Any]]:
    """The parameter dicts of a ``pytest.mark.parametrize(names, values)``."""
    return _values_to_dicts(names, values)


def parameterize_pytest(names: str | Sequence[str], values: Iterable[Any]) -> Callable[[Any], Any]:
    """:func:`parameterize` written the way ``pytest.mark.parametrize`` is:
    ``@testing.parameterize_pytest('x,y', [(1, 2), (3, 4)])``."""
    return parameterize(*from_pytest_parameterize(names, values))


def product(parameter: Mapping[str, Iterable[Any]] | Sequence[Sequence[Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """Cartesian product of parameter values.

    ``product({'a': [1, 2], 'b': [3]})`` gives ``[{'a': 1, 'b': 3}, {'a': 2, 'b': 3}]``;
    the keys are taken in sorted order, the first varying slowest.
    A key naming several parameters (``'shape,axis'``) takes tuples of their values.
    A list of lists of dicts gives :func:`product_dict` of them.
    """
    if isinstance(parameter, Mapping):
        choices = []
        # Keys in sorted order, the first varying slowest, as 7.8.1 numbers its cases.
        for key, values in sorted(parameter.items()):
            if "," in key:
                choices.append(_values_to_dicts(key, values))
            else:
                choices.append([{key: value} for value in values])
        return product_dict(*choices)
    if isinstance(parameter, Sequence) and not isinstance(parameter, str):
        return product_dict(*parameter)
    raise TypeError(f"testing.product: expected a dict or a list of lists of dicts, got {type(parameter).__name__}")


def product_dict(*parameters: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Product of lists of dicts: each result merges one dict from each list."""
    result = []
    for combination in itertools.product(*parameters):
        merged: dict[str, Any] = {}
        for d in combination:
            merged.update(d)
        result.append(merged)
    return result


# The full product, kept under this name for test configurations that replace
# ``product_dict`` with the pairwise version (CHAINER_TEST_PAIRWISE_PARAMETERIZATION)
# and put it back; :func:`product` looks ``product_dict`` up at call time.
_product_dict_orig = product_dict


def _nd_indices_to_cover_each_2d(shape: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Index tuples into an array of ``shape`` such that, for every pair of axes,
    every pair of their indexes appears in some tuple (a covering array of strength 2).

    Greedy: each new tuple starts from a pair not yet covered and fills the other axes
    with the index that covers the most new pairs.
    """
    shape = tuple(shape)
    n = len(shape)
    if any(s == 0 for s in shape):
        return
    if n <= 2:
        yield from itertools.product(*(range(s) for s in shape))
        return
    uncovered = {
        (i, a, j, b) for i in range(n) for j in range(i + 1, n) for a in range(shape[i]) for b in range(shape[j])
    }

    def gain(row: list[int | None], axis: int, value: int) -> int:
        count = 0
        for other, v in enumerate(row):
            if v is None or other == axis:
                continue
            key = (other, v, axis, value) if other < axis else (axis, value, other, v)
            count += key in uncovered
        return count

    while uncovered:
        i, a, j, b = min(uncovered)
        row: list[int | None] = [None] * n
        row[i], row[j] = a, b
        for axis in range(n):
            if row[axis] is None:
                row[axis] = max(range(shape[axis]), key=lambda value, axis=axis: gain(row, axis, value))
        filled = tuple(int(v) for v in row if v is not None)
        for p in range(n):
            for q in range(p + 1, n):
                uncovered.discard((p, filled[p], q, filled[q]))
        yield filled


def _pairwise_product_dict_iter(*parameters: Iterable[Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    lists = [list(p) for p in parameters]
    for indices in _nd_indices_to_cover_each_2d([len(p) for p in lists]):
        merged: dict[str, Any] = {}
        for choices, index in zip(lists, indices):
            merged.update(choices[index])
        yield merged


def _pairwise_product_dict(*parameters: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Like :func:`product_dict` but with every *pair* of choices covered, not every
    combination (far fewer cases for large products)."""
    return list(_pairwise_product_dict_iter(*parameters))
