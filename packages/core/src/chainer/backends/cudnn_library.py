"""cuDNN for the GPU convolutions and batch normalization, provided by a plugin through
``chainer_register_cudnn``.

CuPy 14 no longer binds cuDNN, so core computes convolutions on the GPU as im2col plus
cuBLAS. A plugin (the ``chainer-cudnn`` distribution, built on NVIDIA's cuDNN frontend)
can register a :class:`CudnnLibrary`; the convolution kernels then ask it first wherever
``chainer.config.use_cudnn`` allows (:func:`chainer.should_use_cudnn`), and compute with
CuPy when it declines a call by returning ``None`` (an unsupported geometry, say).
Batch normalization is optional (:class:`CudnnBatchNormalization`): a library without
those methods serves the convolutions only.

The library is asked once, on first use, whether it can run here
(:meth:`CudnnLibrary.unavailable_reason`); the answer is what
``chainer.backends.cuda.cudnn_enabled`` and ``python -m chainer doctor`` report.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from chainer import plugins


@runtime_checkable
class CudnnLibrary(Protocol):
    """What a ``chainer_register_cudnn`` plugin registers.

    Arrays are CuPy arrays on the current device, C-contiguous, of one floating dtype
    (``x``, ``W``, ``gy`` and ``b`` alike); geometry tuples hold one int per spatial axis.
    Every call runs on CuPy's current stream. The keyword flags come from
    ``chainer.config``: ``deterministic`` (``cudnn_deterministic``: only algorithms whose
    results are bitwise repeatable), ``autotune`` (time the candidate algorithms once per
    geometry and keep the fastest) and ``tensor_core`` (reduced-precision tensor-core math,
    TF32 for float32, is allowed; :func:`chainer.should_use_cudnn_tensor_core`).
    """

    def unavailable_reason(self) -> str | None:
        """``None`` when the library can run on this machine, else a sentence saying why not.
        Called at most once, after CUDA itself was found usable."""

    def version(self) -> int:
        """cuDNN's version number as ``cudnnGetVersion`` gives it (e.g. ``91300``)."""

    def describe(self) -> str:
        """One line for ``chainer.print_runtime_info`` (versions of cuDNN and its bindings)."""

    def convolution_forward(
        self,
        x: Any,
        W: Any,
        b: Any,
        stride: Sequence[int],
        pad: Sequence[int],
        dilate: Sequence[int],
        groups: int,
        outsize: Sequence[int],
        *,
        deterministic: bool,
        autotune: bool,
        tensor_core: bool,
    ) -> Any:
        """``y = conv(x, W) + b`` (``b`` may be ``None``), ``(N, O, *outsize)``; cross-correlation
        with ``pad`` zeros before each spatial axis and as many after as ``outsize`` needs."""

    def convolution_backward_data(
        self,
        gy: Any,
        W: Any,
        b: Any,
        stride: Sequence[int],
        pad: Sequence[int],
        dilate: Sequence[int],
        groups: int,
        outsize: Sequence[int],
        *,
        deterministic: bool,
        autotune: bool,
        tensor_core: bool,
    ) -> Any:
        """The transposed convolution (the adjoint in ``x`` of :meth:`convolution_forward` with
        kernel ``W``) of ``gy`` ``(N, O, *in)``, plus ``b`` per output channel when given:
        ``(N, C, *outsize)`` where ``outsize`` is the image size."""

    def convolution_backward_filter(
        self,
        x: Any,
        gy: Any,
        ksize: Sequence[int],
        stride: Sequence[int],
        pad: Sequence[int],
        dilate: Sequence[int],
        groups: int,
        *,
        deterministic: bool,
        autotune: bool,
        tensor_core: bool,
    ) -> Any:
        """The kernel gradient ``(O, C // groups, *ksize)`` of the convolution of ``x`` whose
        output gradient is ``gy``."""


