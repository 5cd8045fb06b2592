"""Small test helpers: requirement-based skips and warning assertions."""

from __future__ import annotations

import contextlib
import importlib.metadata
import warnings
from collections.abc import Callable, Iterator
from typing import Any


def _requirement_met(requirement: str) -> bool:
    from packaging.requirements import Requirement

    req = Requirement(requirement)
    try:
        version = importlib.metadata.version(req.name)
    except importlib.metadata.PackageNotFoundError:
        return False
    return req.specifier.contains(version, prereleases=True)


def with_requires(*requirements: str) -> Callable[[Any], Any]:
    """Skip a test (function or class) unless every requirement (``'scipy>=1.5'``) is installed."""

    def decorator(target: Any) -> Any:
        import pytest

        missing = [r for r in requirements if not _requirement_met(r)]
        return pytest.mark.skipif(bool(missing), reason=f"requires {', '.join(missing)}")(target)

    return decorator


@contextlib.contextmanager
def assert_warns(expected: type[Warning]) -> Iterator[None]:
    """Assert that the block emits a warning of class ``expected``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    if not any(issubclass(w.category, expected) for w in caught):
        got = ", ".join(sorted({w.category.__name__ for w in caught})) or "none"
        raise AssertionError(f"assert_warns: expected a {expected.__name__}; warnings emitted: {got}")
