"""What the NPZ and HDF5 deserializers share: key lookup, conversion of a saved value into
the target's type, the validation pass, and atomic file writes."""

from __future__ import annotations

import contextlib
import numbers
import os
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import numpy

from chainer import backend, serializer, utils


class _LoadError(Exception):
    """Marks the errors of a deserializer itself (as opposed to errors of user code)."""

    def __str__(self) -> str:
        # KeyError would show its message quoted; all our messages are plain sentences.
        return str(self.args[0]) if self.args else ""


class MissingKeyError(_LoadError, KeyError):
    """A key the object asks for is not in the file (raised in strict mode)."""


class ShapeMismatchError(_LoadError, ValueError):
    """A saved array does not have the shape of the array it is loaded into."""


class TypeMismatchError(_LoadError, TypeError):
    """A saved value cannot be converted to the type of its target."""


def _is_array(value: Any) -> bool:
    if isinstance(value, numpy.ndarray):
        return True
    if value is None or isinstance(value, (numbers.Number, str, bytes, numpy.generic)):
        return False
    return backend._entry_for_array_type(type(value)) is not None


class Source:
    """Where a deserializer finds values: ``lookup(key)`` returns a NumPy array or
    ``None`` (a saved ``None``), and raises ``KeyError`` for a missing key."""

    where = "deserializer"

    def lookup(self, key: str) -> Any:
        raise NotImplementedError

    def keys(self) -> Iterable[str]:
        return ()

    def prefix_hint(self, prefix: str) -> str:
        """How to load from the sub-tree ``prefix`` of the file."""
        return f"load with path={prefix!r}"


class DictSource(Source):
    """Values already read into a dict (``{key: array or None}``)."""

    def __init__(self, entries: dict[str, Any], where: str, prefix_hint: Callable[[str], str] | None = None) -> None:
        self.entries = entries
        self.where = where
        if prefix_hint is not None:
            self.prefix_hint = prefix_hint  # type: ignore[method-assign]

    def lookup(self, key: str) -> Any:
        return self.entries[key]

    def keys(self) -> Iterable[str]:
        return self.entries.keys()


def _check_ignore_names(ignore_names: Any, where: str) -> Any:
    if ignore_names is None or callable(ignore_names):
        return ignore_names
    if isinstance(ignore_names, str):
        return [ignore_names]
    try:
        names = list(ignore_names)
    except TypeError:
        names = None
    if names is None or not all(isinstance(n, str) or callable(n) for n in names):
        raise TypeError(
            f"{where}: ignore_names must be None, a key name, a callable taking a key, or a list of key names "
            f"and callables; got {ignore_names!r}"
        )
    return names


def _normalize_path(path: Any, where: str) -> str:
    if not isinstance(path, str):
        raise TypeError(f"{where}: path must be a str such as 'predictor/', got {type(path).__name__}")
    path = path.lstrip("/")
    if path and not path.endswith("/"):
        path += "/"
    return path


class SourceDeserializer(serializer.Deserializer):
    """A deserializer reading from a :class:`Source`.

    ``serializer(key, value)`` returns the saved value converted to the kind of ``value``:
    an array target is filled in place (same shape required; any same-kind cast), a
    scalar or string target gets a new scalar or string, and ``None`` asks for the saved
    array itself. A saved ``None`` is returned as ``None``.
    """

    def __init__(self, source: Source, path: str, strict: bool, ignore_names: Any) -> None:
        self._source = source
        self.path = _normalize_path(path, source.where)
        self.strict = bool(strict)
        self.ignore_names = _check_ignore_names(ignore_names, source.where)
        # False in the validation pass: check everything, change nothing.
        self._apply = True

    # -- navigation -----------------------------------------------------------------------

    def _child(self, path: str) -> SourceDeserializer:
        child = object.__new__(type(self))
        child.__dict__.update(self.__dict__)
        child.path = path
        return child

    def __getitem__(self, key: str) -> SourceDeserializer:
        return self._child(self.path + key.strip("/") + "/")

    @property
    def _validating(self) -> bool:
        return not self._apply

    # -- values ------------------------------------------------------------------------------

    def _ignored(self, key: str) -> bool:
        ignore = self.ignore_names
        if ignore is None:
            return False
        if callable(ignore):
            return bool(ignore(key))
        return any(bool(name(key)) if callable(name) else name == key for name in ignore)

    def __call__(self, key: str, value: Any) -> Any:
        full_key = self.path + key.lstrip("/")
        if self._ignored(full_key):
            return value
        try:
            loaded = self._source.lookup(full_key)
        except KeyError:
            if not self.strict:
                return value
            raise MissingKeyError(self._missing_message(full_key)) from None
        return self._convert(full_key, loaded, value)

    def _peek(self, key: str, default: Any = None) -> Any:
        """The saved value of ``key`` (an array, or ``None`` for a saved ``None``) without
        loading it, or ``default`` if the key is missing or ignored. Lets an object decide
        in the validation pass what the loading pass will ask for."""
        full_key = self.path + key.lstrip("/")
        if self._ignored(full_key):
            return default
        try:
            return self._source.lookup(full_key)
        except KeyError:
            return default

    def _missing_message(self, key: str) -> str:
        where = self._source.where
        keys = list(self._source.keys())
        message = f"{where}: key {key!r} is not in the file"
        candidates = sorted(k for k in keys if k.endswith("/" + key))
        if candidates:
            prefix = candidates[0][: -len(key)]
            message += (
                f"; it has {candidates[0]!r}: was the object saved inside a parent? "
                f"({self._source.prefix_hint(prefix)})"
            )
        elif keys:
            leaf = "/" + key.rsplit("/", 1)[-1]
            similar = sorted(k for k in keys if k.endswith(leaf))[:3] or sorted(keys)[:3]
            message += f" (it has {len(keys)} keys, e.g. {', '.join(repr(k) for k in similar)})"
        else:
            message += " (the file has no keys)"
        return message + ". Pass strict=False to skip missing keys"

    def _convert(self, key: str, loaded: Any, value: Any) -> Any:
        where = self._source.where
        if loaded is None:
            return None
        if value is None:
            return loaded if self._apply else None
        if _is_array(value):
            if loaded.shape != value.shape:
                raise ShapeMismatchError(
                    f"{where}: shape mismatch for key {key!r}: the file has {loaded.shape}, the target has {value.shape}"
                )
            if not numpy.can_cast(loaded.dtype, value.dtype, casting="same_kind"):
                raise TypeMismatchError(
                    f"{where}: cannot load key {key!r} of dtype {loaded.dtype} into an array of dtype {value.dtype}"
                )
            if self._apply:
                backend.copyto(value, loaded)
            return value
        converted = _convert_scalar(key, loaded, value, where)
        if self._apply or isinstance(value, (str, bytes)):
            # Strings are returned even when validating: objects decode them (e.g. JSON)
            # to decide what else to load.
            return converted
        return value

    def load(self, obj: Any) -> None:
        """Load ``obj`` from the source (``obj.serialize(self)``)."""
        obj.serialize(self)


