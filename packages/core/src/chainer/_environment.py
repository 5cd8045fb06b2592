"""Default values of the documented configuration keys, read from the environment."""

from __future__ import annotations

import os

import numpy

from chainer import configuration


class _Mixed16:
    """The ``mixed16`` dtype: float16 arrays with float32 master copies of parameters."""

    name = "mixed16"
    kind = "f"
    # The dtype of its arrays: NumPy reads ``.dtype`` of an object given as a dtype, so
    # ``array.astype(chainer.mixed16)`` and ``numpy.dtype(chainer.mixed16)`` mean float16,
    # as in Chainer 7.8.1.
    dtype = numpy.dtype(numpy.float16)

    def __repr__(self) -> str:
        return "dtype('mixed16')"

    def __reduce__(self) -> str:
        return "mixed16"


mixed16 = _Mixed16()

_TERNARY = ("always", "auto", "never")


def _flag(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    if raw in ("0", "1"):
        return raw == "1"
    raise ValueError(f"environment variable {name} must be '0' or '1', got {raw!r}")


def _ternary(name: str, default: str) -> str:
    raw = os.environ.get(name, default)
    if raw not in _TERNARY:
        raise ValueError(f"environment variable {name} must be one of {_TERNARY}, got {raw!r}")
    return raw


def _dtype(name: str) -> object:
    raw = os.environ.get(name, "float32")
    if raw == "mixed16":
        return mixed16
    if raw in ("float16", "float32", "float64"):
        return numpy.dtype(raw)
    raise ValueError(f"environment variable {name} must be one of mixed16, float16, float32, float64, got {raw!r}")


def apply_defaults(config: configuration.GlobalConfig) -> None:
    """Set every documented key on ``config`` from its environment variable or default."""
    config.autotune = False
    # None, or 'cudnn_fast': links created under it store their parameters in cuDNN's
    # preferred memory layouts (Convolution2D's kernel channel-last; chainer.memory_layouts).
    config.compute_mode = None
    config.cudnn_deterministic = _flag("CHAINER_CUDNN_DETERMINISTIC", False)
    config.cudnn_fast_batch_normalization = _flag("CHAINER_CUDNN_FAST_BATCH_NORMALIZATION", False)
    config.debug = _flag("CHAINER_DEBUG", False)
    config.dtype = _dtype("CHAINER_DTYPE")
    config.enable_backprop = True
    config.in_recomputing = False
    config.keep_graph_on_report = _flag("CHAINER_KEEP_GRAPH_ON_REPORT", False)
    config.lazy_grad_sum = _flag("CHAINER_LAZY_GRAD_SUM", False)
    config.schedule_func = None
    config.train = True
    config.type_check = _flag("CHAINER_TYPE_CHECK", True)
    config.use_cudnn = _ternary("CHAINER_USE_CUDNN", "auto")
    config.use_cudnn_tensor_core = _ternary("CHAINER_USE_CUDNN_TENSOR_CORE", "auto")
    config.use_ideep = _ternary("CHAINER_USE_IDEEP", "never")
    config.use_static_graph = _flag("CHAINER_USE_STATIC_GRAPH", True)
    config.warn_nondeterministic = _flag("CHAINER_WARN_NONDETERMINISTIC", False)
