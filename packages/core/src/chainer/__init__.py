"""Chainer: a flexible framework of neural networks, define-by-run.

This is the core distribution (``chainer-core``). Other distributions contribute
sub-packages to this import package: ``chainer.links`` (chainer-links),
``chainer.dataset``/``datasets``/``iterators`` (chainer-datasets) and
``chainer.training`` (chainer-training). They are imported on first use; using one that
is not installed raises an ImportError that names the distribution to install.
"""

# Several distributions install into the ``chainer`` package; find all their parts.
from pkgutil import extend_path

__path__ = extend_path(__path__, __name__)

import importlib as _importlib
import sys as _sys
import warnings as _warnings
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from chainer import _environment, configuration, plugins
from chainer._version import __version__
from chainer.configuration import config, global_config, using_config

_environment.apply_defaults(global_config)

from chainer import (
    _builtin_plugins,
    backend,
    backends,
    computational_graph,
    device_resident,
    distribution,
    distributions,
    function,
    function_hook,
    function_hooks,
    function_node,
    functions,
    gradient_check,
    graph_optimizations,
    initializer,
    initializers,
    link,
    link_hook,
    link_hooks,
    memory_layouts,
    optimizer,
    optimizer_hooks,
    optimizers,
    reporter,
    sequential,
    serializer,
    serializers,
    types,
    utils,
    variable,
    warnings,
)
from chainer._backprop import backward, grad
from chainer._environment import mixed16
from chainer._parameter import Parameter
from chainer._runtime_info import print_runtime_info
from chainer.backend import get_device, using_device
from chainer.backends.cuda import should_use_cudnn, should_use_cudnn_tensor_core
from chainer.device_resident import DeviceResident
from chainer.distribution import Distribution, cross_entropy, kl_divergence, register_kl
from chainer.function import Function, FunctionAdapter, force_backprop_mode, no_backprop_mode
from chainer.function_hook import FunctionHook, get_function_hooks
from chainer.function_node import FunctionNode

# Chainer 7 made the module that installs Variable's operators reachable as chainer.basic_math
# (its tests and some user code import it from there).
from chainer.functions.math import basic_math
from chainer.graph_optimizations import static_code, static_graph
from chainer.initializer import Initializer
from chainer.link import Chain, ChainList, Link
from chainer.link_hook import LinkHook
from chainer.optimizer import GradientMethod, Optimizer, UpdateRule
from chainer.plugins import hookimpl
from chainer.reporter import DictSummary, Reporter, Summary, get_current_reporter, report, report_scope
from chainer.sequential import Sequential
from chainer.serializer import AbstractSerializer, Deserializer, Serializer
from chainer.variable import Variable, as_array, as_variable

# Set to True to silence the FutureWarning of experimental APIs (chainer.utils.experimental).
disable_experimental_feature_warning = False

# chainer.cuda is the pre-v4 path of chainer.backends.cuda.
_sys.modules.setdefault("chainer.cuda", backends.cuda)
cuda = backends.cuda


def get_dtype(dtype: _Any = None, map_mixed16: _Any = None) -> _Any:
    """Resolve a dtype: ``None`` means ``chainer.config.dtype``; ``mixed16`` maps to
    ``map_mixed16`` (float16 by default).

    Returns:
        A ``numpy.dtype``.
    """
    import numpy

    if dtype is None:
        dtype = config.dtype
    if dtype is mixed16:
        return numpy.dtype(numpy.float16 if map_mixed16 is None else map_mixed16)
    return numpy.dtype(dtype)


def is_debug() -> bool:
    """Whether debug mode is on in the current thread."""
    return bool(config.debug)


def set_debug(debug: bool) -> None:
    """Turn debug mode on or off in the current thread."""
    config.debug = debug


