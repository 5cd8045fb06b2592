"""chainer-cpu-kernels: compiled CPU kernels that chainer-core uses in place of several
NumPy passes where one loop does (see :mod:`chainer.backends.cpu_kernels`).

Installing the distribution is enough: its entry point registers :mod:`.plugin` when
``chainer`` is imported. Without it, chainer-core computes the same results with NumPy.
"""

from chainer_cpu_kernels._version import __version__

__all__ = ["__version__"]
