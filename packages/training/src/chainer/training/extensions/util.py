"""What the progress displays of the trainer and the evaluator share.

:class:`ProgressBar` draws some lines in place on a terminal (redrawn at each
:meth:`~ProgressBar.update`, erased at :meth:`~ProgressBar.close`) and keeps the recent
speed; a subclass says what the lines are. The stream helpers let a report created with
the default ``out`` follow ``sys.stdout`` as it is at each write.
"""

from __future__ import annotations

import collections
import sys
import time
from typing import Any

# The default ``out`` of PrintReport and ProgressBar: sys.stdout as it was at import. A
# report created with the default writes to sys.stdout as it is at each write instead,
# so that redirect_stdout, pytest's capture or a notebook's stream are followed.
_STDOUT_AT_IMPORT = sys.stdout


class _CurrentStdout:
    def __getattr__(self, name: str) -> Any:
        return getattr(sys.stdout, name)


def resolve_out(out: Any) -> Any:
    """``out``, or a stand-in for the current ``sys.stdout`` if ``out`` is the default."""
    return _CurrentStdout() if out is None or out is _STDOUT_AT_IMPORT else out


def is_tty(out: Any) -> bool:
    """Whether ``out`` is a terminal (``False`` for a closed or detached stream)."""
    isatty = getattr(out, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except (ValueError, OSError):
        return False


def flush(out: Any) -> None:
    flush_method = getattr(out, "flush", None)
    if flush_method is not None:
        flush_method()


class ProgressBar:
    """A progress display of a few lines, drawn in place on a terminal.

    A subclass implements :meth:`get_lines`. On a terminal :meth:`update` redraws the
    lines and moves the cursor back above them, so the next draw (or a line printed by
    :class:`~chainer.training.extensions.PrintReport`, which erases below the cursor
    first) replaces them. Elsewhere (a file, a pipe, a CI log) no cursor movement is
    written: with ``plain_lines`` each update appends one plain status line, without it
    nothing is shown.

    Args:
        out: The stream; ``None`` (or ``sys.stdout`` as it was at import) follows the
            current ``sys.stdout``.
        plain_lines: Append a status line per update when ``out`` is not a terminal.
    """

    def __init__(self, out: Any = None, plain_lines: bool = True) -> None:
        self._out = resolve_out(out)
        self._plain_lines = plain_lines
        self._recent: collections.deque[tuple[float, float, float]] = collections.deque(maxlen=10)
        self._drawn = False

    def update_speed(self, iteration: float, epoch_detail: float) -> tuple[float, float]:
        """Record the progress now; return the recent speed in iterations and in epochs
        per second (zero at the first call)."""
        now = time.perf_counter()
        self._recent.append((now, iteration, epoch_detail))
        start, first_iteration, first_epoch = self._recent[0]
        elapsed = now - start
        if elapsed <= 0:
            return 0.0, 0.0
        return (iteration - first_iteration) / elapsed, (epoch_detail - first_epoch) / elapsed

    def reset_speed(self) -> None:
        """Forget the recorded progress (a new run starts)."""
        self._recent.clear()

    def get_lines(self) -> list[str]:
        """The lines to show; a subclass must implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement get_lines()")

    def update(self) -> None:
        """Draw the current lines."""
        lines = self.get_lines()
        out = self._out
        if is_tty(out):
            out.write("\033[J" + "\n".join(lines) + "\n" + f"\033[{len(lines)}A")
            self._drawn = True
        elif self._plain_lines:
            out.write(" | ".join(line.strip() for line in lines) + "\n")
        else:
            return
        flush(out)

    def close(self) -> None:
        """Erase the display from the terminal."""
        if self._drawn and is_tty(self._out):
            self._out.write("\033[J")
            flush(self._out)
        self._drawn = False

    @staticmethod
    def bar(label: str, fraction: float, length: int) -> str:
        """``label [#####.....] 50.00%`` with ``length`` characters between the brackets
        (the percentage padded to six characters with its sign, as Chainer 7 prints it)."""
        fraction = min(max(fraction, 0.0), 1.0)
        filled = int(fraction * length)
        return f"{label:>10} [{'#' * filled}{'.' * (length - filled)}] {fraction * 100:5.2f}%"


__all__ = ["ProgressBar"]
