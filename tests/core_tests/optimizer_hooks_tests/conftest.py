import numpy
import pytest

import chainer


class ParamsLink(chainer.Link):
    """A link holding the given arrays as parameters p0, p1, ... (``ps`` in order)."""

    def __init__(self, *arrays):
        super().__init__()
        with self.init_scope():
            for i, a in enumerate(arrays):
                setattr(self, f"p{i}", chainer.Parameter(numpy.array(a)))
        self.ps = [getattr(self, f"p{i}") for i in range(len(arrays))]


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
