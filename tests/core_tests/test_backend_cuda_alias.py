"""``chainer.backend.cuda``: code written for Chainer 7.8.1 imports the CUDA module from
``chainer.backend`` (``from chainer.backend import cuda``; ChainerMN's tests do)."""

from chainer import backend, backends


def test_cuda_module_under_chainer_backend():
    from chainer.backend import cuda

    assert cuda is backends.cuda is backend.cuda
    assert cuda.GpuDevice is backend.GpuDevice
