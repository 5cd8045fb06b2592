"""A dataset stored as a sequence of pickles in one file.

.. warning::
   Reading a pickle can run arbitrary code. Open only files you wrote yourself or
   otherwise trust: never a :class:`PickleDataset` from an untrusted source.
"""

from __future__ import annotations

import os
import pickle
import tempfile
import threading
import weakref
from typing import IO, Any

from chainer.dataset import dataset_mixin


class PickleDatasetWriter:
    """Writer class that makes PickleDataset.

    Each :meth:`write` appends one example (pickled) to the file.

    Args:
        writer: A binary file object opened for writing.
        protocol: The pickle protocol.

    Example:
        >>> from chainer.datasets import open_pickle_dataset, open_pickle_dataset_writer
        >>> examples = [(np.arange(3), 0), (np.arange(3) * 2, 1)]
        >>> with open_pickle_dataset_writer('data.pkl') as w:
        ...     for example in examples:
        ...         w.write(example)
        >>> with open_pickle_dataset('data.pkl') as ds:
        ...     len(ds), ds[1]
        (2, (array([0, 2, 4]), 1))
    """

    def __init__(self, writer: IO[bytes], protocol: int = 5) -> None:
        if not isinstance(protocol, int) or not 0 <= protocol <= pickle.HIGHEST_PROTOCOL:
            raise ValueError(
                f"PickleDatasetWriter: protocol must be in [0, {pickle.HIGHEST_PROTOCOL}], got {protocol!r}"
            )
        self._writer = writer
        self._protocol = protocol

    def write(self, x: Any) -> None:
        """Append one example."""
        pickle.dump(x, self._writer, protocol=self._protocol)

    def flush(self) -> None:
        """Flush the underlying file."""
        self._writer.flush()

    def close(self) -> None:
        """Close the underlying file."""
        self._writer.close()

    def __enter__(self) -> PickleDatasetWriter:
        return self

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        if exc_type is not None and isinstance(self._writer, _AtomicFile):
            self._writer.discard()
        else:
            self.close()


# Datasets whose reader is told about a fork in the child (a weak set: a dataset that
# is gone needs nothing, and os.register_at_fork cannot unregister).
_open_datasets: weakref.WeakSet[PickleDataset] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for dataset in list(_open_datasets):
        dataset._after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class PickleDataset(dataset_mixin.DatasetMixin):
    """Dataset stored in a storage using pickle.

    The constructor reads the file once to find where each example starts; an example
    is unpickled when it is accessed.

    .. warning::
       Unpickling runs code named in the file: only read files you trust.

    Args:
        reader: A binary, seekable file object (see :func:`open_pickle_dataset`, which
            also makes the dataset usable from ``MultiprocessIterator`` workers). If it
            has an ``after_fork()`` method, a forked child process calls it before using
            the dataset.
    """

    def __init__(self, reader: IO[bytes]) -> None:
        if not (hasattr(reader, "seek") and hasattr(reader, "tell") and hasattr(reader, "read")):
            raise TypeError(f"PickleDataset: reader must be a seekable binary file, got {type(reader).__name__}")
        self._reader = reader
        self._lock = threading.Lock()
        self._positions: list[int] = []
        reader.seek(0)
        while True:
            position = reader.tell()
            try:
                pickle.load(reader)
            except EOFError:
                break
            self._positions.append(position)
        _open_datasets.add(self)

    def _after_fork(self) -> None:
        # A lock held by another thread at the fork would never be released here.
        self._lock = threading.Lock()
        after_fork = getattr(self._reader, "after_fork", None)
        if after_fork is not None:
            after_fork()

    def __len__(self) -> int:
        return len(self._positions)

    def get_example(self, i: int) -> Any:
        position = self._positions[dataset_mixin.normalize_index(self, i, len(self))]
        with self._lock:
            self._reader.seek(position)
            return pickle.load(self._reader)

    def close(self) -> None:
        """Close the underlying file."""
        _open_datasets.discard(self)
        self._reader.close()

    def __enter__(self) -> PickleDataset:
        return self

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
        _open_datasets.add(self)


class _FileReader:
    """A read-only binary file that :func:`open_pickle_dataset` reads through.

    A forked process gets its own file (:meth:`after_fork`), so that processes do not
    move one shared file position under each other; it pickles as its path and is
    reopened on unpickling (a spawned worker).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._file = open(path, "rb")

    def read(self, *args: Any) -> bytes:
        return self._file.read(*args)

    def readline(self, *args: Any) -> bytes:
        return self._file.readline(*args)

    def readinto(self, buffer: Any) -> int:
        return self._file.readinto(buffer)  # type: ignore[attr-defined]

    def peek(self, *args: Any) -> bytes:
        return self._file.peek(*args)  # type: ignore[attr-defined]

    def seek(self, *args: Any) -> int:
        return self._file.seek(*args)

    def tell(self) -> int:
        return self._file.tell()

    def close(self) -> None:
        self._file.close()

    def after_fork(self) -> None:
        """Reopen the file in a forked process (the inherited one shares its position
        with the parent's)."""
        self._file.close()
        self._file = open(self.path, "rb")

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"])  # type: ignore[misc]


class _AtomicFile:
    """A binary file written to a temporary name and moved to its path on close."""

    def __init__(self, path: str) -> None:
        self.path = path
        directory = os.path.dirname(os.path.abspath(path))
        fd, self._temp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
        self._file = os.fdopen(fd, "wb")

    def write(self, data: Any) -> int:
        return self._file.write(data)

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        if self._file.closed:
            return
        self._file.close()
        os.replace(self._temp, self.path)

    def discard(self) -> None:
        if not self._file.closed:
            self._file.close()
            os.remove(self._temp)


def open_pickle_dataset(path: str) -> PickleDataset:
    """Opens a dataset stored in a given path.

    The file is reopened in each process that uses the dataset, so it can be used from
    ``MultiprocessIterator`` workers. Only open files you trust (unpickling runs code).

    Args:
        path: The file made by :func:`open_pickle_dataset_writer`.

    Returns:
        A :class:`PickleDataset`; close it (or use ``with``) when done.
    """
    reader = _FileReader(os.fspath(path))
    try:
        return PickleDataset(reader)  # type: ignore[arg-type]
    except BaseException:
        reader.close()
        raise


def open_pickle_dataset_writer(path: str, protocol: int = 5) -> PickleDatasetWriter:
    """Opens a writer to make a PickleDataset.

    The examples go to a temporary file in the same directory, which replaces ``path``
    when the writer is closed, so ``path`` never holds a partial dataset. Leaving a
    ``with`` block by an exception discards the temporary file.

    Args:
        path: The file to write.
        protocol: The pickle protocol.

    Returns:
        A :class:`PickleDatasetWriter`.
    """
    return PickleDatasetWriter(_AtomicFile(os.fspath(path)), protocol)  # type: ignore[arg-type]
