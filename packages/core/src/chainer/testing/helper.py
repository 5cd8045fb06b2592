"""Small test helpers: requirement-based skips, warning assertions and ``patch``."""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import re
import unittest
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from chainer.testing import _bundle

_OPERATORS = ("===", "==", "!=", "<=", ">=", "~=", "<", ">")


def _release(version: str) -> tuple[int, ...]:
    parts = []
    for piece in re.split(r"[.+-]", version):
        match = re.match(r"\d+", piece)
        if match is None:
            break
        parts.append(int(match.group()))
    return tuple(parts)


def _satisfies(version: str, op: str, wanted: str) -> bool:
    have, want = _release(version), _release(wanted)
    width = max(len(have), len(want))
    have += (0,) * (width - len(have))
    want += (0,) * (width - len(want))
    if op in ("==", "==="):
        return have == want
    if op == "!=":
        return have != want
    if op == "<=":
        return have <= want
    if op == ">=":
        return have >= want
    if op == "<":
        return have < want
    if op == ">":
        return have > want
    # "~=": compatible release, e.g. ~=1.4 means >=1.4, ==1.*
    prefix = _release(wanted)[:-1]
    return have >= want and have[: len(prefix)] == prefix


def _requirement_met(requirement: str) -> bool:
    """Whether an installed distribution satisfies a requirement like ``'scipy>=1.5,<2'``."""
    match = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*)$", requirement)
    if match is None:
        raise ValueError(f"with_requires: cannot parse requirement {requirement!r}")
    name, spec = match.groups()
    try:
        version = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    for clause in filter(None, (c.strip() for c in spec.split(","))):
        op = next((o for o in _OPERATORS if clause.startswith(o)), None)
        if op is None:
            raise ValueError(f"with_requires: cannot parse requirement {requirement!r}")
        if not _satisfies(version, op, clause[len(op) :].strip()):
            return False
    return True


def _skip_if(condition: bool, reason: str) -> Callable[[Any], Any]:
    """``unittest.skipIf`` for a function, a class or the classes of a bundle: it
    skips under pytest and under unittest's own runner alike."""
    skip = unittest.skipIf(condition, reason)
    return lambda target: _bundle.map_classes(target, skip)


def with_requires(*requirements: str) -> Callable[[Any], Any]:
    """Skip a test (function or class) unless every requirement (``'scipy>=1.5'``) is installed."""
    missing = [r for r in requirements if not _requirement_met(r)]
    return _skip_if(bool(missing), f"requires: {', '.join(missing)}")


def without_requires(*requirements: str) -> Callable[[Any], Any]:
    """Skip a test (function or class) when every requirement is installed: for tests
    of what happens without an optional dependency (``@without_requires('scipy')``)."""
    met = all(_requirement_met(r) for r in requirements)
    return _skip_if(met, f"runs only without: {', '.join(requirements)}")


def _check_mock_available() -> None:
    # unittest.mock is part of the standard library; kept for code that calls it.
    from unittest import mock  # noqa: F401


def _import_object_from_name(fullname: str) -> Any:
    """The object a dotted name refers to: the longest importable module prefix, then
    attributes (``'chainer.backends.cuda.get_device_from_id'``)."""
    parts = fullname.split(".")
    for cut in range(len(parts), 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            obj = importlib.import_module(module_name)
        except ImportError:
            continue
        try:
            for attribute in parts[cut:]:
                obj = getattr(obj, attribute)
        except AttributeError:
            raise AttributeError(
                f"testing.patch: {module_name} has no attribute path {'.'.join(parts[cut:])!r}"
            ) from None
        return obj
    raise ImportError(f"testing.patch: no module of {fullname!r} can be imported")


def patch(target: str, *args: Any, **kwargs: Any) -> Any:
    """:func:`unittest.mock.patch` that, unless told otherwise (``wraps=...``), wraps the
    patched object: the mock records the calls and still does what the original did."""
    from unittest import mock

    if "wraps" not in kwargs:
        kwargs["wraps"] = _import_object_from_name(target)
    return mock.patch(target, *args, **kwargs)


@contextlib.contextmanager
def assert_warns(expected: type[Warning]) -> Iterator[None]:
    """Assert that the block emits a warning of class ``expected``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    if not any(issubclass(w.category, expected) for w in caught):
        got = ", ".join(sorted({w.category.__name__ for w in caught})) or "none"
        raise AssertionError(f"assert_warns: expected a {expected.__name__}; warnings emitted: {got}")
