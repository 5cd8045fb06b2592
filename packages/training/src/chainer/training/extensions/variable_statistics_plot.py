"""``VariableStatisticsPlot``: plots the distribution of variables over time."""

from __future__ import annotations

import json
import os
from typing import Any

import numpy

from chainer import backend, link, variable
from chainer.training import _util
from chainer.training import extension as extension_module
from chainer.training import util as training_util
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


class Reservoir:
    """Reservoir sample of arrays: a uniform random sample of ``size`` of the arrays added.

    Each added array gets an index (by default the number of arrays added before it);
    once the reservoir is full, the ``n``-th array replaces a random kept one with
    probability ``size / n``, so every array added so far is kept with the same
    probability. The random numbers come from the reservoir's own generator, not from
    NumPy's global one (which a training run's shuffling and dropout use).

    Args:
        size: The number of arrays kept.
        data_shape: The shape of each array.
        dtype: The dtype they are kept in.
        seed: The seed of the reservoir's generator.

    Example:
        >>> from chainer.training.extensions.variable_statistics_plot import Reservoir
        >>> reservoir = Reservoir(size=2, data_shape=(3,))
        >>> for i in range(5):
        ...     reservoir.add(np.full(3, i))
        >>> indices, data = reservoir.get_data()
        >>> indices.shape, data.shape
        ((2,), (2, 3))
    """

    def __init__(self, size: int, data_shape: Any, dtype: Any = numpy.float32, seed: int = 0) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"Reservoir: size must be a positive int, got {size!r}")
        self.size = size
        self.data = numpy.zeros((size, *data_shape), dtype=dtype)
        self.idxs = numpy.zeros((size,), dtype=numpy.int64)
        self.counter = 0
        self._rng = numpy.random.default_rng(seed)

    def add(self, x: Any, idx: int | None = None) -> None:
        """Offer the array ``x`` (with index ``idx``, by default the count so far)."""
        if self.counter < self.size:
            slot: int | None = self.counter
        else:
            drawn = int(self._rng.integers(0, self.counter + 1))
            slot = drawn if drawn < self.size else None
        if slot is not None:
            self.data[slot] = backend.CpuDevice().send(x)
            self.idxs[slot] = self.counter if idx is None else idx
        self.counter += 1

    def get_data(self) -> tuple[numpy.ndarray, numpy.ndarray]:
        """The indices (ascending) and the arrays kept, in the order of their indices."""
        n = min(self.counter, self.size)
        order = numpy.argsort(self.idxs[:n], kind="stable")
        return self.idxs[:n][order], self.data[:n][order]


class Statistician:
    """Computes the mean, the standard deviation and percentiles of arrays.

    Args:
        collect_mean: Compute the mean (key ``'mean'``).
        collect_std: Compute the standard deviation (key ``'std'``).
        percentile_sigmas: The percentiles (0 to 100) to compute (key
            ``'percentile'``, one entry per percentile along the first axis); empty
            for none.

    Example:
        >>> from chainer.training.extensions.variable_statistics_plot import Statistician
        >>> stat = Statistician(True, False, (0, 50, 100))(np.array([3., 1., 2.]), axis=None)
        >>> float(stat['mean']), stat['percentile'].tolist()
        (2.0, [1.0, 2.0, 3.0])
    """

    def __init__(self, collect_mean: bool, collect_std: bool, percentile_sigmas: Any) -> None:
        self.collect_mean = collect_mean
        self.collect_std = collect_std
        self.percentile_sigmas = tuple(percentile_sigmas or ())

    def __call__(self, x: Any, axis: Any = 0, dtype: Any = None, xp: Any = None) -> dict[str, Any]:
        """The statistics of ``x`` along ``axis`` (all elements if ``None``), in
        ``dtype`` (that of ``x`` by default)."""
        if xp is None:
            xp = backend.get_array_module(x)
        if dtype is None:
            dtype = x.dtype
        stats: dict[str, Any] = {}
        if self.collect_mean:
            stats["mean"] = xp.asarray(x.mean(axis=axis, dtype=dtype), dtype=dtype)
        if self.collect_std:
            stats["std"] = xp.asarray(x.std(axis=axis, dtype=dtype), dtype=dtype)
        if self.percentile_sigmas:
            stats["percentile"] = xp.asarray(xp.percentile(x, self.percentile_sigmas, axis=axis), dtype=dtype)
        return stats


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
        self._statistician = Statistician(True, True, percentiles)
        self._trigger = training_util.get_trigger(trigger)
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
        stats = self._statistician(x, axis=None, dtype=numpy.float64, xp=xp)
        values = [stats["mean"], stats["std"], *stats.get("percentile", ())]
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


__all__ = ["Reservoir", "Statistician", "VariableStatisticsPlot"]
