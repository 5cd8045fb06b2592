"""Fixing the random seeds of a test (NumPy, Python's random, CuPy).

:func:`fix_random` is the decorator; :func:`do_setup` and :func:`do_teardown` are
the two halves it calls around a test (they nest: each teardown restores the states
its setup saved).
"""

from __future__ import annotations

import functools
import os
import random as _random
import sys
from collections.abc import Callable
from typing import Any

import numpy

from chainer.testing import _bundle

_DEFAULT_SEED = 0

# The generator states saved by each do_setup not yet undone, innermost last.
_saved_states: list[tuple[Any, Any, Any]] = []


def generate_seed() -> int:
    """The seed of a fixed test: ``CHAINER_TEST_RANDOM_SEED`` if set, else 0."""
    raw = os.environ.get("CHAINER_TEST_RANDOM_SEED")
    if raw is None:
        return _DEFAULT_SEED
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"CHAINER_TEST_RANDOM_SEED must be an integer, got {raw!r}") from None


def _cupy_random() -> Any:
    """``cupy.random`` where CuPy is imported and a device is usable, else ``None``."""
    cupy = sys.modules.get("cupy")
    if cupy is None:
        return None
    from chainer.backends import cuda

    return cupy.random if cuda._unavailable_reason() is None else None


def do_setup(deterministic: bool = True) -> None:
    """Save the states of NumPy's, Python's (and CuPy's) global generators and seed
    them: with :func:`generate_seed` if ``deterministic``, else from the OS's entropy."""
    cupy_random = _cupy_random()
    cupy_state = cupy_random.get_random_state() if cupy_random is not None else None
    _saved_states.append((numpy.random.get_state(), _random.getstate(), cupy_state))
    seed = generate_seed() if deterministic else int.from_bytes(os.urandom(4), "little")
    numpy.random.seed(seed)
    _random.seed(seed)
    if cupy_random is not None:
        cupy_random.seed(seed)


def do_teardown() -> None:
    """Restore the generator states saved by the matching :func:`do_setup`."""
    if not _saved_states:
        raise RuntimeError("chainer.testing.random.do_teardown: called without a do_setup before it")
    numpy_state, python_state, cupy_state = _saved_states.pop()
    numpy.random.set_state(numpy_state)
    _random.setstate(python_state)
    if cupy_state is not None:
        sys.modules["cupy"].random.set_random_state(cupy_state)


def fix_random(*, setup_method: str = "setUp", teardown_method: str = "tearDown") -> Callable[[Any], Any]:
    """Decorator that fixes random numbers in a test.

    Applied to a test function, it seeds the generators (see :func:`do_setup`) for
    each call; applied to a test class (or the classes a
    :func:`~chainer.testing.parameterize` made), around each test, from before
    ``setup_method`` to after ``teardown_method``. The previous states are restored
    afterwards.
    """

    def decorate_function(f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            do_setup()
            try:
                return f(*args, **kwargs)
            finally:
                do_teardown()

        return wrapper

    def decorate_class(klass: type) -> type:
        original_setup = getattr(klass, setup_method, None)
        original_teardown = getattr(klass, teardown_method, None)

        def setup(self: Any, *args: Any, **kwargs: Any) -> None:
            do_setup()
            if original_setup is not None:
                try:
                    original_setup(self, *args, **kwargs)
                except BaseException:
                    # unittest skips tearDown after a failed setUp: restore here.
                    do_teardown()
                    raise

        def teardown(self: Any, *args: Any, **kwargs: Any) -> None:
            try:
                if original_teardown is not None:
                    original_teardown(self, *args, **kwargs)
            finally:
                do_teardown()

        setattr(klass, setup_method, setup)
        setattr(klass, teardown_method, teardown)
        return klass

    def decorator(target: Any) -> Any:
        if isinstance(target, (type, _bundle._ParameterizedTestCaseBundle)):
            return _bundle.map_classes(target, decorate_class)
        return decorate_function(target)

    return decorator


__all__ = ["do_setup", "do_teardown", "fix_random", "generate_seed"]
