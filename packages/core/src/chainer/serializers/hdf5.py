"""Saving and loading in HDF5 (needs h5py: ``pip install 'chainer-core[hdf5]'``).

The hierarchy of the object becomes the hierarchy of HDF5 groups (``predictor`` /
``l1`` / ``W``), as in Chainer 7.8.1; ``None`` is stored as an empty dataset.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from typing import Any

import numpy

from chainer import backend, serializer
from chainer.serializers import _base

# Whether h5py can be imported here; 7.8.1's tests and downstream code read this flag
# (and _check_available) to skip HDF5 cases. Found without importing h5py itself.
_available = importlib.util.find_spec("h5py") is not None


def _check_available() -> None:
    """Raise an ImportError that says how to install h5py unless it is available."""
    _h5py("chainer.serializers.hdf5")


def _find_h5py() -> bool:
    try:
        return importlib.util.find_spec("h5py") is not None
    except ValueError:  # sys.modules['h5py'] is None: marked as not importable
        return False


# Whether h5py is installed (found without importing it: importing chainer stays light).
_available = _find_h5py()


class H5pyMissingError(ImportError, RuntimeError):
    """h5py is not installed. A RuntimeError too, which is what Chainer 7 raised."""


def _h5py(where: str) -> Any:
    try:
        return importlib.import_module("h5py")
    except ImportError as exc:
        raise H5pyMissingError(
            f"{where} needs h5py, which is not installed; install it with: pip install 'chainer-core[hdf5]'"
        ) from exc


class HDF5Serializer(serializer.Serializer):
    """Serializer writing into an HDF5 group.

    ``HDF5Serializer(group, compression=4)``

    Args:
        group: An ``h5py.File`` or ``h5py.Group``.
        compression: gzip level (0-9) for arrays of more than one element, or ``None``.
    """

    def __init__(self, group: Any, compression: int | None = 4) -> None:
        h5py = _h5py("HDF5Serializer")
        if not isinstance(group, h5py.Group):
            raise TypeError(f"HDF5Serializer: group must be an h5py.File or h5py.Group, got {type(group).__name__}")
        self.group = group
        self.compression = compression

    def __getitem__(self, key: str) -> HDF5Serializer:
        return HDF5Serializer(self.group.require_group(key.strip("/")), self.compression)

    def __call__(self, key: str, value: Any) -> Any:
        h5py = _h5py("HDF5Serializer")
        key = key.lstrip("/")
        if value is None:
            if h5py.version.version_tuple < (2, 7, 0):
                raise RuntimeError(
                    f"HDF5Serializer: saving None (key {key!r}) needs h5py >= 2.7 (h5py.Empty); "
                    f"this is h5py {h5py.version.version}"
                )
            self.group.create_dataset(key, data=h5py.Empty("f"))
            return value
        if isinstance(value, (str, bytes)):
            self.group.create_dataset(key, data=value)
            return value
        array = backend.cpu().send(value) if _base._is_array(value) else numpy.asarray(value)
        if array.dtype.kind == "U":
            array = numpy.char.encode(array, "utf-8")
        if array.dtype.hasobject:
            raise TypeError(
                f"HDF5Serializer: the value of key {key!r} holds Python objects (dtype object); only arrays, "
                "numbers, strings and None can be saved"
            )
        compression = self.compression if array.size > 1 else None
        self.group.create_dataset(key, data=array, compression=compression)
        return value


def _read_dataset(dataset: Any, h5py: Any) -> Any:
    """A dataset's value as a NumPy array, or None for an empty (None) dataset."""
    if dataset.shape is None:
        return None
    value = dataset[()]
    if isinstance(value, (bytes, str)):
        return numpy.asarray(value.encode("utf-8") if isinstance(value, str) else value)
    array = numpy.asarray(value)
    if array.dtype.hasobject:
        # Variable-length strings come back as object arrays of bytes.
        if all(isinstance(x, (bytes, str)) for x in array.flat):
            return numpy.array([x.encode("utf-8") if isinstance(x, str) else x for x in array.flat]).reshape(
                array.shape
            )
        raise TypeError(f"dataset {dataset.name!r} holds Python objects, which cannot be loaded")
    return array


class _GroupSource(_base.Source):
    def __init__(self, group: Any, h5py: Any) -> None:
        self.group = group
        self.h5py = h5py
        self.where = "HDF5Deserializer"

    def lookup(self, key: str) -> Any:
        item = self.group.get(key)
        if not isinstance(item, self.h5py.Dataset):
            raise KeyError(key)
        return _read_dataset(item, self.h5py)

    def prefix_hint(self, prefix: str) -> str:
        return f"use HDF5Deserializer(group[{prefix.rstrip('/')!r}])"

    def keys(self) -> Any:
        names: list[str] = []
        self.group.visititems(lambda name, obj: names.append(name) if isinstance(obj, self.h5py.Dataset) else None)
        return names


