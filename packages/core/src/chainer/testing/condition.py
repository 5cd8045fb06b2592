"""Repeating flaky (stochastic) tests."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any


def repeat_with_success_at_least(times: int, min_success: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Run a test ``times`` times; pass if at least ``min_success`` runs pass."""
    if not 0 <= min_success <= times:
        raise ValueError(f"repeat_with_success_at_least: need 0 <= min_success <= times, got {min_success}, {times}")

    def decorator(f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> None:
            failures = []
            successes = 0
            for i in range(times):
                if successes >= min_success:
                    return
                if successes + (times - i) < min_success:
                    break
                try:
                    f(*args, **kwargs)
                    successes += 1
                except AssertionError as exc:
                    failures.append(exc)
            if successes < min_success:
                raise AssertionError(
                    f"{f.__name__} passed {successes} of {times} runs; at least {min_success} were required. "
                    f"Last failure: {failures[-1] if failures else 'none'}"
                )

        return wrapper

    return decorator


def repeat(times: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Run a test ``times`` times; every run must pass."""
    return repeat_with_success_at_least(times, times)


def retry(times: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Run a test up to ``times`` times; pass as soon as one run passes."""
    return repeat_with_success_at_least(times, 1)
