"""``ProgressBar``: shows the progress of training with speed and time to finish."""

from __future__ import annotations

import datetime
from typing import Any

from chainer.training import extension as extension_module
from chainer.training.extensions import util


class ProgressBar(extension_module.Extension):
    """Trainer extension to print a progress bar and recent training status.

    Every ``update_interval`` iterations it shows the progress of the whole training
    and of the current epoch, the iteration and epoch counts, the speed (over the last
    few updates) and the estimated time to finish. On a terminal the display is redrawn
    in place::

             total [#########.........................................] 18.00%
        this epoch [######################################............] 76.00%
              3600 iter, 3 epoch / 20 epochs
            107.56 iters/sec. Estimated time to finish: 0:02:38.282126.

    When ``out`` is not a terminal (a file, a pipe, a CI log) no cursor movements are
    written: one plain status line is appended per update instead.

    Args:
        training_length: ``(length, unit)`` of the whole training; taken from the
            trainer's stop trigger (``get_training_length()``) if ``None``. Without
            either, the bar shows counts and speed only.
        update_interval: Iterations between two displays.
        bar_length: Characters of each bar.
        out: The stream to write to; by default the ``sys.stdout`` of the moment of
            each write.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> trainer.extend(extensions.ProgressBar(update_interval=10))
    """

    def __init__(
        self,
        training_length: Any = None,
        update_interval: int = 100,
        bar_length: int = 50,
        out: Any = util._STDOUT_AT_IMPORT,
    ) -> None:
        if training_length is not None:
            if len(training_length) != 2 or training_length[1] not in ("epoch", "iteration"):
                raise ValueError(
                    f"ProgressBar: training_length must be (length, 'epoch' or 'iteration'), got {training_length!r}"
                )
        if isinstance(update_interval, bool) or not isinstance(update_interval, int) or update_interval < 1:
            raise ValueError(f"ProgressBar: update_interval must be a positive int, got {update_interval!r}")
        if not hasattr(out, "write"):
            raise TypeError(f"ProgressBar: out must be a stream with a write method, got {type(out).__name__}")
        self._training_length = training_length
        self._update_interval = update_interval
        self._bar_length = bar_length
        self._out = out
        self._pbar: _TrainerProgressBar | None = None

    def _bar(self, trainer: Any) -> _TrainerProgressBar:
        if self._pbar is None:
            self._pbar = _TrainerProgressBar(trainer, self._training_length, self._bar_length, self._out)
        return self._pbar

    def initialize(self, trainer: Any) -> None:
        if self._training_length is None:
            get_length = getattr(trainer.stop_trigger, "get_training_length", None)
            if get_length is not None:
                self._training_length = get_length()
        pbar = self._bar(trainer)
        pbar.training_length = self._training_length
        pbar.reset_speed()
        updater = trainer.updater
        pbar.update_speed(updater.iteration, getattr(updater, "epoch_detail", float(updater.epoch)))

    def __call__(self, trainer: Any) -> None:
        if trainer.updater.iteration % self._update_interval != 0:
            return
        self._bar(trainer).update()

    def finalize(self, trainer: Any = None) -> None:
        """Erase the display from the terminal."""
        if self._pbar is not None:
            self._pbar.close()


class _TrainerProgressBar(util.ProgressBar):
    """The display of :class:`ProgressBar`: the whole training and this epoch as bars, the
    counts, the speed and the estimated time to finish."""

    def __init__(self, trainer: Any, training_length: Any, bar_length: int, out: Any) -> None:
        super().__init__(out)
        self.trainer = trainer
        self.training_length = training_length
        self.bar_length = bar_length

    def get_lines(self) -> list[str]:
        updater = self.trainer.updater
        iteration = updater.iteration
        epoch = updater.epoch
        epoch_detail = getattr(updater, "epoch_detail", float(epoch))
        speed, _ = self.update_speed(iteration, epoch_detail)
        lines = []
        length = self.training_length
        remaining_iterations = None
        if length is not None:
            total, unit = length
            if unit == "iteration":
                fraction = iteration / total
                remaining_iterations = total - iteration
            else:
                fraction = epoch_detail / total
                if epoch_detail > 0:
                    remaining_iterations = (total - epoch_detail) * iteration / epoch_detail
            lines.append(self.bar("total", fraction, self.bar_length))
        lines.append(self.bar("this epoch", epoch_detail - epoch, self.bar_length))
        if length is not None:
            lines.append(f"{iteration:>10} iter, {epoch} epoch / {length[0]} {length[1]}s")
        else:
            lines.append(f"{iteration:>10} iter, {epoch} epoch")
        if remaining_iterations is not None and speed > 0:
            eta = datetime.timedelta(seconds=max(remaining_iterations, 0) / speed)
            lines.append(f"{speed:10.5g} iters/sec. Estimated time to finish: {eta}.")
        else:
            lines.append(f"{speed:10.5g} iters/sec.")
        return lines


__all__ = ["ProgressBar"]
