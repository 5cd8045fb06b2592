"""Tests of HDF5 saving and loading."""

import importlib
import io
import os

import numpy
import pytest

import chainer
from chainer import serializers

h5py = pytest.importorskip("h5py")


def _forward(model):
    model.predictor(numpy.ones((1, 3), numpy.float32))


def test_round_trip_and_group_layout(tmp_path, model, h):
    _forward(model)
    path = tmp_path / "model.h5"
    serializers.save_hdf5(path, model)
    with h5py.File(path, "r") as f:
        names = []
        f.visititems(lambda name, obj: names.append(name) if isinstance(obj, h5py.Dataset) else None)
        assert sorted(names) == h.EXPECTED_KEYS
        assert isinstance(f["predictor"], h5py.Group) and isinstance(f["predictor/l1"], h5py.Group)
        numpy.testing.assert_array_equal(f["predictor/l1/W"][()], model.predictor.l1.W.array)
        assert f["predictor/l1/W"].compression == "gzip" and f["predictor/l1/W"].compression_opts == 4
        assert f["predictor/bn/N"][()] == 7
    other = h.Classifier(h.MLP())
    serializers.load_hdf5(path, other)
    h.assert_same_state(h.snapshot(other), h.snapshot(model))


def test_none_strings_and_scalars(tmp_path):
    link = chainer.Link()
    with link.init_scope():
        link.W = chainer.Parameter(None)
    link.add_persistent("label", "ünïcode")
    link.add_persistent("ratio", 0.5)
    link.add_persistent("state", None)
    path = tmp_path / "values.h5"
    serializers.save_hdf5(path, link, compression=None)
    with h5py.File(path, "r") as f:
        assert f["W"].shape is None  # h5py.Empty represents None
    other = chainer.Link()
    with other.init_scope():
        other.W = chainer.Parameter(None)
    other.add_persistent("label", "")
    other.add_persistent("ratio", 0.0)
    other.add_persistent("state", numpy.zeros(2))
    serializers.load_hdf5(path, other)
    assert other.W.array is None
    assert other.label == "ünïcode" and other.ratio == 0.5 and other.state is None


def test_serializer_and_deserializer_on_groups(model, h):
    buffer = io.BytesIO()
    with h5py.File(buffer, "w") as f:
        serializers.HDF5Serializer(f.create_group("snapshot")).save(model)
    other = h.Classifier(h.MLP())
    with h5py.File(buffer, "r") as f:
        serializers.HDF5Deserializer(f["snapshot"]).load(other)
        with pytest.raises(
            KeyError, match=r"'predictor/bn/gamma' is not in the file.*HDF5Deserializer\(group\['snapshot'\]\)"
        ):
            serializers.HDF5Deserializer(f).load(h.Classifier(h.MLP()))
        serializers.HDF5Deserializer(f, strict=False).load(h.Classifier(h.MLP()))
    h.assert_same_state(h.snapshot(other), h.snapshot(model))
    with pytest.raises(TypeError, match="h5py.File or h5py.Group"):
        serializers.HDF5Serializer({})


def test_truncated_file_leaves_model_unchanged(tmp_path, model, h):
    path = tmp_path / "model.h5"
    serializers.save_hdf5(path, model)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    target = h.Classifier(h.MLP())
    before = h.snapshot(target)
    with pytest.raises(ValueError, match="truncated or corrupt"):
        serializers.load_hdf5(path, target)
    h.assert_same_state(h.snapshot(target), before)
    with pytest.raises(FileNotFoundError):
        serializers.load_hdf5(tmp_path / "missing.h5", target)


def test_damaged_bytes_anywhere_give_a_value_error_or_load(tmp_path, model, h):
    # Damage 8 bytes at a time over the whole file. HDF5 has no checksums, so damaged
    # data may load; damaged metadata must give load_hdf5's ValueError (or its missing-key
    # error where a damaged name no longer matches), never an error of h5py (KeyError for
    # an object header it cannot decode) or a crash on a name that is not UTF-8, and a
    # failed load must change nothing.
    path = tmp_path / "model.h5"
    serializers.save_hdf5(path, model, compression=None)
    data = path.read_bytes()
    damaged_path = tmp_path / "damaged.h5"
    target = h.Classifier(h.MLP())
    before = h.snapshot(target)
    failures = 0
    for start in range(0, len(data), 40):
        damaged = bytearray(data)
        damaged[start : start + 8] = bytes(b ^ 0xFF for b in damaged[start : start + 8])
        damaged_path.write_bytes(bytes(damaged))
        try:
            serializers.load_hdf5(damaged_path, target)
        except (ValueError, serializers._base.MissingKeyError) as exc:
            assert str(exc).startswith("load_hdf5: "), (start, exc)
            h.assert_same_state(h.snapshot(target), before)
            failures += 1
        else:
            before = h.snapshot(target)
    assert failures > 0


def test_shape_mismatch_leaves_model_unchanged(tmp_path, model, h):
    path = tmp_path / "model.h5"
    serializers.save_hdf5(path, model)
    with h5py.File(path, "a") as f:
        del f["predictor/l2/b"]
        f["predictor/l2/b"] = numpy.zeros(5, numpy.float32)
    target = h.Classifier(h.MLP())
    before = h.snapshot(target)
    with pytest.raises(ValueError, match="'predictor/l2/b'"):
        serializers.load_hdf5(path, target)
    h.assert_same_state(h.snapshot(target), before)


def test_failed_save_keeps_the_old_file(tmp_path, model):
    path = tmp_path / "model.h5"
    serializers.save_hdf5(path, model)
    original = path.read_bytes()

    class Exploding(chainer.Link):
        def serialize(self, serializer):
            raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError, match="interrupted"):
        serializers.save_hdf5(path, Exploding())
    assert path.read_bytes() == original and os.listdir(tmp_path) == ["model.h5"]


def test_missing_h5py_names_the_extra(monkeypatch, tmp_path, model):
    real_import = importlib.import_module

    def fake_import(name, *args):
        if name == "h5py":
            raise ImportError("No module named 'h5py'")
        return real_import(name, *args)

    monkeypatch.setattr(importlib, "import_module", fake_import)
    with pytest.raises(ImportError, match=r"pip install 'chainer-core\[hdf5\]'"):
        serializers.save_hdf5(tmp_path / "x.h5", model)
    with pytest.raises(ImportError, match="h5py"):
        serializers.load_hdf5(tmp_path / "x.h5", model)
    # Chainer 7 raised a RuntimeError: code catching that still works.
    with pytest.raises(RuntimeError, match="needs h5py"):
        serializers.load_hdf5(tmp_path / "x.h5", model)


def test_available_flag_and_deserializer_groups(tmp_path):
    from chainer.serializers import hdf5

    assert hdf5._available is True
    path = tmp_path / "groups.h5"
    with h5py.File(path, "w") as f:
        f.require_group("x").create_dataset("y", data=numpy.arange(3.0))
    with h5py.File(path, "r") as f:
        root = serializers.HDF5Deserializer(f)
        child = root["x"]
        assert isinstance(child, serializers.HDF5Deserializer) and child.group.name == "/x"
        numpy.testing.assert_array_equal(child("y", None), numpy.arange(3.0))


def test_load_hdf5_hands_an_hdf5_deserializer(tmp_path, model):
    seen = []

    class Recorder:
        def serialize(self, serializer):
            seen.append(type(serializer))

    path = tmp_path / "empty.h5"
    h5py.File(path, "w").close()
    serializers.load_hdf5(path, Recorder())
    # An object outside this project is loaded in one pass, as in Chainer 7.
    assert seen == [serializers.HDF5Deserializer]
