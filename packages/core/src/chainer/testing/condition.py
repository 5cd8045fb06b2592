"""Repeating flaky (stochastic) tests: ``condition.repeat``, ``retry`` and
``repeat_with_success_at_least``.

A run that raises counts as a failure (an AssertionError or any other exception);
a run that skips (``self.skipTest``, ``pytest.skip``) skips the whole test at once.
"""

from __future__ import annotations

import functools
import sys
import traceback
import unittest
from collections.abc import Callable
from typing import Any


class QuietTestRunner:
    """Runs one test callable and keeps its outcome instead of printing it."""

    def __init__(self) -> None:
        self.failures: list[str] = []

    def run(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> bool:
        """Call ``f``; True if it returned, False (with the traceback kept) if it raised.
        A skip (:class:`unittest.SkipTest`, or pytest's, turned into one) propagates
        and skips the whole test."""
        try:
            f(*args, **kwargs)
        except unittest.SkipTest:
            raise
        except Exception as exc:
            self.failures.append("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
            return False
        except BaseException as exc:
            if _is_pytest_skip(exc):
                # As unittest's: a caller catching unittest.SkipTest sees every skip.
                raise unittest.SkipTest(str(exc)) from exc
            raise
        return True


def _is_pytest_skip(exc: BaseException) -> bool:
    # pytest's Skipped is no Exception, and its class claims the builtins module:
    # compare with the class itself where pytest is loaded.
    outcomes = sys.modules.get("_pytest.outcomes")
    return outcomes is not None and isinstance(exc, outcomes.Skipped)


def repeat_with_success_at_least(times: int, min_success: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Run a test ``times`` times; it passes if at least ``min_success`` runs pass.

    Stops as soon as the outcome is decided. On failure the AssertionError says how
    many runs passed and shows the first error.
    """
    assert 0 <= min_success <= times, (
        f"repeat_with_success_at_least: need 0 <= min_success <= times, got min_success={min_success}, times={times}"
    )

    def decorator(f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> None:
            runner = QuietTestRunner()
            # A test method runs each trial on a fresh fixture: its tearDown and setUp
            # run between trials (the test runner ran the first setUp and runs the last
            # tearDown), so that a trial that breaks the fixture does not fail the next.
            case = args[0] if args and isinstance(args[0], unittest.TestCase) else None
            successes = 0
            for i in range(times):
                if successes >= min_success or successes + (times - i) < min_success:
                    break
                if case is not None and i > 0:
                    case.tearDown()
                    if not runner.run(case.setUp):
                        continue
                successes += runner.run(f, *args, **kwargs)
            if successes < min_success:
                raise AssertionError(
                    f"{f.__name__} passed {successes} of {len(runner.failures) + successes} runs; at least "
                    f"{min_success} of {times} were required.\nfirst error message:\n{runner.failures[0]}"
                )

        return wrapper

    return decorator


def repeat(times: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Run a test ``times`` times; every run must pass."""
    return repeat_with_success_at_least(times, times)


def retry(times: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Run a test up to ``times`` times; it passes as soon as one run passes."""
    return repeat_with_success_at_least(times, 1)
