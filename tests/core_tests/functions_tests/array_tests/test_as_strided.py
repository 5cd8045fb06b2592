import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.functions.array.as_strided import _stride_array

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "case": [
                {"in": (3, 4), "shape": (3, 2), "strides": (1, 1), "offset": None},  # overlapping windows
                {"in": (3, 4), "shape": (2, 2), "strides": (-3, 2), "offset": 6},  # negative stride
                {"in": (3, 4), "shape": (4, 3), "strides": (1, 4), "offset": 0},  # a transpose
                {"in": (2, 3), "shape": (2, 3, 2), "strides": (0, 1, 2), "offset": 1},  # broadcast axis
                {"in": (5,), "shape": (), "strides": (), "offset": 4},
                {"in": (5,), "shape": (0, 2), "strides": (1, 1), "offset": 0},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestAsStrided(testing.FunctionTestCase):
    # The storage of a fresh array is the array itself in C order; the harness's strided
    # copies would have a wider storage, so the inputs stay C-contiguous.
    contiguous = "C"

    def setUp(self):
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case["in"]).astype(self.dtype),)

    def forward(self, inputs, device):
        c = self.case
        return (F.as_strided(inputs[0], c["shape"], c["strides"], c["offset"]),)

    def forward_expected(self, inputs):
        c = self.case
        storage = inputs[0].reshape(-1)
        offset = c["offset"] or 0
        out = numpy.empty(c["shape"], self.dtype)
        for index in numpy.ndindex(*c["shape"]):
            out[index] = storage[offset + sum(i * s for i, s in zip(index, c["strides"]))]
        return (out,)


def test_as_strided_overlapping_elements_accumulate_gradients():
    x = chainer.Variable(numpy.zeros(4, "f"))
    y = F.as_strided(x, (3, 2), (1, 1))
    y.grad = numpy.ones((3, 2), "f")
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [1, 2, 2, 1])


def _storage_reference(base, shape, strides, offset):
    """Element i of the view is base.ravel(memory order)[offset + sum(i_k * strides_k)]."""
    storage = base.ravel(order="K")
    out = numpy.empty(shape, base.dtype)
    for index in numpy.ndindex(*shape):
        out[index] = storage[offset + sum(i * s for i, s in zip(index, strides))]
    return out


def test_as_strided_reads_the_storage_that_x_views():
    # As in Chainer 7 (and NumPy's as_strided): the storage of a view is the memory of the
    # array that owns it, not a C-ordered copy of the view.
    base = numpy.arange(12, dtype="f")
    reversed_view = base.reshape(3, 4)[::-1]
    numpy.testing.assert_array_equal(F.as_strided(reversed_view, (12,), (1,), 0).array, base)
    fortran = numpy.asfortranarray(numpy.arange(6, dtype="f").reshape(2, 3))
    numpy.testing.assert_array_equal(F.as_strided(fortran, (6,), (1,), 0).array, [0, 3, 1, 4, 2, 5])
    transposed = numpy.arange(6, dtype="f").reshape(2, 3).T
    numpy.testing.assert_array_equal(F.as_strided(transposed, (3,), (1,)).array, [0, 1, 2])
    y = F.as_strided(reversed_view, (2, 3), (-4, 1), 9)
    numpy.testing.assert_array_equal(y.array, _storage_reference(base, (2, 3), (-4, 1), 9))


def test_as_strided_default_offset_starts_where_x_starts():
    base = numpy.arange(12, dtype="f")
    x = chainer.Variable(base[2:])
    numpy.testing.assert_array_equal(F.as_strided(x, (3,), (1,)).array, [2, 3, 4])
    y = F.as_strided(x, (3,), (1,), 0)
    numpy.testing.assert_array_equal(y.array, [0, 1, 2])
    # Storage elements 0 and 1 lie before x: they are constants.
    y.grad = numpy.ones(3, "f")
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [1] + [0] * 9)


