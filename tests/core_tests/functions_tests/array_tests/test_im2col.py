import itertools

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.functions.array import _im2col
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _outsize(size, k, s, p, d, cover_all):
    extent = (k - 1) * d + 1
    if cover_all:
        return (size + 2 * p - extent + s - 1) // s + 1
    return (size + 2 * p - extent) // s + 1


def _naive_im2col(x, ks, ss, ps, ds, cover_all, pad_value=0):
    """(n, c, *size) -> (n, c, *ks, *outs), one element at a time."""
    nd = x.ndim - 2
    size = x.shape[2:]
    outs = [_outsize(size[i], ks[i], ss[i], ps[i], ds[i], cover_all) for i in range(nd)]
    col = numpy.empty(x.shape[:2] + tuple(ks) + tuple(outs), x.dtype)
    for n, c in numpy.ndindex(*x.shape[:2]):
        for k in itertools.product(*(range(v) for v in ks)):
            for o in itertools.product(*(range(v) for v in outs)):
                pos = [o[i] * ss[i] + k[i] * ds[i] - ps[i] for i in range(nd)]
                inside = all(0 <= pos[i] < size[i] for i in range(nd))
                col[(n, c) + k + o] = x[(n, c) + tuple(pos)] if inside else pad_value
    return col


def _naive_col2im(col, ss, ps, size, ds):
    nd = (col.ndim - 2) // 2
    ks = col.shape[2 : 2 + nd]
    outs = col.shape[2 + nd :]
    img = numpy.zeros(col.shape[:2] + tuple(size), numpy.float64)
    for n, c in numpy.ndindex(*col.shape[:2]):
        for k in itertools.product(*(range(v) for v in ks)):
            for o in itertools.product(*(range(v) for v in outs)):
                pos = [o[i] * ss[i] + k[i] * ds[i] - ps[i] for i in range(nd)]
                if all(0 <= pos[i] < size[i] for i in range(nd)):
                    img[(n, c) + tuple(pos)] += col[(n, c) + k + o]
    return img.astype(col.dtype)


ARRAY_CASES = [
    # 1-D, 2-D and 3-D images; stride, pad, dilation and cover_all mixed.
    {"shape": (2, 3, 7), "ks": (3,), "ss": (2,), "ps": (1,), "ds": (1,), "cover_all": False},
    {"shape": (1, 2, 5, 6), "ks": (2, 3), "ss": (1, 2), "ps": (0, 1), "ds": (1, 1), "cover_all": False},
    {"shape": (1, 2, 5, 6), "ks": (3, 2), "ss": (2, 3), "ps": (1, 0), "ds": (1, 2), "cover_all": True},
    {"shape": (2, 1, 4, 4), "ks": (2, 2), "ss": (3, 3), "ps": (2, 2), "ds": (2, 1), "cover_all": True},
    {"shape": (1, 1, 3, 4, 5), "ks": (2, 2, 3), "ss": (1, 2, 1), "ps": (1, 0, 1), "ds": (1, 1, 2), "cover_all": False},
]


@pytest.mark.parametrize("case", ARRAY_CASES)
def test_im2col_array_matches_naive_loops(case):
    x = numpy.random.uniform(-1, 1, case["shape"]).astype("f")
    args = (case["ks"], case["ss"], case["ps"], case["cover_all"], case["ds"])
    col = _im2col.im2col_array(x, *args, pad_value=-7)
    expected = _naive_im2col(x, case["ks"], case["ss"], case["ps"], case["ds"], case["cover_all"], pad_value=-7)
    assert col.shape == expected.shape
    numpy.testing.assert_array_equal(col, expected)


@pytest.mark.parametrize("case", ARRAY_CASES)
def test_col2im_array_matches_naive_loops_and_is_the_adjoint(case):
    x = numpy.random.uniform(-1, 1, case["shape"])
    args = (case["ks"], case["ss"], case["ps"], case["cover_all"], case["ds"])
    col_shape = _im2col.im2col_array(x, *args).shape
    col = numpy.random.uniform(-1, 1, col_shape)
    img = _im2col.col2im_array(col, case["ss"], case["ps"], case["shape"][2:], case["ds"])
    numpy.testing.assert_allclose(
        img, _naive_col2im(col, case["ss"], case["ps"], case["shape"][2:], case["ds"]), rtol=1e-12
    )
    # <im2col(x), col> == <x, col2im(col)>
    lhs = (_im2col.im2col_array(x, *args) * col).sum()
    numpy.testing.assert_allclose(lhs, (x * img).sum(), rtol=1e-12)


def test_im2col_array_is_a_read_only_view_without_padding():
    x = numpy.arange(16, dtype="f").reshape(1, 1, 4, 4)
    col = _im2col.im2col_array(x, 2, 2, 0)
    assert numpy.shares_memory(col, x)
    assert not col.flags.writeable