class HDF5Deserializer(_base.SourceDeserializer):
    """Deserializer reading from an HDF5 group.

    ``HDF5Deserializer(group, strict=True)``

    Args:
        group: An ``h5py.File`` or ``h5py.Group``.
        strict: Raise ``KeyError`` for a missing key; if ``False`` the value is left as is.
    """

    def __init__(self, group: Any, strict: bool = True) -> None:
        h5py = _h5py("HDF5Deserializer")
        if not isinstance(group, h5py.Group):
            raise TypeError(f"HDF5Deserializer: group must be an h5py.File or h5py.Group, got {type(group).__name__}")
        self.group = group
        super().__init__(_GroupSource(group, h5py), "", strict, None)

    @classmethod
    def _from_entries(cls, source: _base.Source) -> HDF5Deserializer:
        """A deserializer over values already read from a (now closed) file; its
        :attr:`group` is ``None``."""
        self = cls.__new__(cls)
        self.group = None
        _base.SourceDeserializer.__init__(self, source, "", True, None)
        return self

    def _child(self, path: str) -> _base.SourceDeserializer:
        child = super()._child(path)
        source = self._source
        if isinstance(source, _GroupSource):
            # As in Chainer 7, a child deserializer's group is the sub-group it reads
            # (None where the file has no such group).
            name = path.strip("/")
            child.group = source.group.get(name) if name else source.group
        return child


def save_hdf5(filename: Any, obj: Any, compression: int | None = 4) -> None:
    """Save an object to an HDF5 file.

    Args:
        filename: A path (written atomically through a temporary file) or a writable
            binary file object.
        obj: An object with a ``serialize(serializer)`` method.
        compression: gzip level for arrays, or ``None``.
    """
    h5py = _h5py("save_hdf5")

    def write(target: Any) -> None:
        with h5py.File(target, "w") as f:
            HDF5Serializer(f, compression=compression).save(obj)

    if _base.is_path(filename):
        _base.write_atomically(filename, write)
    else:
        write(filename)


def _read_hdf5_entries(filename: Any, h5py: Any, where: str) -> dict[str, Any]:
    if _base.is_path(filename) and not os.path.exists(filename):
        raise FileNotFoundError(f"{where}: no such file: {os.fspath(filename)!r}")
    try:
        f = h5py.File(filename, "r")
    except OSError as exc:
        raise ValueError(
            f"{where}: cannot read {filename!r}: it is not an HDF5 file, or it is truncated or corrupt ({exc})"
        ) from exc
    entries: dict[str, Any] = {}
    errors: list[str] = []
    with f:

        def visit(name: str | bytes, item: Any) -> None:
            if isinstance(name, bytes):
                # h5py gives names that are not UTF-8 (damaged, or written by another
                # tool) as bytes; no key can ask for them, but messages list them.
                name = name.decode("utf-8", "backslashreplace")
            if isinstance(item, h5py.Dataset):
                try:
                    entries[name] = _read_dataset(item, h5py)
                except (OSError, TypeError, ValueError) as exc:
                    errors.append(f"{name!r}: {exc}")

        try:
            f.visititems(visit)
        except (OSError, RuntimeError, ValueError, KeyError) as exc:
            # h5py raises KeyError for an object whose header it cannot decode.
            errors.append(str(exc))
    if errors:
        raise ValueError(f"{where}: cannot read {filename!r}: the file is truncated or corrupt ({errors[0]})")
    return entries


def load_hdf5(filename: Any, obj: Any) -> None:
    """Load an object from an HDF5 file.

    As with :func:`~chainer.serializers.load_npz`, the file is read and every key and
    shape validated before anything is assigned, so a failed load leaves ``obj``
    unchanged.

    Args:
        filename: A path or a readable binary file object.
        obj: The object to load into.
    """
    where = "load_hdf5"
    h5py = _h5py(where)
    entries = _read_hdf5_entries(filename, h5py, where)
    source = _base.DictSource(
        entries, where, lambda prefix: f"open the file with h5py and use HDF5Deserializer(f[{prefix.rstrip('/')!r}])"
    )
    deserializer = HDF5Deserializer._from_entries(source)
    _base.load_validated(deserializer, obj)
