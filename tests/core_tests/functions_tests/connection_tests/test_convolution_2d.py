import numpy
import pytest
from _conv_testlib import (
    BACKENDS,
    BACKWARD_TOL,
    FORWARD_TOL,
    input_gradient_flips,
    naive_convolution,
    split_inputs,
    uniform_inputs,
    use_tolerances,
)

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

CASES = [
    {"x": (2, 4, 5, 4), "W": (3, 4, 3, 2), "stride": 1, "pad": 0, "dilate": 1, "groups": 1},
    {"x": (2, 4, 5, 4), "W": (3, 4, 3, 3), "stride": 1, "pad": 1, "dilate": 1, "groups": 1},
    {"x": (1, 4, 6, 5), "W": (2, 4, 2, 3), "stride": (2, 1), "pad": (1, 0), "dilate": 1, "groups": 1},
    {"x": (2, 4, 6, 6), "W": (4, 2, 3, 3), "stride": 2, "pad": 1, "dilate": 1, "groups": 2},
    {"x": (1, 3, 7, 6), "W": (2, 3, 2, 2), "stride": 1, "pad": (0, 1), "dilate": (2, 3), "groups": 1},
    {"x": (2, 6, 4, 4), "W": (6, 1, 2, 2), "stride": 1, "pad": 0, "dilate": 1, "groups": 6},
    # rows of 10: the input gradient takes the row-merged scatter
    {"x": (1, 2, 3, 10), "W": (2, 2, 3, 3), "stride": 1, "pad": 1, "dilate": 1, "groups": 1},
]


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "case": CASES,
            "cover_all": [False, True],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestConvolution2D(testing.FunctionTestCase):
    def setUp(self):
        case = self.case
        self.stride, self.pad, self.dilate = case["stride"], case["pad"], case["dilate"]
        self.groups = case["groups"]
        use_tolerances(self)

    @property
    def nobias(self):
        # Half of the configurations run without bias.
        return self.cover_all

    def generate_inputs(self):
        w_shape = self.case["W"]
        return uniform_inputs(self.dtype, self.case["x"], w_shape, None if self.nobias else w_shape[0])

    def forward(self, inputs, device):
        x, W, b = split_inputs(inputs)
        y = F.convolution_2d(x, W, b, self.stride, self.pad, self.cover_all, dilate=self.dilate, groups=self.groups)
        return (y,)

    def forward_expected(self, inputs):
        y = naive_convolution(*split_inputs(inputs), self.stride, self.pad, self.dilate, self.groups, self.cover_all)
        return (y.astype(self.dtype),)


@pytest.mark.parametrize("cover_all", [False, True])
@pytest.mark.parametrize("case", CASES)
def test_convolution_2d_with_compiled_kernels_matches_naive_loops(compiled_cpu_kernels, case, cover_all):
    # The cases above through chainer-cpu-kernels' im2col and col2im: the forward in
    # float16 (computed in float32), float32 and float64 against the naive loops, and the
    # float64 gradients of first and second order numerically.
    stride, pad, dilate, groups = case["stride"], case["pad"], case["dilate"], case["groups"]

    def conv(x, W, b):
        return F.convolution_2d(x, W, b, stride, pad, cover_all, dilate=dilate, groups=groups)

    rng = numpy.random.RandomState(4)
    x, W, b = (rng.uniform(-1, 1, shape) for shape in (case["x"], case["W"], case["W"][0]))
    expected = naive_convolution(x, W, b, stride, pad, dilate, groups, cover_all)
    for dtype in (numpy.float16, numpy.float32, numpy.float64):
        y = conv(x.astype(dtype), W.astype(dtype), b.astype(dtype)).array
        assert y.dtype == dtype
        numpy.testing.assert_allclose(y, expected, **FORWARD_TOL[dtype])
    gy = rng.uniform(-1, 1, expected.shape)
    grad_grads = tuple(rng.uniform(-1, 1, a.shape) for a in (x, W, b))
    chainer.gradient_check.check_backward(conv, (x, W, b), gy, **BACKWARD_TOL[numpy.float64])
    chainer.gradient_check.check_double_backward(conv, (x, W, b), gy, grad_grads, **BACKWARD_TOL[numpy.float64])
    assert compiled_cpu_kernels["im2col"] > 0
    if not input_gradient_flips(case["x"], case["W"], stride, pad, dilate):
        assert compiled_cpu_kernels["col2im"] > 0


