"""Reporting observed values (losses, accuracies...) and summarizing them.

A :class:`Reporter` collects ``{name: value}`` into its current *observation* dict. Code
anywhere (typically a link's ``forward``) calls :func:`chainer.report` with the values
and, optionally, the object that observed them; the reporter prefixes each name with the
name under which that observer was registered (``'main/loss'``). The trainer registers
its model's links as observers, and :class:`DictSummary` averages the observations.
"""

from __future__ import annotations

import contextlib
import json
import math
import threading
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

import numpy

from chainer import backend, configuration, serializer, variable


class _ReporterStack(threading.local):
    def __init__(self) -> None:
        self.reporters: list[Reporter] = []


_stack = _ReporterStack()


def _detach(value: Any) -> Any:
    # Without keep_graph_on_report, reported variables drop their graph (which would
    # otherwise keep every intermediate array of the iteration alive).
    if isinstance(value, variable.Variable):
        return variable.Variable(value.array, requires_grad=False)
    return value


class Reporter:
    """Object to which observed values are reported.

    Values are written into :attr:`observation`, a dict chosen with :meth:`scope`.
    Observers (any objects, usually links) are registered with a name that prefixes
    the names of the values they report.

    Example:
        >>> reporter = chainer.Reporter()
        >>> observer = object()
        >>> reporter.add_observer('my_observer:', observer)
        >>> observation = {}
        >>> with reporter.scope(observation):
        ...     reporter.report({'x': 1}, observer)
        >>> observation
        {'my_observer:/x': 1}

    Attributes:
        observation: The dict values are currently reported to.
    """

    def __init__(self) -> None:
        self._observer_names: dict[int, str] = {}
        # Keep the observers alive: their ids name them.
        self._observers: dict[int, Any] = {}
        self.observation: dict[str, Any] = {}

    def __enter__(self) -> Reporter:
        """Make this reporter the current one (what :func:`chainer.report` uses)."""
        _stack.reporters.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        reporters = _stack.reporters
        if not reporters or reporters[-1] is not self:
            raise RuntimeError("Reporter.__exit__: this reporter is not the current one (unbalanced 'with' blocks)")
        reporters.pop()

    @contextlib.contextmanager
    def scope(self, observation: dict[str, Any]) -> Iterator[None]:
        """Make this reporter current and report into ``observation`` inside the block."""
        old = self.observation
        self.observation = observation
        self.__enter__()
        try:
            yield
        finally:
            self.__exit__(None, None, None)
            self.observation = old

    def add_observer(self, name: str, observer: Any) -> None:
        """Register ``observer`` under ``name``: values it reports are named ``name/key``."""
        if not isinstance(name, str):
            raise TypeError(f"Reporter.add_observer: name must be a str, got {type(name).__name__}")
        self._observer_names[id(observer)] = name
        self._observers[id(observer)] = observer

    def add_observers(self, prefix: str, observers: Iterable[tuple[str, Any]]) -> None:
        """Register ``(name, observer)`` pairs under ``prefix + name``.

        Example:
            >>> model = chainer.Sequential(L.Linear(3, 2))
            >>> reporter = chainer.Reporter()
            >>> reporter.add_observers('main', model.namedlinks(skipself=True))
            >>> observation = {}
            >>> with reporter.scope(observation):
            ...     chainer.report({'loss': 1.0}, model[0])
            >>> observation
            {'main/0/loss': 1.0}
        """
        for name, observer in observers:
            self.add_observer(prefix + name, observer)

    def report(self, values: dict[str, Any], observer: Any = None) -> None:
        """Report ``values`` (a dict), named after ``observer`` if one is given.

        Variables are stored without their computational graph unless
        ``chainer.config.keep_graph_on_report`` is set.

        Raises:
            KeyError: ``observer`` was not registered.
        """
        if not hasattr(values, "items"):
            raise TypeError(f"Reporter.report: values must be a dict, got {type(values).__name__}")
        if not configuration.config.keep_graph_on_report:
            values = {key: _detach(value) for key, value in values.items()}
        if observer is None:
            self.observation.update(values)
            return
        name = self._observer_names.get(id(observer))
        if name is None:
            raise KeyError(
                f"Reporter.report: the observer {type(observer).__name__} is not registered to this reporter; "
                "register it with add_observer(name, observer)"
            )
        for key, value in values.items():
            self.observation[f"{name}/{key}"] = value


def get_current_reporter() -> Reporter:
    """The reporter of the innermost active ``with reporter:`` / ``reporter.scope(...)``."""
    reporters = _stack.reporters
    if not reporters:
        raise IndexError("chainer.get_current_reporter: no reporter is active; use 'with reporter:' first")
    return reporters[-1]


def report(values: dict[str, Any], observer: Any = None) -> None:
    """Report values to the current reporter (no-op when there is none).

    Args:
        values: ``{name: value}``; values are scalars, arrays or variables.
        observer: The object that observed them; its registered name prefixes the names.

    Example:
        >>> class Classifier(chainer.Chain):
        ...     def forward(self, x, t):
        ...         loss = F.softmax_cross_entropy(self.predictor(x), t)
        ...         chainer.report({'loss': loss}, self)
        ...         return loss
    """
    reporters = _stack.reporters
    if reporters:
        reporters[-1].report(values, observer)