class CudnnBatchNormalization(Protocol):
    """Batch normalization, which a :class:`CudnnLibrary` may also implement (optional:
    core asks for each method with ``getattr`` and computes with CuPy where it is absent).

    ``x`` (and ``gy``, ``y``, ``gx``) is ``(N, C, *spatial)``, C-contiguous, normalized per
    channel over every other axis; ``gamma``, ``beta`` and the statistics are ``(C,)``.
    Like the convolutions, each method returns ``None`` to decline a call (a dtype or
    geometry cuDNN has no engine for) before it changes anything.
    """

    def batch_normalization_forward(
        self,
        x: Any,
        gamma: Any,
        beta: Any,
        eps: float,
        running_mean: Any,
        running_var: Any,
        decay: float,
        *,
        deterministic: bool,
    ) -> tuple[Any, Any, Any] | None:
        """``(y, mean, inv_std)`` with the batch's statistics in float32 (``inv_std`` is
        ``1 / sqrt(var + eps)`` of the biased variance). ``running_mean`` and
        ``running_var`` (each may be ``None``) are updated in place as
        :func:`chainer.functions.batch_normalization` documents: ``decay * running + (1 -
        decay) * batch``, with the unbiased variance ``m / (m - 1) * var`` of the ``m``
        elements per channel."""

    def batch_normalization_backward(
        self, x: Any, gamma: Any, gy: Any, mean: Any, inv_std: Any, *, deterministic: bool
    ) -> tuple[Any, Any, Any] | None:
        """``(gx, ggamma, gbeta)`` from the statistics of the forward (``ggamma`` and
        ``gbeta`` in ``gamma``'s dtype)."""

    def batch_normalization_inference(
        self, x: Any, gamma: Any, beta: Any, mean: Any, var: Any, eps: float, *, deterministic: bool
    ) -> Any:
        """``gamma * (x - mean) / sqrt(var + eps) + beta`` with the given statistics."""


OPTIONAL = tuple(name for name in CudnnBatchNormalization.__dict__ if not name.startswith("_"))
"""The methods a library may leave out (core then computes those operations with CuPy)."""

_REQUIRED = tuple(name for name in CudnnLibrary.__dict__ if not name.startswith("_"))


def _make_entry(library: Any) -> tuple[str, Any]:
    missing = [name for name in _REQUIRED if not callable(getattr(library, name, None))]
    if missing:
        raise TypeError(
            f"a cuDNN library must implement chainer.backends.cudnn_library.CudnnLibrary; "
            f"{type(library).__name__} lacks {', '.join(missing)}"
        )
    return "cudnn", library


libraries: plugins.Registry[Any] = plugins.Registry("chainer_register_cudnn", _make_entry)

_state: tuple[int, Any, str | None] | None = None  # (registry generation, library, reason)


def status() -> tuple[Any, str | None]:
    """``(library, None)`` when a registered cuDNN library can run here, else
    ``(library or None, why not)``. Computed once per set of registered plugins."""
    global _state
    library = libraries.get("cudnn")
    if _state is not None and _state[0] == plugins._manager.generation and _state[1] is library:
        return library, _state[2]
    reason: str | None
    if library is None:
        reason = "no cuDNN plugin is installed (pip install 'chainer-cudnn[cu13]', or [cu12] for CUDA 12)"
    else:
        from chainer.backends import cuda

        cuda_reason = cuda._unavailable_reason()
        reason = None if cuda_reason is None else f"CUDA is not usable here: {cuda_reason}"
        if reason is None:
            try:
                reason = library.unavailable_reason()
            except Exception as exc:  # a broken library must not break the GPU code paths
                reason = f"the cuDNN plugin failed to start ({type(exc).__name__}: {exc})"
    _state = (plugins._manager.generation, library, reason)
    return library, reason


def usable() -> Any:
    """The registered :class:`CudnnLibrary` when it can run here, else ``None``."""
    library, reason = status()
    return library if reason is None else None


def operation(name: str) -> Any:
    """The bound method ``name`` (one of :data:`OPTIONAL`) of the usable library, or
    ``None`` where no library is usable or it does not implement that operation."""
    library = usable()
    return None if library is None else getattr(library, name, None)


def origin() -> str | None:
    """Name of the plugin that registered the cuDNN library (``None`` without one)."""
    return libraries.origin("cudnn")


__all__ = [
    "OPTIONAL",
    "CudnnBatchNormalization",
    "CudnnLibrary",
    "libraries",
    "operation",
    "origin",
    "status",
    "usable",
]