def test_cover_all_adds_an_output_row():
    x = numpy.ones((1, 1, 5, 5), numpy.float32)
    W = numpy.ones((1, 1, 2, 2), numpy.float32)
    assert F.convolution_2d(x, W, stride=2).shape == (1, 1, 2, 2)
    y = F.convolution_2d(x, W, stride=2, cover_all=True)
    assert y.shape == (1, 1, 3, 3)
    # The last window sees one real row/column and padding.
    numpy.testing.assert_array_equal(y.array[0, 0, 2], [2.0, 2.0, 1.0])


def test_known_values():
    x = numpy.arange(16, dtype=numpy.float32).reshape(1, 1, 4, 4)
    y = F.convolution_2d(x, numpy.ones((1, 1, 3, 3), numpy.float32))
    numpy.testing.assert_array_equal(y.array, [[[[45.0, 54.0], [81.0, 90.0]]]])


def test_mixed_precision_keeps_input_dtype():
    x = numpy.ones((1, 2, 3, 3), numpy.float16)
    W = numpy.ones((1, 2, 3, 3), numpy.float32)
    y = F.convolution_2d(x, W)
    assert y.dtype == numpy.float16
    assert y.array[0, 0, 0, 0] == 18


def test_rejects_wrong_ndim():
    with pytest.raises(type_check.InvalidType, match=r"Convolution2DFunction[\s\S]*x.ndim == 4"):
        F.convolution_2d(numpy.ones((2, 3, 4), numpy.float32), numpy.ones((1, 3, 2, 2), numpy.float32))


def test_rejects_channel_mismatch():
    with pytest.raises(type_check.InvalidType, match=r"x.shape\[1\] == W.shape\[1\]"):
        F.convolution_2d(numpy.ones((1, 3, 4, 4), numpy.float32), numpy.ones((2, 2, 2, 2), numpy.float32))


def test_rejects_groups_not_dividing_output_channels():
    x = numpy.ones((1, 4, 4, 4), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"W.shape\[0\] % groups == 0"):
        F.convolution_2d(x, numpy.ones((3, 2, 2, 2), numpy.float32), groups=2)


def test_rejects_groups_not_dividing_input_channels():
    x = numpy.ones((1, 3, 4, 4), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"x.shape\[1\] == W.shape\[1\] \* groups"):
        F.convolution_2d(x, numpy.ones((2, 1, 2, 2), numpy.float32), groups=2)


def test_rejects_bad_bias():
    x = numpy.ones((1, 3, 4, 4), numpy.float32)
    W = numpy.ones((2, 3, 2, 2), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"b.shape\[0\] == W.shape\[0\]"):
        F.convolution_2d(x, W, numpy.ones(3, numpy.float32))


def test_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"x.dtype.kind == f"):
        F.convolution_2d(numpy.ones((1, 1, 3, 3), numpy.int32), numpy.ones((1, 1, 2, 2), numpy.float32))


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"stride": 0}, ValueError, "stride must be positive"),
        ({"pad": -1}, ValueError, "pad must be >= 0"),
        ({"stride": (1, 2, 3)}, ValueError, "stride must be an int or a sequence of 2 ints"),
        ({"stride": 1.5}, TypeError, "stride must be an int"),
        ({"groups": 0}, ValueError, "groups must be a positive int"),
        ({"dilate": 0}, ValueError, "dilate must be positive"),
    ],
)
def test_rejects_bad_arguments(kwargs, error, message):
    x = numpy.ones((1, 2, 4, 4), numpy.float32)
    W = numpy.ones((2, 2, 2, 2), numpy.float32)
    with pytest.raises(error, match=message):
        F.convolution_2d(x, W, **kwargs)


def test_rejects_kernel_larger_than_input():
    with pytest.raises(ValueError, match="Convolution2DFunction: the output would have size"):
        F.convolution_2d(numpy.ones((1, 1, 2, 2), numpy.float32), numpy.ones((1, 1, 3, 3), numpy.float32))


