import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


@testing.parameterize(
    *testing.product(
        {"dtype": [numpy.float16, numpy.float32, numpy.float64], "shape": [(), (3, 4)], "ratio": [0.0, 0.25, 0.5]}
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestDropoutWithMask(testing.FunctionTestCase):
    def setUp(self):
        self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3} if self.dtype == numpy.float16 else {}
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options
        keep = numpy.random.uniform(size=self.shape) >= self.ratio
        self.mask = keep / (1 - self.ratio)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        x = inputs[0]
        mask = device.send(numpy.asarray(self.mask, x.dtype))
        return (F.dropout(x, self.ratio, mask=mask),)

    def forward_expected(self, inputs):
        x = inputs[0].astype(numpy.float64)
        return (numpy.asarray(x * self.mask, self.dtype),)


@testing.fix_random()
@pytest.mark.parametrize("ratio", [0.1, 0.5, 0.8])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_dropout_statistics(ratio, dtype):
    x = numpy.ones((200, 250), dtype)
    y, mask = F.dropout(x, ratio, return_mask=True)
    assert y.dtype == dtype and mask.dtype == dtype and mask.shape == x.shape
    scale = dtype(1 / (1 - ratio))
    kept = y.array != 0
    # Kept elements are scaled by 1 / (1 - ratio); the fraction dropped is ratio (5 sigma).
    numpy.testing.assert_array_equal(y.array[kept], numpy.full(kept.sum(), scale))
    n = x.size
    assert abs((~kept).mean() - ratio) < 5 * numpy.sqrt(ratio * (1 - ratio) / n)
    # The expectation of the output is the input.
    assert abs(float(y.array.astype(numpy.float64).mean()) - 1.0) < 0.05
    numpy.testing.assert_array_equal(y.array, x * mask)


def test_dropout_draws_a_new_mask_each_call():
    x = numpy.ones((10, 10), numpy.float32)
    _, m1 = F.dropout(x, return_mask=True)
    _, m2 = F.dropout(x, return_mask=True)
    assert not numpy.array_equal(m1, m2)


def test_dropout_is_identity_at_test_time():
    x = chainer.Variable(numpy.random.uniform(-1, 1, (3, 4)).astype(numpy.float32))
    with chainer.using_config("train", False):
        y, mask = F.dropout(x, 0.9, return_mask=True)
        y2 = F.dropout(x.array, 0.9)
    assert y is x
    assert mask is None
    numpy.testing.assert_array_equal(y2.array, x.array)


def test_dropout_mask_reuse_and_gradient():
    x = chainer.Variable(numpy.random.uniform(-1, 1, (4, 5)))
    y, mask = F.dropout(x, 0.5, return_mask=True)
    y2 = F.dropout(x, 0.5, mask=mask)
    numpy.testing.assert_array_equal(y.array, y2.array)
    F.sum(y).backward()
    numpy.testing.assert_array_equal(x.grad, mask)


def test_dropout_mask_of_a_scalar_is_an_array():
    _, mask = F.dropout(numpy.array(1.0, numpy.float32), return_mask=True)
    assert isinstance(mask, numpy.ndarray) and mask.shape == () and mask.dtype == numpy.float32


def test_dropout_ratio_zero_keeps_everything():
    x = numpy.random.uniform(-1, 1, (3, 4)).astype(numpy.float32)
    numpy.testing.assert_array_equal(F.dropout(x, 0.0).array, x)


@pytest.mark.parametrize("ratio", [-0.1, 1.0, 1.5, "0.5", True])
def test_dropout_invalid_ratio(ratio):
    with pytest.raises(ValueError, match=r"dropout: ratio must be a real number in \[0, 1\)"):
        F.dropout(numpy.zeros(3, numpy.float32), ratio)
    with chainer.using_config("train", False), pytest.raises(ValueError, match=r"dropout: ratio"):
        F.dropout(numpy.zeros(3, numpy.float32), ratio)


def test_dropout_invalid_inputs():
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"Dropout \(Forward\)[\s\S]*x.dtype.kind == f"):
        F.dropout(numpy.zeros(3, numpy.int32))
    with pytest.raises(type_check.InvalidType, match=r"x.shape == mask.shape"):
        F.dropout(x, mask=numpy.ones((3, 2), numpy.float32))
    with pytest.raises(ValueError, match=r"train argument is not supported anymore"):
        F.dropout(x, train=True)
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) 'seed'"):
        F.dropout(x, seed=0)


def test_dropout_node_reused_across_dtypes_keeps_its_mask():
    # One Dropout node applied to float16 and then float64 inputs (as gradient checks in
    # float64 do) reuses the mask drawn first; the output takes each input's dtype.
    numpy.random.seed(0)
    x16 = numpy.random.uniform(-1, 1, (3, 4)).astype(numpy.float16)
    node = chainer.functions.noise.dropout.Dropout(0.5)
    (y16,) = node.apply((x16,))
    mask = node.mask
    (y64,) = node.apply((x16.astype(numpy.float64),))
    assert y16.dtype == numpy.float16 and y64.dtype == numpy.float64
    expected = x16.astype(numpy.float64) * numpy.where(mask != 0, 2.0, 0.0)
    numpy.testing.assert_allclose(y64.array, expected, rtol=1e-3)


def test_dropout_mask_of_another_float_dtype():
    x = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    mask = numpy.array([[0, 2, 2], [2, 0, 2]], numpy.float64)
    y = F.dropout(x, mask=mask)
    assert y.dtype == numpy.float32
    numpy.testing.assert_array_equal(y.array, [[0, 2, 4], [6, 0, 10]])


def test_dropout_gradient_nodes_scale_by_the_mask():
    from chainer.functions.noise import dropout

    mask = numpy.array([[0.0, 2.0], [2.0, 0.0]], numpy.float32)
    gy = numpy.array([[1.0, 2.0], [3.0, 4.0]], numpy.float32)
    for cls in (dropout.DropoutGrad, dropout.DropoutGradCuDNN):
        numpy.testing.assert_array_equal(cls(mask).apply((gy,))[0].array, [[0.0, 4.0], [6.0, 0.0]])
