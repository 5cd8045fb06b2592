"""A third-party link collection for tests: ``chainer.links.TinyScale`` multiplies its
input by a learnable scalar."""

import numpy

import chainer


class TinyScale(chainer.Link):
    def __init__(self, initial=2.0):
        super().__init__()
        with self.init_scope():
            self.s = chainer.Parameter(numpy.array(initial, numpy.float32))

    def forward(self, x):
        return x * chainer.functions.broadcast_to(self.s, x.shape)


@chainer.hookimpl
def chainer_register_links(register):
    register(TinyScale)
