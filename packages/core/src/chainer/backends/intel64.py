"""The Intel64 backend: CPU computation accelerated by oneDNN, provided by a plugin.

Chainer 7 computed ``'@intel64'`` with iDeep (``ideep4py``), which has no release for
Python 3.11+. Here the backend and its kernels come from a plugin distribution,
``chainer-intel64`` (oneDNN from PyPI): it registers the ``intel64`` backend through
``chainer_register_backends`` and its kernels through ``chainer_register_intel64_kernels``
under the slot names of :data:`SLOTS`. Core keeps no oneDNN code: it asks :func:`run` for
a slot's result where a function has one, and computes with NumPy when the answer is
``None`` (no plugin, ``use_ideep='never'``, or a kernel that declines its arguments).

The device's arrays are plain ``numpy.ndarray`` (the plugin's kernels read and write
NumPy arrays in C order), so every NumPy function keeps working on them, and
``chainer.config.use_ideep`` decides where oneDNN computes, for any NumPy input as in
Chainer 7: ``'never'`` (the default; ``CHAINER_USE_IDEEP`` sets it) nowhere,
``'auto'`` where the plugin knows it to be faster, ``'always'`` wherever it can.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from chainer import _backend, configuration, plugins

SLOTS: dict[str, str] = {
    "convolution_forward": (
        "convolution_forward(always, x, W, b, stride, pad, dilate, groups, outsize) -> y or None: "
        "the grouped N-D cross-correlation of chainer.functions.connection._conv_kernels.conv_forward."
    ),
    "deconvolution_forward": (
        "deconvolution_forward(always, x, W, b, stride, pad, dilate, groups, outsize) -> y or None: "
        "the transposed convolution of _conv_kernels.deconv_forward (hence also convolutions' input gradients)."
    ),
    "convolution_backward_weights": (
        "convolution_backward_weights(always, x, gy, ksize, stride, pad, dilate, groups, w_dtype) -> gW or None: "
        "the kernel gradient of _conv_kernels.conv_grad_weight."
    ),
    "linear_forward": "linear_forward(always, x, W, b) -> y or None: x W^T + b for 2-D x and W (b may be None).",
    "linear_backward_data": "linear_backward_data(always, gy, W) -> gx or None: gy W.",
    "linear_backward_weights": "linear_backward_weights(always, x, gy) -> gW or None: gy^T x.",
    "max_pooling_forward": (
        "max_pooling_forward(always, x, geometry) -> (y, indexes) or None: the window maxima and the int8 offsets "
        "of their first maxima, as chainer.functions.pooling._pooling_kernels.max_with_index."
    ),
    "max_pooling_backward": (
        "max_pooling_backward(always, gy, indexes, geometry) -> gx or None: as _pooling_kernels.index_scatter."
    ),
    "average_pooling_forward": (
        "average_pooling_forward(always, x, geometry, inside_only) -> y or None: the window means, over the whole "
        "window (padding as zeros) or, with inside_only, over its elements inside the image."
    ),
    "average_pooling_backward": (
        "average_pooling_backward(always, gy, geometry, inside_only) -> gx or None: the adjoint of the forward."
    ),
    "relu_forward": "relu_forward(always, x) -> y or None: max(x, 0).",
    "relu_backward": "relu_backward(always, y, gy) -> gx or None: gy where the output y > 0, else 0.",
    "batch_normalization_forward": (
        "batch_normalization_forward(always, x, gamma, beta, eps, layout, stats) -> (y, mean, var, inv_std) or None: "
        "as chainer.functions.normalization.batch_normalization.GeneralBatchNormalizationImpl.forward."
    ),
    "batch_normalization_backward": (
        "batch_normalization_backward(always, x, gamma, gy, mean, inv_std, layout) -> (gx, ggamma, gbeta) or None: "
        "as GeneralBatchNormalizationImpl.backward."
    ),
    "local_response_normalization_forward": (
        "local_response_normalization_forward(always, x, half, k, alpha, beta) -> y or None: x * (k + alpha * "
        "sum of x**2 over channels c - half .. c + half)**-beta."
    ),
    "local_response_normalization_backward": (
        "local_response_normalization_backward(always, x, gy, half, k, alpha, beta) -> gx or None: its gradient."
    ),
    "runtime_info": "runtime_info() -> str: the library and instruction set (doctor's row; takes no 'always').",
}
"""Slot name -> the call its kernel receives and what it returns. ``always`` is ``True``
under ``use_ideep='always'`` and ``False`` under ``'auto'``; a kernel returns ``None`` to
decline (then core computes with NumPy), and otherwise the result NumPy would give, up
to floating-point rounding, in the dtype NumPy's code would give."""


def _make_kernel_entry(slot: str, function: Callable[..., Any]) -> tuple[str, Callable[..., Any]]:
    if slot not in SLOTS:
        raise ValueError(f"unknown intel64 kernel slot {slot!r}; the slots are: {', '.join(sorted(SLOTS))}")
    if not callable(function):
        raise TypeError(f"intel64 kernel {slot!r} must be callable, got {function!r}")
    return slot, function


