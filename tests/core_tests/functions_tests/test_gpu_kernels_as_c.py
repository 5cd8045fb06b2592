"""The padding and col2im CUDA kernels of ``chainer.functions._gpu_kernels``, compiled as C
on the CPU (see ``_kernels_as_c``) and compared with references written here: numpy.pad,
and col2im as the adjoint of a patch extraction spelled out with loops."""

import itertools

import numpy
import pytest

from chainer.functions import _gpu_kernels

from ._kernels_as_c import call, compile_body, needs_cc, scalar

pytestmark = needs_cc


def _random_shapes(seed, count):
    rng = numpy.random.default_rng(seed)
    for _ in range(count):
        nd = int(rng.integers(1, 4))
        yield rng, nd, tuple(int(v) for v in rng.integers(1, 7, nd))


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_pad_spatial_kernel_is_numpy_pad(tmp_path, dtype):
    sizes_names = "d h w od oh ow bd bh bw"
    kernel = compile_body(tmp_path, _gpu_kernels._PAD, dtype, [("x", "T")], [("y", "T")], [("value", "T")], sizes_names)
    for rng, nd, spatial in _random_shapes(0, 60):
        before = tuple(int(v) for v in rng.integers(0, 3, nd))
        after = tuple(int(v) for v in rng.integers(0, 3, nd))
        x = rng.standard_normal((2, 3) + spatial).astype(dtype)
        want = numpy.pad(x, ((0, 0), (0, 0), *zip(before, after)), constant_values=-7.5)
        y = numpy.empty(want.shape, dtype)
        sizes = _gpu_kernels.sizes_3d((spatial, 1), (want.shape[2:], 1), (before, 0))
        call(kernel, [x, y], [scalar(-7.5, dtype)], sizes, y.size)
        numpy.testing.assert_array_equal(y, want)


def _col2im_reference(col, stride, pad, dilate, in_size):
    """Each column entry (n, c, k..., o...) reads image position o*s - p + k*dilate: add it
    back there (positions outside the image read padding and are dropped)."""
    nd = len(in_size)
    ksize, outsize = col.shape[2 : 2 + nd], col.shape[2 + nd :]
    img = numpy.zeros(col.shape[:2] + tuple(in_size))
    for k in itertools.product(*(range(v) for v in ksize)):
        for o in itertools.product(*(range(v) for v in outsize)):
            at = tuple(oi * s - p + ki * d for oi, s, p, ki, d in zip(o, stride, pad, k, dilate))
            if all(0 <= a < n for a, n in zip(at, in_size)):
                img[(slice(None), slice(None), *at)] += col[(slice(None), slice(None), *k, *o)]
    return img


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_col2im_kernel_is_the_adjoint_of_patch_extraction(tmp_path, dtype):
    sizes_names = "d h w od oh ow kd kh kw sd sh sw pd ph pw dd dh dw"
    kernel = compile_body(tmp_path, _gpu_kernels._COL2IM, dtype, [("col", "T")], [("img", "T")], [], sizes_names)
    for rng, nd, in_size in _random_shapes(1, 60):
        ksize = tuple(int(v) for v in rng.integers(1, 4, nd))
        stride = tuple(int(v) for v in rng.integers(1, 3, nd))
        pad = tuple(int(v) for v in rng.integers(0, 2, nd))
        dilate = tuple(int(v) for v in rng.integers(1, 3, nd))
        outsize = tuple(
            (n + 2 * p - (k - 1) * d - 1) // s + 1 for n, k, s, p, d in zip(in_size, ksize, stride, pad, dilate)
        )
        if any(o <= 0 for o in outsize):
            continue
        col = rng.standard_normal((2, 3) + ksize + outsize).astype(dtype)
        img = numpy.empty((2, 3) + in_size, dtype)
        sizes = _gpu_kernels.sizes_3d((in_size, 1), (outsize, 1), (ksize, 1), (stride, 1), (pad, 0), (dilate, 1))
        call(kernel, [col, img], [], sizes, img.size)
        tolerance = 1e-6 if dtype == numpy.float32 else 1e-13
        numpy.testing.assert_allclose(
            img, _col2im_reference(col, stride, pad, dilate, in_size), rtol=tolerance, atol=tolerance
        )
