"""``PrintReport``: prints entries of the log as a table."""

from __future__ import annotations

from typing import Any

from chainer.training import extension as extension_module
from chainer.training.extensions import log_report as log_report_module
from chainer.training.extensions import util


class PrintReport(extension_module.Extension):
    """Trainer extension to print the accumulated results.

    It prints the entries of a :class:`LogReport` as a table with one column per entry
    of ``entries``: a header line with the names, then one line per log entry, each
    value left-aligned in its column with the ``g`` format (6 significant digits), each
    column at least 10 characters wide and separated by two spaces. Missing values
    leave their column blank. For example::

        epoch       main/loss   validation/main/loss  elapsed_time
        1           0.550724    0.502818              0.215426

    Args:
        entries: The keys to print (e.g. ``['epoch', 'main/loss', 'elapsed_time']``).
        log_report: The :class:`LogReport` to print, or the name under which it is
            registered to the trainer (``'LogReport'``).
        out: The stream to print to (any object with ``write``); by default the
            ``sys.stdout`` of the moment of each print.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> trainer.extend(extensions.LogReport())
        >>> trainer.extend(extensions.PrintReport(['epoch', 'iteration']))
        >>> trainer.run()
        epoch       iteration
        1           2
        2           4
    """

    def __init__(self, entries: Any, log_report: Any = "LogReport", out: Any = util._STDOUT_AT_IMPORT) -> None:
        if isinstance(entries, str):
            entries = [entries]
        entries = list(entries)
        if not all(isinstance(e, str) for e in entries):
            raise TypeError(f"PrintReport: entries must be a list of str, got {entries!r}")
        if not isinstance(log_report, (str, log_report_module.LogReport)):
            raise TypeError(
                f"PrintReport: log_report must be a LogReport or the name of one, got {type(log_report).__name__}"
            )
        if not hasattr(out, "write"):
            raise TypeError(f"PrintReport: out must be a stream with a write method, got {type(out).__name__}")
        self._entries = entries
        self._log_report = log_report
        self._out = util.resolve_out(out)
        self._log_len = 0  # entries of the log printed so far
        widths = [max(10, len(e)) for e in entries]
        self._header: str | None = "  ".join(e.ljust(w) for e, w in zip(entries, widths)).rstrip() + "\n"
        self._templates = [(e, "{:<" + str(w) + "g}  ", " " * (w + 2)) for e, w in zip(entries, widths)]

    def __call__(self, trainer: Any) -> None:
        out = self._out
        if self._header is not None:
            out.write(self._header)
            self._header = None
        log_report = self._log_report
        if isinstance(log_report, str):
            log_report = trainer.get_extension(log_report)
        else:
            log_report(trainer)  # our own LogReport: update it
        log = log_report.log
        while len(log) > self._log_len:
            if util.is_tty(out):
                out.write("\033[J")  # erase what a progress bar left below the cursor
            self._print(log[self._log_len])
            self._log_len += 1

    def _print(self, observation: dict[str, Any]) -> None:
        parts = []
        for entry, template, empty in self._templates:
            if entry in observation:
                value = observation[entry]
                try:
                    parts.append(template.format(value))
                except (TypeError, ValueError):  # not a number
                    parts.append(template.replace("g", "").format(str(value)))
            else:
                parts.append(empty)
        self._out.write("".join(parts).rstrip() + "\n")
        util.flush(self._out)

    def serialize(self, serializer: Any) -> None:
        """Save or load the LogReport given as an object (not one given by name)."""
        if isinstance(self._log_report, log_report_module.LogReport):
            self._log_report.serialize(serializer["_log_report"])


__all__ = ["PrintReport"]
