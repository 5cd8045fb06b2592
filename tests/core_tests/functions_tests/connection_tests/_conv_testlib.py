"""What the tests of the (de)convolution functions share: naive NumPy references written
from the definitions (explicit loops over output or input positions, independent of the
implementation), the tolerances per dtype, and the input generation of their
FunctionTestCases. ``conftest.py`` next to this file makes it importable."""

import itertools

import numpy

import chainer

BACKENDS = [{}, {"use_cuda": True}]
FORWARD_TOL = {
    numpy.float16: {"atol": 5e-3, "rtol": 5e-2},
    numpy.float32: {"atol": 1e-5, "rtol": 1e-4},
    numpy.float64: {"atol": 1e-10, "rtol": 1e-8},
}
BACKWARD_TOL = {
    numpy.float16: {"atol": 5e-2, "rtol": 5e-2},
    numpy.float32: {"atol": 1e-3, "rtol": 1e-3},
    numpy.float64: {"atol": 1e-7, "rtol": 1e-6},
}


def as_tuple(v, n):
    """``v`` repeated ``n`` times if it is an int, else ``v`` as a tuple."""
    return (v,) * n if isinstance(v, int) else tuple(v)


def _float64_per_axis(x, W, *geometry):
    """``x`` and ``W`` in float64, the number of spatial axes, and each of ``geometry``
    (ints or tuples) as a tuple of one int per spatial axis."""
    nd = x.ndim - 2
    return x.astype(numpy.float64), W.astype(numpy.float64), nd, tuple(as_tuple(v, nd) for v in geometry)


def naive_convolution(x, W, b, stride, pad, dilate, groups, cover_all):
    """Cross-correlation by explicit loops over output positions (float64). ``stride``,
    ``pad`` and ``dilate`` are ints or tuples of one int per spatial axis."""
    x, W, nd, (stride, pad, dilate) = _float64_per_axis(x, W, stride, pad, dilate)
    n, c = x.shape[:2]
    o = W.shape[0]
    ksize = W.shape[2:]
    outsize = []
    for size, k, s, p, d in zip(x.shape[2:], ksize, stride, pad, dilate):
        extra = s - 1 if cover_all else 0
        outsize.append((size + 2 * p - (k - 1) * d - 1 + extra) // s + 1)
    padded = numpy.pad(x, [(0, 0), (0, 0)] + [(p, p + s) for p, s in zip(pad, stride)])
    y = numpy.zeros((n, o) + tuple(outsize))
    cg, og = c // groups, o // groups
    axes = tuple(range(1, nd + 2))
    for pos in itertools.product(*(range(m) for m in outsize)):
        window = tuple(slice(i * s, i * s + (k - 1) * d + 1, d) for i, s, k, d in zip(pos, stride, ksize, dilate))
        patch = padded[(slice(None), slice(None)) + window]
        for g in range(groups):
            y[(slice(None), slice(g * og, (g + 1) * og)) + pos] = numpy.tensordot(
                patch[:, g * cg : (g + 1) * cg], W[g * og : (g + 1) * og], (axes, axes)
            )
    if b is not None:
        y += b.reshape((1, o) + (1,) * nd)
    return y


def naive_deconvolution(x, W, b, stride, pad, dilate, groups, outsize):
    """Transposed convolution by explicit loops over input positions: each input
    element scatters its kernel onto the (padded) output, which is then cropped.
    ``stride``, ``pad`` and ``dilate`` are ints or tuples of one int per spatial axis."""
    x, W, nd, (stride, pad, dilate) = _float64_per_axis(x, W, stride, pad, dilate)
    n, cin = x.shape[:2]
    cout_g = W.shape[1]
    cin_g = cin // groups
    ksize = W.shape[2:]
    if outsize is None:
        outsize = tuple(
            s * (m - 1) + (k - 1) * d + 1 - 2 * p for m, k, s, p, d in zip(x.shape[2:], ksize, stride, pad, dilate)
        )
    full = tuple(
        max(s * (m - 1) + (k - 1) * d + 1, p + o)
        for m, k, s, p, d, o in zip(x.shape[2:], ksize, stride, pad, dilate, outsize)
    )
    y = numpy.zeros((n, cout_g * groups) + full)
    for pos in itertools.product(*(range(m) for m in x.shape[2:])):
        window = tuple(slice(i * s, i * s + (k - 1) * d + 1, d) for i, s, k, d in zip(pos, stride, ksize, dilate))
        for g in range(groups):
            contribution = numpy.tensordot(
                x[(slice(None), slice(g * cin_g, (g + 1) * cin_g)) + pos], W[g * cin_g : (g + 1) * cin_g], (1, 0)
            )
            y[(slice(None), slice(g * cout_g, (g + 1) * cout_g)) + window] += contribution
    y = y[(slice(None), slice(None)) + tuple(slice(p, p + o) for p, o in zip(pad, outsize))]
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * nd)
    return y


def input_gradient_flips(x_shape, w_shape, stride, pad, dilate):
    """Whether the input gradient is a unit-stride convolution with the flipped kernel
    (fewer output than input channels), which takes im2col, rather than a col2im scatter."""
    nd = len(x_shape) - 2
    stride, pad, dilate = (as_tuple(v, nd) for v in (stride, pad, dilate))
    fits = all((k - 1) * d >= p for k, d, p in zip(w_shape[2:], dilate, pad))
    return w_shape[0] < x_shape[1] and all(s == 1 for s in stride) and fits


def use_tolerances(test):
    """Give a FunctionTestCase the forward and (double) backward tolerances of its dtype."""
    test.check_forward_options = FORWARD_TOL[test.dtype]
    test.check_backward_options = BACKWARD_TOL[test.dtype]
    test.check_double_backward_options = BACKWARD_TOL[test.dtype]


def uniform_inputs(dtype, x_shape, w_shape, bias_size):
    """``(x, W, b)`` drawn uniformly from [-1, 1] in this order, or ``(x, W)`` where
    ``bias_size`` is ``None``."""
    x = numpy.random.uniform(-1, 1, x_shape).astype(dtype)
    W = numpy.random.uniform(-1, 1, w_shape).astype(dtype)
    if bias_size is None:
        return x, W
    return x, W, numpy.random.uniform(-1, 1, bias_size).astype(dtype)


def split_inputs(inputs):
    """``(x, W, b)`` from the inputs of a FunctionTestCase, ``b`` being ``None`` where
    there are two."""
    return inputs[0], inputs[1], inputs[2] if len(inputs) == 3 else None


def check_forward_and_gradient(function, inputs, expected, rng):
    """``function(x, W, b)`` of the float64 ``inputs`` cast to float32 and to float64
    against the reference ``expected``, and its float64 numerical gradient check."""
    for dtype in (numpy.float32, numpy.float64):
        y = function(*(a.astype(dtype) for a in inputs)).array
        numpy.testing.assert_allclose(y, expected, **FORWARD_TOL[dtype])
    gy = rng.uniform(-1, 1, expected.shape)
    chainer.gradient_check.check_backward(function, inputs, gy, **BACKWARD_TOL[numpy.float64])