@pytest.mark.parametrize(
    "function, kwargs",
    [
        (F.convolution_2d, {"stride": 2, "pad": 2**63 - 1, "dilate": 2**63 - 1}),
        (F.convolution_2d, {"pad": 2**62, "dilate": 2**62}),
        (F.convolution_2d, {"pad": (0, 2**61)}),
        (F.deconvolution_2d, {"stride": 2, "pad": 2**63 - 1, "dilate": 2**63 - 1}),
        (F.deconvolution_2d, {"stride": (1, 2**62)}),
    ],
)
def test_a_padded_image_past_any_array_is_one_clear_error(cpu_code, function, kwargs):
    """The NumPy code would have to allocate the padded image (2**63 bytes or more), and
    the compiled kernels' index arithmetic would overflow: both say so, the same way."""
    x = numpy.ones((1, 1, 3, 3), numpy.float32)
    W = numpy.ones((1, 1, 3, 3), numpy.float32)
    with pytest.raises(
        ValueError, match=r"Function: the windows reach over a padded image of shape \(1, 1, \d+, \d+\)"
    ):
        function(x, W, **kwargs)


def test_a_stride_or_dilation_never_taken_may_be_huge(cpu_code):
    """With one window per axis the stride is never taken, nor the dilation of a one-tap
    kernel: any value works (NumPy's strides once overflowed on them)."""
    x = chainer.Variable(numpy.arange(9, dtype=numpy.float32).reshape(1, 1, 3, 3))
    W = numpy.ones((1, 1, 2, 2), numpy.float32)
    y = F.convolution_2d(x, W, stride=2**63 - 1, pad=1)
    # The window at (-1, -1) sees x[0, 0] alone.
    numpy.testing.assert_array_equal(y.array, [[[[0.0]]]])
    F.sum(y).backward()
    numpy.testing.assert_array_equal(x.grad, [[[[1, 0, 0], [0, 0, 0], [0, 0, 0]]]])
    y = F.convolution_2d(x, W[:, :, :1, :1], dilate=(2**63 - 1, 1))
    numpy.testing.assert_array_equal(y.array, x.array)


def test_deterministic_argument_is_refused():
    x = numpy.ones((1, 1, 3, 3), numpy.float32)
    with pytest.raises(ValueError, match="deterministic argument is not supported anymore"):
        F.convolution_2d(x, numpy.ones((1, 1, 2, 2), numpy.float32), deterministic=True)
    with pytest.raises(TypeError, match="unexpected keyword"):
        F.convolution_2d(x, numpy.ones((1, 1, 2, 2), numpy.float32), dilation=2)


def test_weight_gradient_node_is_differentiable_twice():
    # d/dx of sum(gW * R) where gW is the kernel gradient: exercises ConvolutionNDGradW.backward.
    rng = numpy.random.RandomState(0)
    x = chainer.Variable(rng.randn(1, 2, 4, 4))
    W = chainer.Variable(rng.randn(3, 2, 2, 2))
    y = F.convolution_2d(x, W, stride=2)
    (gW,) = chainer.grad([F.sum(y * y)], [W], enable_double_backprop=True)
    (gx,) = chainer.grad([F.sum(gW * gW)], [x])
    assert gx.shape == x.shape
    assert numpy.isfinite(gx.array).all() and abs(gx.array).sum() > 0


def test_function_node_exposes_chainer_geometry_attributes():
    x = numpy.ones((1, 2, 6, 6), numpy.float32)
    y = F.convolution_2d(
        x, chainer.Variable(numpy.ones((2, 2, 3, 3), numpy.float32)), stride=(2, 1), pad=(1, 0), dilate=(1, 2)
    )
    node = y.creator
    assert type(node).__name__ == "Convolution2DFunction"
    assert (node.sy, node.sx, node.ph, node.pw, node.dy, node.dx, node.groups) == (2, 1, 1, 0, 1, 2, 1)
    assert node.cover_all is False


@pytest.mark.parametrize("channels", [3, 64])  # the small- and large-kernel weight-gradient paths
def test_convolution_2d_of_an_empty_batch_has_empty_outputs_and_zero_weight_gradient(channels):
    x = chainer.Variable(numpy.zeros((0, channels, 5, 5), numpy.float32))
    W = chainer.Variable(numpy.ones((8, channels, 3, 3), numpy.float32))
    b = chainer.Variable(numpy.ones(8, numpy.float32))
    y = F.convolution_2d(x, W, b, pad=1)
    assert y.shape == (0, 8, 5, 5)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.shape == x.shape
    numpy.testing.assert_array_equal(W.grad, numpy.zeros_like(W.array))
    numpy.testing.assert_array_equal(b.grad, numpy.zeros(8, numpy.float32))


