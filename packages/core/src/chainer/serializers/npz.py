"""Saving and loading in NumPy's NPZ format, with the key layout of Chainer 7.8.1.

Keys are the paths of the values joined with ``'/'`` (``predictor/l1/W``); each is one
``<key>.npy`` member of the zip archive. ``None`` is stored the way Chainer 7.8.1 stored
it (a pickled 0-d object array), so files go both ways, but loading never unpickles.
"""

from __future__ import annotations

import os
import zipfile
import zlib
from typing import Any

import numpy
import numpy.lib.format as npy_format

from chainer import backend, serializer
from chainer.serializers import _base, _safe_npy

_CORRUPT_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, ValueError, OSError, KeyError, RuntimeError)


def _describe_file(file: Any) -> str:
    if _base.is_path(file):
        return repr(os.fspath(file))
    name = getattr(file, "name", None)
    return repr(name) if isinstance(name, str) else f"the {type(file).__name__} object"


class DictionarySerializer(serializer.Serializer):
    """Serializer that flattens an object into a dict of arrays, keyed by path.

    ``DictionarySerializer(target=None, path='')``

    GPU arrays are copied to the host; scalars and strings become 0-d arrays; ``None``
    becomes ``numpy.asarray(None)``. :func:`save_npz` writes the dict as an NPZ file.

    Args:
        target: The dict to fill (a new one by default), available as ``.target``.
        path: Prefix of the keys (``'model/'`` makes ``'model/l1/W'``).

    Example:
        >>> model = chainer.Chain()
        >>> with model.init_scope():
        ...     model.l1 = L.Linear(3, 4)
        ...     model.l2 = L.Linear(4, 2)
        >>> s = chainer.serializers.DictionarySerializer()
        >>> s.save(model)
        >>> sorted(s.target)
        ['l1/W', 'l1/b', 'l2/W', 'l2/b']
    """

    def __init__(self, target: dict[str, Any] | None = None, path: str = "") -> None:
        self.target: dict[str, Any] = {} if target is None else target
        if not isinstance(path, str):
            raise TypeError(f"DictionarySerializer: path must be a str, got {type(path).__name__}")
        self.path = path

    def __getitem__(self, key: str) -> DictionarySerializer:
        return DictionarySerializer(self.target, self.path + key.strip("/") + "/")

    def __call__(self, key: str, value: Any) -> Any:
        key = key.lstrip("/")
        if value is None:
            array = numpy.asarray(None)
        elif _base._is_array(value):
            array = backend.cpu().send(value)
        else:
            array = numpy.asarray(value)
        self.target[self.path + key] = array
        return value


def _check_savable(entries: dict[str, Any]) -> None:
    for key, array in entries.items():
        if not isinstance(array, numpy.ndarray):
            raise TypeError(f"save_npz: the value of key {key!r} is a {type(array).__name__}, not an array")
        if array.dtype.hasobject and not _safe_npy.is_none_array(array):
            raise TypeError(
                f"save_npz: the value of key {key!r} holds Python objects (dtype object); only arrays, "
                "numbers, strings and None can be saved (objects would need pickling, which loading refuses)"
            )


def _write_npz(file: Any, entries: dict[str, Any], compression: bool) -> None:
    method = zipfile.ZIP_DEFLATED if compression else zipfile.ZIP_STORED
    none_bytes = _safe_npy.none_npy_bytes()
    with zipfile.ZipFile(file, mode="w", compression=method, allowZip64=True) as archive:
        for key, array in entries.items():
            with archive.open(key + ".npy", "w", force_zip64=True) as member:
                if _safe_npy.is_none_array(array):
                    member.write(none_bytes)
                else:
                    npy_format.write_array(member, array, allow_pickle=False)


def serialize(obj: Any) -> dict[str, Any]:
    """Serialize ``obj`` into a dict of NumPy arrays keyed by path (what :func:`save_npz`
    writes), e.g. ``{'l1/W': array, ...}``.

    Args:
        obj: An object with a ``serialize(serializer)`` method.

    Returns:
        The dict.
    """
    s = DictionarySerializer()
    s.save(obj)
    return s.target


