"""``TextDataset``: random access to the lines of text files."""

from __future__ import annotations

import io
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

from chainer.dataset import dataset_mixin


def _per_file(value: Any, n: int, name: str) -> list[Any]:
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"TextDataset: {name} has {len(value)} entries for {n} files")
        return list(value)
    return [value] * n


class TextDataset(dataset_mixin.DatasetMixin):
    """Dataset of a line-oriented text file.

    The constructor reads the files once and remembers where each line starts, so any
    line can then be read directly. Lines keep their newline character, as
    ``file.readline()`` returns them.

    Args:
        paths: One path (examples are lines, ``str``) or a list of paths (examples are
            tuples with the line of each file; the files must have the same number of
            lines).
        encoding: The encoding (see :func:`open`), or one per file.
        errors: How to handle decoding errors (see :func:`open`), or one per file.
        newline: The newline mode (see :func:`open`), or one per file.
        filter_func: ``None``, or a function of the lines (one argument per file) that
            returns ``True`` to keep them; the others are not examples.

    The dataset is picklable (the files are reopened in the new process; they must not
    have changed). :meth:`close` closes the files.
    """

    def __init__(
        self,
        paths: str | Sequence[str],
        encoding: Any = None,
        errors: Any = None,
        newline: Any = None,
        filter_func: Callable[..., bool] | None = None,
    ) -> None:
        if isinstance(paths, (str, os.PathLike)):
            self._single = True
            self._paths = [os.fspath(paths)]
        else:
            self._single = False
            self._paths = [os.fspath(p) for p in paths]
        if not self._paths:
            raise ValueError("TextDataset: no paths are given")
        n = len(self._paths)
        self._encodings = _per_file(encoding, n, "encoding")
        self._errors = _per_file(errors, n, "errors")
        self._newlines = _per_file(newline, n, "newline")
        if filter_func is not None and not callable(filter_func):
            raise TypeError(f"TextDataset: filter_func must be callable, got {type(filter_func).__name__}")
        self._files: list[io.TextIOWrapper] | None = None
        self._pid: int | None = None
        self._lock = threading.Lock()
        self._bounds = self._index(filter_func)

    def _open(self) -> list[io.TextIOWrapper]:
        if self._files is None or self._pid != os.getpid():
            self._files = [
                open(path, encoding=enc, errors=err, newline=nl)
                for path, enc, err, nl in zip(self._paths, self._encodings, self._errors, self._newlines)
            ]
            self._pid = os.getpid()
        return self._files

    def _index(self, filter_func: Callable[..., bool] | None) -> list[tuple[int, ...]]:
        files = self._open()
        bounds = []
        while True:
            positions = tuple(f.tell() for f in files)
            lines = [f.readline() for f in files]
            ended = [line == "" for line in lines]
            if all(ended):
                break
            if any(ended):
                short = self._paths[ended.index(True)]
                raise ValueError(f"TextDataset: the files have different numbers of lines ({short} ends first)")
            if filter_func is None or filter_func(*lines):
                bounds.append(positions)
        return bounds

    def __len__(self) -> int:
        return len(self._bounds)

    def get_example(self, i: int) -> Any:
        positions = self._bounds[dataset_mixin.normalize_index(self, i, len(self))]
        with self._lock:
            files = self._open()
            lines = []
            for f, position in zip(files, positions):
                f.seek(position)
                lines.append(f.readline())
        return lines[0] if self._single else tuple(lines)

    def close(self) -> None:
        """Close the files (they are reopened if the dataset is used again)."""
        with self._lock:
            if self._files is not None and self._pid == os.getpid():
                for f in self._files:
                    f.close()
            self._files = None

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_files"] = None
        state["_pid"] = None
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __del__(self) -> None:
        files = getattr(self, "_files", None)
        if files is not None and getattr(self, "_pid", None) == os.getpid():
            for f in files:
                f.close()
