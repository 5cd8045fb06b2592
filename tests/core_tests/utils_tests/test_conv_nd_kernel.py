"""The CUDA sources of N-dimensional im2col / col2im, run on the CPU (their operation is
plain C++) against explicit loops; and the code-writing helpers."""

import itertools
from unittest import mock

import numpy
import pytest
from _elementwise_harness import compile_elementwise

from chainer.backends import cuda
from chainer.utils import conv_nd_kernel as K


def _patches_by_loops(img, ksize, stride, pad, dilate, outs):
    nd = len(ksize)
    col = numpy.zeros(img.shape[:2] + tuple(ksize) + tuple(outs), img.dtype)
    for k in itertools.product(*(range(v) for v in ksize)):
        for o in itertools.product(*(range(v) for v in outs)):
            pos = [o[j] * stride[j] - pad[j] + k[j] * dilate[j] for j in range(nd)]
            if all(0 <= pos[j] < img.shape[2 + j] for j in range(nd)):
                col[(slice(None), slice(None)) + k + o] = img[(slice(None), slice(None)) + tuple(pos)]
    return col


def _outsize(d, k, s, p, di):
    return (d + 2 * p - (k - 1) * di - 1) // s + 1


CASES = [
    ((7,), (3,), (2,), (1,), (1,)),
    ((5, 6), (2, 3), (1, 2), (1, 0), (2, 1)),
    ((4, 3, 5), (2, 2, 2), (2, 1, 1), (0, 1, 1), (1, 1, 2)),
]


@pytest.mark.parametrize("dims, ksize, stride, pad, dilate", CASES)
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_im2col_and_col2im_kernels(dims, ksize, stride, pad, dilate, dtype):
    nd = len(dims)
    outs = tuple(_outsize(*args) for args in zip(dims, ksize, stride, pad, dilate))
    sizes = [*dims, *outs, *ksize, *stride, *pad, *dilate]
    img = numpy.random.uniform(-1, 1, (2, 3) + dims).astype(dtype)

    im2col = compile_elementwise(*K.Im2colNDKernel.generate(nd)[:3], dtype)
    col = numpy.empty((2, 3) + ksize + outs, dtype)
    im2col(img, *sizes, col)
    numpy.testing.assert_array_equal(col, _patches_by_loops(img, ksize, stride, pad, dilate, outs))

    # col2im is the adjoint of im2col: <im2col(x), c> == <x, col2im(c)>.
    col2im = compile_elementwise(*K.Col2imNDKernel.generate(nd)[:3], dtype)
    c = numpy.random.uniform(-1, 1, col.shape).astype(dtype)
    back = numpy.empty(img.shape, dtype)
    col2im(c, *sizes, back)
    tol = 1e-5 if dtype == numpy.float32 else 1e-12
    numpy.testing.assert_allclose(
        (col.astype(numpy.float64) * c).sum(), (img * back.astype(numpy.float64)).sum(), rtol=tol
    )


def test_generate_is_cached_per_ndim():
    cuda.clear_memo()
    with mock.patch.object(K.Im2colNDKernel, "_generate", return_value=("a", "b", "c", "d")) as generate:
        assert K.Im2colNDKernel.generate(3) == ("a", "b", "c", "d")
        K.Im2colNDKernel.generate(3)
        generate.assert_called_once_with(3)
        K.Im2colNDKernel.generate(2)
        assert generate.call_count == 2
    cuda.clear_memo()
    assert K.Im2colNDKernel.generate(1)[3] == "im2col_1d"


def test_code_helpers():
    assert K.vars("x", 3) == ["x_0", "x_1", "x_2"]
    assert K.map_(lambda a, b: a + b, [1, 2], [10, 20]) == [11, 22]
    assert K.mulexp(["a", "b"]) == "a * b"
    assert K.mulexp(["a"], "c") == "c * a"
    assert K.mulexp([]) == "1"
    assert K.andexp(["p", "q"], "r") == "r && p && q"
    assert K.andexp([]) == "true"
    # The flat index of (i, j, k) in an array of shape (I, J, K): (i * J + j) * K + k.
    assert K.muladdexp(["I", "J", "K"], ["i", "j", "k"]) == "((i * J + j) * K + k)"
    assert K.muladdexp(["J", "K"], ["j", "k"], "n") == "((n * J + j) * K + k)"
    assert K.succ_sublists([1, 2, 3]) == [[1, 2, 3], [2, 3], [3]]
    w = K.Writer()
    w.write("if (a) {", "inc")
    w.write("b;")
    w.write("} else {", "decinc")
    w.write("c;")
    w.write("}", "dec")
    assert w.get() == "if (a) {\n  b;\n} else {\n  c;\n}\n"
    with pytest.raises(ValueError, match="indent must be None, 'inc', 'dec' or 'decinc'"):
        w.write("x", "up")
