"""chainer-intel64: the ``'@intel64'`` backend of Chainer, computed by oneDNN.

Installing the distribution is enough: its entry point registers :mod:`.plugin` when
``chainer`` is imported, which provides the ``'@intel64'`` device and the kernels that
``chainer.config.use_ideep`` (``'auto'`` or ``'always'``) turns on. oneDNN itself is
loaded on first use (see :mod:`._library`).
"""

from chainer_intel64._version import __version__

__all__ = ["__version__"]
