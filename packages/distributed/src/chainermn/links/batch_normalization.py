"""MultiNodeBatchNormalization: batch statistics over the whole global batch."""

from __future__ import annotations

import copy
from typing import Any

import numpy

import chainer
import chainer.functions as F
from chainer import initializers
from chainermn.functions import batch_normalization as mn_batch_normalization


class MultiNodeBatchNormalization(chainer.Link):
    """Batch normalization layer that can use the whole batch stats.

    In training, the mean and variance are those of the global batch (every process's
    batch): each process sums its ``x`` and ``x**2`` over the batch, one differentiable
    all-reduce adds the sums up, and the normalization's backward exchanges the gradient
    sums the same way. In inference the running averages are used, as in
    :class:`chainer.links.BatchNormalization`.

    Args:
        size: Shape of the channel dimensions (an int or a tuple), the axes after the
            batch axis that are not reduced.
        comm: ChainerMN communicator.
        decay: Decay rate of the running averages.
        eps: Added to the variance for numerical stability.
        dtype: Dtype of the parameters and statistics (default ``chainer.get_dtype()``;
            float32 for ``chainer.mixed16``).
        use_gamma: Learn a scale.
        use_beta: Learn a shift.
        initial_gamma: Initializer of the scale (default 1).
        initial_beta: Initializer of the shift (default 0).
        communication_backend: ``'mpi'``, ``'nccl'`` (needs a ``'pure_nccl'`` or
            ``'non_cuda_aware'`` communicator, and the layer on the GPU) or ``'auto'``
            (``'nccl'`` with those communicators, ``'mpi'`` otherwise).
    """

    def __init__(
        self,
        size: Any,
        comm: Any,
        decay: float = 0.9,
        eps: float = 2e-5,
        dtype: Any = None,
        use_gamma: bool = True,
        use_beta: bool = True,
        initial_gamma: Any = None,
        initial_beta: Any = None,
        communication_backend: str = "auto",
    ) -> None:
        super().__init__()
        where = "MultiNodeBatchNormalization"
        try:
            selector = mn_batch_normalization.MultiNodeBNImplSelector(comm, communication_backend)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        shape = (size,) if isinstance(size, (int, numpy.integer)) else tuple(size)
        if not shape or not all(isinstance(s, (int, numpy.integer)) and s > 0 for s in shape):
            raise ValueError(f"{where}: size must be a positive int or a tuple of them, got {size!r}")
        if not 0.0 <= decay <= 1.0:
            raise ValueError(f"{where}: decay must be in [0, 1], got {decay}")
        if not eps > 0:
            raise ValueError(f"{where}: eps must be positive, got {eps}")
        self.comm = comm
        self.size_shape = shape
        self.decay = decay
        self.eps = eps
        self._impl_selector = selector
        self.communication_backend = selector.communication_backend
        # With mixed16 the parameters and statistics are float32 (the inputs float16),
        # as for chainer.links.BatchNormalization.
        self._dtype = numpy.dtype(chainer.get_dtype(dtype, map_mixed16=numpy.float32))
        self.avg_mean = numpy.zeros(shape, dtype=self._dtype)
        self.register_persistent("avg_mean")
        self.avg_var = numpy.ones(shape, dtype=self._dtype)
        self.register_persistent("avg_var")
        self.N = 0
        self.register_persistent("N")
        self._finetune = False
        with self.init_scope():
            if use_gamma:
                self.gamma = self._parameter(1 if initial_gamma is None else initial_gamma, shape)
            if use_beta:
                self.beta = self._parameter(0 if initial_beta is None else initial_beta, shape)

    def _parameter(self, spec: Any, shape: tuple[int, ...]) -> chainer.Parameter:
        # The parameter, its array and its (NaN-filled) gradient all in the statistics'
        # dtype: float32 under mixed16, whatever the initializer's own dtype.
        initializer = copy.copy(initializers._get_initializer(spec))
        if isinstance(initializer, chainer.Initializer):
            initializer.dtype = self._dtype
            return chainer.Parameter(initializer, shape)
        param = chainer.Parameter(numpy.empty(shape, self._dtype))
        initializer(param.array)
        return param

    def start_finetuning(self) -> None:
        """Switch the running averages to the plain cumulative mean of the batches seen
        from now on (to compute the population statistics after training)."""
        self._finetune = True
        self.N = 0

    def _broadcastable(self, v: Any, ndim: int) -> Any:
        return F.reshape(v, (1, *self.size_shape) + (1,) * (ndim - 1 - len(self.size_shape)))

    def forward(self, x: Any, finetune: bool = False) -> chainer.Variable:
        x = chainer.as_variable(x)
        where = "MultiNodeBatchNormalization"
        n_channel_dims = len(self.size_shape)
        if x.ndim < 1 + n_channel_dims or x.shape[1 : 1 + n_channel_dims] != self.size_shape:
            raise ValueError(f"{where}: x must have shape (batch, {self.size_shape}, ...), got {x.shape}")
        xp = x.xp
        gamma = getattr(self, "gamma", None)
        beta = getattr(self, "beta", None)
        if gamma is None:
            gamma = chainer.Variable(xp.ones(self.size_shape, dtype=self._dtype))
        if beta is None:
            beta = chainer.Variable(xp.zeros(self.size_shape, dtype=self._dtype))
        axes = (0, *range(1 + n_channel_dims, x.ndim))
        if not chainer.config.train:
            return F.fixed_batch_normalization(x, gamma, beta, self.avg_mean, self.avg_var, self.eps, axis=axes)
        # Sums in float32 at least: float16 sums of squares overflow.
        compute = numpy.promote_types(x.dtype, numpy.float32)
        xc = F.cast(x, compute) if x.dtype != compute else x
        n_local = x.size // int(numpy.prod(self.size_shape))
        n_total = self.comm.allreduce_obj(n_local)
        impl = self._impl_selector(self, (x.array,))
        sums = mn_batch_normalization.allreduce_sum(impl, F.stack([F.sum(xc, axis=axes), F.sum(xc * xc, axis=axes)]))
        mean = sums[0] / n_total
        var = sums[1] / n_total - mean * mean
        inv_std = (var + self.eps) ** -0.5
        xhat = (xc - self._broadcastable(mean, x.ndim)) * self._broadcastable(inv_std, x.ndim)
        y = xhat * self._broadcastable(F.cast(gamma, compute), x.ndim) + self._broadcastable(
            F.cast(beta, compute), x.ndim
        )
        self._update_statistics(mean.array, var.array, n_total, finetune or self._finetune)
        return F.cast(y, x.dtype) if y.dtype != x.dtype else y

    def _update_statistics(self, mean: Any, var: Any, n_total: int, finetune: bool) -> None:
        if finetune:
            self.N += 1
            decay = 1.0 - 1.0 / self.N
        else:
            decay = self.decay
        unbiased = var * (n_total / max(n_total - 1, 1))
        self.avg_mean *= decay
        self.avg_mean += ((1 - decay) * mean).astype(self._dtype, copy=False)
        self.avg_var *= decay
        self.avg_var += ((1 - decay) * unbiased).astype(self._dtype, copy=False)


__all__ = ["MultiNodeBatchNormalization"]
