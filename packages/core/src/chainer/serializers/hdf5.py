"""Saving and loading in HDF5 (needs h5py: ``pip install 'chainer-core[hdf5]'``).

The hierarchy of the object becomes the hierarchy of HDF5 groups (``predictor`` /
``l1`` / ``W``), as in Chainer 7.8.1; ``None`` is stored as an empty dataset.

Every value is saved with a checksum, verified when it is read, so that a damaged file
raises :class:`ChecksumError` instead of loading wrong numbers: arrays are chunked
datasets with HDF5's Fletcher-32 filter (which any HDF5 reader, Chainer 7.8.1's included,
understands); a scalar or a string, which HDF5 cannot chunk and so cannot filter, carries
the CRC-32 of its value in the attribute ``chainer_crc32``. Files without checksums (those
of Chainer 7.8.1) load as before.
"""

from __future__ import annotations

import errno
import importlib
import importlib.util
import os
import zlib
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


# The attribute holding the CRC-32 of a scalar or string dataset's value.
_CRC_ATTRIBUTE = "chainer_crc32"


class ChecksumError(ValueError):
    """A dataset's data do not match the checksum saved with them: the file changed (a
    damaged disk or transfer, an edit) after it was written."""


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
            _add_crc(self.group.create_dataset(key, data=value), h5py)
            return value
        array = backend.cpu().send(value) if _base._is_array(value) else numpy.asarray(value)
        if array.dtype.kind == "U":
            array = numpy.char.encode(array, "utf-8")
        if array.dtype.hasobject:
            raise TypeError(
                f"HDF5Serializer: the value of key {key!r} holds Python objects (dtype object); only arrays, "
                "numbers, strings and None can be saved"
            )
        if array.ndim == 0:
            _add_crc(self.group.create_dataset(key, data=array), h5py)
        elif array.size == 0:
            self.group.create_dataset(key, data=array)  # no data, nothing to check
        else:
            compression = self.compression if array.size > 1 else None
            self.group.create_dataset(key, data=array, compression=compression, chunks=True, fletcher32=True)
        return value


def _crc(value: Any) -> int:
    """The CRC-32 of a value as :func:`_read_dataset` returns it."""
    return zlib.crc32(value.tobytes())


def _add_crc(dataset: Any, h5py: Any) -> None:
    # Of the value as it reads back, so that h5py's conversions (str to a variable-length
    # string, bool to an enum) are the same at saving and at loading.
    dataset.attrs[_CRC_ATTRIBUTE] = numpy.uint32(_crc(_read_dataset(dataset, h5py)))


def _file_name(dataset: Any) -> str:
    try:
        return repr(dataset.file.filename)
    except (AttributeError, ValueError, OSError):
        return "the HDF5 file"


def _read_dataset(dataset: Any, h5py: Any) -> Any:
    """A dataset's value as a NumPy array, or None for an empty (None) dataset.

    Raises:
        ChecksumError: the data fail the checksum saved with them.
    """
    if dataset.shape is None:
        return None
    try:
        value = dataset[()]
    except OSError as exc:
        if not dataset.fletcher32:
            raise
        # HDF5 reports a failed Fletcher-32 check as a failed filter, as it would a
        # chunk that cannot be decompressed: either way the stored bytes changed.
        raise ChecksumError(
            f"the data of dataset {dataset.name!r} in {_file_name(dataset)} fail the Fletcher-32 checksum saved "
            f"with them: the file is damaged ({exc})"
        ) from None
    if isinstance(value, (bytes, str)):
        array = numpy.asarray(value.encode("utf-8") if isinstance(value, str) else value)
    else:
        array = numpy.asarray(value)
        if array.dtype.hasobject:
            # Variable-length strings come back as object arrays of bytes.
            if not all(isinstance(x, (bytes, str)) for x in array.flat):
                raise TypeError(f"dataset {dataset.name!r} holds Python objects, which cannot be loaded")
            array = numpy.array([x.encode("utf-8") if isinstance(x, str) else x for x in array.flat]).reshape(
                array.shape
            )
    saved_crc = dataset.attrs.get(_CRC_ATTRIBUTE)
    if saved_crc is not None and not (
        # A damaged attribute may hold anything; only the integer we wrote matches.
        numpy.ndim(saved_crc) == 0 and numpy.asarray(saved_crc).dtype.kind in "iu" and int(saved_crc) == _crc(array)
    ):
        raise ChecksumError(
            f"the value of dataset {dataset.name!r} in {_file_name(dataset)} does not match the CRC-32 saved with "
            "it: the file is damaged"
        )
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

    Every value is saved with a checksum that :func:`load_hdf5` verifies (see the module
    documentation).

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
    if _base.is_path(filename) and os.path.isdir(filename):
        # What Chainer 7.8.1 raised (h5py would say "not an HDF5 file").
        raise IsADirectoryError(errno.EISDIR, f"{where}: {os.fspath(filename)!r} is a directory, not an HDF5 file")
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
                except ChecksumError as exc:
                    raise ChecksumError(f"{where}: {exc}; nothing was loaded") from None
                except (OSError, TypeError, ValueError) as exc:
                    errors.append(f"{name!r}: {exc}")

        try:
            f.visititems(visit)
        except ChecksumError:
            raise
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
    unchanged. Values saved with a checksum (by :func:`save_hdf5`) are verified: a
    damaged file raises :class:`ChecksumError` (a ``ValueError``) naming the file and
    the dataset. A directory is an ``IsADirectoryError``.

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