@contextlib.contextmanager
def report_scope(observation: dict[str, Any]) -> Iterator[None]:
    """Inside the block, the current reporter reports into ``observation``."""
    current = get_current_reporter()
    old = current.observation
    current.observation = observation
    try:
        yield
    finally:
        current.observation = old


# -- summaries ---------------------------------------------------------------------------------


def _as_number(value: Any, where: str) -> Any:
    if isinstance(value, variable.Variable):
        value = value.array
    if isinstance(value, (bool, numpy.bool_)):
        return float(value)
    # As in Chainer 7, the statistics of Python numbers are Python floats and those of
    # NumPy values NumPy float64 scalars (code of Chainer 7 hands them to to_cpu).
    if isinstance(value, (int, float)) and not isinstance(value, numpy.generic):
        return float(value)
    if isinstance(value, (numpy.integer, numpy.floating)):
        return numpy.float64(value)
    if isinstance(value, numpy.ndarray):
        if value.size != 1:
            raise ValueError(f"{where}: expected a scalar, got an array of shape {value.shape}")
        return value.astype(numpy.float64).reshape(())[()]
    if backend._entry_for_array_type(type(value)) is not None:
        if value.size != 1:
            raise ValueError(f"{where}: expected a scalar, got an array of shape {value.shape}")
        # Stays on its device: summing on a GPU needs no synchronization.
        return value.astype(numpy.float64).reshape(())
    raise TypeError(f"{where}: expected a number, a 0-d array or a Variable, got {type(value).__name__}")


