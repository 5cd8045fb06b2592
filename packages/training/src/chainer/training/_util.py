"""Helpers shared by the training modules: serializer modes and atomic file writes."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Iterator
from typing import Any

from chainer import serializer as serializer_module
from chainer import utils


def is_loading(serializer: Any) -> bool:
    """Whether ``serializer`` loads (a :class:`chainer.Deserializer`)."""
    return isinstance(serializer, serializer_module.Deserializer)


def is_validating(serializer: Any) -> bool:
    """Whether ``serializer`` is in the checking pass of a two-pass load, in which
    objects must read but change nothing (see ``chainer.serializers.load_npz``)."""
    return bool(getattr(serializer, "_validating", False))


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


def _fsync_path(path: str) -> None:
    with contextlib.suppress(OSError), open(path, "rb") as f:
        os.fsync(f.fileno())


@contextlib.contextmanager
def atomic_path(path: str) -> Iterator[str]:
    """Yield a temporary path next to ``path``; on success move it over ``path`` in one
    step, so a reader (or a crash) sees the old file or the complete new one, never a
    part. The temporary file is hidden (``.name.XXXX.chainer-tmp``) and removed on failure;
    those of killed saves are removed by later ones (:func:`chainer.utils.make_temporary`)."""
    tmp = utils.make_temporary(path)
    try:
        yield tmp
        _fsync_path(tmp)
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_text_atomically(path: str, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as f:
        f.write(text)


def save_atomically(outdir: str, filename: str, save: Callable[[str], Any]) -> str:
    """Call ``save(path)`` with a path in a hidden temporary directory of ``outdir`` and
    move the file it writes to ``outdir/filename`` in one step.

    A directory (rather than a temporary file name) lets ``save`` be any function that
    writes exactly the path it is given, even one that refuses existing files.

    Returns:
        The final path.
    """
    final = os.path.join(outdir, filename)
    os.makedirs(os.path.dirname(os.path.abspath(final)), exist_ok=True)
    tmpdir = utils.make_temporary(final, folder=True)
    try:
        tmp = os.path.join(tmpdir, os.path.basename(filename))
        save(tmp)
        if not os.path.exists(tmp):
            raise RuntimeError(
                f"the save function wrote nothing at {tmp!r} (it must write exactly the path it is given)"
            )
        _fsync_path(tmp)
        if os.path.isfile(tmp):
            os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, final)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    return final
