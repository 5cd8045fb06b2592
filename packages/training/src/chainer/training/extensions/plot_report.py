"""``PlotReport``: plots reported values over time to an image file."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import numpy

from chainer import reporter
from chainer.training import _util
from chainer.training import extension as extension_module
from chainer.training import util as training_util
from chainer.training.extensions import _plot


class PlotReport(extension_module.Extension):
    """Trainer extension to output plots.

    Every iteration it adds the values of ``y_keys`` to running means; when ``trigger``
    fires, or when it is called before training (``call_before_training=True``), it
    appends the means as points at ``x_key`` (``'iteration'`` or ``'epoch'``)
    and draws all points so far, one line per key with a legend, to
    ``<trainer.out>/<filename>`` (PNG unless the extension says otherwise; written
    atomically).

    It needs matplotlib (``pip install 'chainer-training[plot]'``); without it a warning
    is given when the extension is created and nothing is plotted. Figures are drawn on
    matplotlib's Agg canvas directly, so no GUI backend is needed or selected.

    Args:
        y_keys: The key or keys to plot (e.g. ``['main/loss', 'validation/main/loss']``).
        x_key: ``'iteration'`` or ``'epoch'``.
        trigger: When to add a point and redraw: ``(period, unit)`` or a trigger.
        postprocess: Called as ``postprocess(figure, axes, summary)`` before saving.
        filename: The image file name (``'plot.png'``); ``file_name`` is its older
            keyword name.
        marker: The marker of the points (``'x'``); ``None`` for lines only.
        grid: Draw a grid.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> trainer.extend(extensions.PlotReport(['main/loss'], 'epoch', filename='loss.png'))
        >>> trainer.extend(extensions.LogReport())
        >>> trainer.run()
        >>> import os
        >>> sorted(os.listdir('result'))
        ['log', 'loss.png']
    """

    def __init__(
        self,
        y_keys: Any,
        x_key: str = "iteration",
        trigger: Any = (1, "epoch"),
        postprocess: Callable[..., Any] | None = None,
        filename: str | None = None,
        marker: str | None = "x",
        grid: bool = True,
        **kwargs: Any,
    ) -> None:
        file_name = kwargs.pop("file_name", "plot.png")
        if kwargs:
            names = ", ".join(repr(k) for k in sorted(kwargs))
            raise TypeError(f"PlotReport() got unexpected keyword argument(s) {names}")
        if x_key not in ("iteration", "epoch"):
            raise ValueError(f"PlotReport: x_key must be 'iteration' or 'epoch', got {x_key!r}")
        if isinstance(y_keys, str):
            y_keys = (y_keys,)
        y_keys = tuple(y_keys)
        if not y_keys or not all(isinstance(k, str) for k in y_keys):
            raise TypeError(f"PlotReport: y_keys must be a key or a non-empty list of keys, got {y_keys!r}")
        if postprocess is not None and not callable(postprocess):
            raise TypeError(f"PlotReport: postprocess must be callable, got {type(postprocess).__name__}")
        if not _plot.available():
            _plot.warn_unavailable("PlotReport")
        self._x_key = x_key
        self._y_keys = y_keys
        self._trigger = training_util.get_trigger(trigger)
        self._file_name = file_name if filename is None else filename
        self._marker = marker
        self._grid = grid
        self._postprocess = postprocess
        self._init_summary()
        self._data: dict[str, list[tuple[float, float]]] = {k: [] for k in y_keys}

    @staticmethod
    def available() -> bool:
        """Whether matplotlib is installed (the plots can be drawn)."""
        return _plot.available()

    def _init_summary(self) -> None:
        self._summary = reporter.DictSummary()

    def __call__(self, trainer: Any) -> None:
        if not _plot.available():
            return
        observation = trainer.observation
        self._summary.add({k: observation[k] for k in self._y_keys if k in observation})
        # Before training (call_before_training=True) a point is drawn at once, as a
        # LogReport writes an entry.
        if not (trainer.is_before_training or self._trigger(trainer)):
            return
        stats = {name: float(value) for name, value in self._summary.compute_mean().items()}
        updater = trainer.updater
        x = updater.epoch if self._x_key == "epoch" else updater.iteration
        for k in self._y_keys:
            if k in stats:
                self._data[k].append((x, stats[k]))
        self._draw(os.path.join(trainer.out, self._file_name))
        self._init_summary()

    def _draw(self, path: str) -> None:
        figure = _plot.new_figure()
        axes = figure.add_subplot(111)
        axes.set_xlabel(self._x_key)
        if self._grid:
            axes.grid()
        for k in self._y_keys:
            points = self._data[k]
            if points:
                xy = numpy.array(points)
                axes.plot(xy[:, 0], xy[:, 1], marker=self._marker, label=k)
        if not axes.has_data():
            return
        if self._postprocess is not None:
            self._postprocess(figure, axes, self._summary)
        legend = axes.legend(bbox_to_anchor=(1.05, 1), loc=2, borderaxespad=0.0)
        _plot.save_figure(figure, path, bbox_extra_artists=(legend,), bbox_inches="tight")

    def serialize(self, serializer: Any) -> None:
        """Save or load the points so far (a JSON string under ``_plot_<filename>``, as
        in Chainer 7), the trigger and the running means (``_trigger``, ``_summary``:
        new keys, absent from Chainer 7's snapshots)."""
        key = f"_plot_{self._file_name}"
        if not _util.is_loading(serializer):
            serializer(key, json.dumps(self._data))
        else:
            data = serializer(key, "")
            if data and not _util.is_validating(serializer):
                loaded = json.loads(data)
                self._data = {k: [tuple(p) for p in loaded.get(k, [])] for k in self._y_keys}
            try:
                serializer["_summary"]("_names", "")
            except KeyError:
                return  # a snapshot of Chainer 7
        self._summary.serialize(serializer["_summary"])
        if hasattr(self._trigger, "serialize"):
            self._trigger.serialize(serializer["_trigger"])


__all__ = ["PlotReport"]
