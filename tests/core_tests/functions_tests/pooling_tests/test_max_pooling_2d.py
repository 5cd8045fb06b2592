import contextlib
import itertools

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

# Slots the compiled runs (the cpu_code fixture of tests/conftest.py) must call.
CPU_KERNEL_SLOTS = ("max_pooling_2d_forward",)

BACKENDS = [{}, {"use_cuda": True}]


def outsize(size, k, s, p, cover_all):
    return (size + 2 * p - k + (s - 1 if cover_all else 0)) // s + 1


def naive_max_pooling(x, ksize, stride, pad, cover_all):
    """Max over each window by loops over output positions; also the flat argmax."""
    nd = x.ndim - 2
    out = [outsize(n, k, s, p, cover_all) for n, k, s, p in zip(x.shape[2:], ksize, stride, pad)]
    padded = numpy.pad(
        x.astype(numpy.float64),
        [(0, 0), (0, 0)] + [(p, p + s) for p, s in zip(pad, stride)],
        constant_values=-numpy.inf,
    )
    y = numpy.empty(x.shape[:2] + tuple(out))
    idx = numpy.empty(x.shape[:2] + tuple(out), numpy.int64)
    for pos in itertools.product(*(range(m) for m in out)):
        window = tuple(slice(i * s, i * s + k) for i, s, k in zip(pos, stride, ksize))
        patch = padded[(slice(None), slice(None)) + window].reshape(x.shape[:2] + (-1,))
        y[(slice(None), slice(None)) + pos] = patch.max(axis=-1)
        idx[(slice(None), slice(None)) + pos] = patch.argmax(axis=-1)
    assert nd == len(out)
    return y, idx


def distinct_values(shape, dtype):
    # Well separated values: max pooling is not differentiable at ties.
    values = numpy.random.permutation(int(numpy.prod(shape))).reshape(shape)
    return (values * 0.25 - values.size * 0.1).astype(dtype)


def pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


CASES = [
    # x shape, ksize, stride, pad, cover_all
    ((2, 3, 4, 4), 2, None, 0, True),
    ((1, 2, 5, 4), 3, 2, 1, True),
    ((1, 2, 5, 4), 3, 2, 1, False),
    ((2, 1, 5, 6), (2, 3), (1, 2), (1, 0), False),
]


class _MaxPooling2DChecks(testing.FunctionTestCase):
    __test__ = False  # the parameterized subclasses below are the tests

    def setUp(self):
        self.shape, self.ksize, self.stride, self.pad, self.cover_all = self.case
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (distinct_values(self.shape, self.dtype),)

    def forward(self, inputs, device):
        return (F.max_pooling_2d(inputs[0], self.ksize, self.stride, self.pad, self.cover_all),)

    def forward_expected(self, inputs):
        stride = self.ksize if self.stride is None else self.stride
        y, _ = naive_max_pooling(inputs[0], pair(self.ksize), pair(stride), pair(self.pad), self.cover_all)
        return (y.astype(self.dtype),)


