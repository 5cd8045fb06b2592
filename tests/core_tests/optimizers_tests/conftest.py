"""The test problem shared by the optimizer tests: minimize the quadratic

    f(w) = 0.5 * sum(A * w**2) + sum(B * w),   grad f(w) = A * w + B

from W0, through the optimizer (gradients by backprop) and through a reference loop
written in each test with NumPy (gradients by the formula above).
"""

import numpy
import pytest

import chainer
import chainer.functions as F

A = numpy.array([1.0, 2.0, 0.5, 3.0, 0.1, 1.5])
B = numpy.array([0.5, -1.0, 0.25, 0.0, 2.0, -0.3])
W0 = numpy.array([1.0, -2.0, 0.5, 3.0, -0.7, 0.0])
STEPS = 3


def grad(w):
    return A * w + B


class OneParamLink(chainer.Link):
    """A link with one parameter ``w``."""

    def __init__(self, w):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(w)


def loss(link):
    w = link.w
    a, b = (link.device.send(c.astype(w.dtype)) for c in (A, B))
    return 0.5 * F.sum(a * w * w) + F.sum(b * w)


def run(opt, dtype=numpy.float64, steps=STEPS, fp32_update=False, device="@numpy"):
    """Run ``steps`` updates of ``opt`` on the quadratic, on ``device``; return the link."""
    link = OneParamLink(W0.astype(dtype))
    link.to_device(device)
    opt.setup(link)
    if fp32_update:
        opt.use_fp32_update()
    for _ in range(steps):
        opt.update(loss, link)
    return link


# Tolerances on the final parameter, per dtype (float64 is the 1e-6 relative check).
TOLERANCES = {
    numpy.float64: {"rtol": 1e-6, "atol": 0},
    numpy.float32: {"rtol": 1e-5, "atol": 1e-6},
    numpy.float16: {"rtol": 5e-3, "atol": 2e-3},
}


def check(link, w_ref, dtype):
    w = chainer.backend.CpuDevice().send(link.w.array)
    assert w.dtype == dtype
    tol = TOLERANCES[dtype]
    numpy.testing.assert_allclose(w.astype(numpy.float64), w_ref, **tol)
    if dtype == numpy.float64:
        # The displacement itself, so that small steps are checked to 1e-6 as well.
        numpy.testing.assert_allclose(w - W0, w_ref - W0, rtol=1e-6, atol=1e-15)


class Problem:
    A, B, W0, STEPS = A, B, W0, STEPS
    grad = staticmethod(grad)
    run = staticmethod(run)
    check = staticmethod(check)
    loss = staticmethod(loss)
    OneParamLink = OneParamLink


@pytest.fixture
def problem():
    return Problem


def _gpu_marks():
    from chainer.backends import cuda

    reason = cuda._unavailable_reason()
    return [pytest.mark.gpu, pytest.mark.skipif(reason is not None, reason=f"needs a GPU: {reason}")]


@pytest.fixture(params=["@numpy", pytest.param("@cupy:0", marks=_gpu_marks())])
def device(request):
    """Where the optimizer runs: the CPU, and the GPU's own kernels where there is one."""
    return request.param
