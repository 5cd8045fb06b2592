import numpy
import pytest

import chainer


class ParamsLink:
    """A stand-in link holding the given parameters, named '/p0', '/p1', ..."""

    def __init__(self, *arrays):
        self.ps = [chainer.Parameter(numpy.array(a)) for a in arrays]

    def params(self, include_uninit=True):
        yield from self.ps

    def namedparams(self, include_uninit=True):
        for i, p in enumerate(self.ps):
            yield f"/p{i}", p

    def cleargrads(self):
        for p in self.ps:
            p.cleargrad()

    def zerograds(self):
        for p in self.ps:
            p.zerograd()


def sgd_step(hook, arrays, grads, lr=1.0, loss_scale=None, as_rule_hook=False):
    """One SGD step with ``hook`` on parameters ``arrays`` with gradients ``grads``;
    return the new arrays (the step shows the gradient the hook produced)."""
    link = ParamsLink(*arrays)
    opt = chainer.optimizers.SGD(lr=lr).setup(link)
    if as_rule_hook:
        for p in link.params():
            p.update_rule.add_hook(hook)
    else:
        opt.add_hook(hook)
    for p, g in zip(link.ps, grads):
        p.grad = numpy.array(g, dtype=p.dtype) * (1 if loss_scale is None else loss_scale)
        p._loss_scale = loss_scale
    opt.update()
    return [p.array for p in link.ps]


@pytest.fixture
def step():
    return sgd_step


@pytest.fixture
def make_link():
    return ParamsLink
