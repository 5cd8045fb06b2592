"""chainermn.testing.get_device: the device of a test."""

from __future__ import annotations

import pytest

import chainer
from chainermn import testing


def test_cpu_and_gpu_specifiers():
    assert testing.get_device().name == "@numpy"
    assert testing.get_device() == chainer.get_device("@numpy")
    with pytest.raises(TypeError, match="device_id must be None or an int GPU id, got str"):
        testing.get_device("0")


def test_chainerx_is_not_part_of_this_distribution():
    with pytest.raises(RuntimeError, match="ChainerX is not part of this distribution"):
        testing.get_device(use_chainerx=True)
