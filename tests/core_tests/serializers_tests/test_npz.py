"""Tests of NPZ saving and loading: Chainer 7.8.1 key layout, safety, atomicity."""

import io
import os
import pickle
import signal
import stat
import subprocess
import sys
import textwrap
import time
import warnings
import zipfile

import numpy
import pytest

import chainer
from chainer import serializers
from chainer.serializers import _safe_npy
from chainer.testing import attr


def _forward(model):
    model.predictor(numpy.ones((1, 3), numpy.float32))  # initializes the lazy l2/W


# -- round trips and the key layout ---------------------------------------------------------------


def test_round_trip_with_exact_chainer7_keys(tmp_path, model, h):
    _forward(model)
    path = tmp_path / "model.npz"
    serializers.save_npz(path, model)
    with zipfile.ZipFile(path) as archive:
        assert sorted(archive.namelist()) == sorted(k + ".npy" for k in h.EXPECTED_KEYS)
        assert all(info.compress_type == zipfile.ZIP_DEFLATED for info in archive.infolist())
    with numpy.load(path) as npz:
        numpy.testing.assert_array_equal(npz["predictor/l1/W"], model.predictor.l1.W.array)
        assert npz["predictor/bn/N"] == 7 and npz["predictor/bn/N"].shape == ()
    other = h.Classifier(h.MLP())
    other.predictor.bn.N = 0
    serializers.load_npz(path, other)
    h.assert_same_state(h.snapshot(other), h.snapshot(model))
    assert type(other.predictor.bn.N) is int and other.predictor.bn.N == 7


def test_uninitialized_parameter_is_saved_as_none_and_initialized_on_load(tmp_path, model, h):
    path = tmp_path / "lazy.npz"
    serializers.save_npz(path, model)  # l2/W not initialized yet
    with zipfile.ZipFile(path) as archive:
        raw = archive.read("predictor/l2/W.npy")
    assert raw == _safe_npy.none_npy_bytes()
    # A loader of the Chainer 7 era (numpy.load with pickles allowed) reads it as None.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with numpy.load(path, allow_pickle=True) as npz:
            assert npz["predictor/l2/W"].dtype == object and npz["predictor/l2/W"][()] is None
    # Loading a saved None leaves an uninitialized parameter uninitialized...
    fresh = h.Classifier(h.MLP())
    serializers.load_npz(path, fresh)
    assert fresh.predictor.l2.W.array is None
    # ...and a saved array initializes one with the saved shape.
    _forward(model)
    serializers.save_npz(path, model)
    fresh = h.Classifier(h.MLP())
    serializers.load_npz(path, fresh)
    numpy.testing.assert_array_equal(fresh.predictor.l2.W.array, model.predictor.l2.W.array)


def test_file_objects_and_no_compression(model, h):
    buffer = io.BytesIO()
    serializers.save_npz(buffer, model, compression=False)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as archive:
        assert all(info.compress_type == zipfile.ZIP_STORED for info in archive.infolist())
    buffer.seek(0)
    other = h.Classifier(h.MLP())
    serializers.load_npz(buffer, other)
    h.assert_same_state(h.snapshot(other), h.snapshot(model))


def test_no_suffix_is_added(tmp_path, model):
    path = tmp_path / "my.model"
    serializers.save_npz(str(path), model)
    assert os.listdir(tmp_path) == ["my.model"]


def test_scalars_strings_bools_and_none_persistents(tmp_path):
    link = chainer.Link()
    link.add_persistent("count", 3)
    link.add_persistent("ratio", 0.25)
    link.add_persistent("flag", True)
    link.add_persistent("label", "relu")
    link.add_persistent("nothing", None)
    link.add_persistent("f32", numpy.float32(1.5))
    path = tmp_path / "values.npz"
    serializers.save_npz(path, link)
    other = chainer.Link()
    other.add_persistent("count", 0)
    other.add_persistent("ratio", 0.0)
    other.add_persistent("flag", False)
    other.add_persistent("label", "")
    other.add_persistent("nothing", 5)
    other.add_persistent("f32", numpy.float32(0))
    serializers.load_npz(path, other)
    assert (other.count, other.ratio, other.flag, other.label, other.nothing) == (3, 0.25, True, "relu", None)
    assert type(other.count) is int and type(other.flag) is bool and type(other.label) is str
    assert type(other.f32) is numpy.float32 and other.f32 == 1.5


