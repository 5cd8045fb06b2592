"""Trainer extensions (``from chainer.training import extensions``).

The built-in extensions are defined in the modules of this package. Extensions of
third-party plugins, registered through the ``chainer_register_extensions`` hook, are
reachable here too (``extensions.<Name>``); the built-in ones are registered through
the same hook, so :data:`registered_extensions` lists them all with their origin.
"""

from __future__ import annotations

from typing import Any

from chainer import plugins
from chainer.training import extension as _extension
from chainer.training.extensions import (
    _snapshot,
    computational_graph,
    evaluator,
    exponential_shift,
    fail_on_nonnumber,
    inverse_shift,
    linear_shift,
    log_report,
    micro_average,
    multistep_shift,
    parameter_statistics,
    plot_report,
    polynomial_shift,
    print_report,
    progress_bar,
    snapshot_writers,
    step_shift,
    util,
    value_observation,
    variable_statistics_plot,
    variable_unchain,
    warmup_shift,
)
from chainer.training.extensions._snapshot import snapshot, snapshot_object
from chainer.training.extensions.computational_graph import DumpGraph, dump_graph
from chainer.training.extensions.evaluator import Evaluator
from chainer.training.extensions.exponential_shift import ExponentialShift
from chainer.training.extensions.fail_on_nonnumber import FailOnNonNumber
from chainer.training.extensions.inverse_shift import InverseShift
from chainer.training.extensions.linear_shift import LinearShift
from chainer.training.extensions.log_report import LogReport
from chainer.training.extensions.micro_average import MicroAverage
from chainer.training.extensions.multistep_shift import MultistepShift
from chainer.training.extensions.parameter_statistics import ParameterStatistics
from chainer.training.extensions.plot_report import PlotReport
from chainer.training.extensions.polynomial_shift import PolynomialShift
from chainer.training.extensions.print_report import PrintReport
from chainer.training.extensions.progress_bar import ProgressBar
from chainer.training.extensions.step_shift import StepShift
from chainer.training.extensions.value_observation import observe_lr, observe_value
from chainer.training.extensions.variable_statistics_plot import VariableStatisticsPlot
from chainer.training.extensions.variable_unchain import unchain_variables
from chainer.training.extensions.warmup_shift import WarmupShift

__all__ = [
    "DumpGraph",
    "Evaluator",
    "ExponentialShift",
    "FailOnNonNumber",
    "InverseShift",
    "LinearShift",
    "LogReport",
    "MicroAverage",
    "MultistepShift",
    "ParameterStatistics",
    "PlotReport",
    "PolynomialShift",
    "PrintReport",
    "ProgressBar",
    "StepShift",
    "VariableStatisticsPlot",
    "WarmupShift",
    "dump_graph",
    "observe_lr",
    "observe_value",
    "snapshot",
    "snapshot_object",
    "snapshot_writers",
    "unchain_variables",
]

_BUILTIN: dict[str, Any] = {name: globals()[name] for name in __all__ if name != "snapshot_writers"}
# Names a plugin may not take: the built-in extensions and every module attribute.
_RESERVED = frozenset(globals())


def _make_extension_entry(extension: Any, name: str | None = None) -> tuple[str, Any]:
    is_class = isinstance(extension, type)
    if is_class and not issubclass(extension, _extension.Extension):
        raise TypeError(f"an extension class must subclass chainer.training.Extension, got {extension!r}")
    if not callable(extension):
        raise TypeError(f"an extension must be an Extension subclass or a factory function, got {extension!r}")
    name = getattr(extension, "__name__", None) if name is None else name
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"an extension name must be an identifier, got {name!r}")
    if name in _RESERVED and _BUILTIN.get(name) is not extension:
        raise ValueError(f"{name!r} is a built-in name of chainer.training.extensions and cannot be replaced")
    return name, extension


#: Every extension registered through ``chainer_register_extensions``: the built-in
#: ones and those of plugins (``registered_extensions.origin(name)`` names the plugin).
registered_extensions: plugins.Registry[Any] = plugins.Registry("chainer_register_extensions", _make_extension_entry)


class _BuiltinExtensions:
    """The plugin through which the built-in extensions register."""

    @plugins.hookimpl
    def chainer_register_extensions(self, register: Any) -> None:
        for name, extension in _BUILTIN.items():
            register(extension, name)


_BUILTIN_PLUGIN_NAME = "chainer.builtin_extensions"
if plugins.get_plugin_manager().get_plugin(_BUILTIN_PLUGIN_NAME) is None:
    plugins.register(_BuiltinExtensions(), name=_BUILTIN_PLUGIN_NAME, builtin=True)


def __getattr__(name: str) -> Any:
    if not name.startswith("_"):
        extension = registered_extensions.get(name)
        if extension is not None:
            return extension
    raise AttributeError(f"module 'chainer.training.extensions' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(registered_extensions))
