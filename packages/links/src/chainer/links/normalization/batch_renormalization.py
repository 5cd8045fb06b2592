"""Batch renormalization layer."""

from __future__ import annotations

from typing import Any

from chainer import configuration, functions, variable
from chainer.links.normalization import batch_normalization


class BatchRenormalization(batch_normalization.BatchNormalization):
    """Batch renormalization layer (Ioffe, 2017).

    Like :class:`BatchNormalization`, but in training mode the batch-normalized values
    are corrected towards the running statistics,
    :math:`\\hat x = \\frac{x - \\mu_B}{\\sigma_B} r + d` with
    :math:`r = \\mathrm{clip}(\\sigma_B / \\sigma, 1/r_{max}, r_{max})` and
    :math:`d = \\mathrm{clip}((\\mu_B - \\mu) / \\sigma, -d_{max}, d_{max})`
    (:func:`~chainer.functions.batch_renormalization`), which keeps training and
    inference consistent for small or non-i.i.d. batches. ``rmax=1, dmax=0`` is plain
    batch normalization. In test mode the running statistics are used.

    Args:
        size: Shape of the normalized features (an int or a tuple of ints).
        rmax: Upper bound of :math:`r` (its lower bound is ``1 / rmax``).
        dmax: Bound of :math:`|d|`.
        decay, eps, dtype, use_gamma, use_beta, initial_gamma, initial_beta,
        initial_avg_mean, initial_avg_var: As in :class:`BatchNormalization`.

    Example:
        >>> brn = L.BatchRenormalization(3, rmax=3.0, dmax=5.0)
        >>> brn(np.random.rand(8, 3).astype(np.float32)).shape
        (8, 3)
    """

    def __init__(
        self,
        size: Any,
        rmax: float = 1,
        dmax: float = 0,
        decay: float = 0.9,
        eps: float = 2e-5,
        dtype: Any = None,
        use_gamma: bool = True,
        use_beta: bool = True,
        initial_gamma: Any = None,
        initial_beta: Any = None,
        initial_avg_mean: Any = None,
        initial_avg_var: Any = None,
    ) -> None:
        super().__init__(
            size,
            decay,
            eps,
            dtype,
            use_gamma,
            use_beta,
            initial_gamma,
            initial_beta,
            initial_avg_mean=initial_avg_mean,
            initial_avg_var=initial_avg_var,
        )
        if not rmax >= 1:
            raise ValueError(f"BatchRenormalization: rmax must be >= 1, got {rmax!r}")
        if not dmax >= 0:
            raise ValueError(f"BatchRenormalization: dmax must be >= 0, got {dmax!r}")
        self.rmax = rmax
        self.dmax = dmax

    def forward(self, x: Any, finetune: bool = False) -> variable.Variable:
        """Renormalize ``x`` (training mode) or normalize it with the running statistics
        (test mode). ``finetune`` is as in :meth:`BatchNormalization.forward`."""
        gamma, beta = self._gamma_beta()
        if configuration.config.train:
            decay, update = self._training_decay(finetune)
            avg_mean, avg_var = self.avg_mean, self.avg_var
            if configuration.config.in_recomputing:
                # r and d depend on the running statistics, which the pass being
                # recomputed (F.forget) has updated since: use those it saw, so that the
                # recomputed graph, hence the gradient, is the one of that pass.
                avg_mean, avg_var = getattr(self, "_seen_statistics", (avg_mean, avg_var))
            elif update and avg_mean is not None:
                self._seen_statistics = (avg_mean.copy(), avg_var.copy())
            return functions.batch_renormalization(
                x,
                gamma,
                beta,
                self.rmax,
                self.dmax,
                self.eps,
                avg_mean,
                avg_var,
                decay,
                update_statistics=update,
            )
        return functions.fixed_batch_normalization(x, gamma, beta, self.avg_mean, self.avg_var, self.eps)


__all__ = ["BatchRenormalization"]