def get_array_types() -> tuple[type, ...]:
    """The array types of the backends available here (``numpy.ndarray``, and
    ``cupy.ndarray`` with CuPy, iDeep's ``mdarray`` with iDeep, a plugin's)."""
    types_: list[type] = []
    for _, entry in backend.backends.items():
        if entry.unavailable_reason() is None:
            types_.extend(t for t in entry.array_types if t not in types_)
    return tuple(types_)


def get_cpu_array_types() -> tuple[type, ...]:
    """The array types that live in host memory (``numpy.ndarray``, iDeep's ``mdarray``)."""
    types_: list[type] = []
    for name in ("numpy", "intel64"):
        entry = backend.backends.get(name)
        if entry is not None and entry.unavailable_reason() is None:
            types_.extend(t for t in entry.array_types if t not in types_)
    return tuple(types_)


def is_arrays_compatible(arrays: _Any) -> bool:
    """Whether the arrays (``None`` skipped) can be computed on together: all in host
    memory, or all of one other backend."""
    import numpy

    cpu_types = get_cpu_array_types()
    kinds = set()
    for a in arrays:
        if a is None:
            continue
        if isinstance(a, cpu_types) or isinstance(a, numpy.ndarray):
            kinds.add("cpu")
        else:
            entry = backend._entry_for_array_type(type(a))
            kinds.add(type(a) if entry is None else entry.name)
    return len(kinds) <= 1


def get_compute_mode() -> _Any:
    """``chainer.config.compute_mode``: ``None``, or ``'cudnn_fast'``, under which
    :class:`~chainer.links.Convolution2D` stores its kernel channel-last (see
    :mod:`chainer.memory_layouts`)."""
    return config.compute_mode


class DebugMode:
    """Deprecated context manager that sets debug mode: use
    ``chainer.using_config('debug', flag)``."""

    def __init__(self, debug: bool) -> None:
        # No stacklevel: attributed to Chainer as in Chainer 7 (Python's default filters hide it).
        _warnings.warn(
            'chainer.DebugMode is deprecated; use chainer.using_config("debug", ...) instead', DeprecationWarning
        )
        self._using = using_config("debug", debug)

    def __enter__(self) -> None:
        self._using.__enter__()

    def __exit__(self, *args: _Any) -> None:
        self._using.__exit__(*args)


# Sub-packages provided by other distributions, imported on first use.
_OPTIONAL_SUBPACKAGES = {
    "links": "chainer-links",
    "dataset": "chainer-datasets",
    "datasets": "chainer-datasets",
    "iterators": "chainer-datasets",
    "training": "chainer-training",
}

if _TYPE_CHECKING:
    # What type checkers see of the optional sub-packages; at run time they are imported
    # on first use, by __getattr__ below (import chainer must not import them).
    from chainer import dataset, datasets, iterators, links, training


class _MissingDistributionFinder:
    """Last resort on ``sys.meta_path``: turns a failed import of an optional
    sub-package into an ImportError that names the distribution to install."""

    @staticmethod
    def find_spec(fullname: str, path: _Any = None, target: _Any = None) -> None:
        parts = fullname.split(".")
        if len(parts) >= 2 and parts[0] == "chainer" and parts[1] in _OPTIONAL_SUBPACKAGES:
            dist = _OPTIONAL_SUBPACKAGES[parts[1]]
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: chainer.{parts[1]} is provided by the distribution "
                f"'{dist}'; install it with: pip install {dist}",
                name=fullname,
            )
        return None


if not any(isinstance(f, type) and f.__name__ == "_MissingDistributionFinder" for f in _sys.meta_path):
    _sys.meta_path.append(_MissingDistributionFinder)  # type: ignore[arg-type]


def __getattr__(name: str) -> _Any:
    if name in _OPTIONAL_SUBPACKAGES:
        return _importlib.import_module(f"chainer.{name}")
    raise AttributeError(f"module 'chainer' has no attribute {name!r}")


plugins.register(_builtin_plugins, name="chainer.builtin_backends", builtin=True)
# Last: a third-party plugin may import any part of chainer.
plugins.load_entry_points()
