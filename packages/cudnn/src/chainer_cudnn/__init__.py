"""chainer-cudnn: cuDNN for Chainer's GPU convolutions, through NVIDIA's cuDNN frontend.

Installing the distribution is enough: its entry point registers :mod:`.plugin` when
``chainer`` is imported, and the convolutions on CuPy arrays then run on cuDNN wherever
``chainer.config.use_cudnn`` allows (see :mod:`chainer.backends.cudnn_library`).
"""

from chainer_cudnn._version import __version__

__all__ = ["__version__"]
