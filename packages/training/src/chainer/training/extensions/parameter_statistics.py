"""``ParameterStatistics``: reports statistics of parameters and gradients."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from chainer import backend, reporter
from chainer.training import extension as extension_module
from chainer.training import util as training_util

_PERCENTILE_SIGMAS = (0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87)


def _mean(x: Any) -> Any:
    return backend.get_array_module(x).mean(x)


def _std(x: Any) -> Any:
    return backend.get_array_module(x).std(x)


def _min(x: Any) -> Any:
    return backend.get_array_module(x).min(x)


def _max(x: Any) -> Any:
    return backend.get_array_module(x).max(x)


def _zeros(x: Any) -> Any:
    return backend.get_array_module(x).count_nonzero(x == 0)


def _percentile(x: Any) -> Any:
    xp = backend.get_array_module(x)
    # float16 is not supported by every percentile implementation.
    return xp.percentile(x.astype(numpy.float32) if x.dtype == numpy.float16 else x, _PERCENTILE_SIGMAS)


class ParameterStatistics(extension_module.Extension):
    """Trainer extension to report parameter statistics.

    Every iteration, for each parameter of ``links`` and each of its ``data`` (with
    ``report_params``) and ``grad`` (with ``report_grads``), every statistic function is
    applied to the flattened array; the values are averaged over the ``trigger``
    interval and reported under
    ``'{prefix}/{link name}{parameter path}/{data|grad}/{statistic}'`` (without
    ``'{prefix}/'`` if ``prefix`` is ``None``); a statistic returning several values
    (``percentile``) gets one key per value with a suffix ``/0``, ``/1``...

    The default statistics are ``mean``, ``std``, ``min``, ``max``, ``zeros`` (the
    number of zeros) and ``percentile`` (at the sigmas 0.13, 2.28, 15.87, 50, 84.13,
    97.72, 99.87). Uninitialized parameters are skipped; a gradient not computed yet
    (``None``) counts as an array of NaN, which Chainer 7 held there.

    Args:
        links: A link or a list of links.
        statistics: ``{name: function(array) -> value}``, ``'default'``, or ``None``
            (none; add some with :meth:`register_statistics`).
        report_params: Report the statistics of the parameter values.
        report_grads: Report the statistics of the gradients.
        prefix: Prefix of the keys.
        trigger: When to report the averaged values.
        skip_nan_params: Report NaN for an array that contains NaN instead of calling
            the statistic functions on it.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> trainer.extend(extensions.ParameterStatistics(model.predictor, prefix='stats'))
        >>> trainer.extend(extensions.LogReport())
        >>> trainer.run()
        >>> 'stats/predictor/W/data/mean' in trainer.get_extension('LogReport').log[0]
        True
    """

    default_name = "parameter_statistics"  # type: ignore[assignment]
    priority = extension_module.PRIORITY_WRITER
    report_key_template = "{prefix}{link_name}{param_name}/{attr_name}/{function_name}"
    default_statistics: dict[str, Callable[[Any], Any]] = {
        "mean": _mean,
        "std": _std,
        "min": _min,
        "max": _max,
        "zeros": _zeros,
        "percentile": _percentile,
    }

    def __init__(
        self,
        links: Any,
        statistics: Any = "default",
        report_params: bool = True,
        report_grads: bool = True,
        prefix: str | None = None,
        trigger: Any = (1, "epoch"),
        skip_nan_params: bool = False,
    ) -> None:
        if not isinstance(links, (list, tuple)):
            links = (links,)
        self._links = tuple(links)
        if statistics is None:
            statistics = {}
        elif isinstance(statistics, str):
            if statistics != "default":
                raise ValueError(
                    f"ParameterStatistics: statistics must be 'default', a dict or None, got {statistics!r}"
                )
            statistics = self.default_statistics
        self._statistics = dict(statistics)
        for name, fn in self._statistics.items():
            if not callable(fn):
                raise TypeError(f"ParameterStatistics: the statistic {name!r} is not callable")
        attrs = []
        if report_params:
            attrs.append("data")
        if report_grads:
            attrs.append("grad")
        self._attrs = attrs
        self._prefix = prefix
        self._trigger = training_util.get_trigger(trigger)
        self._summary = reporter.DictSummary()
        self._skip_nan_params = skip_nan_params

    def __call__(self, trainer: Any) -> None:
        statistics: dict[str, Any] = {}
        prefix = self._prefix + "/" if self._prefix else ""
        for link in self._links:
            link_name = getattr(link, "name", "None")
            for param_name, param in link.namedparams():
                for attr_name in self._attrs:
                    if param.array is None:
                        continue  # not initialized yet
                    array = param.array if attr_name == "data" else param.grad
                    if array is None:
                        # A cleared gradient counts as NaN, what Chainer 7 held in a gradient
                        # not computed yet.
                        xp = backend.get_array_module(param.array)
                        array = xp.full(param.shape, numpy.nan, dtype=param.dtype)
                    array = array.ravel()
                    has_nan = self._skip_nan_params and bool(backend.get_array_module(array).isnan(array).any())
                    for function_name, function in self._statistics.items():
                        value: Any = numpy.nan if has_nan else function(array)
                        key = self.report_key_template.format(
                            prefix=prefix,
                            link_name=link_name,
                            param_name=param_name,
                            attr_name=attr_name,
                            function_name=function_name,
                        )
                        size = getattr(value, "size", 1)
                        if size > 1:
                            for i, v in enumerate(value):
                                statistics[f"{key}/{i}"] = v
                        else:
                            statistics[key] = value
        self._summary.add(statistics)
        if self._trigger(trainer):
            reporter.report(self._summary.compute_mean())
            self._summary = reporter.DictSummary()

    def register_statistics(self, name: str, function: Callable[[Any], Any]) -> None:
        """Add (or replace) the statistic ``name`` computed by ``function(array)``."""
        if not callable(function):
            raise TypeError(f"ParameterStatistics.register_statistics: function must be callable, got {function!r}")
        self._statistics[name] = function


__all__ = ["ParameterStatistics"]
