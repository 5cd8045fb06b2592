"""Decorrelated batch normalization layer."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import numpy

import chainer
from chainer import backend, configuration, functions, variable
from chainer import serializer as serializer_module
from chainer.links import _checks
from chainer.utils import argument

_WHERE = "DecorrelatedBatchNormalization"


def fix_avg_mean(avg_mean: Any, groups: int) -> Any:
    """The running mean of a model saved before Chainer v7 (shape ``(C,)``, shared by the
    groups) in the current layout ``(groups, C)``: every group gets a copy."""
    xp = backend.get_array_module(avg_mean)
    return xp.ascontiguousarray(xp.broadcast_to(avg_mean, (groups,) + tuple(avg_mean.shape)))


def fix_avg_projection(avg_projection: Any, groups: int) -> Any:
    """The running whitening matrix of a model saved before Chainer v7 (shape ``(C, C)``)
    in the current layout ``(groups, C, C)``: every group gets a copy."""
    xp = backend.get_array_module(avg_projection)
    return xp.ascontiguousarray(xp.broadcast_to(avg_projection, (groups,) + tuple(avg_projection.shape)))


class DecorrelatedBatchNormalization(chainer.Link):
    """Decorrelated batch normalization layer (Huang et al., 2018).

    The channels are split into ``groups`` groups; in training mode the channels of each
    group are whitened (centred and multiplied by the inverse square root of their
    covariance over the batch and spatial axes) by
    :func:`~chainer.functions.decorrelated_batch_normalization`, and running averages of
    the mean and of the whitening matrix are kept. In test mode those averages are used
    (:func:`~chainer.functions.fixed_decorrelated_batch_normalization`). There are no
    learnable parameters.

    Args:
        size: Number of channels; a multiple of ``groups``.
        groups: Number of groups.
        decay: Decay rate of the running averages.
        eps: Added to the covariance's diagonal for numerical stability.
        dtype: dtype of the statistics.

    Attributes:
        avg_mean: Running average of the mean, shape ``(groups, size // groups)``
            (persistent).
        avg_projection: Running average of the whitening matrix, shape ``(groups, size //
            groups, size // groups)`` (persistent).
        N (int): Number of batches seen while fine-tuning (persistent).

    Example:
        >>> dbn = L.DecorrelatedBatchNormalization(4, groups=2)
        >>> dbn.avg_projection.shape
        (2, 2, 2)
        >>> dbn(np.random.rand(6, 4, 3).astype(np.float32)).shape
        (6, 4, 3)
    """

    def __init__(
        self, size: int, groups: int = 16, decay: float = 0.9, eps: float = 2e-5, dtype: Any = numpy.float32
    ) -> None:
        super().__init__()
        size = _checks.positive_int(size, "size", _WHERE)
        groups = _checks.positive_int(groups, "groups", _WHERE)
        if size % groups:
            raise ValueError(f"{_WHERE}: size ({size}) must be a multiple of groups ({groups})")
        self.size = size
        self.groups = groups
        self.decay = _checks.real(decay, "decay", _WHERE, 0.0, 1.0)
        self.eps = _checks.real(eps, "eps", _WHERE, 0.0, open_low=True)
        self._dtype = chainer.get_dtype(dtype, map_mixed16=numpy.float32)
        C = size // groups
        self.add_persistent("avg_mean", numpy.zeros((groups, C), dtype=self._dtype))
        projection = numpy.zeros((groups, C, C), dtype=self._dtype)
        projection[:, numpy.arange(C), numpy.arange(C)] = 1
        self.add_persistent("avg_projection", projection)
        self.add_persistent("N", 0)

    def forward(self, x: Any, **kwargs: Any) -> variable.Variable:
        """Whiten ``x`` of shape ``(N, size, ...)``.

        Args:
            x: Input.
            finetune: (keyword only) In training mode, accumulate the exact average of
                the statistics (see :meth:`start_finetuning`).
        """
        (finetune,) = argument.parse_kwargs(kwargs, ("finetune", False))
        if configuration.config.train:
            if chainer.config.in_recomputing:
                return functions.decorrelated_batch_normalization(x, groups=self.groups, eps=self.eps)
            if finetune:
                self.N += 1
                decay = 1.0 - 1.0 / self.N
            else:
                decay = self.decay
            return functions.decorrelated_batch_normalization(
                x,
                groups=self.groups,
                eps=self.eps,
                running_mean=self.avg_mean,
                running_projection=self.avg_projection,
                decay=decay,
            )
        return functions.fixed_decorrelated_batch_normalization(x, self.avg_mean, self.avg_projection, self.groups)

    def serialize(self, serializer: Any) -> None:
        """Save or load the statistics. Files of Chainer before v7, whose statistics have
        no group axis (``avg_mean`` of shape ``(size // groups,)``), load too: every group
        gets the saved values (with a ``UserWarning`` when there are several groups)."""
        if not isinstance(serializer, serializer_module.Deserializer):
            super().serialize(serializer)
            return
        validating = getattr(serializer, "_validating", False) is True
        n = serializer("N", self.N)
        saved = {name: serializer(name, None) for name in ("avg_mean", "avg_projection")}
        if validating:
            return
        self.N = n
        for name, value in saved.items():
            if value is not None:
                self._load_statistic(name, value)

    def _load_statistic(self, name: str, saved: Any) -> None:
        target = getattr(self, name)
        saved = backend.cpu().send(saved)
        if saved.shape == target.shape[1:]:
            if self.groups != 1:
                warnings.warn(
                    f"{_WHERE}: {name} was saved without a group axis (a model of Chainer before v7); "
                    f"each of the {self.groups} groups gets the saved values",
                    UserWarning,
                    stacklevel=4,
                )
            saved = (fix_avg_mean if name == "avg_mean" else fix_avg_projection)(saved, self.groups)
        elif saved.shape != target.shape:
            raise ValueError(
                f"{_WHERE}: cannot load {name}: the file has shape {saved.shape}, the link needs {target.shape} "
                f"(or {target.shape[1:]} from a model saved before groups existed)"
            )
        backend.copyto(target, self.device.send(numpy.ascontiguousarray(saved, dtype=target.dtype)))

    def start_finetuning(self) -> None:
        """Reset the fine-tuning count ``N`` (see :meth:`BatchNormalization.start_finetuning`)."""
        self.N = 0

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        yield "size", self.size
        yield "groups", self.groups
        yield "decay", self.decay
        yield "eps", self.eps
        yield "dtype", self._dtype


__all__ = ["DecorrelatedBatchNormalization"]
