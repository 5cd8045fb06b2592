"""Temporary files of atomic saves, and the removal of those that killed saves left.

Every save of this project (``save_npz``, ``save_hdf5``, the trainer's snapshots, the
checkpoints of ``chainermn``) writes a hidden temporary file or folder next to its target,
``.<target name>.<random>.chainer-tmp``, and moves it over the target when it is complete.
A save that is killed (SIGKILL, a power cut) cannot remove its temporary; the next save
into the same folder removes every temporary of this naming there that nobody has written
to for :data:`STALE_SECONDS`. A save in progress writes to its temporary all the time, so
it is never mistaken for a stale one, also when several processes (or hosts sharing the
folder) save there.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time

SUFFIX = ".chainer-tmp"
"""The name suffix that marks a temporary of an atomic save."""

STALE_SECONDS = 3600.0
"""How long a temporary must have been left untouched to be taken for a killed save's."""


def _last_written(entry: os.DirEntry[str]) -> float:
    newest = entry.stat(follow_symlinks=False).st_mtime
    if entry.is_dir(follow_symlinks=False):
        for root, dirs, files in os.walk(entry.path):
            for name in dirs + files:
                with contextlib.suppress(OSError):
                    newest = max(newest, os.lstat(os.path.join(root, name)).st_mtime)
    return newest


def remove_stale_temporaries(directory: str | os.PathLike[str], older_than: float = STALE_SECONDS) -> list[str]:
    """Remove the temporaries of killed saves from ``directory``.

    Only hidden entries named ``*.chainer-tmp`` (the temporaries of this project's saves)
    that nothing has been written to for ``older_than`` seconds are removed. Errors (an
    entry another process removes first, a folder that cannot be read) are ignored: the
    removal is a courtesy of the next save, never a reason for it to fail.

    Args:
        directory: The folder to clean.
        older_than: Seconds since the last write after which a temporary is stale.

    Returns:
        The paths removed.
    """
    removed = []
    now = time.time()
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        for entry in entries:
            if not (entry.name.startswith(".") and entry.name.endswith(SUFFIX)):
                continue
            with contextlib.suppress(OSError):
                if now - _last_written(entry) <= older_than:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path)
                else:
                    os.remove(entry.path)
                removed.append(entry.path)
    return removed


def make_temporary(path: str | os.PathLike[str], folder: bool = False) -> str:
    """Create the temporary of an atomic save of ``path``, next to it, after removing the
    stale temporaries of its folder (see :func:`remove_stale_temporaries`).

    Args:
        path: The file the save writes.
        folder: Create a folder (for a save function that writes a path it is given)
            rather than an empty file.

    Returns:
        The path of the new temporary, ``.<name of path>.<random>.chainer-tmp``; the caller
        moves it over ``path`` or removes it.
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    remove_stale_temporaries(directory)
    prefix = "." + os.path.basename(path) + "."
    if folder:
        return tempfile.mkdtemp(prefix=prefix, suffix=SUFFIX, dir=directory)
    fd, temporary = tempfile.mkstemp(prefix=prefix, suffix=SUFFIX, dir=directory)
    os.close(fd)
    return temporary
