"""What the chainer-cudnn tests share: a stand-in cuDNN library registered on a machine
whose CUDA counts as usable (no GPU needed), and, on a GPU, a count of the calls that the
real plugin served."""

import collections
import contextlib

import pytest

import chainer
from chainer.backends import cuda, cudnn_library


class StandInLibrary:
    """A library that claims to run and declines every convolution (CuPy computes them)."""

    def unavailable_reason(self):
        return None

    def version(self):
        return 91300

    def describe(self):
        return "stand-in 9.13.0"

    def convolution_forward(self, *args, **kwargs):
        return None

    convolution_backward_data = convolution_backward_filter = convolution_forward


@contextlib.contextmanager
def registered(monkeypatch, library, name):
    """``library`` registered (preferred over the real one) under plugin ``name``, with
    CUDA declared usable; unregistered afterwards."""

    class StandInPlugin:
        @chainer.hookimpl
        def chainer_register_cudnn(self, register):
            register(library)

    monkeypatch.setattr(cuda, "_unavailable_reason", lambda: None)
    monkeypatch.setattr(cudnn_library, "_state", None)
    chainer.plugins.register(StandInPlugin(), name=name, override=True)
    try:
        yield
    finally:
        chainer.plugins.unregister(name=name)
        cudnn_library._state = None


def count_served(monkeypatch, library, names):
    """A Counter of the calls of ``library`` (chainer-cudnn's) that cuDNN served, per
    method of ``names`` (each call with a non-None result); skips where the plugin is not
    registered, fails where it is but cuDNN cannot run."""
    if cudnn_library.origin() != "cudnn":
        pytest.skip("chainer-cudnn's plugin is not registered here (CHAINER_DISABLE_PLUGINS names it)")
    if not cuda.cudnn_enabled:
        pytest.fail(f"cuDNN is not usable on this GPU machine: {cudnn_library.status()[1]}")
    counts = collections.Counter()
    for name in names:
        original = getattr(library, name)

        def counting(*args, _original=original, _name=name, **kwargs):
            result = _original(*args, **kwargs)
            if result is not None:
                counts[_name] += 1
            return result

        monkeypatch.setattr(library, name, counting)
    return counts
