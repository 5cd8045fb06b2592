import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "x_data": [[0, 1, 0], [[3, 1], [-1, 3]]],
            "ignore_label": [None, -1],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestEmbedID(testing.FunctionTestCase):
    def setUp(self):
        if self.ignore_label is None and -1 in numpy.ravel(self.x_data):
            self.x_data = numpy.abs(numpy.asarray(self.x_data)).tolist()
        self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3} if self.dtype == numpy.float16 else {}
        self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2} if self.dtype == numpy.float16 else {}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        x = numpy.asarray(self.x_data, numpy.int32)
        W = numpy.random.uniform(-1, 1, (4, 3)).astype(self.dtype)
        return x, W

    def forward(self, inputs, device):
        x, W = inputs
        return (F.embed_id(x, W, self.ignore_label),)

    def forward_expected(self, inputs):
        x, W = inputs
        # one-hot(x) @ W, rows of ignored ids all zero.
        one_hot = numpy.zeros(x.shape + (W.shape[0],))
        for index in numpy.ndindex(x.shape):
            if x[index] != self.ignore_label:
                one_hot[index + (x[index],)] = 1
        return ((one_hot @ W.astype(numpy.float64)).astype(self.dtype),)


def test_repeated_ids_accumulate_gradient(cpu_code):
    W = chainer.Variable(numpy.zeros((3, 2), numpy.float32))
    y = F.embed_id(numpy.array([2, 2, 0, 2], numpy.int32), W)
    y.grad = numpy.ones((4, 2), numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(W.grad, [[1, 1], [0, 0], [3, 3]])


@pytest.mark.parametrize("ignore_label", [None, 1, -1])
def test_ignored_ids_get_no_gradient(ignore_label, cpu_code):
    ids = numpy.array([[1, 0 if ignore_label is None else ignore_label], [2, 1]], numpy.int32)
    W = chainer.Variable(numpy.zeros((3, 2), numpy.float32))
    y = F.embed_id(ids, W, ignore_label=ignore_label)
    gy = numpy.arange(8, dtype=numpy.float32).reshape(2, 2, 2)
    y.grad = gy
    y.backward()
    want = numpy.zeros((3, 2), numpy.float32)
    for index in numpy.ndindex(ids.shape):
        if ids[index] != ignore_label:
            want[ids[index]] += gy[index]
    numpy.testing.assert_array_equal(W.grad, want)


def test_rejects_out_of_range_ids():
    W = numpy.zeros((3, 2), numpy.float32)
    with pytest.raises(ValueError, match=r"EmbedIDFunction: every id in x must satisfy 0 <= x < len\(W\) = 3"):
        F.embed_id(numpy.array([0, 3], numpy.int32), W)
    with pytest.raises(ValueError, match=r"other than ignore_label=-1"):
        F.embed_id(numpy.array([-2, 0], numpy.int32), W, ignore_label=-1)


def test_rejects_float_ids():
    with pytest.raises(type_check.InvalidType, match=r"EmbedIDFunction[\s\S]*x.dtype.kind == i"):
        F.embed_id(numpy.array([0.0, 1.0], numpy.float32), numpy.zeros((3, 2), numpy.float32))


def test_rejects_non_matrix_weight():
    with pytest.raises(type_check.InvalidType, match=r"W.ndim == 2"):
        F.embed_id(numpy.array([0, 1], numpy.int32), numpy.zeros((3, 2, 1), numpy.float32))


@pytest.mark.parametrize("n_ids, vocab", [(20, 1000), (700, 50), (40, 3), (1, 1)])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_weight_gradient_adds_rows_of_repeated_ids_in_order(n_ids, vocab, dtype, cpu_code):
    # The gradient of W adds the output gradient rows of each id in the order the ids
    # occur: bit for bit the sum written out below (with many repeats of one id too).
    rng = numpy.random.default_rng(n_ids)
    x = rng.integers(0, vocab, n_ids).astype(numpy.int32)
    W = chainer.Variable(rng.standard_normal((vocab, 6)).astype(dtype))
    gy = rng.standard_normal((n_ids, 6)).astype(dtype)
    gy[rng.random(gy.shape) < 0.1] = -0.0
    y = F.embed_id(x, W)
    y.grad = gy
    y.backward()
    expected = numpy.zeros((vocab, 6), dtype)
    for i, row in enumerate(x):
        expected[row] = expected[row] + gy[i]
    assert W.grad.dtype == dtype
    assert W.grad.tobytes() == expected.tobytes()
    if cpu_code is not None:
        assert cpu_code["embed_id_backward"] == (dtype != numpy.float16)  # float16 is NumPy's
