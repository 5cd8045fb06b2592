"""Warning categories of Chainer."""

from __future__ import annotations


class PerformanceWarning(RuntimeWarning):
    """Something works but slowly: a fallback path, an unsupported fast path, a copy."""


class MissingGradientWarning(RuntimeWarning):
    """Debug mode: an optimizer's update found parameters to which backprop gave no gradient
    (a graph cut off from the loss trains on silently otherwise)."""


__all__ = ["MissingGradientWarning", "PerformanceWarning"]
