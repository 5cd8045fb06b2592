"""Fixing the random seeds of a test (NumPy, Python's random, CuPy)."""

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


def _seed() -> int:
    raw = os.environ.get("CHAINER_TEST_RANDOM_SEED")
    return _DEFAULT_SEED if raw is None else int(raw)


def _set_seeds(seed: int) -> None:
    numpy.random.seed(seed)
    _random.seed(seed)
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        from chainer.backends import cuda

        if cuda._unavailable_reason() is None:
            cupy.random.seed(seed)


def fix_random(*, setup_method: str = "setUp", teardown_method: str = "tearDown") -> Callable[[Any], Any]:
    """Decorator seeding every random generator before a test (a function or each test of a class).

    The seed is ``CHAINER_TEST_RANDOM_SEED`` (default 0). The previous NumPy state is
    restored afterwards.
    """

    def decorate_function(f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            state = numpy.random.get_state()
            py_state = _random.getstate()
            _set_seeds(_seed())
            try:
                return f(*args, **kwargs)
            finally:
                numpy.random.set_state(state)
                _random.setstate(py_state)

        return wrapper

    def decorator(target: Any) -> Any:
        if isinstance(target, _bundle._ParameterizedTestCaseBundle):
            return _bundle.map_classes(target, decorator)
        if not isinstance(target, type):
            return decorate_function(target)
        original_setup = getattr(target, setup_method, None)
        original_teardown = getattr(target, teardown_method, None)

        def setup(self: Any, *args: Any, **kwargs: Any) -> None:
            self._chainer_random_state = (numpy.random.get_state(), _random.getstate())
            _set_seeds(_seed())
            if original_setup is not None:
                original_setup(self, *args, **kwargs)

        def teardown(self: Any, *args: Any, **kwargs: Any) -> None:
            try:
                if original_teardown is not None:
                    original_teardown(self, *args, **kwargs)
            finally:
                state, py_state = self._chainer_random_state
                numpy.random.set_state(state)
                _random.setstate(py_state)

        setattr(target, setup_method, setup)
        setattr(target, teardown_method, teardown)
        return target

    return decorator
