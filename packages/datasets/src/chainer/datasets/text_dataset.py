"""``TextDataset``: random access to the lines of text files."""

from __future__ import annotations

import contextlib
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
        paths: One path, or a list of paths of files with the same number of lines. With
            one file, an example is its line (``str``); with several, a tuple of the line
            of each file.
        encoding: The encoding (see :func:`open`), or a list with one per file.
        errors: How to handle decoding errors (see :func:`open`), or one per file.
        newline: The newline mode (see :func:`open`), or one per file.
        filter_func: ``None``, or a function of the lines (one argument per file) that
            returns ``True`` to keep them; the others are not examples.

    The dataset is picklable (the files are reopened in the new process; they must not
    have changed), and a forked process opens the files again before reading.
    :meth:`close` closes the files; reading a closed dataset raises ``ValueError``.
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
            paths = [paths]
        self._paths = [os.fspath(p) for p in paths]
        if not self._paths:
            raise ValueError("TextDataset: no paths are given")
        n = len(self._paths)
        self._encodings = _per_file(encoding, n, "encoding")
        self._errors = _per_file(errors, n, "errors")
        self._newlines = _per_file(newline, n, "newline")
        if filter_func is not None and not callable(filter_func):
            raise TypeError(f"TextDataset: filter_func must be callable, got {type(filter_func).__name__}")
        self._lock = threading.Lock()
        self._closed = False
        self._open()
        try:
            self._bounds = self._index(filter_func)
        except BaseException:
            self._close_quietly()
            raise

    def _open(self) -> None:
        self._fps: list[Any] = [
            open(path, encoding=enc, errors=err, newline=nl)
            for path, enc, err, nl in zip(self._paths, self._encodings, self._errors, self._newlines)
        ]
        # A forked child shares the file positions with its parent: it opens its own.
        self._pid = os.getpid()

    def _index(self, filter_func: Callable[..., bool] | None) -> list[tuple[int, ...]]:
        bounds = []
        while True:
            positions = tuple(f.tell() for f in self._fps)
            lines = [f.readline() for f in self._fps]
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
            if self._closed:
                raise ValueError("TextDataset: the dataset is closed")
            if self._pid != os.getpid():
                self._open()
            lines = []
            for f, position in zip(self._fps, positions):
                f.seek(position)
                lines.append(f.readline())
        return lines[0] if len(lines) == 1 else tuple(lines)

    def close(self) -> None:
        """Close the files.

        Every file is closed even if closing one fails; the first error is raised then.
        """
        self._closed = True
        error: BaseException | None = None
        for f in self._fps:
            try:
                f.close()
            except Exception as e:
                if error is None:
                    error = e
        if error is not None:
            raise error

    def _close_quietly(self) -> None:
        for f in getattr(self, "_fps", ()):
            with contextlib.suppress(Exception):
                f.close()

    def __del__(self) -> None:
        # Only this process's own files: a forked child's copies belong to its parent.
        if not getattr(self, "_closed", True) and getattr(self, "_pid", None) == os.getpid():
            self._close_quietly()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_fps"], state["_lock"], state["_pid"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
        if self._closed:
            self._fps = []
            self._pid = os.getpid()
        else:
            self._open()
