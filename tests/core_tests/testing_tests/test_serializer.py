"""save_and_load helpers round-trip links through the serializers."""

import os

import numpy as np
import pytest

import chainer
from chainer import serializers, testing


class _Model(chainer.Chain):
    def __init__(self, value):
        super().__init__()
        with self.init_scope():
            self.W = chainer.Parameter(np.full((2, 3), value, np.float32))
        self.add_persistent("count", value)


@pytest.mark.parametrize("helper", [testing.save_and_load_npz, testing.save_and_load_hdf5])
def test_round_trip(helper):
    src, dst = _Model(1.5), _Model(0.0)
    helper(src, dst)
    np.testing.assert_array_equal(dst.W.array, src.W.array)
    assert dst.count == 1.5


def test_save_and_load_calls_saver_then_loader(tmp_path):
    calls = []
    filename = str(tmp_path / "model.npz")

    def saver(name, obj):
        calls.append(("save", name, obj))
        serializers.save_npz(name, obj)

    def loader(name, obj):
        assert os.path.exists(name)
        calls.append(("load", name, obj))
        serializers.load_npz(name, obj)

    src, dst = _Model(2.0), _Model(0.0)
    testing.save_and_load(src, dst, filename, saver, loader)
    assert calls == [("save", filename, src), ("load", filename, dst)]
    np.testing.assert_array_equal(dst.W.array, src.W.array)


def test_the_temporary_file_is_removed(monkeypatch, tmp_path):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    testing.save_and_load_npz(_Model(1.0), _Model(0.0))
    assert list(tmp_path.iterdir()) == []
