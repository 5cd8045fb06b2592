"""Walker's alias method: constant-time sampling from a discrete distribution."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, device_resident


class WalkerAlias(device_resident.DeviceResident):
    """Draws integers ``i`` with probability proportional to ``probs[i]`` in O(1) each.

    The table is built once (O(n log n)): column ``i`` gives ``values[2 * i]`` with
    probability ``threshold[i]`` and otherwise its alias ``values[2 * i + 1]``. A draw picks
    a column uniformly and then one of its two entries (one uniform number per draw). The tables move with
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
        # The table of Chainer 7.8.1, so that a program seeded with numpy.random.seed draws
        # the same integers. The weights are scaled to mean 1 (float32 quotients, times n in
        # float64) and sorted ascending (ties in index order). Column i holds the i-th entry,
        # kept with probability threshold[i] (its scaled weight as it stands then, in
        # float32), and as its alias the next entry in that order still above 1, which gives
        # up what column i lacks (1 - threshold[i]); an entry pushed below 1 that way is
        # handled when its own turn comes. Columns at 1 never use their alias.
        n = weights.size
        w32 = weights.astype(numpy.float32)
        scaled = (w32 / w32.sum()).astype(numpy.float64) * n
        order = numpy.argsort(scaled, kind="stable")
        level = scaled[order]
        threshold = numpy.ones(n, numpy.float32)
        values = numpy.zeros((n, 2), numpy.int32)
        j = 0
        for i in range(n):
            threshold[i] = level[i]
            values[i, 0] = order[i]
            while j < n and (j <= i or level[j] <= 1):
                j += 1
            if j == n:
                continue
            values[i, 1] = order[j]
            level[j] -= 1 - float(threshold[i])
        self.threshold = threshold
        # (first, alias) of each column, flattened: values[2 * i] and values[2 * i + 1].
        self.values = values.ravel()

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
        # One uniform per draw, scaled to [0, n): its integer part picks the column, its
        # fraction the entry. Chainer 7.8.1 rounds the scaled uniform to float32 first, which
        # quantises every column's split to float32's spacing at n (1/1024 at n = 10,000, so
        # an entry below that is never drawn): kept in float64 here, which draws the same
        # integers except for a uniform within about n * 2**-25 of a column's threshold.
        position = xp.random.uniform(0, n, shape)
        column = xp.minimum(position.astype(numpy.int32), n - 1)
        keep = (position - column) < self.threshold[column]
        return xp.where(keep, self.values[2 * column], self.values[2 * column + 1]).astype(numpy.int32)

    def sample_gpu(self, shape: Any) -> Any:
        """Draw on the GPU (the tables must have been moved there)."""
        from chainer.backends import cuda

        return self.sample_xp(cuda.cupy, shape)


__all__ = ["WalkerAlias"]
