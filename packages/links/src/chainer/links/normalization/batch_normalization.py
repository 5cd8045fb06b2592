"""Batch normalization layer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy

import chainer
from chainer import configuration, functions, variable
from chainer.links import _checks
from chainer.links.normalization import _stats
from chainer.utils import argument

_TEST_MESSAGE = "test argument is not supported anymore. Use chainer.using_config('train', False)"


class BatchNormalization(chainer.Link):
    """Batch normalization layer on outputs of linear or convolution layers (Ioffe and
    Szegedy, 2015).

    In training mode (``chainer.config.train``) the input is normalized with the mean
    and variance of the batch, :func:`~chainer.functions.batch_normalization`, and the
    running averages ``avg_mean`` and ``avg_var`` are updated:
    ``avg = decay * avg + (1 - decay) * batch_statistic`` (the batch variance unbiased,
    times ``m / (m - 1)`` for ``m`` values per feature). In test mode the running
    averages are used instead (:func:`~chainer.functions.fixed_batch_normalization`).

    With ``finetune=True`` in training mode the running averages become the exact
    average over the batches seen since :meth:`start_finetuning` (``decay = 1 - 1/N``),
    which is how the statistics of a trained network are computed over a data set.

    Args:
        size: Shape of the normalized features (an int for ``(size,)``, or a tuple), or
            ``None`` to take it from the first input (then ``axis`` is required).
        decay: Decay rate of the running averages.
        eps: Added to the variance for numerical stability.
        dtype: dtype of the parameters and statistics (``None``: ``chainer.config.dtype``,
            with ``mixed16`` mapped to float32).
        use_gamma: Whether to learn the scale ``gamma`` (otherwise it is 1).
        use_beta: Whether to learn the shift ``beta`` (otherwise it is 0).
        initial_gamma: Initializer of ``gamma``; ``None`` means 1.
        initial_beta: Initializer of ``beta``; ``None`` means 0.
        axis: The axes of the input that are reduced (an int or a sorted tuple of ints).
            ``None`` reduces the first axis and those after the features, e.g. ``(0, 2,
            3)`` for images with ``size=C``.
        initial_avg_mean: Initializer of ``avg_mean``; ``None`` means 0.
        initial_avg_var: Initializer of ``avg_var``; ``None`` means 1.

    Attributes:
        gamma (~chainer.Parameter): Scale (``None`` if ``use_gamma`` is ``False``).
        beta (~chainer.Parameter): Shift (``None`` if ``use_beta`` is ``False``).
        avg_mean: Running average of the mean (persistent).
        avg_var: Running average of the variance (persistent).
        N (int): Number of batches seen while fine-tuning (persistent).
        decay (float): Decay rate of the running averages.
        eps (float): Epsilon of the normalization.

    Example:
        >>> bn = L.BatchNormalization(3)
        >>> x = np.arange(12, dtype=np.float32).reshape(4, 3)
        >>> y = bn(x)
        >>> np.round(y.array[:, 0], 4)
        array([-1.3416, -0.4472,  0.4472,  1.3416], dtype=float32)
        >>> np.round(bn.avg_mean, 4)   # 0.9 * 0 + 0.1 * batch mean
        array([0.45, 0.55, 0.65], dtype=float32)
        >>> with chainer.using_config('train', False):
        ...     y = bn(x)   # uses avg_mean and avg_var
    """

    gamma: Any = None
    beta: Any = None
    avg_mean: Any = None
    avg_var: Any = None

    def __init__(
        self,
        size: Any = None,
        decay: float = 0.9,
        eps: float = 2e-5,
        dtype: Any = None,
        use_gamma: bool = True,
        use_beta: bool = True,
        initial_gamma: Any = None,
        initial_beta: Any = None,
        axis: Any = None,
        initial_avg_mean: Any = None,
        initial_avg_var: Any = None,
    ) -> None:
        super().__init__()
        where = type(self).__name__
        if size is None and axis is None:
            raise RuntimeError(f"{where}: size or axis is required (the shape of the features or the reduced axes)")
        if _checks.is_int(axis):
            axis = (int(axis),)
        if axis is not None:
            if not isinstance(axis, (tuple, list)) or not all(_checks.is_int(a) and a >= 0 for a in axis):
                raise ValueError(f"{where}: axis must be None, an int or a tuple of non-negative ints, got {axis!r}")
            if list(axis) != sorted(set(axis)):
                raise ValueError(f"{where}: the axes must be sorted in ascending order without repeats, got {axis!r}")
            axis = tuple(int(a) for a in axis)
        self.axis = axis
        self.decay = _checks.real(decay, "decay", where, 0.0, 1.0)
        self.eps = _checks.real(eps, "eps", where, 0.0, open_low=True)
        self._highprec_dtype = chainer.get_dtype(dtype, map_mixed16=numpy.float32)
        self._initial_avg_mean = initial_avg_mean
        self._initial_avg_var = initial_avg_var
        self.add_persistent("avg_mean", None)
        self.add_persistent("avg_var", None)
        self.add_persistent("N", 0)
        with self.init_scope():
            if use_gamma:
                self.gamma = chainer.Parameter(
                    _stats.typed_initializer(initial_gamma, 1, self._highprec_dtype, "initial_gamma", where)
                )
            if use_beta:
                self.beta = chainer.Parameter(
                    _stats.typed_initializer(initial_beta, 0, self._highprec_dtype, "initial_beta", where)
                )
        if size is not None:
            self._initialize_params(_stats.param_shape(size, where))

    def _initialize_params(self, shape: tuple[int, ...]) -> None:
        where = type(self).__name__
        dtype, device = self._highprec_dtype, self.device
        self.avg_mean = _stats.make_array(self._initial_avg_mean, 0, shape, dtype, device, "avg_mean", where)
        self.avg_var = _stats.make_array(self._initial_avg_var, 1, shape, dtype, device, "avg_var", where)
        self._initial_avg_mean = self._initial_avg_var = None
        if self.gamma is not None:
            _checks.initialize(self.gamma, shape, where)
        if self.beta is not None:
            _checks.initialize(self.beta, shape, where)

    def _ensure_initialized(self, x: Any) -> None:
        if self.avg_mean is None:
            shape = getattr(x, "shape", ())
            if self.axis and self.axis[-1] >= len(shape):
                raise ValueError(
                    f"{type(self).__name__}: axis {self.axis} is out of range for an input of shape {tuple(shape)}"
                )
            self._initialize_params(tuple(d for i, d in enumerate(shape) if i not in self.axis))

    def _gamma_beta(self) -> tuple[Any, Any]:
        gamma, beta = self.gamma, self.beta
        if gamma is None or beta is None:
            xp = self.device.xp
            with chainer.using_device(self.device):
                if gamma is None:
                    gamma = xp.ones(self.avg_mean.shape, dtype=self._highprec_dtype)
                if beta is None:
                    beta = xp.zeros(self.avg_mean.shape, dtype=self._highprec_dtype)
        return gamma, beta

    def _training_decay(self, finetune: bool) -> tuple[float, bool]:
        """The decay of this training step, and whether the statistics are updated."""
        if chainer.config.in_recomputing:
            # A recomputation (e.g. of F.forget) repeats a forward pass already counted.
            return self.decay, False
        if finetune:
            self.N += 1
            return 1.0 - 1.0 / self.N, True
        return self.decay, True

    def forward(self, x: Any, **kwargs: Any) -> variable.Variable:
        """Normalize ``x``.

        Args:
            x: Input whose non-reduced axes have the shape of the features.
            finetune: (keyword only) In training mode, accumulate the exact average of
                the statistics (see :meth:`start_finetuning`).

        Returns:
            The normalized, scaled and shifted output, of the shape of ``x``.
        """
        (finetune,) = argument.parse_kwargs(kwargs, ("finetune", False), test=_TEST_MESSAGE)
        self._ensure_initialized(x)
        gamma, beta = self._gamma_beta()
        if configuration.config.train:
            decay, update = self._training_decay(finetune)
            return functions.batch_normalization(
                x,
                gamma,
                beta,
                eps=self.eps,
                running_mean=self.avg_mean if update else None,
                running_var=self.avg_var if update else None,
                decay=decay,
                axis=self.axis,
            )
        return functions.fixed_batch_normalization(
            x, gamma, beta, self.avg_mean, self.avg_var, self.eps, axis=self.axis
        )

    def start_finetuning(self) -> None:
        """Reset the fine-tuning count ``N``: the next ``forward(x, finetune=True)`` calls
        average the statistics of the batches they see, from scratch."""
        self.N = 0

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        # What Chainer 7.8.1 prints: the leading size of the statistics, no axis.
        yield "size", None if self.avg_mean is None else self.avg_mean.shape[0]
        yield "decay", self.decay
        yield "eps", self.eps
        yield "dtype", self._highprec_dtype
        yield "use_gamma", self.gamma is not None
        yield "use_beta", self.beta is not None


__all__ = ["BatchNormalization"]
