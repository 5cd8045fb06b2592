"""Warning categories of Chainer."""

from __future__ import annotations


class PerformanceWarning(RuntimeWarning):
    """Something works but slowly: a fallback path, an unsupported fast path, a copy."""


__all__ = ["PerformanceWarning"]