def save_npz(file: Any, obj: Any, compression: bool = True) -> None:
    """Save an object (a link, an optimizer, a trainer...) to an NPZ file.

    Args:
        file: A path (written atomically: a temporary file next to it is moved into
            place, so an interrupted save never leaves a truncated file) or a writable
            binary file object. No ``.npz`` suffix is added.
        obj: An object with a ``serialize(serializer)`` method.
        compression: Compress the archive (``numpy.savez_compressed``-style).

    Example:
        >>> model = L.Linear(3, 2)
        >>> chainer.serializers.save_npz('my.model', model)
    """
    s = DictionarySerializer()
    s.save(obj)
    _check_savable(s.target)
    if _base.is_path(file):
        _base.write_atomically(file, lambda tmp: _write_npz(tmp, s.target, compression))
    else:
        _write_npz(file, s.target, compression)


# -- loading ----------------------------------------------------------------------------------


def _member_key(member: str) -> str:
    return member[:-4] if member.endswith(".npy") else member


def _read_member(npz: Any, member: str, describe: str) -> Any:
    """One member of an NpzFile: an array, or None for a pickled None. Never unpickles."""
    with npz.zip.open(member) as stream:
        if _safe_npy.holds_none(stream, describe):
            return None
    try:
        return npz[_member_key(member)]
    except ValueError as exc:
        if "allow_pickle" in str(exc):
            raise _safe_npy.UnsafeEntryError(
                f"{describe} holds Python objects; loading it would unpickle data, so it is refused"
            ) from None
        raise


class _NpzFileSource(_base.Source):
    """Reads members of an open ``numpy.lib.npyio.NpzFile`` on demand."""

    def __init__(self, npz: Any, where: str) -> None:
        self.npz = npz
        self.where = where
        self._members = {_member_key(m): m for m in npz.zip.namelist()}

    def lookup(self, key: str) -> Any:
        member = self._members[key]
        return _read_member(self.npz, member, f"{self.where}: key {key!r}")

    def keys(self) -> Any:
        return self._members.keys()


class _MappingSource(_base.Source):
    """A dict-like of arrays already in memory (as 7.8.1 users pass ``dict(numpy.load(...))``)."""

    def __init__(self, mapping: Any, where: str) -> None:
        self.mapping = mapping
        self.where = where

    def lookup(self, key: str) -> Any:
        value = self.mapping[key]
        if _safe_npy.is_none_array(value) or value is None:
            return None
        array = numpy.asarray(value)
        if array.dtype.hasobject:
            raise TypeError(f"{self.where}: key {key!r} holds Python objects (dtype object), which cannot be loaded")
        return array

    def keys(self) -> Any:
        return self.mapping.keys()


class NpzDeserializer(_base.SourceDeserializer):
    """Deserializer for NPZ archives.

    ``NpzDeserializer(npz, path='', strict=True, ignore_names=None)``

    Args:
        npz: The archive: what ``numpy.load`` returns for an NPZ file (object arrays are
            inspected without unpickling: only a saved ``None`` is accepted), or a dict of
            arrays.
        path: The sub-tree to load from (``'updater/model:main/'`` loads the model part
            of a trainer snapshot).
        strict: Raise ``KeyError`` for a key missing from the archive; if ``False``,
            missing values are left as they are.
        ignore_names: Keys to skip (full keys, including ``path``): a list of names or a
            callable ``ignore_names(key) -> bool``.
    """

    def __init__(self, npz: Any, path: str = "", strict: bool = True, ignore_names: Any = None) -> None:
        where = "NpzDeserializer"
        if isinstance(npz, numpy.lib.npyio.NpzFile):
            source: _base.Source = _NpzFileSource(npz, where)
        elif hasattr(npz, "__getitem__") and hasattr(npz, "keys"):
            source = _MappingSource(npz, where)
        else:
            raise TypeError(
                f"NpzDeserializer: npz must be what numpy.load returns for an NPZ file, or a dict of arrays; "
                f"got {type(npz).__name__} (to load a file, use chainer.serializers.load_npz)"
            )
        self.npz = npz
        super().__init__(source, path, strict, ignore_names)


