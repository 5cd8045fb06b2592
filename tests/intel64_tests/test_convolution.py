"""oneDNN convolutions (forward, input and kernel gradients, bias; stride, pad,
dilation, groups, cover_all) and transposed convolutions against chainer-core's NumPy
code, gradient checks, and the cases oneDNN declines."""

import numpy
import pytest
from chainer_intel64 import _connection, _library

import chainer
import chainer.functions as F
from chainer import gradient_check

CONV_SLOTS = ("convolution_forward", "deconvolution_forward", "convolution_backward_weights")

# (N, C, H, W), (O, kh, kw), stride, pad, dilate, groups, cover_all, bias
GEOMETRIES = [
    ((2, 3, 9, 9), (4, 3, 3), 1, 1, 1, 1, False, True),
    ((2, 4, 10, 8), (6, 3, 2), (2, 1), (1, 0), 1, 2, False, True),
    ((1, 6, 11, 11), (6, 3, 3), 2, 1, 2, 3, False, False),
    ((2, 3, 7, 7), (5, 2, 2), 2, 0, 1, 1, True, True),
    ((3, 8, 5, 6), (8, 1, 1), 1, 0, 1, 8, False, True),
    ((2, 2, 12, 12), (4, 5, 5), 3, 2, 1, 1, True, False),
    ((2, 3, 6, 6), (4, 3, 3), 1, 0, (2, 1), 1, False, True),
    ((1, 1, 1, 1), (1, 1, 1), 1, 0, 1, 1, False, True),
    ((4, 16, 8, 8), (32, 3, 3), 1, 1, 1, 1, False, True),
    ((2, 3, 5, 5), (2, 3, 3), 2, 3, 1, 1, True, True),
]


