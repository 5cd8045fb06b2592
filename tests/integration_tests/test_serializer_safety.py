"""Files that must not be trusted: an NPZ with a pickled Python object is refused before
anything is unpickled; truncated or corrupt NPZ and HDF5 files give a clear error and
leave the model and the optimizer they were loaded into unchanged."""

from __future__ import annotations

import io
import pathlib
import zipfile

import numpy as np
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import optimizers, serializers


class Net(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(3, 4)
            self.bn = L.BatchNormalization(4)
            self.l2 = L.Linear(4, 2)

    def forward(self, x):
        return self.l2(F.relu(self.bn(self.l1(x))))


def trained(seed=0):
    np.random.seed(seed)
    model = Net()
    optimizer = optimizers.Adam().setup(model)
    rng = np.random.RandomState(seed)
    for _ in range(2):
        x = rng.normal(size=(6, 3)).astype(np.float32)
        t = rng.randint(0, 2, size=6).astype(np.int32)
        optimizer.update(F.softmax_cross_entropy, model(x), t)
    return model, optimizer


def snapshot(model, optimizer):
    """Deep copies of every array and counter of the pair."""
    values = {"opt/t": optimizer.t, "opt/epoch": optimizer.epoch}
    for path, link in model.namedlinks():
        for name in sorted(link._params) + sorted(link._persistent):
            value = getattr(link, name)
            value = value.array if isinstance(value, chainer.Variable) else value
            values[f"{path}/{name}"] = value.copy() if isinstance(value, np.ndarray) else value
    for path, param in model.namedparams():
        rule = param.update_rule
        values[f"opt{path}/t"] = rule.t
        for key, value in (rule.state or {}).items():
            values[f"opt{path}/{key}"] = value.copy()
    return values


def assert_unchanged(before, model, optimizer):
    after = snapshot(model, optimizer)
    assert sorted(after) == sorted(before)
    for key, value in before.items():
        if isinstance(value, np.ndarray):
            assert np.array_equal(after[key], value), key
        else:
            assert after[key] == value, key


# -- pickled objects -------------------------------------------------------------------


class _TouchOnUnpickle:
    """Unpickling this object creates the file ``path``."""

    def __init__(self, path):
        self.path = pathlib.Path(path)

    def __reduce__(self):
        return (pathlib.Path.touch, (self.path,))


def _object_array(marker, shape):
    array = np.empty(shape, dtype=object)
    array[...] = _TouchOnUnpickle(marker) if shape == () else None
    if shape != ():
        array.flat[0] = _TouchOnUnpickle(marker)
    return array


def _evil_npz(path, marker, key, shape):
    """A model file as save_npz writes it, with one entry replaced by a pickled object."""
    model, _ = trained()
    entries = {}
    serializers.DictionarySerializer(entries).save(model)
    entries[key] = _object_array(marker, shape)
    np.savez(path, **entries)  # numpy pickles object arrays when saving


@pytest.mark.parametrize("shape", [(), (2,)])
@pytest.mark.parametrize("key", ["l1/W", "bn/N", "not_asked_for"])
def test_pickled_object_is_refused_and_never_unpickled(tmp_path, key, shape):
    path, marker = tmp_path / "evil.npz", tmp_path / "pwned"
    _evil_npz(path, marker, key, shape)

    # The payload is live: NumPy with allow_pickle=True runs it.
    live_marker = tmp_path / "live"
    live = tmp_path / "live.npz"
    _evil_npz(live, live_marker, key, shape)
    with np.load(live, allow_pickle=True) as npz:
        npz[key]
    assert live_marker.exists()

    model, optimizer = trained(seed=1)
    before = snapshot(model, optimizer)
    with pytest.raises(ValueError, match="Python objects") as info:
        serializers.load_npz(path, model)
    message = str(info.value)
    assert "load_npz" in message and repr(key) in message and "unpickl" in message
    assert not marker.exists()
    assert_unchanged(before, model, optimizer)

    # The same file opened by the user with allow_pickle=True and given to NpzDeserializer
    # (the 7.8.1 way): the entry is inspected before NumPy would unpickle it.
    if key != "not_asked_for":
        with np.load(path, allow_pickle=True) as npz, pytest.raises(ValueError, match="Python objects"):
            serializers.NpzDeserializer(npz).load(model)
        assert not marker.exists()


def test_pickled_object_in_an_optimizer_file_is_refused(tmp_path):
    model, optimizer = trained()
    entries = {}
    serializers.DictionarySerializer(entries).save(optimizer)
    marker = tmp_path / "pwned"
    entries["l1/W/m"] = _object_array(marker, ())
    np.savez(tmp_path / "opt.npz", **entries)
    model2, optimizer2 = trained(seed=1)
    before = snapshot(model2, optimizer2)
    with pytest.raises(ValueError, match="Python objects"):
        serializers.load_npz(tmp_path / "opt.npz", optimizer2)
    assert not marker.exists()
    assert_unchanged(before, model2, optimizer2)


# -- truncated and corrupt files -----------------------------------------------------------


def _saved_bytes(save, obj):
    buffer = io.BytesIO()
    save(buffer, obj)
    return buffer.getvalue()


@pytest.mark.parametrize("what", ["model", "optimizer"])
@pytest.mark.parametrize("fraction", [0.0, 0.1, 0.5, 0.9, 0.99])
def test_truncated_npz_raises_and_leaves_objects_unchanged(tmp_path, what, fraction):
    model, optimizer = trained()
    data = _saved_bytes(serializers.save_npz, model if what == "model" else optimizer)
    path = tmp_path / "truncated.npz"
    path.write_bytes(data[: int(len(data) * fraction)])
    model2, optimizer2 = trained(seed=1)
    before = snapshot(model2, optimizer2)
    with pytest.raises(ValueError, match=r"load_npz: cannot read .*truncated\.npz.*truncated or corrupt"):
        serializers.load_npz(path, model2 if what == "model" else optimizer2)
    assert_unchanged(before, model2, optimizer2)


@pytest.mark.parametrize("compression", [True, False])
def test_corrupt_npz_member_raises_and_leaves_objects_unchanged(tmp_path, compression):
    model, _ = trained()
    data = bytearray(_saved_bytes(lambda f, o: serializers.save_npz(f, o, compression=compression), model))
    # Flip the bytes of the data of the last member (the zip central directory stays intact).
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        info = archive.infolist()[-1]
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for i in range(start + info.compress_size // 2, start + info.compress_size):
        data[i] ^= 0xFF
    path = tmp_path / "corrupt.npz"
    path.write_bytes(bytes(data))
    model2, optimizer2 = trained(seed=1)
    before = snapshot(model2, optimizer2)
    with pytest.raises(ValueError, match="truncated or corrupt") as excinfo:
        serializers.load_npz(path, model2)
    assert info.filename[:-4] in str(excinfo.value)
    assert_unchanged(before, model2, optimizer2)


@pytest.mark.parametrize("what", ["model", "optimizer"])
@pytest.mark.parametrize("fraction", [0.0, 0.05, 0.5, 0.95])
def test_truncated_hdf5_raises_and_leaves_objects_unchanged(tmp_path, what, fraction):
    pytest.importorskip("h5py")
    model, optimizer = trained()
    full = tmp_path / "full.h5"
    serializers.save_hdf5(full, model if what == "model" else optimizer)
    data = full.read_bytes()
    path = tmp_path / "truncated.h5"
    path.write_bytes(data[: int(len(data) * fraction)])
    model2, optimizer2 = trained(seed=1)
    before = snapshot(model2, optimizer2)
    with pytest.raises(ValueError, match=r"load_hdf5: cannot read .*truncated\.h5.*truncated or corrupt"):
        serializers.load_hdf5(path, model2 if what == "model" else optimizer2)
    assert_unchanged(before, model2, optimizer2)


def test_corrupt_hdf5_raises_and_leaves_objects_unchanged(tmp_path):
    pytest.importorskip("h5py")
    model, optimizer = trained()
    full = tmp_path / "full.h5"
    serializers.save_hdf5(full, model)
    model2, optimizer2 = trained(seed=1)
    before = snapshot(model2, optimizer2)
    # A damaged signature (first bytes), and an NPZ file given to load_hdf5.
    damaged = bytearray(full.read_bytes())
    damaged[:8] = b"\x00" * 8
    (tmp_path / "damaged.h5").write_bytes(bytes(damaged))
    serializers.save_npz(tmp_path / "model.npz", model)
    for name in ("damaged.h5", "model.npz"):
        with pytest.raises(ValueError, match=rf"load_hdf5: cannot read .*{name}.*not an HDF5 file"):
            serializers.load_hdf5(tmp_path / name, model2)
        assert_unchanged(before, model2, optimizer2)