@testing.parameterize(*testing.product({"dtype": [numpy.float16, numpy.float32, numpy.float64], "case": CASES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestMaxPooling2D(_MaxPooling2DChecks):
    __test__ = True  # the base class opts out; its tests run here


@testing.parameterize(*testing.product({"dtype": [numpy.float32, numpy.float64], "case": CASES}))
@testing.inject_backend_tests(None, [{}])
class TestMaxPooling2DCompiled(_MaxPooling2DChecks):
    """The same checks on the CPU with the compiled kernels of chainer-cpu-kernels."""

    __test__ = True

    @pytest.fixture(autouse=True)
    def _compiled(self, request, compiled_cpu_kernels):
        yield
        assert compiled_cpu_kernels["max_pooling_2d_forward"] > 0
        if not request.node.name.startswith("test_forward"):
            assert compiled_cpu_kernels["max_pooling_2d_backward"] > 0


@pytest.mark.parametrize("cover_all", [True, False])
def test_return_indices_are_window_argmax(cover_all, cpu_code):
    x = distinct_values((2, 3, 5, 7), numpy.float32)
    y, indexes = F.max_pooling_2d(x, (2, 3), (2, 2), 1, cover_all=cover_all, return_indices=True)
    expected_y, expected_idx = naive_max_pooling(x, (2, 3), (2, 2), (1, 1), cover_all)
    numpy.testing.assert_array_equal(y.array, expected_y)
    numpy.testing.assert_array_equal(indexes, expected_idx)
    assert indexes.dtype == numpy.int32


def test_gradient_goes_to_the_maximum_only(cpu_code):
    x = chainer.Variable(numpy.array([[[[1.0, 4.0], [3.0, 2.0]]]], numpy.float32))
    y = F.max_pooling_2d(x, 2)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[[[0.0, 1.0], [0.0, 0.0]]]])


def test_overlapping_windows_add_gradients(cpu_code):
    x = chainer.Variable(numpy.array([[[[0.0, 9.0, 0.0, 1.0]]]], numpy.float32))
    y = F.max_pooling_2d(x, (1, 2), (1, 1), cover_all=False)  # windows overlap at 9
    F.sum(y).backward()
    numpy.testing.assert_array_equal(x.grad, [[[[0.0, 2.0, 0.0, 1.0]]]])


@contextlib.contextmanager
def _numpy_only():
    """Takes the kernels of the ``compiled_cpu_kernels`` fixture out for a while."""
    plugin = chainer.plugins.unregister(name="tests.compiled_cpu_kernels")
    try:
        yield
    finally:
        chainer.plugins.register(plugin, name="tests.compiled_cpu_kernels")


@pytest.mark.parametrize("compiled_half", ["forward", "backward"])
def test_compiled_and_numpy_halves_are_interchangeable(compiled_half, compiled_cpu_kernels):
    # The kernels keep chainer-core's index encoding: a forward on one code and a backward
    # on the other give the gradient of the window loops.
    x = distinct_values((2, 3, 7, 6), numpy.float32)
    _, idx = naive_max_pooling(x, (3, 2), (2, 1), (1, 1), True)
    gy = numpy.random.standard_normal(idx.shape).astype(numpy.float32)
    expected = numpy.zeros(x.shape)
    for n, c, oy, ox in itertools.product(*(range(m) for m in idx.shape)):
        dy, dx = divmod(int(idx[n, c, oy, ox]), 2)
        expected[n, c, oy * 2 - 1 + dy, ox - 1 + dx] += gy[n, c, oy, ox]
    xv = chainer.Variable(x)
    with contextlib.nullcontext() if compiled_half == "forward" else _numpy_only():
        y = F.max_pooling_2d(xv, (3, 2), (2, 1), 1)
    with _numpy_only() if compiled_half == "forward" else contextlib.nullcontext():
        y.grad = gy
        y.backward()
    numpy.testing.assert_allclose(xv.grad, expected, rtol=1e-6, atol=1e-6)
    assert compiled_cpu_kernels["max_pooling_2d_forward"] == (compiled_half == "forward")
    assert compiled_cpu_kernels["max_pooling_2d_backward"] == (compiled_half == "backward")


def test_rejects_wrong_ndim():
    with pytest.raises(type_check.InvalidType, match=r"MaxPooling2D[\s\S]*x.ndim == 4"):
        F.max_pooling_2d(numpy.ones((1, 2, 3), numpy.float32), 2)


def test_rejects_bad_ksize():
    with pytest.raises(ValueError, match=r"max_pooling_2d: ksize must be positive"):
        F.max_pooling_2d(numpy.ones((1, 1, 3, 3), numpy.float32), 0)


def test_rejects_window_larger_than_input():
    with pytest.raises(ValueError, match=r"MaxPooling2D: the output would have size"):
        F.max_pooling_2d(numpy.ones((1, 1, 2, 2), numpy.float32), 3, cover_all=False)


def test_function_node_exposes_chainer_geometry_attributes():
    y = F.max_pooling_2d(chainer.Variable(numpy.ones((1, 1, 5, 5), numpy.float32)), (3, 2), (2, 1), (1, 0))
    node = y.creator
    assert type(node).__name__ == "MaxPooling2D"
    assert (node.kh, node.kw, node.sy, node.sx, node.ph, node.pw, node.cover_all) == (3, 2, 2, 1, 1, 0, True)
