"""Shared by the chainer-intel64 tests: the oneDNN kernels counted as they work, and
the comparison of a function under use_ideep='always' with chainer-core's NumPy code."""

import collections
import importlib.util

import numpy
import pytest

import chainer

if importlib.util.find_spec("chainer_intel64") is None:
    # chainer-intel64 is not installed (nox -s tests-core, a GPU machine's check): none
    # of these tests can run, and their modules import it.
    collect_ignore_glob = ["test_*.py"]
else:
    from chainer_intel64 import plugin as intel64_plugin


@pytest.fixture
def onednn_calls():
    """A Counter of the calls, per slot, in which a oneDNN kernel did the work (rather
    than declining to NumPy): the plugin's kernels, wrapped and registered over it."""
    calls = collections.Counter()

    def counting(slot, kernel):
        def counted(*args):
            result = kernel(*args)
            calls[slot] += result is not None
            return result

        return counted

    class CountingKernels:
        @chainer.hookimpl
        def chainer_register_intel64_kernels(self, register):
            for slot, kernel in intel64_plugin.KERNELS.items():
                register(slot, counting(slot, kernel))

    registered = CountingKernels()
    chainer.plugins.register(registered, name="tests.onednn_calls", override=True)
    try:
        yield calls
    finally:
        chainer.plugins.unregister(registered)


def forward_and_grads(func, inputs, gy_seed=0, mode="never"):
    """``func(*inputs)`` and the gradients of ``sum(y * gy)`` for every input, under
    ``use_ideep=mode``; ``gy`` is random (fixed by ``gy_seed``)."""
    with chainer.using_config("use_ideep", mode):
        variables = [chainer.Variable(a.copy()) for a in inputs]
        y = func(*variables)
        gy = numpy.random.default_rng(gy_seed).standard_normal(y.shape).astype(y.dtype)
        y.grad = gy
        y.backward()
    return y.array, [v.grad for v in variables]


@pytest.fixture
def matches_numpy(onednn_calls):
    """``matches_numpy(func, inputs, slots)``: see :func:`assert_matches_numpy`."""

    def check(func, inputs, slots, rtol=1e-4, atol=1e-4):
        assert_matches_numpy(func, inputs, onednn_calls, slots, rtol, atol)

    return check


def assert_matches_numpy(func, inputs, calls, slots, rtol=1e-4, atol=1e-4):
    """``func`` under use_ideep='always' gives NumPy's output and gradients (float32
    rounding), and oneDNN computed each of ``slots`` at least once."""
    calls.clear()
    expected, expected_grads = forward_and_grads(func, inputs, mode="never")
    assert not calls, "the NumPy run called oneDNN"
    actual, grads = forward_and_grads(func, inputs, mode="always")
    scale = max(1.0, float(numpy.abs(expected).max()))
    numpy.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol * scale)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    for g, e in zip(grads, expected_grads):
        scale = max(1.0, float(numpy.abs(e).max()))
        numpy.testing.assert_allclose(g, e, rtol=rtol, atol=atol * scale)
        assert g.dtype == e.dtype
    for slot in slots:
        assert calls[slot] > 0, f"oneDNN never computed {slot!r}"