def test_im2col_array_scalar_arguments_and_errors():
    x = numpy.zeros((1, 1, 4, 4), "f")
    assert _im2col.im2col_array(x, 3).shape == (1, 1, 3, 3, 2, 2)
    with pytest.raises(ValueError, match=r"im2col_array: the output size \(0, 0\) is not positive"):
        _im2col.im2col_array(x, 5)
    with pytest.raises(ValueError, match="im2col_array: ksize must be an int or a sequence of 2 ints"):
        _im2col.im2col_array(x, (2, 2, 2))
    with pytest.raises(ValueError, match="im2col_array: stride must be positive"):
        _im2col.im2col_array(x, 2, 0)
    with pytest.raises(ValueError, match="im2col_array: x must have shape"):
        _im2col.im2col_array(numpy.zeros((1, 1), "f"), 2)
    with pytest.raises(ValueError, match="col2im_array: col must have shape"):
        _im2col.col2im_array(numpy.zeros((1, 1, 2), "f"), 1, 0, (2,))


@testing.parameterize(
    *testing.product(
        {
            "case": [
                {"shape": (2, 2, 4, 5), "ksize": 2, "stride": 1, "pad": 0, "cover_all": False, "dilate": 1},
                {
                    "shape": (1, 3, 5, 4),
                    "ksize": (3, 2),
                    "stride": (2, 1),
                    "pad": (1, 0),
                    "cover_all": True,
                    "dilate": 1,
                },
                {"shape": (1, 2, 5, 5), "ksize": 2, "stride": 2, "pad": 1, "cover_all": False, "dilate": (2, 1)},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestIm2Col(testing.FunctionTestCase):
    def setUp(self):
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case["shape"]).astype(self.dtype),)

    def forward(self, inputs, device):
        c = self.case
        return (F.im2col(inputs[0], c["ksize"], c["stride"], c["pad"], c["cover_all"], c["dilate"]),)

    def forward_expected(self, inputs):
        c = self.case

        def pair(v):
            return tuple(v) if isinstance(v, tuple) else (v, v)

        col = _naive_im2col(
            inputs[0], pair(c["ksize"]), pair(c["stride"]), pair(c["pad"]), pair(c["dilate"]), c["cover_all"]
        )
        n, ch, kh, kw, oh, ow = col.shape
        # Channel (c * kh + i) * kw + j holds kernel element (i, j) of input channel c.
        out = numpy.empty((n, ch * kh * kw, oh, ow), self.dtype)
        for k, i, j in numpy.ndindex(ch, kh, kw):
            out[:, (k * kh + i) * kw + j] = col[:, k, i, j]
        return (out,)


def test_im2col_documented_shape_and_channel_order():
    x = numpy.arange(9, dtype="f").reshape(1, 1, 3, 3)
    y = F.im2col(x, 2)
    assert y.shape == (1, 4, 2, 2)
    numpy.testing.assert_array_equal(y.array[0, :, 1, 0], [3, 4, 6, 7])


def test_im2col_gradient_counts_window_overlaps():
    x = chainer.Variable(numpy.zeros((1, 1, 3, 3), "f"))
    y = F.im2col(x, 2)
    y.grad = numpy.ones(y.shape, "f")
    y.backward()
    numpy.testing.assert_array_equal(x.grad[0, 0], [[1, 2, 1], [2, 4, 2], [1, 2, 1]])


def test_im2col_invalid():
    with pytest.raises(type_check.InvalidType, match=r"Im2Col \(Forward\)[\s\S]*x.ndim == 4"):
        F.im2col(numpy.zeros((1, 3, 3), "f"), 2)
    with pytest.raises(type_check.InvalidType, match=r"Im2Col \(Forward\)[\s\S]*x.dtype.kind == f"):
        F.im2col(numpy.zeros((1, 1, 3, 3), "i"), 2)
    with pytest.raises(type_check.InvalidType, match=r"Im2Col \(Forward\)[\s\S]*output height and width are positive"):
        F.im2col(numpy.zeros((1, 1, 3, 3), "f"), 4)
    with pytest.raises(ValueError, match="im2col: stride must be positive"):
        F.im2col(numpy.zeros((1, 1, 3, 3), "f"), 2, stride=0)
    with pytest.raises(ValueError, match="im2col: ksize must be an int or a pair of ints"):
        F.im2col(numpy.zeros((1, 1, 3, 3), "f"), (2, 2, 2))


def test_gradient_node_is_chainer_7s_im2col_grad():
    import chainer
    from chainer.functions.array import im2col as module

    x = chainer.Variable(numpy.random.uniform(-1, 1, (1, 2, 4, 4)))
    y = F.im2col(x, 3, pad=1)
    (gx,) = chainer.grad([y], [x], grad_outputs=[chainer.Variable(numpy.ones(y.shape))], enable_double_backprop=True)
    assert isinstance(gx.creator, module.Im2ColGrad)
    # Every pixel is read once per kernel position that covers it: 9 in the middle.
    assert gx.array[0, 0, 1, 1] == 9.0 and gx.array[0, 0, 0, 0] == 4.0
