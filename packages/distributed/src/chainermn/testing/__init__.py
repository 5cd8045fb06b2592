"""Helpers for the tests of multi-process programs."""

from chainermn.testing.device import get_device

__all__ = ["get_device"]
