"""An inter-process lock on a file: ``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows.

The lock belongs to the open file description, so two threads of one process that each
enter their own ``FileLock`` exclude each other as two processes do. A process that dies
releases its locks (the OS closes its files), so a crash never leaves a stale lock. The
lock file itself is left in place: removing it would race with a process about to lock it.
"""

from __future__ import annotations

import os
import time
from typing import Any

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]
    import msvcrt


class FileLock:
    """Exclusive lock held while inside ``with FileLock(path):``.

    Args:
        path: The lock file, created if missing (its directory must exist).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            else:
                while True:
                    try:
                        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                        break
                    except OSError:
                        time.sleep(0.05)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_UN)
            else:
                os.lseek(fd, 0, os.SEEK_SET)
                msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        finally:
            os.close(fd)

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()
