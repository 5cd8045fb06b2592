"""The registry of compiled CPU kernels (hook ``chainer_register_cpu_kernels``): what a
plugin's kernel receives, the NumPy code when it declines, and refused registrations."""

import numpy
import pytest

import chainer
from chainer import optimizers
from chainer.backends import cpu_kernels


class KernelPlugin:
    def __init__(self, **kernels):
        self.kernels = kernels

    @chainer.hookimpl
    def chainer_register_cpu_kernels(self, register):
        for slot, kernel in self.kernels.items():
            register(slot, kernel)


@pytest.fixture
def install(numpy_cpu_code):
    installed = []

    def install(plugin):
        chainer.plugins.register(plugin)
        installed.append(plugin)

    yield install
    for plugin in installed:
        chainer.plugins.unregister(plugin)


def _momentum_step(lr=0.1, momentum=0.5):
    link = chainer.Link()
    with link.init_scope():
        link.w = chainer.Parameter(numpy.array([1.0, 2.0], numpy.float32))
    opt = optimizers.MomentumSGD(lr=lr, momentum=momentum).setup(link)
    link.w.grad = numpy.array([0.5, -1.0], numpy.float32)
    opt.update()
    return link.w


def test_no_kernel_means_numpy(numpy_cpu_code):
    assert cpu_kernels.get("momentum_sgd") is None and cpu_kernels.origin("adam") is None
    assert cpu_kernels.compiled() == {}
    numpy.testing.assert_allclose(_momentum_step().array, [1.0 - 0.05, 2.0 + 0.1], rtol=1e-6)


def test_a_kernel_receives_the_documented_arguments(install):
    seen = []

    def kernel(param, grad, v, lr, momentum):
        seen.append((param.copy(), grad.copy(), v.copy(), lr, momentum))
        param += 100.0  # visibly not what NumPy would compute
        return True

    install(KernelPlugin(momentum_sgd=kernel))
    assert cpu_kernels.get("momentum_sgd") is kernel
    assert list(cpu_kernels.compiled()) == ["momentum_sgd"]
    w = _momentum_step(lr=0.1, momentum=0.5)
    numpy.testing.assert_array_equal(w.array, [101.0, 102.0])
    ((param, grad, v, lr, momentum),) = seen
    numpy.testing.assert_array_equal(param, [1.0, 2.0])
    numpy.testing.assert_array_equal(grad, [0.5, -1.0])
    numpy.testing.assert_array_equal(v, [0.0, 0.0])
    assert (lr, momentum) == (0.1, 0.5) and type(lr) is float


def test_a_declining_kernel_leaves_the_work_to_numpy(install):
    calls = []
    install(KernelPlugin(momentum_sgd=lambda *args: calls.append(args) or False))
    numpy.testing.assert_allclose(_momentum_step().array, [1.0 - 0.05, 2.0 + 0.1], rtol=1e-6)
    assert len(calls) == 1


def test_adam_kernel_gets_bounds_only_with_adabound(install):
    seen = []
    install(KernelPlugin(adam=lambda *args: seen.append(args[4:]) or False))
    for opt in (optimizers.Adam(alpha=0.1), optimizers.AMSBound(alpha=0.1, final_lr=0.2, gamma=0.5)):
        link = chainer.Link()
        with link.init_scope():
            link.w = chainer.Parameter(numpy.ones(3, numpy.float32))
        opt.setup(link)
        link.w.grad = numpy.ones(3, numpy.float32)
        opt.update()
    (vhat, lr, omb1, omb2, eps, wd, eta, lower, upper), bound = seen
    assert vhat is None and (lower, upper) == (None, None)
    assert lr == pytest.approx(0.1 * (1 - 0.999) ** 0.5 / (1 - 0.9)) and (omb1, omb2) == pytest.approx((0.1, 0.001))
    assert (eps, wd, eta) == (1e-8, 0, 1.0)
    assert bound[0] is not None  # AMSGrad's running maximum
    final = 0.2
    assert bound[-2:] == pytest.approx((final * (1 - 1 / (0.5 + 1)), final * (1 + 1 / 0.5)))


def test_unknown_slot_and_non_callable_are_refused_with_a_warning(install):
    install(KernelPlugin(conv_fast=lambda *a: True, adam="not a function"))
    with pytest.warns(chainer.plugins.PluginWarning) as record:
        assert cpu_kernels.get("adam") is None
    messages = " | ".join(str(w.message) for w in record)
    assert "unknown CPU kernel slot 'conv_fast'; the slots are: adam, " in messages
    assert "CPU kernel 'adam' must be callable, got 'not a function'" in messages
