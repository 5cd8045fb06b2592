"""condition.repeat, retry and repeat_with_success_at_least count the runs that pass."""

import unittest

import pytest

from chainer.testing import condition


def _flaky(outcomes):
    """A test whose n-th run passes if outcomes[n] is True (else it fails or errors)."""
    calls = []

    def test():
        calls.append(1)
        outcome = outcomes[len(calls) - 1]
        if outcome == "error":
            raise KeyError("an error counts as a failed run")
        assert outcome, "failed run"

    return test, calls


def test_retry_passes_at_the_first_success_and_stops():
    test, calls = _flaky([False, "error", True, True])
    condition.retry(4)(test)()
    assert len(calls) == 3


def test_retry_fails_when_no_run_passes_and_shows_the_first_error():
    test, calls = _flaky([False, False, False])
    with pytest.raises(AssertionError, match="passed 0 of 3 runs") as info:
        condition.retry(3)(test)()
    assert "failed run" in str(info.value)


def test_repeat_needs_every_run_to_pass_and_stops_at_the_first_failure():
    test, calls = _flaky([True, True, True])
    condition.repeat(3)(test)()
    assert len(calls) == 3
    test, calls = _flaky([True, False, True])
    with pytest.raises(AssertionError):
        condition.repeat(3)(test)()
    assert len(calls) == 2


def test_repeat_with_success_at_least_stops_once_decided():
    test, calls = _flaky([True, False, True, True, True])
    condition.repeat_with_success_at_least(5, 2)(test)()
    assert len(calls) == 3
    test, calls = _flaky([False, False, False, True, True])
    with pytest.raises(AssertionError, match="at least 3 of 5"):
        condition.repeat_with_success_at_least(5, 3)(test)()
    assert len(calls) == 3


@pytest.mark.parametrize("skip", [lambda: pytest.skip("not here"), unittest.SkipTest("not here")])
def test_a_skip_skips_the_whole_test_at_once(skip):
    calls = []

    def test():
        calls.append(1)
        if callable(skip):
            skip()
        raise skip

    # pytest's skip becomes unittest's, so that callers see one kind of skip.
    with pytest.raises(unittest.SkipTest, match="not here"):
        condition.retry(3)(test)()
    assert len(calls) == 1


def test_each_trial_of_a_test_method_gets_a_fresh_fixture():
    events = []

    class Case(unittest.TestCase):
        def setUp(self):
            events.append("setUp")
            self.fixture = []

        def tearDown(self):
            events.append("tearDown")

        @condition.retry(3)
        def test_breaks_its_fixture_first(self):
            self.fixture.append(len(events))
            # The first trial fails; the second passes only if its fixture is new.
            assert len(self.fixture) == 1 and events.count("setUp") == 2

    result = unittest.TestResult()
    Case("test_breaks_its_fixture_first").run(result)
    assert result.wasSuccessful(), result.failures
    assert events == ["setUp", "tearDown", "setUp", "tearDown"]