def _reason(exc: BaseException) -> str:
    # NumPy's errors for data it takes for a pickle advise loading with allow_pickle=True:
    # advice to run whatever the file holds, which we never pass on.
    if "allow_pickle" in str(exc):
        return "it holds data that only unpickling could read, and files are never unpickled"
    return f"{type(exc).__name__}: {exc}"


def _read_npz_entries(file: Any, where: str) -> dict[str, Any]:
    """Read every entry of an NPZ file into memory, validating the whole file first."""
    if _base.is_path(file):
        # Open the file ourselves: it is then closed on every error path.
        with open(file, "rb") as f:
            return _read_npz_stream(f, _describe_file(file), where)
    return _read_npz_stream(file, _describe_file(file), where)


# How an NPZ archive (a zip file, possibly empty) or a single .npy array begins.
_SIGNATURES = (b"PK\x03\x04", b"PK\x05\x06", npy_format.MAGIC_PREFIX)


def _read_npz_stream(stream: Any, describe: str, where: str) -> dict[str, Any]:
    # numpy.load takes anything else for a pickle and advises loading it with
    # allow_pickle=True; we never unpickle, so we say what the file is not instead.
    try:
        start = stream.tell()
        head = stream.read(len(npy_format.MAGIC_PREFIX))
        stream.seek(start)
    except (OSError, AttributeError, ValueError):
        head = None  # not seekable: numpy.load reports that itself
    if head == b"":
        raise ValueError(f"{where}: cannot read {describe}: it is empty (truncated or corrupt), not an NPZ file")
    if head is not None and not head.startswith(_SIGNATURES):
        raise ValueError(
            f"{where}: cannot read {describe}: it is not an NPZ file (it begins neither like a zip archive nor like "
            f"a .npy array, but with {head!r}); files are never unpickled"
        )
    try:
        npz = numpy.load(stream, allow_pickle=False)
    except _CORRUPT_ERRORS as exc:
        raise ValueError(
            f"{where}: cannot read {describe}: it is not an NPZ file, or it is truncated or corrupt ({_reason(exc)})"
        ) from exc
    if not isinstance(npz, numpy.lib.npyio.NpzFile):
        raise ValueError(f"{where}: {describe} holds a single .npy array, not an NPZ archive of named arrays")
    entries: dict[str, Any] = {}
    with npz:
        for member in npz.zip.namelist():
            key = _member_key(member)
            try:
                entries[key] = _read_member(npz, member, f"{where}: entry {key!r} of {describe}")
            except _safe_npy.UnsafeEntryError:
                raise
            except _CORRUPT_ERRORS as exc:
                raise ValueError(
                    f"{where}: cannot read entry {key!r} of {describe}: the file is truncated or corrupt ({_reason(exc)})"
                ) from exc
    return entries


def load_npz(file: Any, obj: Any, path: str = "", strict: bool = True, ignore_names: Any = None) -> None:
    """Load an object from an NPZ file.

    The whole file is read and checked first, then every key, shape and dtype the object
    asks for is validated, and only then are values assigned: a truncated or corrupt
    file, a missing key (in strict mode) or a shape mismatch raises an error naming the
    problem and leaves ``obj`` unchanged. Entries holding pickled Python objects are
    refused (only the ``None`` values Chainer writes are recognized, without unpickling).

    Args:
        file: A path or a readable binary file object.
        obj: The object to load into (with a ``serialize(serializer)`` method).
        path: The sub-tree of the file to load from, e.g. ``'updater/model:main/'`` to
            load a model from a trainer snapshot.
        strict: Raise ``KeyError`` for keys missing from the file; if ``False`` they
            keep their current values.
        ignore_names: Keys to skip (full keys, including ``path``): a list of names or a
            callable ``ignore_names(key) -> bool``.

    Example:
        >>> model = L.Linear(3, 2)
        >>> chainer.serializers.save_npz('my.model', model)
        >>> copy = L.Linear(3, 2)
        >>> chainer.serializers.load_npz('my.model', copy)
        >>> bool((copy.W.array == model.W.array).all())
        True
    """
    where = "load_npz"
    entries = _read_npz_entries(file, where)
    deserializer = NpzDeserializer(entries, path=path, strict=strict, ignore_names=ignore_names)
    deserializer._source = _base.DictSource(entries, where)
    _base.load_validated(deserializer, obj)
