"""Parameterised test classes: ``@testing.parameterize(*testing.product({...}))``."""

from __future__ import annotations

import itertools
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def _describe(value: Any) -> str:
    if isinstance(value, type):
        return value.__name__
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    text = repr(value)
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        text = f"array{tuple(value.shape)}"
    return text


def _class_name(base: str, index: int, params: Mapping[str, Any]) -> str:
    summary = "_".join(f"{k}={_describe(v)}" for k, v in params.items())
    summary = re.sub(r"[^0-9A-Za-z_=]+", "_", summary)[:80]
    return f"{base}_param_{index}_{summary}"


def parameterize(*params: Mapping[str, Any]) -> Callable[[type], type]:
    """Class decorator: make one test class per parameter dict.

    Each generated class is a subclass whose class attributes are the dict's items; it
    is added to the module of the decorated class. The decorated class itself is kept
    but no longer collected as a test (``__test__ = False``).

    Example:
        >>> import unittest
        >>> from chainer import testing
        >>> @testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
        ... class TestFoo(unittest.TestCase):
        ...     def test_dtype(self):
        ...         assert self.dtype in (np.float32, np.float64)
    """

    def decorator(cls: type) -> type:
        module = sys.modules[cls.__module__]
        for index, param in enumerate(params):
            name = _class_name(cls.__name__, index, param)
            attrs: dict[str, Any] = dict(param)
            attrs["__test__"] = True
            attrs["__module__"] = cls.__module__
            attrs["_chainer_test_params"] = dict(param)
            attrs["__qualname__"] = name
            setattr(module, name, type(name, (cls,), attrs))
        cls.__test__ = False  # type: ignore[attr-defined]
        return cls

    return decorator


def product(parameter: Mapping[str, Iterable[Any]] | list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Cartesian product of parameter values.

    ``product({'a': [1, 2], 'b': [3]})`` gives ``[{'a': 1, 'b': 3}, {'a': 2, 'b': 3}]``.
    A list of lists of dicts gives the product of the dict lists, each result merging
    one dict from each.
    """
    if isinstance(parameter, Mapping):
        keys = list(parameter)
        return [dict(zip(keys, values)) for values in itertools.product(*(parameter[k] for k in keys))]
    if isinstance(parameter, list):
        return product_dict(*parameter)
    raise TypeError(f"testing.product: expected a dict or a list of lists of dicts, got {type(parameter).__name__}")


def product_dict(*parameters: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Product of lists of dicts: each result merges one dict from each list."""
    result = []
    for combination in itertools.product(*parameters):
        merged: dict[str, Any] = {}
        for d in combination:
            merged.update(d)
        result.append(merged)
    return result