@pytest.mark.parametrize(
    "x_shape, w_shape, stride, pad, groups",
    [
        ((5, 3, 6, 5), (4, 3, 3, 3), 1, 1, 1),  # small kernel: per-image weight-gradient products
        ((5, 8, 6, 5), (80, 8, 3, 3), 1, 1, 1),  # large kernel: one GEMM per chunk
        ((3, 8, 16, 16), (64, 8, 3, 3), 1, 1, 1),  # moderate kernel, 256 positions: per image
        ((3, 4, 7, 6), (6, 2, 3, 2), 2, (1, 0), 2),
    ],
)
@pytest.mark.parametrize("chunk", [1, 2])
@pytest.mark.parametrize("code", ["numpy", "compiled"])
def test_convolution_2d_in_batch_chunks_matches_naive_loops(
    monkeypatch, request, x_shape, w_shape, stride, pad, groups, chunk, code
):
    # The CPU kernels take the batch in cache-sized chunks; with one or two images per
    # chunk (the last one partial for an odd batch) the results, and the weight gradient
    # summed over the chunks, must not change, with NumPy's copies or the compiled ones.
    from chainer.functions.connection import _conv_kernels

    calls = request.getfixturevalue("compiled_cpu_kernels") if code == "compiled" else None

    monkeypatch.setattr(_conv_kernels, "batch_chunk", lambda xp, n, nbytes: min(n, chunk))
    rng = numpy.random.RandomState(3)
    x = rng.uniform(-1, 1, x_shape)
    W = rng.uniform(-1, 1, w_shape)
    b = rng.uniform(-1, 1, w_shape[0])
    gy_shape = F.convolution_2d(x, W, b, stride, pad, groups=groups).shape
    gy = rng.uniform(-1, 1, gy_shape)
    numpy.testing.assert_allclose(
        F.convolution_2d(x, W, b, stride, pad, groups=groups).array,
        naive_convolution(x, W, b, stride, pad, 1, groups, False),
        rtol=1e-12,
        atol=1e-12,
    )
    chainer.gradient_check.check_backward(
        lambda x, W, b: F.convolution_2d(x, W, b, stride, pad, groups=groups),
        (x, W, b),
        gy,
        atol=1e-7,
        rtol=1e-6,
    )
    if calls is not None:
        assert calls["im2col"] > 0
        if not input_gradient_flips(x_shape, w_shape, stride, pad, 1):
            assert calls["col2im"] > 0


def test_the_kernel_gradient_node_of_the_2d_convolution():
    from chainer.functions.connection import convolution_2d

    x = numpy.random.uniform(-1, 1, (2, 3, 5, 4))
    W = chainer.Variable(numpy.random.uniform(-1, 1, (4, 3, 2, 2)))
    y = F.convolution_2d(x, W, stride=1, pad=1)
    gy = numpy.random.uniform(-1, 1, y.shape)
    node = convolution_2d.Convolution2DGradW(y.creator, W.shape, W.dtype)
    (gW,) = node.apply((x, gy))
    # gW[o, c, p, q] = sum over n, i, j of gy[n, o, i, j] * padded x[n, c, i + p, j + q].
    padded = numpy.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    expected = numpy.zeros(W.shape)
    for p in range(2):
        for q in range(2):
            window = padded[:, :, p : p + y.shape[2], q : q + y.shape[3]]
            expected[:, :, p, q] = numpy.einsum("noij,ncij->oc", gy, window)
    numpy.testing.assert_allclose(gW.array, expected, rtol=1e-10)
    y.grad = gy
    y.backward()
    numpy.testing.assert_allclose(W.grad, expected, rtol=1e-10)


@pytest.mark.parametrize("transposed", [False, True])
def test_bias_of_another_float_dtype_is_an_invalid_type(transposed):
    # As in Chainer 7.8.1: the bias must be of the input's dtype.
    x = numpy.random.uniform(-1, 1, (2, 3, 4, 4))
    b = numpy.array([0.5, -1.0], numpy.float32)
    function = F.deconvolution_2d if transposed else F.convolution_2d
    W = numpy.random.uniform(-1, 1, (3, 2, 2, 2) if transposed else (2, 3, 2, 2))
    with pytest.raises(type_check.InvalidType):
        function(x, W, b)
