"""Backend modules: ``chainer.backends.cuda`` (CuPy) and ``chainer.backends.intel64``."""

from chainer.backends import cuda, intel64

__all__ = ["cuda", "intel64"]