def test_dictionary_serializer():
    s = serializers.DictionarySerializer()
    assert s("a", numpy.arange(3)) is not None
    sub = s["child"]["grand/"]
    sub("/x", 1.5)
    sub("y", None)
    assert sorted(s.target) == ["a", "child/grand/x", "child/grand/y"]
    assert s.target["child/grand/x"].shape == () and s.target["child/grand/x"] == 1.5
    assert _safe_npy.is_none_array(s.target["child/grand/y"])
    target = {}
    serializers.DictionarySerializer(target, path="model/")("W", numpy.zeros(2))
    assert list(target) == ["model/W"]


def test_save_refuses_python_objects(tmp_path):
    link = chainer.Link()
    link.add_persistent("config", {"lr": 0.1})
    path = tmp_path / "bad.npz"
    with pytest.raises(TypeError, match="'config' holds Python objects"):
        serializers.save_npz(path, link)
    assert not path.exists() and os.listdir(tmp_path) == []


# -- files written by Chainer 7.8.1 (built here from the documented layout) ----------------------


def _chainer7_arrays(model):
    arrays = {}
    for path, param in model.namedparams():
        arrays[path.lstrip("/")] = numpy.asarray(None) if param.array is None else param.array
    bn = model.predictor.bn
    arrays.update(
        {
            "predictor/bn/avg_mean": bn.avg_mean,
            "predictor/bn/avg_var": bn.avg_var,
            "predictor/bn/N": numpy.asarray(bn.N),
        }
    )
    return arrays


def test_loads_numpy_savez_layout(tmp_path, model, h):
    # numpy.savez writes None with a pickle (NumPy 2: numpy._core, protocol 4+).
    path = tmp_path / "chainer7.npz"
    numpy.savez(path, **_chainer7_arrays(model))
    other = h.Classifier(h.MLP())
    serializers.load_npz(path, other)
    h.assert_same_state(h.snapshot(other), h.snapshot(model))


def _numpy1_none_payload(protocol):
    # What NumPy 1.x pickles for numpy.asarray(None): the module path is numpy.core.
    payload = pickle.dumps(numpy.asarray(None), protocol=protocol)
    return payload.replace(b"cnumpy._core.multiarray\n", b"cnumpy.core.multiarray\n")


def _npy_with_payload(payload, shape=()):
    buffer = io.BytesIO()
    numpy.lib.format.write_array_header_1_0(buffer, {"descr": "|O", "fortran_order": False, "shape": shape})
    return buffer.getvalue() + payload


