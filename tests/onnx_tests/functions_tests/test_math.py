import numpy
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import chainer.functions as F
from onnx_chainer.testing import input_generator as gen

A = gen.nonzero_increasing(2, 3, 4)
B = gen.positive_increasing(2, 3, 4)[::-1].copy()
C = numpy.linspace(0.5, 2.0, 4).astype(numpy.float32)

UNARY = {
    "neg": (lambda x: -x, A),
    "abs": (lambda x: abs(x), A),
    "exp": (F.exp, A),
    "log": (F.log, B),
    "sqrt": (F.sqrt, B),
    "rsqrt": (F.rsqrt, B),
    "square": (F.square, A),
    "sin": (F.sin, A),
    "cos": (F.cos, A),
    "tan": (F.tan, A),
    "arcsin": (F.arcsin, A * 0.9),
    "arccos": (F.arccos, A * 0.9),
    "arctan": (F.arctan, A),
    "sinh": (F.sinh, A),
    "cosh": (F.cosh, A),
    "arctanh": (F.arctanh, A * 0.9),
    "erf": (F.erf, A),
    "sign": (F.sign, A),
    "floor": (F.floor, A * 3),
    "ceil": (F.ceil, A * 3),
    "log1p": (F.log1p, B),
    "expm1": (F.expm1, A),
    "add_constant": (lambda x: x + 2.5, A),
    "sub_from_constant": (lambda x: 2.5 - x, A),
    "mul_constant": (lambda x: x * -1.5, A),
    "mul_constant_array": (lambda x: x * C, A),
    "div_by_constant": (lambda x: x / 4.0, A),
    "div_from_constant": (lambda x: 2.0 / x, A),
    "pow_var_const": (lambda x: x**3, A),
    "pow_const_var": (lambda x: 2.0**x, A),
    "sum_all": (F.sum, A),
    "sum_axis": (lambda x: F.sum(x, axis=(0, 2)), A),
    "sum_keepdims": (lambda x: F.sum(x, axis=1, keepdims=True), A),
    "mean": (lambda x: F.mean(x, axis=-1), A),
    "max": (lambda x: F.max(x, axis=1), A),
    "min_keepdims": (lambda x: F.min(x, axis=(0, 1), keepdims=True), A),
    "prod": (lambda x: F.prod(x, axis=2), A),
    "logsumexp": (lambda x: F.logsumexp(x, axis=1), A),
    "argmax": (lambda x: F.argmax(x, axis=1), A),
    "argmin_flat": (lambda x: F.argmin(x), A),
    "clip": (lambda x: F.clip(x, -0.5, 0.25), A),
    "clip_low_only": (lambda x: F.clip(x, -0.5, None), A),
    "identity": (lambda x: F.identity(x) * 1.0, A),
    "matmul_transb": (lambda x: F.matmul(x[0], x[1], transb=True), A),
    "matmul_transa_batched": (lambda x: F.matmul(x, x, transa=True), A),
}

BINARY = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
    "pow": lambda x, y: y**x,
    "maximum": F.maximum,
    "minimum": F.minimum,
    "squared_difference": F.squared_difference,
    "linear_interpolate": lambda x, y: F.linear_interpolate(F.sigmoid(x), x, y),
    "bias": lambda x, y: F.bias(x, y[0, :, 0], axis=1),
    "scale": lambda x, y: F.scale(x, y[0], axis=1),
    "where": lambda x, y: F.where(x.array > 0, x, y),
}


@pytest.mark.parametrize("opset", [9, 13, 26])
@pytest.mark.parametrize("case", sorted(UNARY))
def test_unary(case, opset, check_export, wrap):
    fn, x = UNARY[case]
    if case in ("sinh", "cosh", "arctanh", "erf", "sign") and opset < 9:
        pytest.skip("needs opset 9")
    check_export(wrap(lambda m, x: fn(x)), x, opset_version=opset, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("opset", [9, 26])
@pytest.mark.parametrize("case", sorted(BINARY))
def test_binary(case, opset, check_export, wrap):
    check_export(wrap(lambda m, x, y: BINARY[case](x, y)), (A, B), opset_version=opset, rtol=1e-5, atol=1e-5)


def test_opset_too_low_names_the_function_and_the_opset(wrap):
    import onnx_chainer

    with pytest.raises(ValueError, match=r"Erf \(Erf_0\) needs opset_version >= 9.*got 8"):
        onnx_chainer.export(wrap(lambda m, x: F.erf(x)), A, opset_version=8)
