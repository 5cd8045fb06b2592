"""Hook specifications of the ``chainer`` plugin system.

Every hook is a *registry* hook: it receives a ``register`` callback and calls it once
per thing the plugin provides, so one plugin can contribute many backends, links,
extensions, communicators or converters in a single implementation. The host validates
each call and attributes the entry to the plugin; an invalid registration is reported
as a warning naming the plugin and is otherwise ignored.

A plugin is any module or object with functions marked by :data:`chainer.hookimpl`
(``pluggy.HookimplMarker("chainer")``), exposed through an entry point of group
``chainer``::

    [project.entry-points.chainer]
    my_backend = "my_package.chainer_plugin"

See ``packages/core/README.md`` ("Writing a plugin") for complete examples.
"""

from __future__ import annotations

from collections.abc import Callable

import pluggy

hookspec = pluggy.HookspecMarker("chainer")


@hookspec
def chainer_register_backends(register: Callable[..., None]) -> None:
    """Register array backends usable in device specifiers.

    Call ``register(name, device_class, *, array_types=(), factory=None,
    check_available=None)`` once per backend:

    - ``name``: the specifier name without ``@`` (``'mydev'`` makes ``'@mydev'`` and
      ``'@mydev:N'`` valid for :func:`chainer.get_device`).
    - ``device_class``: a subclass of :class:`chainer.backend.Device`.
    - ``array_types``: the array classes this backend owns, or a zero-argument callable
      returning them (use a callable when importing the array library is expensive).
    - ``factory``: ``factory(index)`` builds a device for ``'@name'`` (``index`` is
      ``None``) or ``'@name:index'``; defaults to ``device_class()`` /
      ``device_class(index)``.
    - ``check_available``: a zero-argument callable returning ``None`` when the backend
      can be used here, or a sentence saying why not. It is called at most once, when
      the backend is first requested.
    """


@hookspec
def chainer_register_links(register: Callable[..., None]) -> None:
    """Register extra :class:`chainer.Link` classes.

    Call ``register(link_class, name=None)``; the class becomes reachable as
    ``chainer.links.<name>`` (``name`` defaults to the class name). Names of built-in
    links cannot be replaced.
    """


@hookspec
def chainer_register_extensions(register: Callable[..., None]) -> None:
    """Register extra trainer extensions.

    Call ``register(extension, name=None)`` with an :class:`~chainer.training.Extension`
    subclass or a factory function; it becomes reachable as
    ``chainer.training.extensions.<name>`` (``name`` defaults to its ``__name__``).
    """


@hookspec
def chainer_register_communicators(register: Callable[..., None]) -> None:
    """Register ChainerMN communicator classes.

    Call ``register(name, communicator_class)``; ``chainermn.create_communicator(name)``
    then builds it.
    """


@hookspec
def chainer_register_onnx_converters(register: Callable[..., None]) -> None:
    """Register ONNX converters.

    Call ``register(function_name, converter)`` where ``function_name`` is the class
    name of the :class:`chainer.FunctionNode` to export (e.g. ``'ReLU'``,
    ``'LinearFunction'``; for a function wrapped by
    ``onnx_chainer.replace_func.as_funcnode``, the name given there) and ``converter``
    is a callable ``converter(func, opset_version, input_names, output_names, context)``
    returning ONNX node(s) (see ``onnx_chainer.mapping``).
    """


@hookspec
def chainer_register_cpu_kernels(register: Callable[..., None]) -> None:
    """Register compiled CPU kernels for hot spots that core computes with NumPy.

    Call ``register(slot, function)`` where ``slot`` is one of the names listed in
    :data:`chainer.backends.cpu_kernels.SLOTS` (each entry documents the call and its contract)
    and ``function`` implements it. A kernel returns ``True`` when it did the work and
    ``False`` when it declines the arguments (an unsupported dtype or layout, say); core
    then runs its NumPy code, so a kernel may support any subset of the cases.
    """


@hookspec
def chainer_register_cudnn(register: Callable[..., None]) -> None:
    """Register the cuDNN library that the GPU convolutions use.

    Call ``register(library)`` with an object implementing
    :class:`chainer.backends.cudnn_library.CudnnLibrary` (its methods run cuDNN on CuPy
    arrays and return ``None`` to decline a call, in which case core computes it with
    CuPy). One library is used: the first registered. The ``chainer-cudnn``
    distribution provides one built on NVIDIA's cuDNN frontend.
    """


__all__ = [
    "hookspec",
    "chainer_register_backends",
    "chainer_register_links",
    "chainer_register_extensions",
    "chainer_register_communicators",
    "chainer_register_onnx_converters",
    "chainer_register_cpu_kernels",
    "chainer_register_cudnn",
]