kernels: plugins.Registry[Callable[..., Any]] = plugins.Registry("chainer_register_intel64_kernels", _make_kernel_entry)


def run(slot: str, *args: Any) -> Any:
    """The result of ``slot``'s kernel for ``args`` under ``chainer.config.use_ideep``, or
    ``None`` when NumPy must compute it. Cheap when ``use_ideep`` is ``'never'``: one
    configuration lookup (the per-thread snapshot of hot_flags: ``config.use_ideep``'s
    thread-local lookup cost several times more, on every convolution, linear and ReLU)."""
    mode = configuration.hot_flags().use_ideep
    if mode == "never":
        return None
    kernel = kernels.get(slot)
    if kernel is None:
        return None
    if mode not in ("always", "auto"):
        raise ValueError(f"chainer.config.use_ideep must be 'always', 'auto' or 'never', got {mode!r}")
    return kernel(mode == "always", *args)


_INSTALL_HINT = "install chainer-intel64 (pip install chainer-intel64), which computes it with oneDNN"


def runtime_info() -> str:
    """What computes ``'@intel64'`` here (the plugin's library and instruction set), or
    why it is not available."""
    reason = _ideep_import_error()
    if reason is not None:
        return f"not available ({reason})"
    describe = kernels.get("runtime_info")
    return "available" if describe is None else describe()


def _ideep_import_error() -> str | None:
    """Why ``'@intel64'`` cannot be used here, or ``None`` when it can."""
    from chainer import backend

    entry = backend.backends.get("intel64")
    if entry is None:
        return f"no plugin provides the '@intel64' backend: {_INSTALL_HINT}"
    return entry.unavailable_reason()


def is_ideep_available() -> bool:
    """Return whether the ``'@intel64'`` backend (oneDNN, through chainer-intel64) can be used."""
    return _ideep_import_error() is None


def check_ideep_available() -> None:
    """Raise ``RuntimeError`` saying why ``'@intel64'`` cannot be used, if it cannot."""
    reason = _ideep_import_error()
    if reason is not None:
        raise RuntimeError(f"chainer.backends.intel64: {reason}")


def should_use_ideep(level: str) -> bool:
    """Whether to compute with oneDNN at ``level`` (``'==always'`` or ``'>=auto'``) under
    ``chainer.config.use_ideep``; always ``False`` when ``'@intel64'`` is not available."""
    if level not in ("==always", ">=auto"):
        raise ValueError(f"intel64.should_use_ideep: level must be '==always' or '>=auto', got {level!r}")
    mode = configuration.config.use_ideep
    if mode not in ("always", "auto", "never"):
        raise ValueError(f"chainer.config.use_ideep must be 'always', 'auto' or 'never', got {mode!r}")
    if not is_ideep_available():
        return False
    if level == "==always":
        return mode == "always"
    return mode in ("always", "auto")


class _NoMdarray:
    """iDeep's array type, which no object is here: the ``'@intel64'`` device keeps its
    arrays as ``numpy.ndarray`` (see the module's docstring)."""


mdarray = _NoMdarray


def __getattr__(name: str) -> Any:
    if name == "ideep":
        raise AttributeError(
            "chainer.backends.intel64.ideep: iDeep (ideep4py) is not used; '@intel64' computes with oneDNN through "
            "chainer-intel64 on NumPy arrays (use chainer.get_device('@intel64').send(array))"
        )
    raise AttributeError(f"module 'chainer.backends.intel64' has no attribute {name!r}")


def inputs_all_ready(inputs: Any, supported_ndim: tuple[int, ...] = (2, 4)) -> bool:
    """Return whether oneDNN can take ``inputs``: ``'@intel64'`` is available and every
    input is ``None`` or a NumPy array with one of ``supported_ndim`` axes."""
    if not is_ideep_available():
        return False
    return all(x is None or (isinstance(x, numpy.ndarray) and x.ndim in supported_ndim) for x in inputs)


class Intel64Device(_backend.Device):
    """The CPU with oneDNN acceleration. Its specifier is ``'@intel64'``; its arrays are
    NumPy arrays, so :meth:`from_array` claims none (they belong to ``'@numpy'``)."""

    xp = numpy
    supported_array_types = (numpy.ndarray, mdarray)

    def __init__(self) -> None:
        check_ideep_available()

    @property
    def name(self) -> str:
        return "@intel64"

    def __repr__(self) -> str:
        return "<Intel64Device>"

    @staticmethod
    def from_array(array: Any) -> Intel64Device | None:
        return None

    def send_array(self, array: Any) -> Any:
        if isinstance(array, numpy.ndarray):
            return array
        from chainer.backends import _cpu

        return _cpu.CpuDevice().send_array(array)