def _write_zip(path, members, compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


@pytest.mark.parametrize("protocol", [2, 3])
def test_loads_numpy1_none_entries(tmp_path, protocol):
    payload = _numpy1_none_payload(protocol)
    assert b"numpy.core.multiarray" in payload
    link = chainer.Link()
    with link.init_scope():
        link.W = chainer.Parameter(None)
    link.add_persistent("state", numpy.zeros(2))
    path = tmp_path / "numpy1.npz"
    _write_zip(path, {"W.npy": _npy_with_payload(payload), "state.npy": _npy_with_payload(payload)})
    serializers.load_npz(path, link)
    assert link.W.array is None and link.state is None


def test_written_none_is_what_numpy1_writes():
    # NumPy 1.x pickles array(None) with protocol 3 and the numpy.core module path.
    assert _safe_npy._NONE_PICKLE == _numpy1_none_payload(3)
    header = _safe_npy.none_npy_bytes()[: -len(_safe_npy._NONE_PICKLE)]
    stream = io.BytesIO(header)
    assert numpy.lib.format.read_magic(stream) == (1, 0)
    shape, fortran_order, dtype = numpy.lib.format.read_array_header_1_0(stream)
    assert (shape, fortran_order, dtype) == ((), False, numpy.dtype(object))


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_is_pickled_none_accepts_every_protocol(protocol):
    assert _safe_npy.is_pickled_none(pickle.dumps(numpy.asarray(None), protocol=protocol))
    assert _safe_npy.is_pickled_none(_numpy1_none_payload(protocol))


class _SideEffect:
    """Unpickling this appends to RAN: proof that a loader executed pickled code."""

    def __reduce__(self):
        return (RAN.append, ("unpickled!",))


RAN = []


@pytest.mark.parametrize(
    "value",
    [
        numpy.asarray(_SideEffect(), dtype=object),
        numpy.asarray(1, dtype=object),
        numpy.asarray({"a": None}, dtype=object),
        numpy.array([None], dtype=object),
        numpy.array([None, None], dtype=object),
    ],
    ids=["side-effect", "int", "dict", "list-of-none", "two-nones"],
)
def test_pickled_objects_are_refused_and_never_run(tmp_path, model, h, value):
    RAN.clear()
    arrays = _chainer7_arrays(model)
    arrays["predictor/bn/avg_mean"] = value
    path = tmp_path / "evil.npz"
    numpy.savez(path, **arrays)
    target = h.Classifier(h.MLP())
    before = h.snapshot(target)
    with pytest.raises(ValueError, match="'predictor/bn/avg_mean'.*Python objects.*refused"):
        serializers.load_npz(path, target)
    assert RAN == []
    h.assert_same_state(h.snapshot(target), before)


def test_pickle_payload_variants_are_refused():
    none = pickle.dumps(numpy.asarray(None), protocol=3)
    assert not _safe_npy.is_pickled_none(none.replace(b"cnumpy\nndarray", b"cos\nsystem\n\n"[:-1]))
    assert not _safe_npy.is_pickled_none(pickle.dumps(numpy.asarray(0, dtype=object), protocol=3))
    assert not _safe_npy.is_pickled_none(pickle.dumps(None, protocol=3))
    assert not _safe_npy.is_pickled_none(b"garbage")
    assert not _safe_npy.is_pickled_none(none + b"x" * 2000)


def test_numpy_load_object_is_accepted_by_npz_deserializer(tmp_path, model, h):
    # The 7.8.1 idiom: NpzDeserializer(numpy.load(path)); object entries are inspected safely.
    path = tmp_path / "m.npz"
    serializers.save_npz(path, model)
    other = h.Classifier(h.MLP())
    with numpy.load(path) as npz:
        serializers.NpzDeserializer(npz).load(other)
    h.assert_same_state(h.snapshot(other), h.snapshot(model))
    other = h.Classifier(h.MLP())
    serializers.NpzDeserializer(dict(_chainer7_arrays(model))).load(other)
    h.assert_same_state(h.snapshot(other), h.snapshot(model))
    with pytest.raises(TypeError, match="numpy.load returns"):
        serializers.NpzDeserializer(str(path))


# -- errors leave the object unchanged ---------------------------------------------------------------


def test_truncated_file_raises_and_leaves_model_unchanged(tmp_path, model, h):
    _forward(model)
    path = tmp_path / "model.npz"
    serializers.save_npz(path, model)
    data = path.read_bytes()
    target = h.Classifier(h.MLP())
    before = h.snapshot(target)
    for cut in (len(data) // 2, len(data) - 10, 30):
        path.write_bytes(data[:cut])
        with pytest.raises(ValueError, match="truncated or corrupt"):
            serializers.load_npz(path, target)
        h.assert_same_state(h.snapshot(target), before)


def test_corrupt_member_raises_and_leaves_model_unchanged(tmp_path, model, h):
    path = tmp_path / "model.npz"
    serializers.save_npz(path, model, compression=False)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("predictor/l2/b.npy")
    # Flip a byte inside the data of the last member: its CRC no longer matches.
    position = info.header_offset + 30 + len(info.filename) + info.file_size - 1
    data[position] ^= 0xFF
    path.write_bytes(bytes(data))
    target = h.Classifier(h.MLP())
    before = h.snapshot(target)
    with pytest.raises(ValueError, match="predictor/l2/b.*truncated or corrupt"):
        serializers.load_npz(path, target)
    h.assert_same_state(h.snapshot(target), before)


def test_not_an_npz_file(tmp_path, model):
    path = tmp_path / "junk.npz"
    path.write_bytes(b"this is not a zip file at all")
    with pytest.raises(ValueError, match="not an NPZ file"):
        serializers.load_npz(path, model)
    path = tmp_path / "pickled.npz"
    path.write_bytes(pickle.dumps({"a": 1}))
    with pytest.raises(ValueError, match="not an NPZ file"):
        serializers.load_npz(path, model)
    npy = tmp_path / "single.npy"
    numpy.save(npy, numpy.zeros(3))
    with pytest.raises(ValueError, match="single .npy array"):
        serializers.load_npz(npy, model)
    with pytest.raises(FileNotFoundError):
        serializers.load_npz(tmp_path / "missing.npz", model)


def test_missing_key_names_the_key_and_leaves_model_unchanged(tmp_path, model, h):
    arrays = _chainer7_arrays(model)
    del arrays["predictor/l2/b"]
    path = tmp_path / "partial.npz"
    numpy.savez(path, **arrays)
    target = h.Classifier(h.MLP())
    before = h.snapshot(target)
    with pytest.raises(KeyError, match="'predictor/l2/b' is not in the file"):
        serializers.load_npz(path, target)
    h.assert_same_state(h.snapshot(target), before)
    # strict=False loads what is there and leaves the rest
    serializers.load_npz(path, target, strict=False)
    numpy.testing.assert_array_equal(target.predictor.l1.W.array, model.predictor.l1.W.array)
    numpy.testing.assert_array_equal(target.predictor.l2.b.array, before["/predictor/l2/b"])


def test_shape_mismatch_names_the_key_and_leaves_model_unchanged(tmp_path, model, h):
    arrays = _chainer7_arrays(model)
    arrays["predictor/l2/b"] = numpy.zeros(3, numpy.float32)
    path = tmp_path / "shape.npz"
    numpy.savez(path, **arrays)
    target = h.Classifier(h.MLP())
    before = h.snapshot(target)
    with pytest.raises(ValueError, match=r"'predictor/l2/b'.*\(3,\).*\(2,\)"):
        serializers.load_npz(path, target)
    h.assert_same_state(h.snapshot(target), before)


def test_dtype_and_scalar_mismatches(tmp_path):
    link = chainer.Link()
    link.add_persistent("counts", numpy.zeros(2, numpy.int32))
    link.add_persistent("n", 0)
    path = tmp_path / "types.npz"
    numpy.savez(path, counts=numpy.ones(2, numpy.float32), n=numpy.asarray(1))
    with pytest.raises(TypeError, match="'counts' of dtype float32"):
        serializers.load_npz(path, link)
    numpy.savez(path, counts=numpy.ones(2, numpy.int64), n=numpy.asarray(1.5))
    with pytest.raises(TypeError, match="'n'"):
        serializers.load_npz(path, link)
    assert link.n == 0
    numpy.savez(path, counts=numpy.ones(2, numpy.int64), n=numpy.arange(3))
    with pytest.raises(ValueError, match="'n' holds an array of shape"):
        serializers.load_npz(path, link)
    # Chainer 7's rule for scalars: any integer into an int, otherwise only a safe cast,
    # so even an integral float is refused for an int.
    numpy.savez(path, counts=numpy.full(2, 4, numpy.int64), n=numpy.asarray(2.0))
    with pytest.raises(TypeError, match="'n' \\(dtype float64\\) into a value of type int"):
        serializers.load_npz(path, link)
    numpy.savez(path, counts=numpy.full(2, 4, numpy.int64), n=numpy.asarray(-(2**60)))
    serializers.load_npz(path, link)
    assert link.n == -(2**60) and type(link.n) is int
    numpy.testing.assert_array_equal(link.counts, [4, 4])


def test_scalar_casts_follow_numpy_safe_casting(tmp_path):
    link = chainer.Link()
    link.add_persistent("small", numpy.uint32(0))
    link.add_persistent("ratio", 0.0)
    path = tmp_path / "casts.npz"
    numpy.savez(path, small=numpy.asarray(5, numpy.int64), ratio=numpy.asarray(0.25, numpy.float32))
    with pytest.raises(TypeError, match="'small' \\(dtype int64\\) into a value of type uint32"):
        serializers.load_npz(path, link)
    numpy.savez(path, small=numpy.asarray(5, numpy.uint8), ratio=numpy.asarray(0.25, numpy.float32))
    serializers.load_npz(path, link)
    assert link.small == 5 and type(link.small) is numpy.uint32
    assert link.ratio == 0.25 and type(link.ratio) is float


# -- path and ignore_names -------------------------------------------------------------------------------


def test_path_loads_a_sub_tree_and_missing_key_hint(tmp_path, model, h):
    _forward(model)
    path = tmp_path / "classifier.npz"
    serializers.save_npz(path, model)
    mlp = h.MLP()
    _forward(h.Classifier(mlp))
    with pytest.raises(KeyError, match=r"load with path='predictor/'"):
        serializers.load_npz(path, mlp)
    for prefix in ("predictor/", "predictor", "/predictor/"):
        target = h.MLP()
        target(numpy.ones((1, 3), numpy.float32))
        serializers.load_npz(path, target, path=prefix)
        numpy.testing.assert_array_equal(target.l2.W.array, model.predictor.l2.W.array)


def test_ignore_names(tmp_path, model, h):
    arrays = _chainer7_arrays(model)
    del arrays["predictor/l1/W"]
    arrays["predictor/bn/N"] = numpy.asarray(99)
    path = tmp_path / "ignore.npz"
    numpy.savez(path, **arrays)
    target = h.Classifier(h.MLP())
    before = h.snapshot(target)
    serializers.load_npz(path, target, ignore_names=["predictor/l1/W", "predictor/bn/N"])
    numpy.testing.assert_array_equal(target.predictor.l1.W.array, before["/predictor/l1/W"])
    assert target.predictor.bn.N == before["/predictor/bn/N"]
    numpy.testing.assert_array_equal(target.predictor.l1.b.array, model.predictor.l1.b.array)
    target = h.Classifier(h.MLP())
    serializers.load_npz(path, target, ignore_names=lambda key: key.endswith(("/W", "/N")))
    assert target.predictor.bn.N == 7
    with pytest.raises(TypeError, match="ignore_names"):
        serializers.load_npz(path, target, ignore_names=3)
    # A list may mix key names and callables (Chainer 7 accepted that).
    target = h.Classifier(h.MLP())
    before = h.snapshot(target)
    serializers.load_npz(path, target, ignore_names=[lambda key: key.endswith("/N"), "predictor/l1/W"])
    assert target.predictor.bn.N == before["/predictor/bn/N"]
    numpy.testing.assert_array_equal(target.predictor.l1.W.array, before["/predictor/l1/W"])


def test_plain_dicts_save_as_their_keys(tmp_path):
    # save_npz of a mapping (no serialize method) saves its values under their keys, nested
    # mappings under their key as a prefix.
    state = {"mean": numpy.arange(3.0), "N": numpy.array(2), "sub": {"x": numpy.ones(2)}}
    path = tmp_path / "dict.npz"
    serializers.save_npz(path, state)
    with numpy.load(path) as npz:
        assert sorted(npz.files) == ["N", "mean", "sub/x"]
        numpy.testing.assert_array_equal(npz["sub/x"], numpy.ones(2))
    with pytest.raises(TypeError, match="keys of a saved mapping must be str"):
        serializers.save_npz(tmp_path / "bad.npz", {1: numpy.ones(1)})


def test_npz_serialize_returns_the_dict_save_npz_writes():
    from chainer.serializers import npz

    link = chainer.Link()
    with link.init_scope():
        link.W = chainer.Parameter(numpy.arange(4.0).reshape(2, 2))
    link.add_persistent("count", 3)
    target = npz.serialize(link)
    assert sorted(target) == ["W", "count"]
    numpy.testing.assert_array_equal(target["W"], numpy.arange(4.0).reshape(2, 2))
    assert target["count"] == 3


def test_objects_outside_the_project_load_in_one_pass(tmp_path):
    calls = []

    class Counter:
        def serialize(self, serializer):
            calls.append(serializer("x", 0))

    path = tmp_path / "x.npz"
    numpy.savez(path, x=numpy.asarray(5))
    serializers.load_npz(path, Counter())
    assert calls == [5]


# -- atomic saving ------------------------------------------------------------------------------------------


def test_failed_save_keeps_the_old_file(tmp_path, model):
    path = tmp_path / "model.npz"
    serializers.save_npz(path, model)
    original = path.read_bytes()

    class Exploding(chainer.Link):
        def serialize(self, serializer):
            serializer("a", numpy.zeros(2))
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        serializers.save_npz(path, Exploding())
    assert path.read_bytes() == original
    assert os.listdir(tmp_path) == ["model.npz"]


def test_saved_file_has_ordinary_permissions(tmp_path, model):
    path = tmp_path / "model.npz"
    serializers.save_npz(path, model)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~umask


# -- the validation pass and user serialize code ----------------------------------------------------------


def test_user_serialize_code_expecting_arrays_still_loads(tmp_path):
    class Holder(chainer.Link):
        def __init__(self):
            super().__init__()
            self.order = None
            self.history = ""

        def serialize(self, serializer):
            super().serialize(serializer)
            if isinstance(serializer, chainer.Serializer):
                serializer("order", self.order)
                serializer("history", self.history)
            else:
                order = serializer("order", None)
                self.order = order.copy()  # fails on None in the validation pass
                self.history = serializer("history", "")

    src = Holder()
    src.order = numpy.arange(4)
    src.history = '["a"]'
    path = tmp_path / "holder.npz"
    serializers.save_npz(path, src)
    dst = Holder()
    serializers.load_npz(path, dst)
    numpy.testing.assert_array_equal(dst.order, numpy.arange(4))
    assert dst.history == '["a"]'


@attr.gpu
def test_gpu_model_round_trip(tmp_path, model, h):
    import cupy

    _forward(model)
    expected = h.snapshot(model)
    model.to_device("@cupy:0")
    path = tmp_path / "gpu.npz"
    serializers.save_npz(path, model)
    target = h.Classifier(h.MLP())
    target.to_device("@cupy:0")
    serializers.load_npz(path, target)
    assert isinstance(target.predictor.l2.W.array, cupy.ndarray)  # initialized on its device
    assert isinstance(target.predictor.bn.avg_mean, cupy.ndarray)
    target.to_device("@numpy")
    h.assert_same_state(h.snapshot(target), expected)


def test_failed_load_leaves_string_and_scalar_persistents_unchanged(tmp_path):
    link = chainer.Link()
    link.add_persistent("label", "old")
    link.add_persistent("count", 1)
    link.add_persistent("zz_missing", numpy.zeros(2))
    path = tmp_path / "partial.npz"
    numpy.savez(path, label=numpy.asarray("new"), count=numpy.asarray(5))
    with pytest.raises(KeyError, match="'zz_missing'"):
        serializers.load_npz(path, link)
    assert link.label == "old" and link.count == 1


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_mutated_none_payloads_are_accepted_only_if_they_still_mean_none(protocol):
    # Whatever the checker accepts must unpickle (here, in the test only) to array(None).
    rng = numpy.random.RandomState(protocol)  # fixed: the test must be reproducible
    payload = pickle.dumps(numpy.asarray(None), protocol=protocol)
    for _ in range(400):
        mutated = bytearray(payload)
        for position in rng.randint(0, len(mutated), size=rng.randint(1, 4)):
            mutated[position] = rng.randint(0, 256)
        if _safe_npy.is_pickled_none(bytes(mutated)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = pickle.loads(bytes(mutated))
            assert value.dtype == object and value.shape == () and value[()] is None


@pytest.mark.parametrize(
    "content",
    [
        bytes(numpy.random.default_rng(0).integers(0, 256, 3000, dtype=numpy.uint8)),
        b"plain text",
        b"",
        b"\x80\x04K\x01.",
    ],
    ids=["random", "text", "empty", "pickle"],
)
def test_garbage_file_error_never_advises_unpickling(tmp_path, model, h, content):
    # NumPy takes anything that is neither a zip nor a .npy for a pickle and advises
    # loading it "unsafely" with allow_pickle; our error says what the file is not.
    path = tmp_path / "garbage.npz"
    path.write_bytes(content)
    before = h.snapshot(model)
    with pytest.raises(ValueError) as info:
        serializers.load_npz(path, model)
    message = str(info.value)
    assert message.startswith(f"load_npz: cannot read {str(path)!r}: it is ")
    assert ("empty" if not content else "not an NPZ file") in message
    assert "allow_pickle" not in message and "unsafe" not in message and "pickle.load" not in message
    h.assert_same_state(h.snapshot(model), before)


@pytest.mark.parametrize("fmt", ["npz", "hdf5"])
def test_temporaries_of_killed_saves_are_removed_by_a_later_save(tmp_path, fmt):
    # A save killed (SIGKILL) while it writes cannot remove its temporary file; a later
    # save into the folder removes it once it has been left untouched for an hour.
    if fmt == "hdf5":
        pytest.importorskip("h5py")
    target = tmp_path / "model"
    code = textwrap.dedent(
        f"""
        import os, signal
        import numpy, chainer
        from chainer.serializers import _base

        def killed_while_writing(path, write):
            def write_then_die(tmp):
                with open(tmp, 'wb') as f:
                    f.write(b'half a file')
                    f.flush()
                    os.kill(os.getpid(), signal.SIGKILL)
            return real(path, write_then_die)

        real = _base.write_atomically
        _base.write_atomically = killed_while_writing
        link = chainer.Link()
        link.add_persistent('x', numpy.arange(3.0))
        chainer.serializers.save_{fmt}({str(target)!r}, link)
        """
    )
    for _ in range(2):
        process = subprocess.run([sys.executable, "-c", code], capture_output=True)
        assert process.returncode == -signal.SIGKILL, process.stderr.decode()
    left = sorted(p for p in tmp_path.iterdir() if p.name != "model")
    assert len(left) == 2 and all(p.name.startswith(".model.") and p.name.endswith(".chainer-tmp") for p in left)

    link = chainer.Link()
    link.add_persistent("x", numpy.arange(3.0))
    save = getattr(serializers, f"save_{fmt}")
    save(target, link)
    assert sorted(tmp_path.iterdir()) == sorted([target, *left])  # maybe still being written: kept
    for path in left:
        os.utime(path, (time.time() - 7200,) * 2)
    save(target, link)
    assert sorted(tmp_path.iterdir()) == [target]
