"""Walker's alias method: constant-time sampling from a discrete distribution."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, device_resident


class WalkerAlias(device_resident.DeviceResident):
    """Draws integers ``i`` with probability proportional to ``probs[i]`` in O(1) each.

    The table is built once (Vose's O(n) construction): column ``i`` keeps ``i`` with
    probability ``threshold[i]`` and otherwise gives its alias ``values[i]``. A draw picks
    a column uniformly and then one of its two entries. The tables move with
    :meth:`to_device` / :meth:`to_gpu` / :meth:`to_cpu`, and :meth:`sample` then draws
    on that device; :attr:`use_gpu` tells whether that is a GPU.
    This is the sampler :func:`~chainer.functions.negative_sampling` expects.

    Args:
        probs: 1-D array-like of non-negative weights with a positive sum (they need not
            sum to one).

    Example:
        >>> sampler = chainer.utils.WalkerAlias([0.5, 0.0, 1.5])
        >>> sampler.sample((2, 3)).shape
        (2, 3)
    """

    def __init__(self, probs: Any) -> None:
        super().__init__()
        weights = numpy.asarray(probs, dtype=numpy.float64)
        if weights.ndim != 1 or weights.size == 0:
            raise ValueError(f"WalkerAlias: probs must be a non-empty 1-D array, got shape {weights.shape}")
        if not numpy.isfinite(weights).all() or (weights < 0).any() or weights.sum() <= 0:
            raise ValueError("WalkerAlias: probs must be finite, non-negative and have a positive sum")
        n = weights.size
        scaled = weights * (n / weights.sum())
        threshold = numpy.ones(n, numpy.float64)
        values = numpy.arange(n, dtype=numpy.int32)
        small = [i for i in range(n) if scaled[i] < 1]
        large = [i for i in range(n) if scaled[i] >= 1]
        while small and large:
            s = small.pop()
            g = large.pop()
            threshold[s] = scaled[s]
            values[s] = g
            scaled[g] -= 1 - scaled[s]
            (small if scaled[g] < 1 else large).append(g)
        # Whatever is left is 1 up to rounding: those columns keep themselves.
        self.threshold = threshold.astype(numpy.float32)
        self.values = values

    @property
    def use_gpu(self) -> bool:
        """``True`` while the tables are on a GPU (after :meth:`to_gpu`, or :meth:`to_device`
        with a CuPy device), ``False`` on the CPU (initially and after :meth:`to_cpu`)."""
        return isinstance(self.device, backend.GpuDevice)

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        self.threshold = visitor.visit_array(self.threshold)
        self.values = visitor.visit_array(self.values)

    def sample(self, shape: Any) -> Any:
        """An int32 array of ``shape`` of independent draws, on the tables' device."""
        return self.sample_xp(self.device.xp, shape)

    def sample_xp(self, xp: Any, shape: Any) -> Any:
        """Draw with the array module ``xp`` (``numpy`` or ``cupy``)."""
        n = self.threshold.shape[0]
        position = xp.random.uniform(0, n, shape)
        column = xp.minimum(position.astype(numpy.int32), n - 1)
        keep = (position - column) < self.threshold[column]
        return xp.where(keep, column, self.values[column]).astype(numpy.int32)

    def sample_gpu(self, shape: Any) -> Any:
        """Draw on the GPU (the tables must have been moved there)."""
        from chainer.backends import cuda

        return self.sample_xp(cuda.cupy, shape)


__all__ = ["WalkerAlias"]