def _convert_scalar(key: str, loaded: Any, value: Any, where: str) -> Any:
    kind = loaded.dtype.kind
    if isinstance(value, (list, tuple)):
        return type(value)(loaded.tolist())
    if loaded.size != 1:
        raise ShapeMismatchError(
            f"{where}: key {key!r} holds an array of shape {loaded.shape} but the target is a "
            f"{type(value).__name__} scalar"
        )
    item = loaded.reshape(()).item()
    if isinstance(value, str):
        if kind == "U":
            return str(item)
        if kind == "S":
            return item.decode("utf-8")
    elif isinstance(value, bytes):
        if kind == "S":
            return bytes(item)
        if kind == "U":
            return str(item).encode("utf-8")
    elif isinstance(value, (bool, int, float, complex, numpy.generic)):
        # Chainer 7's rule: an integer into a Python int, else only a safe cast.
        target_type = type(value)
        if (kind in "iu" and target_type is int) or numpy.can_cast(loaded.dtype, target_type, casting="safe"):
            return target_type(item)
    else:
        return loaded
    raise TypeMismatchError(
        f"{where}: cannot load key {key!r} (dtype {loaded.dtype}) into a value of type {type(value).__name__}"
    )


def _validates(obj: Any) -> bool:
    """Whether ``obj.serialize`` is one of this project's (links, optimizers, trainers...),
    written so that the validation pass changes nothing. Any other object is loaded in one
    pass, as Chainer 7 did: its serialize may count or log its calls."""
    method = getattr(type(obj), "serialize", None)
    module = getattr(method, "__module__", None) or ""
    return module == "chainer" or module.startswith(("chainer.", "chainermn."))


def load_validated(deserializer: SourceDeserializer, obj: Any) -> None:
    """Load ``obj`` in two passes so that a load that fails leaves it unchanged.

    The first pass walks ``obj.serialize`` with a deserializer that checks every key,
    shape and type but assigns nothing; only if it finds no problem does the second pass
    load. Errors raised by the object's own serialize code in the first pass (it may
    expect real values where the validation pass hands out none) do not stop the load:
    the second pass decides, as a single-pass load would.
    """
    if not _validates(obj):
        obj.serialize(deserializer)
        return
    validator = deserializer._child(deserializer.path)
    validator._apply = False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            obj.serialize(validator)
    except _LoadError as exc:
        raise exc.with_traceback(None) from None
    except Exception:
        pass
    obj.serialize(deserializer)


# -- writing files --------------------------------------------------------------------------


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


def is_path(file: Any) -> bool:
    return isinstance(file, (str, bytes, os.PathLike))


def write_atomically(path: Any, write: Callable[[str], None]) -> None:
    """Call ``write(tmp_path)`` on a temporary file next to ``path``, then move it over
    ``path`` in one step: readers see the old file or the complete new one, never half.
    The temporaries that killed saves left in the folder are removed first (see
    :func:`chainer.utils.remove_stale_temporaries`)."""
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    tmp = utils.make_temporary(path)
    try:
        write(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