def _inputs(shape, kernel, groups, bias, rng):
    n, c, h, w = shape
    o, kh, kw = kernel
    x = rng.standard_normal(shape).astype(numpy.float32)
    W = rng.standard_normal((o, c // groups, kh, kw)).astype(numpy.float32)
    b = rng.standard_normal(o).astype(numpy.float32)
    return (x, W, b) if bias else (x, W)


@pytest.mark.parametrize(("shape", "kernel", "stride", "pad", "dilate", "groups", "cover_all", "bias"), GEOMETRIES)
def test_convolution_2d_matches_numpy(matches_numpy, shape, kernel, stride, pad, dilate, groups, cover_all, bias):
    inputs = _inputs(shape, kernel, groups, bias, numpy.random.default_rng(1))

    def conv(*args):
        return F.convolution_2d(*args, stride=stride, pad=pad, cover_all=cover_all, dilate=dilate, groups=groups)

    matches_numpy(conv, inputs, CONV_SLOTS)


@pytest.mark.parametrize(("shape", "kernel", "stride", "pad", "dilate", "groups", "cover_all", "bias"), GEOMETRIES[:7])
def test_deconvolution_2d_matches_numpy(matches_numpy, shape, kernel, stride, pad, dilate, groups, cover_all, bias):
    n, c, h, w = shape
    o, kh, kw = kernel
    rng = numpy.random.default_rng(2)
    x = rng.standard_normal(shape).astype(numpy.float32)
    W = rng.standard_normal((c, o // groups, kh, kw)).astype(numpy.float32)
    b = rng.standard_normal(o).astype(numpy.float32)
    inputs = (x, W, b) if bias else (x, W)

    def deconv(*args):
        return F.deconvolution_2d(*args, stride=stride, pad=pad, dilate=dilate, groups=groups)

    matches_numpy(deconv, inputs, CONV_SLOTS)


@pytest.mark.parametrize("outsize_extra", [0, 1])
def test_deconvolution_2d_with_outsize(matches_numpy, outsize_extra):
    rng = numpy.random.default_rng(3)
    x = rng.standard_normal((2, 4, 5, 5)).astype(numpy.float32)
    W = rng.standard_normal((4, 3, 3, 3)).astype(numpy.float32)
    outsize = (9 + outsize_extra, 9 + outsize_extra)  # stride 2, pad 1: 9 or 10

    def deconv(x, W):
        return F.deconvolution_2d(x, W, stride=2, pad=1, outsize=outsize)

    matches_numpy(deconv, (x, W), CONV_SLOTS)


@pytest.mark.parametrize(
    ("shape", "kernel", "stride", "pad"), [((2, 3, 11), (4, 3), 2, 1), ((2, 2, 5, 6, 4), (3, 3, 2, 2), (1, 2, 1), 1)]
)
def test_convolution_nd_matches_numpy(matches_numpy, shape, kernel, stride, pad):
    rng = numpy.random.default_rng(4)
    x = rng.standard_normal(shape).astype(numpy.float32)
    W = rng.standard_normal((kernel[0], shape[1]) + kernel[1:]).astype(numpy.float32)
    b = rng.standard_normal(kernel[0]).astype(numpy.float32)
    matches_numpy(lambda *a: F.convolution_nd(*a, stride=stride, pad=pad), (x, W, b), CONV_SLOTS)


def test_auto_takes_two_dimensional_convolutions_only(onednn_calls):
    x = numpy.ones((1, 2, 6), numpy.float32)
    W = numpy.ones((3, 2, 3), numpy.float32)
    with chainer.using_config("use_ideep", "auto"):
        F.convolution_1d(x, W)
        assert onednn_calls["convolution_forward"] == 0
        F.convolution_2d(x[..., None], W[..., None])
        assert onednn_calls["convolution_forward"] == 1
    with chainer.using_config("use_ideep", "never"):
        F.convolution_2d(x[..., None], W[..., None])
    assert onednn_calls["convolution_forward"] == 1


@pytest.mark.parametrize("groups", [1, 2])
def test_gradient_check(groups):
    rng = numpy.random.default_rng(5)
    x = rng.uniform(-1, 1, (2, 4, 5, 5)).astype(numpy.float32)
    W = rng.uniform(-1, 1, (4, 4 // groups, 3, 3)).astype(numpy.float32)
    b = rng.uniform(-1, 1, 4).astype(numpy.float32)
    gy = rng.uniform(-1, 1, (2, 4, 3, 3)).astype(numpy.float32)
    ggx, ggW, ggb = (rng.uniform(-1, 1, a.shape).astype(numpy.float32) for a in (x, W, b))

    def conv(x, W, b):
        return F.convolution_2d(x, W, b, stride=2, pad=1, groups=groups)

    with chainer.using_config("use_ideep", "always"):
        gradient_check.check_backward(conv, (x, W, b), gy, eps=1e-2, atol=5e-3, rtol=1e-2)
        gradient_check.check_double_backward(conv, (x, W, b), gy, (ggx, ggW, ggb), eps=1e-2, atol=5e-3, rtol=1e-2)


def test_deconvolution_gradient_check():
    rng = numpy.random.default_rng(6)
    x = rng.uniform(-1, 1, (2, 3, 3, 3)).astype(numpy.float32)
    W = rng.uniform(-1, 1, (3, 2, 3, 3)).astype(numpy.float32)
    b = rng.uniform(-1, 1, 2).astype(numpy.float32)
    gy = rng.uniform(-1, 1, (2, 2, 5, 5)).astype(numpy.float32)
    with chainer.using_config("use_ideep", "always"):
        gradient_check.check_backward(
            lambda *a: F.deconvolution_2d(*a, stride=2, pad=1), (x, W, b), gy, eps=1e-2, atol=5e-3, rtol=1e-2
        )


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float16])
def test_other_dtypes_fall_back_to_numpy(onednn_calls, dtype):
    rng = numpy.random.default_rng(7)
    x = rng.standard_normal((2, 3, 6, 6)).astype(dtype)
    W = rng.standard_normal((4, 3, 3, 3)).astype(dtype)
    with chainer.using_config("use_ideep", "never"):
        expected = F.convolution_2d(x, W, pad=1).array
    with chainer.using_config("use_ideep", "always"):
        actual = F.convolution_2d(x, W, pad=1).array
    assert sum(onednn_calls.values()) == 0
    numpy.testing.assert_array_equal(actual, expected)


def test_mixed_dtypes_fall_back(onednn_calls):
    x = numpy.ones((1, 2, 4, 4), numpy.float32)
    W = numpy.ones((2, 2, 3, 3), numpy.float64)
    with chainer.using_config("use_ideep", "always"):
        y = F.convolution_2d(x, W).array
    assert sum(onednn_calls.values()) == 0
    numpy.testing.assert_array_equal(y, numpy.full((1, 2, 2, 2), 18, numpy.float32))


def test_output_that_ignores_the_end_of_the_input_is_declined():
    # Three windows of 3 at stride 1 read 5 of the 7 columns: the padding after would be
    # negative, which oneDNN does not take, so the kernel declines.
    x = numpy.ones((1, 1, 7, 7), numpy.float32)
    W = numpy.ones((1, 1, 3, 3), numpy.float32)
    assert _connection.convolution_forward(True, x, W, None, (1, 1), (0, 0), (1, 1), 1, (3, 3)) is None
    y = _connection.convolution_forward(True, x, W, None, (1, 1), (0, 0), (1, 1), 1, (5, 5))
    numpy.testing.assert_array_equal(y, numpy.full((1, 1, 5, 5), 9, numpy.float32))


def test_non_contiguous_inputs(matches_numpy):
    rng = numpy.random.default_rng(8)
    x = rng.standard_normal((2, 6, 8, 8)).astype(numpy.float32)[:, ::2]
    W = rng.standard_normal((3, 4, 3, 3)).astype(numpy.float32)[:, ::-1].transpose(0, 1, 3, 2)[:, :3]
    assert not x.flags.c_contiguous and not W.flags.c_contiguous
    matches_numpy(lambda x, W: F.convolution_2d(x, W, pad=1), (x, W), ["convolution_forward"])


def test_bad_inputs_give_numpy_errors():
    x = numpy.ones((1, 3, 5, 5), numpy.float32)
    W = numpy.ones((2, 4, 3, 3), numpy.float32)
    errors = []
    for mode in ("never", "always"):
        with chainer.using_config("use_ideep", mode), pytest.raises(chainer.utils.type_check.InvalidType) as info:
            F.convolution_2d(x, W)
        errors.append(str(info.value))
    assert errors[0] == errors[1]
    for mode in ("never", "always"):
        with chainer.using_config("use_ideep", mode), pytest.raises(ValueError, match="stride"):
            F.convolution_2d(x, W[:, :3], stride=0)


@pytest.mark.parametrize(
    ("args", "error", "pattern"),
    [
        ((numpy.ones((1, 1, 3, 3)),), TypeError, r"conv_forward: x must be float32"),
        ((numpy.ones((1, 1, 3, 3), numpy.float32)[..., ::2],), TypeError, r"x must be a C-contiguous"),
        ((numpy.ones((1, 3), numpy.float32),), ValueError, r"1 to 3 spatial axes"),
        (("not an array",), TypeError, r"x must be a C-contiguous float32 array, got str"),
    ],
)
def test_extension_refuses_bad_arguments(args, error, pattern):
    module = _library.dnnl()
    W = numpy.ones((1, 1, 2, 2), numpy.float32)
    y = numpy.empty((1, 1, 2, 2), numpy.float32)
    with pytest.raises(error, match=pattern):
        module.conv_forward(*args, W, None, y, (1, 1), (1, 1), (0, 0), (0, 0), 1)


def test_extension_refuses_disagreeing_shapes():
    module = _library.dnnl()
    x = numpy.ones((1, 2, 3, 3), numpy.float32)
    W = numpy.ones((1, 2, 2, 2), numpy.float32)
    with pytest.raises(ValueError, match="output size disagrees"):
        module.conv_forward(x, W, None, numpy.empty((1, 1, 3, 3), numpy.float32), (1, 1), (1, 1), (0, 0), (0, 0), 1)
    with pytest.raises(ValueError, match="disagree"):
        module.conv_forward(x, W, None, numpy.empty((1, 2, 2, 2), numpy.float32), (1, 1), (1, 1), (0, 0), (0, 0), 1)
    with pytest.raises(ValueError, match=r"stride\[0\] must be in \[1, 2\*\*31\]"):
        module.conv_forward(x, W, None, numpy.empty((1, 1, 2, 2), numpy.float32), (0, 1), (1, 1), (0, 0), (0, 0), 1)
    with pytest.raises(ValueError, match="groups must be"):
        module.conv_forward(x, W, None, numpy.empty((1, 1, 2, 2), numpy.float32), (1, 1), (1, 1), (0, 0), (0, 0), 5)
    with pytest.raises(TypeError, match="y must be a writable"):
        module.conv_forward(
            x,
            W,
            None,
            numpy.frombuffer(bytes(16), numpy.float32).reshape(1, 1, 2, 2),
            (1, 1),
            (1, 1),
            (0, 0),
            (0, 0),
            1,
        )
