"""Backend modules: ``chainer.backends.cuda`` (CuPy), ``chainer.backends.intel64`` and
``chainer.backends.cpu_kernels`` (compiled CPU kernels from plugins)."""

from chainer.backends import cpu_kernels, cuda, intel64

__all__ = ["cpu_kernels", "cuda", "intel64"]
