"""with_requires, without_requires, assert_warns and patch."""

import unittest
import warnings

import pytest

from chainer import testing
from chainer.testing import helper


def test_requirements_are_parsed_like_pip_specifiers():
    assert helper._requirement_met("numpy>=1.0")
    assert not helper._requirement_met("numpy<1.0")
    assert helper._requirement_met("numpy>=1.0,<100")
    assert not helper._requirement_met("surely-not-installed-dist>=1")
    assert helper._satisfies("1.4.2", "~=", "1.4")
    assert not helper._satisfies("2.0", "~=", "1.4")


@pytest.mark.parametrize(
    "decorator, skipped",
    [
        (testing.with_requires("surely-not-installed-dist"), True),
        (testing.with_requires("numpy"), False),
        (testing.without_requires("numpy"), True),
        (testing.without_requires("surely-not-installed-dist"), False),
    ],
)
def test_requirement_decorators_skip_classes_and_bundles(scratch, run, decorator, skipped):
    class Case(unittest.TestCase):
        def test_a(self):
            pass

    for klass in scratch.expand(lambda c: decorator(testing.parameterize({"p": 1})(c)), Case).values():
        # unittest's skip: it holds under unittest's runner too, not only under pytest.
        assert len(run(klass, "test_a").skipped) == (1 if skipped else 0)


def test_requirement_decorators_skip_functions():
    calls = []

    @testing.with_requires("surely-not-installed-dist")
    def test():
        calls.append(1)

    with pytest.raises(unittest.SkipTest, match="requires: surely-not-installed-dist"):
        test()
    assert calls == []


def test_assert_warns():
    with testing.assert_warns(DeprecationWarning):
        warnings.warn("old", DeprecationWarning)
    with pytest.raises(AssertionError, match="expected a DeprecationWarning"):
        with testing.assert_warns(DeprecationWarning):
            pass


def test_patch_wraps_the_original_by_default():
    import os.path

    with testing.patch("os.path.join") as mocked:
        assert os.path.join("a", "b") == "a" + os.sep + "b"
    assert mocked.call_count == 1
    with testing.patch("os.path.join", return_value="x"):
        assert os.path.join("a", "b") == "x"
