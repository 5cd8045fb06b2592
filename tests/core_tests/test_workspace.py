import threading

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import _workspace


@pytest.fixture(autouse=True)
def _fresh_thread_buffers():
    _workspace.release()
    yield
    _workspace.release()


def test_scratch_hands_out_the_same_memory_for_a_role():
    a = _workspace.scratch("test.a", (3, 4), numpy.float32)
    assert a.shape == (3, 4) and a.dtype == numpy.float32 and a.flags.c_contiguous
    b = _workspace.scratch("test.a", (2, 3), numpy.float64)
    assert numpy.shares_memory(a, b)
    assert not numpy.shares_memory(a, _workspace.scratch("test.b", (3, 4), numpy.float32))


def test_scratch_grows_and_zero_fills_on_request():
    a = _workspace.scratch("test.a", (4,), numpy.float32)
    a[...] = 7
    b = _workspace.scratch("test.a", (1000,), numpy.float32, zero=True)
    assert b.shape == (1000,)
    numpy.testing.assert_array_equal(b, numpy.zeros(1000, numpy.float32))
    assert _workspace.held_bytes() == 4000


def test_scratch_is_per_thread_and_release_drops_it():
    mine = _workspace.scratch("test.a", (8,), numpy.float32)
    theirs = []
    thread = threading.Thread(target=lambda: theirs.append(_workspace.scratch("test.a", (8,), numpy.float32)))
    thread.start()
    thread.join()
    assert not numpy.shares_memory(mine, theirs[0])
    _workspace.release()
    assert _workspace.held_bytes() == 0
    assert not numpy.shares_memory(mine, _workspace.scratch("test.a", (8,), numpy.float32))


def test_scratch_keeps_at_most_max_bytes_per_thread(monkeypatch):
    monkeypatch.setattr(_workspace, "MAX_BYTES", 64)
    big = _workspace.scratch("test.a", (17,), numpy.float32, zero=True)
    numpy.testing.assert_array_equal(big, numpy.zeros(17, numpy.float32))
    assert _workspace.held_bytes() == 0
    _workspace.scratch("test.a", (10,), numpy.float32)
    assert _workspace.held_bytes() == 40
    # a second role would bring the total over the limit: a fresh array, not kept
    other = _workspace.scratch("test.b", (7,), numpy.float32)
    assert other.shape == (7,) and _workspace.held_bytes() == 40
    # the first role may still grow within the limit
    _workspace.scratch("test.a", (16,), numpy.float32)
    assert _workspace.held_bytes() == 64


@pytest.mark.parametrize("shape, groups", [((2, 4, 9, 8), 1), ((2, 4, 9, 8), 2), ((2, 3, 6, 5), 1)])
def test_convolution_results_do_not_share_the_scratch_buffers(shape, groups):
    # Two calls in a row: the first call's output and gradients must not change when the
    # second call reuses the scratch buffers (they would, were any result a view of one).
    rng = numpy.random.RandomState(0)
    results = []
    for _ in range(2):
        x = chainer.Variable(rng.randn(*shape).astype(numpy.float32))
        W = chainer.Variable(rng.randn(4, shape[1] // groups, 3, 3).astype(numpy.float32))
        y = F.convolution_2d(x, W, pad=1, groups=groups)
        y.grad = rng.randn(*y.shape).astype(numpy.float32)
        y.backward()
        results.append((y.array.copy(), y.array, x.grad.copy(), x.grad, W.grad.copy(), W.grad))
    first = results[0]
    for snapshot, live in zip(first[::2], first[1::2]):
        numpy.testing.assert_array_equal(snapshot, live)
    held = list(_workspace._buffers().values())
    assert held, "the convolution took no scratch buffer: this test checks nothing"
    for array in first[1::2] + results[1][1::2]:
        assert not any(numpy.shares_memory(array, buffer) for buffer in held)
