"""Tests of HDF5 saving and loading."""

import importlib
import io
import os
import zlib

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
    # Damage 8 bytes at a time over the whole file. Damaged data fail their checksums;
    # damaged metadata must give load_hdf5's ValueError (or its missing-key error where a
    # damaged name no longer matches), never an error of h5py (KeyError for an object
    # header it cannot decode) or a crash on a name that is not UTF-8; damage to unused
    # bytes may load. A failed load must change nothing.
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


# -- checksums (issue 23) ------------------------------------------------------------------


def _values_link(h):
    """A link holding every kind of value: arrays, a one-element array, scalars, a string."""
    link = h.Linear(3, 4)
    link.add_persistent("one", numpy.array([2.5], numpy.float32))
    link.add_persistent("count", 7)
    link.add_persistent("ratio", numpy.float64(0.25))
    link.add_persistent("label", "ünïcode")
    return link


def _values(link):
    return {
        "W": link.W.array.copy(),
        "b": link.b.array.copy(),
        "one": link.one.copy(),
        "count": link.count,
        "ratio": link.ratio,
        "label": link.label,
    }


def _assert_same_values(a, b):
    assert sorted(a) == sorted(b)
    for key in a:
        numpy.testing.assert_array_equal(a[key], b[key], err_msg=key)


def _data_offset(path, name):
    """Where the stored bytes of dataset ``name`` begin in the file."""
    with h5py.File(path, "r") as f:
        dataset = f[name]
        offset = dataset.id.get_chunk_info(0).byte_offset if dataset.chunks else dataset.id.get_offset()
    assert offset is not None, name
    return offset


def _flip_byte(path, offset):
    with open(path, "r+b") as f:
        f.seek(offset)
        byte = f.read(1)[0]
        f.seek(offset)
        f.write(bytes([byte ^ 0x10]))


def test_saved_values_carry_checksums(tmp_path, h):
    path = tmp_path / "values.h5"
    serializers.save_hdf5(path, _values_link(h), compression=None)
    with h5py.File(path, "r") as f:
        # Arrays (one-element ones too) are chunked with HDF5's own Fletcher-32 filter.
        for name in ("W", "b", "one"):
            assert f[name].fletcher32 and f[name].chunks is not None, name
        # A scalar cannot be chunked in HDF5: it carries the CRC-32 of its value.
        for name in ("count", "ratio", "label"):
            assert f[name].shape == () and "chainer_crc32" in f[name].attrs, name
        assert int(f["count"].attrs["chainer_crc32"]) == zlib.crc32(numpy.asarray(f["count"][()]).tobytes())


@pytest.mark.parametrize("compression", [None, 4])
@pytest.mark.parametrize("name", ["W", "one", "count", "ratio"])
def test_one_flipped_byte_raises_and_changes_nothing(tmp_path, h, compression, name):
    path = tmp_path / "values.h5"
    serializers.save_hdf5(path, _values_link(h), compression=compression)
    _flip_byte(path, _data_offset(path, name))

    target = _values_link(h)
    target.W.array[...] = 9
    before = _values(target)
    with pytest.raises(serializers.hdf5.ChecksumError) as info:
        serializers.load_hdf5(path, target)
    message = str(info.value)
    assert message.startswith("load_hdf5: ") and f"dataset '/{name}' in {str(path)!r}" in message
    assert "checksum" in message or "CRC-32" in message
    assert isinstance(info.value, ValueError)
    _assert_same_values(_values(target), before)

    # The deserializer on an open file checks too.
    with h5py.File(path, "r") as f, pytest.raises(serializers.hdf5.ChecksumError, match=f"'/{name}'"):
        serializers.HDF5Deserializer(f).load(_values_link(h))


def test_files_without_checksums_still_load(tmp_path, h):
    # Chainer 7.8.1 wrote contiguous datasets (gzip for arrays of more than one element)
    # and no attributes.
    link = _values_link(h)
    path = tmp_path / "chainer781.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("W", data=link.W.array, compression=4)
        f.create_dataset("b", data=link.b.array, compression=4)
        f.create_dataset("one", data=link.one)
        f.create_dataset("count", data=numpy.asarray(link.count))
        f.create_dataset("ratio", data=numpy.asarray(link.ratio))
        f.create_dataset("label", data=link.label)
    target = _values_link(h)
    target.W.array[...] = 9
    target.count, target.ratio, target.label = 0, 0.0, ""
    serializers.load_hdf5(path, target)
    _assert_same_values(_values(target), _values(link))


def test_load_hdf5_on_a_directory_is_an_is_a_directory_error(tmp_path, model):
    with pytest.raises(IsADirectoryError, match=r"load_hdf5: .* is a directory"):
        serializers.load_hdf5(tmp_path, model)
