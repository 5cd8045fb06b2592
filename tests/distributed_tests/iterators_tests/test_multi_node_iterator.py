"""The control message of the multi-node iterator (its batches are checked under mpiexec
in extensions_tests/test_extensions.py)."""

from __future__ import annotations

import numpy
import pytest

from chainermn.iterators.multi_node_iterator import _build_ctrl_msg, _parse_ctrl_msg


@pytest.mark.parametrize("flags", [(True, True, True, True), (False, True, False, True), (False, False, False, False)])
@pytest.mark.parametrize("position", [0, 3, 2**40])
def test_control_message_round_trip(flags, position):
    msg = _build_ctrl_msg(*flags, position)
    assert msg.dtype == numpy.int64 and msg.tolist() == [int(f) for f in flags] + [position]
    parsed = _parse_ctrl_msg(msg)
    assert parsed == (*flags, position) and all(type(v) is bool for v in parsed[:4])
    numpy.testing.assert_array_equal(_build_ctrl_msg(*parsed), msg)


def test_control_message_of_wrong_length():
    with pytest.raises(ValueError, match="a control message has 5 entries, got shape \\(4,\\)"):
        _parse_ctrl_msg(numpy.zeros(4))
