"""``VariableStatisticsPlot``: plots the distribution of variables over time."""

from __future__ import annotations

import json
import os
from typing import Any

import numpy

from chainer import backend, link, variable
from chainer.training import _util
from chainer.training import extension as extension_module
from chainer.training import trigger as trigger_module
from chainer.training.extensions import _plot


def _collect_variables(targets: Any) -> list[Any]:
    if not isinstance(targets, (list, tuple)):
        targets = [targets]
    out: list[Any] = []
    for target in targets:
        if isinstance(target, link.Link):
            out.extend(target.params())
        elif isinstance(target, variable.Variable):
            out.append(target)
        else:
            raise TypeError(
                f"VariableStatisticsPlot: targets must be Variables or Links (or a list of them), got "
                f"{type(target).__name__}"
            )
    if not out:
        raise ValueError("VariableStatisticsPlot: the targets hold no variables")
    return out


class VariableStatisticsPlot(extension_module.Extension):
    """Trainer extension to plot statistics for Variables.

    Every iteration it computes, over all elements of the target variables (the
    parameters of target links), the mean, the standard deviation and the percentiles
    ``percentile_sigmas`` of their values (``report_data``) and gradients
    (``report_grad``), and keeps them with the iteration number. When ``trigger`` fires
    it draws them to ``<trainer.out>/<filename>``: one column per ``data``/``grad``, a
    row with the mean and a band of one standard deviation around it, and a row with
    the percentiles as nested bands (the median as a line).

    At most ``max_sample_size`` points are kept: when there are more, every second one
    is dropped (deterministically, so that plotting draws no random numbers from the
    training's generators), which keeps the whole history at a coarser resolution.

    Needs matplotlib; without it a warning is given and nothing is plotted.

    Args:
        targets: A Variable, a Link, or a list of them.
        max_sample_size: The most points kept.
        report_data: Plot the statistics of the values.
        report_grad: Plot the statistics of the gradients.
        plot_mean: Plot the mean.
        plot_std: Plot the band of one standard deviation around the mean.
        percentile_sigmas: The percentiles to plot (0 to 100); ``()`` for none.
        trigger: When to draw.
        filename: The image file (``'statistics.png'``); ``file_name`` is its older
            keyword name.
        figsize: The figure size in inches; chosen from the number of plots if ``None``.
        marker: The marker of the lines.
        grid: Draw grids.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> trainer.extend(extensions.VariableStatisticsPlot(model.predictor))
        >>> trainer.run()
        >>> import os
        >>> os.listdir('result')
        ['statistics.png']
    """

    def __init__(
        self,
        targets: Any,
        max_sample_size: int = 1000,
        report_data: bool = True,
        report_grad: bool = True,
        plot_mean: bool = True,
        plot_std: bool = True,
        percentile_sigmas: Any = (0, 0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87, 100),
        trigger: Any = (1, "epoch"),
        filename: str | None = None,
        figsize: Any = None,
        marker: str | None = None,
        grid: bool = True,
        **kwargs: Any,
    ) -> None:
        file_name = kwargs.pop("file_name", "statistics.png")
        if kwargs:
            names = ", ".join(repr(k) for k in sorted(kwargs))
            raise TypeError(f"VariableStatisticsPlot() got unexpected keyword argument(s) {names}")
        self._vars = _collect_variables(targets)
        if isinstance(max_sample_size, bool) or not isinstance(max_sample_size, int) or max_sample_size < 2:
            raise ValueError(f"VariableStatisticsPlot: max_sample_size must be an int >= 2, got {max_sample_size!r}")
        keys = []
        if report_data:
            keys.append("data")
        if report_grad:
            keys.append("grad")
        if not keys:
            raise ValueError("VariableStatisticsPlot: report_data and report_grad cannot both be False")
        percentiles = tuple(float(p) for p in (percentile_sigmas or ()))
        if any(not 0 <= p <= 100 for p in percentiles):
            raise ValueError(f"VariableStatisticsPlot: percentile_sigmas must be within [0, 100], got {percentiles}")
        if not (plot_mean or plot_std or percentiles):
            raise ValueError("VariableStatisticsPlot: nothing to plot (plot_mean, plot_std and percentiles are off)")
        if not _plot.available():
            _plot.warn_unavailable("VariableStatisticsPlot")
        self._keys = keys
        self._max_sample_size = max_sample_size
        self._plot_mean = plot_mean
        self._plot_std = plot_std
        self._percentiles = percentiles
        self._trigger = trigger_module.get_trigger(trigger)
        self._filename = file_name if filename is None else filename
        self._figsize = figsize
        self._marker = marker
        self._grid = grid
        # One row per point: iteration, then per key: mean, std, percentiles...
        self._samples: list[list[float]] = []

    @staticmethod
    def available() -> bool:
        """Whether matplotlib is installed (the plots can be drawn)."""
        return _plot.available()

    def _statistics(self, key: str) -> list[float]:
        arrays = [getattr(v, "array" if key == "data" else "grad") for v in self._vars]
        arrays = [a for a in arrays if a is not None]
        n_values = 2 + len(self._percentiles)
        if not arrays:
            return [float("nan")] * n_values
        xp = backend.get_array_module(arrays[0])
        x = xp.concatenate([a.ravel() for a in arrays]).astype(numpy.float64)
        values = [x.mean(), x.std()]
        if self._percentiles:
            values.extend(xp.percentile(x, self._percentiles))
        return [float(v) for v in values]

    def __call__(self, trainer: Any) -> None:
        if not _plot.available():
            return
        row = [float(trainer.updater.iteration)]
        for key in self._keys:
            row.extend(self._statistics(key))
        self._samples.append(row)
        if len(self._samples) > self._max_sample_size:
            # Keep the latest point; drop every second one of the rest.
            self._samples = self._samples[-1::-2][::-1]
        if self._trigger(trainer):
            figure = _plot.new_figure(self._default_figsize())
            self._draw(figure)
            _plot.save_figure(figure, os.path.join(trainer.out, self._filename), bbox_inches="tight")

    def _n_rows(self) -> int:
        return int(self._plot_mean or self._plot_std) + int(bool(self._percentiles))

    def _default_figsize(self) -> Any:
        if self._figsize is not None:
            return self._figsize
        return (6.0 * len(self._keys), 4.0 * self._n_rows())

    def _draw(self, figure: Any) -> None:
        if not self._samples:
            return
        samples = numpy.array(self._samples)
        x = samples[:, 0]
        n_values = 2 + len(self._percentiles)
        n_rows, n_cols = self._n_rows(), len(self._keys)
        for col, key in enumerate(self._keys):
            base = 1 + col * n_values
            mean, std = samples[:, base], samples[:, base + 1]
            percentiles = samples[:, base + 2 : base + n_values]
            row = 0
            if self._plot_mean or self._plot_std:
                axes = figure.add_subplot(n_rows, n_cols, row * n_cols + col + 1)
                if self._plot_std:
                    axes.fill_between(x, mean - std, mean + std, alpha=0.3, label="mean ± std")
                if self._plot_mean:
                    axes.plot(x, mean, marker=self._marker, label="mean")
                self._decorate(axes, f"{key}: mean and std")
                row += 1
            if self._percentiles:
                axes = figure.add_subplot(n_rows, n_cols, row * n_cols + col + 1)
                k = len(self._percentiles)
                for i in range(k // 2):
                    axes.fill_between(
                        x, percentiles[:, i], percentiles[:, k - 1 - i], alpha=0.15 + 0.6 * i / max(k // 2, 1),
                        color="C0", linewidth=0,
                        label=f"{self._percentiles[i]:g}-{self._percentiles[k - 1 - i]:g} %",
                    )  # fmt: skip
                if k % 2:
                    axes.plot(x, percentiles[:, k // 2], marker=self._marker, color="C1",
                              label=f"{self._percentiles[k // 2]:g} %")  # fmt: skip
                self._decorate(axes, f"{key}: percentiles")

    def _decorate(self, axes: Any, title: str) -> None:
        axes.set_title(title)
        axes.set_xlabel("iteration")
        if self._grid:
            axes.grid()
        axes.legend(loc="best", fontsize="small")

    def save_plot_using_module(self, file_path: str, plt: Any) -> None:
        """Draw the statistics kept so far with the given ``matplotlib.pyplot`` module
        and save them to ``file_path``."""
        figure = plt.figure(figsize=self._default_figsize())
        try:
            self._draw(figure)
            _plot.save_figure(figure, file_path, bbox_inches="tight")
        finally:
            plt.close(figure)

    def serialize(self, serializer: Any) -> None:
        """Save or load the points kept so far and the trigger (not saved by Chainer 7)."""
        if not _util.is_loading(serializer):
            serializer("_samples", json.dumps(self._samples))
        else:
            try:
                samples = serializer("_samples", "")
            except KeyError:
                return  # a snapshot of Chainer 7
            if samples and not _util.is_validating(serializer):
                self._samples = json.loads(samples)
        if hasattr(self._trigger, "serialize"):
            self._trigger.serialize(serializer["_trigger"])


__all__ = ["VariableStatisticsPlot"]