def _center(value: Any) -> Any:
    """The value to center the sums on: ``value``, or 0 where it is infinite or NaN
    (``inf - inf`` is NaN: a summary of ``[inf]`` must have the mean ``inf``)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else 0.0
    xp = backend.get_array_module(value)
    return xp.where(xp.isfinite(value), value, 0.0)


class Summary:
    """Online summary of a sequence of scalars: weighted mean and standard deviation.

    Values may be Python or NumPy scalars, 0-d arrays (CuPy arrays stay on their GPU)
    or variables. Sums are kept in float64, around the first value added, so that the
    variance does not suffer from cancellation when the mean is large compared with the
    spread. Serialization uses the plain sums ``_x``, ``_x2`` and ``_n`` of Chainer 7.
    """

    def __init__(self) -> None:
        self._shift: Any = None
        self._s1: Any = 0.0  # sum of weight * (x - shift)
        self._s2: Any = 0.0  # sum of weight * (x - shift) ** 2
        self._n: Any = 0
        # As in Chainer, statistics of Variables are Variables (without a graph).
        self._of_variables = False

    def add(self, value: Any, weight: Any = 1) -> None:
        """Add ``value`` with ``weight`` (the number of samples it stands for)."""
        if isinstance(value, variable.Variable) or isinstance(weight, variable.Variable):
            self._of_variables = True
        value = _as_number(value, "Summary.add")
        if not isinstance(weight, int):
            weight = _as_number(weight, "Summary.add (weight)")
        if self._shift is None:
            self._shift = _center(value)
        d = value - self._shift
        self._s1 += weight * d
        self._s2 += weight * d * d
        self._n += weight

    def _check_nonempty(self, where: str) -> None:
        if isinstance(self._n, (int, float, numpy.number)) and self._n == 0:
            raise ZeroDivisionError(f"Summary.{where}: no value has been added")

    def compute_mean(self) -> Any:
        """The weighted mean of the values added so far."""
        self._check_nonempty("compute_mean")
        return self._wrap(self._shift + self._s1 / self._n)

    def _wrap(self, value: Any) -> Any:
        if not self._of_variables:
            return value
        return variable.Variable(backend.get_array_module(value).asarray(value), requires_grad=False)

    def make_statistics(self) -> tuple[Any, Any]:
        """``(mean, std)``: the weighted mean and (population) standard deviation."""
        self._check_nonempty("make_statistics")
        d_mean = self._s1 / self._n
        var = self._s2 / self._n - d_mean * d_mean
        xp = backend.get_array_module(var)
        if xp is numpy:
            # Rounding can make a zero variance slightly negative.
            std: Any = math.sqrt(max(float(var), 0.0))
            if isinstance(var, numpy.generic):
                std = numpy.float64(std)
        else:
            std = xp.sqrt(xp.maximum(var, 0.0))
        return self._wrap(self._shift + d_mean), self._wrap(std)

    def _sums(self) -> tuple[Any, Any, Any]:
        if self._shift is None:
            return 0.0, 0.0, self._n
        k, s1, n = self._shift, self._s1, self._n
        if isinstance(k, float) and k == 0.0:
            # Centered on 0 (e.g. after an infinite first value): 0 * inf would be NaN.
            return s1, self._s2, n
        return s1 + n * k, self._s2 + 2 * k * s1 + n * k * k, n

    def serialize(self, serializer_: serializer.AbstractSerializer) -> None:
        """Save or load the running sums (keys ``_x``, ``_x2``, ``_n`` as in Chainer 7)."""
        if not isinstance(serializer_, serializer.Deserializer):
            x, x2, n = self._sums()
            serializer_("_x", x)
            serializer_("_x2", x2)
            serializer_("_n", n)
            if self._shift is not None:
                # The exact running state too (Chainer 7 ignores these keys), so that a
                # resumed summary continues bit for bit like the uninterrupted one.
                serializer_("_exact_shift", self._shift)
                serializer_("_exact_s1", self._s1)
                serializer_("_exact_s2", self._s2)
            return
        try:
            # None asks for the saved arrays as they are (their dtypes are kept).
            loaded = [serializer_(key, None) for key in ("_x", "_x2", "_n")]
        except KeyError:
            warnings.warn("Summary.serialize: the saved statistics are incomplete; keeping the current ones")
            return
        if any(value is None for value in loaded):
            return
        x, x2, n = (numpy.asarray(value).reshape(())[()] for value in loaded)
        self._n = n
        if n == 0:
            self._shift, self._s1, self._s2 = None, 0.0, 0.0
            return
        try:
            exact = [serializer_(key, None) for key in ("_exact_shift", "_exact_s1", "_exact_s2")]
        except KeyError:  # saved by Chainer 7
            exact = [None]
        if all(value is not None for value in exact):
            self._shift, self._s1, self._s2 = (numpy.asarray(value).reshape(())[()] for value in exact)
            return
        # Re-center on the saved mean (on 0 if it is infinite or NaN).
        mean = numpy.float64(x) / n
        if numpy.isfinite(mean):
            self._shift, self._s1, self._s2 = mean, numpy.float64(0.0), numpy.float64(x2) - n * mean * mean
        else:  # an infinite or NaN mean: centered on 0
            self._shift, self._s1, self._s2 = 0.0, numpy.float64(x), numpy.float64(x2)


class DictSummary:
    """Online summary of a sequence of dicts: one :class:`Summary` per key.

    Values that are not scalars (arrays with more than one element, strings, ...) are
    ignored. A value may be a ``(value, weight)`` pair.
    """

    def __init__(self) -> None:
        self._summaries: dict[str, Summary] = {}

    def add(self, d: dict[str, Any]) -> None:
        """Add the scalar values of the dict ``d``."""
        if not isinstance(d, dict):
            raise TypeError(f"DictSummary.add: expected a dict, got {type(d).__name__}")
        for key, value in d.items():
            weight: Any = 1
            if isinstance(value, tuple):
                if len(value) != 2:
                    raise ValueError(
                        f"DictSummary.add: the value of {key!r} must be a scalar or a (value, weight) pair"
                    )
                value, weight = value
                if isinstance(weight, variable.Variable):
                    weight = weight.array
                if not _is_scalar_like(weight):
                    raise ValueError(f"DictSummary.add: the weight of {key!r} must be a scalar, got {weight!r}")
            if isinstance(value, variable.Variable):
                value = value.array
            if _is_scalar_like(value):
                summary = self._summaries.get(key)
                if summary is None:
                    summary = self._summaries[key] = Summary()
                summary.add(value, weight)

    def compute_mean(self) -> dict[str, Any]:
        """``{key: mean}``."""
        return {key: summary.compute_mean() for key, summary in self._summaries.items()}

    def make_statistics(self) -> dict[str, Any]:
        """``{key: mean, key + '.std': std}``."""
        stats: dict[str, Any] = {}
        for key, summary in self._summaries.items():
            mean, std = summary.make_statistics()
            stats[key] = mean
            stats[key + ".std"] = std
        return stats

    def serialize(self, serializer_: serializer.AbstractSerializer) -> None:
        """Save or load the summaries: ``_names`` (a JSON list of keys) and
        ``_summaries/<index>/...`` per key, as in Chainer 7."""
        if isinstance(serializer_, serializer.Serializer):
            names = list(self._summaries)
            serializer_("_names", json.dumps(names))
            for index, name in enumerate(names):
                self._summaries[name].serialize(serializer_["_summaries"][str(index)])
            return
        try:
            names = json.loads(serializer_("_names", ""))
        except KeyError:
            # A file of Chainer's older versions, which saved nothing: start afresh, as they did.
            warnings.warn("DictSummary.serialize: the names of the statistics were not saved; starting empty")
            if not getattr(serializer_, "_validating", False):
                self._summaries = {}
            return
        summaries = {}
        for index, name in enumerate(names):
            summary = Summary()
            summary.serialize(serializer_["_summaries"][str(index)])
            summaries[name] = summary
        if not getattr(serializer_, "_validating", False):
            self._summaries = summaries


def _is_scalar_like(value: Any) -> bool:
    if isinstance(value, (bool, int, float, numpy.number, numpy.bool_)):
        return True
    if isinstance(value, numpy.ndarray):
        return value.ndim == 0 and value.dtype.kind in "biuf"
    entry = backend._entry_for_array_type(type(value))
    return entry is not None and getattr(value, "ndim", -1) == 0


__all__ = ["DictSummary", "Reporter", "Summary", "get_current_reporter", "report", "report_scope"]
