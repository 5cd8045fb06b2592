"""The optimizer kernels called directly: against the update formulas written here in
NumPy (float64), over sizes that exercise the vector loops' remainders, and what they
decline or refuse."""

import numpy
import pytest

_ops = pytest.importorskip("chainer_cpu_kernels._ops", reason="chainer-cpu-kernels is not installed")

SIZES = [1, 7, 8, 33, 1001]
TOLERANCES = {numpy.float32: {"rtol": 2e-6, "atol": 1e-7}, numpy.float64: {"rtol": 1e-14, "atol": 1e-15}}
ADAM = {"lr": 0.01, "one_minus_beta1": 0.1, "one_minus_beta2": 0.001, "eps": 1e-6}


def _arrays(size, dtype, count, rs):
    return [rs.standard_normal(size).astype(dtype) for _ in range(count)]


def _adam_reference(p, g, m, v, vhat, lr, one_minus_beta1, one_minus_beta2, eps, wd, eta, lower, upper):
    p, g, m, v = (a.astype(numpy.float64) for a in (p, g, m, v))
    m = m + one_minus_beta1 * (g - m)
    v = (1 - one_minus_beta2) * v + one_minus_beta2 * g * g
    if vhat is not None:
        vhat = numpy.maximum(vhat.astype(numpy.float64), v)
    rate = lr / (numpy.sqrt(v if vhat is None else vhat) + eps)
    if lower is not None:
        rate = numpy.clip(rate, lower, upper)
    step = rate * m
    if wd:
        step = step + wd * p
    return p - eta * step, m, v, vhat


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"amsgrad": True},
        {"weight_decay_rate": 0.1, "eta": 0.5},
        {"lower": 0.005, "upper": 0.02},
        {"amsgrad": True, "lower": 0.001, "upper": 0.05, "weight_decay_rate": 0.01, "eta": 2.0},
    ],
)
def test_adam_matches_formula(dtype, size, options):
    rs = numpy.random.RandomState(size)
    p, g, m = _arrays(size, dtype, 3, rs)
    v = numpy.abs(rs.standard_normal(size)).astype(dtype)
    vhat = (v * 1.5).astype(dtype) if options.get("amsgrad") else None
    wd, eta = options.get("weight_decay_rate", 0.0), options.get("eta", 1.0)
    lower, upper = options.get("lower"), options.get("upper")
    expected = _adam_reference(p, g, m, v, vhat, *ADAM.values(), wd, eta, lower, upper)
    assert _ops.adam(p, g, m, v, vhat, *ADAM.values(), wd, eta, lower, upper) is True
    for got, want in zip((p, m, v, vhat), expected, strict=True):
        if want is not None:
            assert got.dtype == dtype
            numpy.testing.assert_allclose(got, want, **TOLERANCES[dtype])


def test_adam_without_weight_decay_leaves_an_infinite_parameter_infinite():
    # NumPy's code adds weight_decay_rate * param only when the rate is nonzero; 0 * inf
    # would make the parameter NaN.
    p = numpy.array([numpy.inf, 1.0], numpy.float32)
    g, m, v = (numpy.ones(2, numpy.float32) for _ in range(3))
    assert _ops.adam(p, g, m, v, None, *ADAM.values(), 0.0, 1.0, None, None)
    assert p[0] == numpy.inf and numpy.isfinite(p[1])


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("size", SIZES)
def test_momentum_sgd_matches_formula(dtype, size):
    rs = numpy.random.RandomState(size)
    p, g, v = _arrays(size, dtype, 3, rs)
    v_want = 0.9 * v.astype(numpy.float64) - 0.05 * g
    p_want = p + v_want
    assert _ops.momentum_sgd(p, g, v, 0.05, 0.9) is True
    numpy.testing.assert_allclose(v, v_want, **TOLERANCES[dtype])
    numpy.testing.assert_allclose(p, p_want, **TOLERANCES[dtype])


def test_unsupported_arrays_are_declined_untouched(declined_arrays):
    p, g, v = declined_arrays(strided_at=0, written_at=0)
    before = [numpy.array(a, copy=True) for a in (p, g, v)]
    assert _ops.momentum_sgd(p, g, v, 0.1, 0.9) is False
    assert _ops.adam(p, g, v, v, None, *ADAM.values(), 0.0, 1.0, None, None) is False
    for a, b in zip((p, g, v), before, strict=True):
        numpy.testing.assert_array_equal(numpy.asarray(a), b)


def test_size_mismatch_and_bad_scalars_raise_naming_the_kernel():
    p, g = numpy.ones(4, numpy.float32), numpy.ones(5, numpy.float32)
    with pytest.raises(
        ValueError, match=r"chainer_cpu_kernels.momentum_sgd: grad has 5 elements, expected 4 like param"
    ):
        _ops.momentum_sgd(p, g, numpy.ones(4, numpy.float32), 0.1, 0.9)
    with pytest.raises(ValueError, match=r"chainer_cpu_kernels.adam: v has 5 elements, expected 4 like param"):
        _ops.adam(p, p.copy(), p.copy(), g, None, *ADAM.values(), 0.0, 1.0, None, None)
    with pytest.raises(TypeError, match=r"chainer_cpu_kernels.momentum_sgd: lr must be a real number, got 'a'"):
        _ops.momentum_sgd(p, p.copy(), p.copy(), "a", 0.9)
    with pytest.raises(TypeError, match=r"chainer_cpu_kernels.adam takes 13 arguments, got 2"):
        _ops.adam(p, p)


def test_state_of_another_shape_but_the_same_size_is_refused_untouched():
    # (8, 3) against (3, 8): an elementwise pass would mix elements silently.
    p = numpy.arange(24, dtype=numpy.float32).reshape(3, 8)
    wrong = numpy.ones((8, 3), numpy.float32)
    before = p.copy()
    with pytest.raises(
        ValueError, match=r"chainer_cpu_kernels.adam: v has shape \(8, 3\), expected \(3, 8\) like param"
    ):
        _ops.adam(p, numpy.ones_like(p), numpy.zeros_like(p), wrong, None, *ADAM.values(), 0.0, 1.0, None, None)
    with pytest.raises(ValueError, match=r"chainer_cpu_kernels.momentum_sgd: v has shape \(8, 3\), expected \(3, 8\)"):
        _ops.momentum_sgd(p, numpy.ones_like(p), wrong, 0.1, 0.9)
    with pytest.raises(ValueError, match=r"chainer_cpu_kernels.adam: grad has shape \(24,\), expected \(3, 8\)"):
        _ops.adam(
            p,
            numpy.ones(24, numpy.float32),
            numpy.zeros_like(p),
            numpy.zeros_like(p),
            None,
            *ADAM.values(),
            0.0,
            1.0,
            None,
            None,
        )
    numpy.testing.assert_array_equal(p, before)