def test_as_strided_splits_gradients_among_repeated_input_elements():
    # x holds some storage elements twice; the gradient of such an element is shared
    # evenly by the elements of x that hold it.
    base = numpy.arange(8, dtype="f")
    x_array = numpy.lib.stride_tricks.as_strided(base[3:], (3, 3), (-4, 8))  # storage [[3,5,7],[2,4,6],[1,3,5]]
    x = chainer.Variable(x_array)
    y = F.as_strided(x, (3, 3), (1, 2), 0)  # storage [[0,2,4],[1,3,5],[2,4,6]]
    numpy.testing.assert_array_equal(y.array, _storage_reference(base, (3, 3), (1, 2), 0))
    gy = numpy.random.uniform(-1, 1, (3, 3)).astype("f")
    y.grad = gy
    y.backward()
    g_storage = numpy.zeros(8)
    for index in numpy.ndindex(3, 3):
        g_storage[index[0] + 2 * index[1]] += gy[index]
    x_index = numpy.array([[3, 5, 7], [2, 4, 6], [1, 3, 5]])
    counts = numpy.bincount(x_index.ravel(), minlength=8)
    numpy.testing.assert_allclose(x.grad, g_storage[x_index] / counts[x_index], rtol=1e-6)


def test_as_strided_double_backward():
    base = numpy.random.uniform(-1, 1, 12)
    x = base.reshape(3, 4)[::-1, 1:]

    def f(v):
        return F.as_strided(v, (2, 3), (3, 1), 1) ** 2

    gy = numpy.random.uniform(-1, 1, (2, 3))
    ggx = numpy.random.uniform(-1, 1, x.shape)
    # The gradient checker perturbs copies of x, which are storages of their own.
    chainer.gradient_check.check_backward(f, x.copy(), gy)
    chainer.gradient_check.check_double_backward(f, x.copy(), gy, ggx)


def test_as_strided_stride_array_helper():
    base = numpy.arange(8, dtype="f")
    numpy.testing.assert_array_equal(
        _stride_array(base, (3, 3), (-1, 2), 3), _storage_reference(base, (3, 3), (-1, 2), 3)
    )
    numpy.testing.assert_array_equal(_stride_array(base.reshape(2, 4)[::-1], (8,), (1,), 0), base)
    with pytest.raises(ValueError, match=r"reaches storage elements -1 to 5, but the storage has 8 elements"):
        _stride_array(base, (3, 3), (-1, 2), 1)


def test_as_strided_integer_input_has_no_gradient():
    x = chainer.Variable(numpy.arange(4, dtype=numpy.int32))
    y = F.as_strided(x, (4,), (-1,), 3)
    numpy.testing.assert_array_equal(y.array, [3, 2, 1, 0])
    y.grad = numpy.ones(4, numpy.int32)
    with pytest.raises(TypeError, match=r"as_strided: gradients are defined for floating-point inputs only"):
        chainer.grad((y,), (x,))


def test_as_strided_invalid():
    x = numpy.zeros((2, 3), "f")
    with pytest.raises(
        ValueError,
        match=r"as_strided: the view \(shape=\(3,\), strides=\(3,\), storage_offset=0\) "
        r"reaches storage elements 0 to 6, but the storage has 6 elements",
    ):
        F.as_strided(x, (3,), (3,))
    with pytest.raises(ValueError, match=r"reaches storage elements -1 to 1"):
        F.as_strided(x, (3,), (-1,), 1)
    with pytest.raises(ValueError, match="as_strided: shape \\(2,\\) and strides \\(1, 1\\) must have the same length"):
        F.as_strided(x, (2,), (1, 1))
    with pytest.raises(ValueError, match="as_strided: storage_offset must not be negative"):
        F.as_strided(x, (2,), (1,), -1)


def test_as_strided_gradient_maps_are_adjoint_on_a_view():
    # The map from the view's gradient to x's gradient and the one that backpropagates
    # through it are each other's transposes: <G(gy), w> == <gy, G^T(w)>, also when x is a
    # view that holds storage elements twice.
    base = numpy.arange(8, dtype=numpy.float64)
    x = chainer.Variable(numpy.lib.stride_tricks.as_strided(base[3:], (3, 3), (-8, 16)))
    y = F.as_strided(x, (3, 3), (1, 2), 0)
    gy = chainer.Variable(numpy.random.uniform(-1, 1, (3, 3)))
    (gx,) = chainer.grad([y], [x], grad_outputs=[gy], enable_double_backprop=True)
    w = numpy.random.uniform(-1, 1, (3, 3))
    (g_gy,) = chainer.grad([F.sum(gx * w)], [gy])
    numpy.testing.assert_allclose(float((gx.array * w).sum()), float((gy.array * g_gy.array).sum()), rtol=1e-12)
