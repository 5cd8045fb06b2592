"""Communicators: the processes of a job and the ways they exchange data.

:func:`create_communicator` builds one by name. The built-in communicators register
through the ``chainer_register_communicators`` plugin hook, like those of third-party
plugins; :data:`registered_communicators` lists them all with their origin.

========================  ====  ====  ====================================================
name                      CPU   GPU   notes
========================  ====  ====  ====================================================
``naive``                 yes   yes   one MPI all-reduce per gradient; the reference
``flat``                  yes   yes   all gradients in one buffer, one MPI all-reduce
``pure_nccl`` (default)   no    yes   NCCL all-reduce of the gradients on the GPUs
``non_cuda_aware``        no    yes   NCCL inside a node, MPI through host memory between
``dummy``                 yes   yes   no gradient exchange; for benchmarking only
========================  ====  ====  ====================================================

The default, ``'pure_nccl'``, needs a GPU: on a CPU-only machine pass ``'naive'`` or
``'flat'``. Every communicator needs an MPI library; where mpi4py cannot load one,
creating a communicator raises :class:`MpiUnavailableError`, which says what to install.
"""

from __future__ import annotations

from typing import Any

from chainer import plugins
from chainermn._mpi import MpiUnavailableError
from chainermn.communicators.communicator_base import CommunicatorBase
from chainermn.communicators.dummy_communicator import DummyCommunicator
from chainermn.communicators.flat_communicator import FlatCommunicator
from chainermn.communicators.mpi_communicator_base import MpiCommunicatorBase
from chainermn.communicators.naive_communicator import NaiveCommunicator
from chainermn.communicators.non_cuda_aware_communicator import NonCudaAwareCommunicator
from chainermn.communicators.pure_nccl_communicator import PureNcclCommunicator
from chainermn.nccl import NcclUnavailableError

_BUILTIN: dict[str, type] = {
    "naive": NaiveCommunicator,
    "flat": FlatCommunicator,
    "pure_nccl": PureNcclCommunicator,
    "non_cuda_aware": NonCudaAwareCommunicator,
    "dummy": DummyCommunicator,
}
# Communicators of ChainerMN before v7 that Chainer 7 removed.
_REMOVED = ("hierarchical", "two_dimensional", "single_node")


def _make_communicator_entry(name: Any, communicator_class: Any) -> tuple[str, Any]:
    if not isinstance(name, str) or not name:
        raise ValueError(f"a communicator name must be a non-empty string, got {name!r}")
    if not callable(communicator_class):
        raise TypeError(
            f"communicator {name!r}: expected a CommunicatorBase subclass or a factory, got {communicator_class!r}"
        )
    if isinstance(communicator_class, type) and not issubclass(communicator_class, CommunicatorBase):
        raise TypeError(
            f"communicator {name!r}: {communicator_class.__name__} does not subclass chainermn.CommunicatorBase"
        )
    if name in _BUILTIN and _BUILTIN[name] is not communicator_class:
        raise ValueError(f"{name!r} is a built-in communicator and cannot be replaced")
    return name, communicator_class


#: Every communicator registered through ``chainer_register_communicators``: the
#: built-in ones and those of plugins (``registered_communicators.origin(name)``).
registered_communicators: plugins.Registry[Any] = plugins.Registry(
    "chainer_register_communicators", _make_communicator_entry
)


class _BuiltinCommunicators:
    """The plugin through which the built-in communicators register."""

    @plugins.hookimpl
    def chainer_register_communicators(self, register: Any) -> None:
        for name, cls in _BUILTIN.items():
            register(name, cls)


_BUILTIN_PLUGIN_NAME = "chainermn.builtin_communicators"
if plugins.get_plugin_manager().get_plugin(_BUILTIN_PLUGIN_NAME) is None:
    plugins.register(_BuiltinCommunicators(), name=_BUILTIN_PLUGIN_NAME, builtin=True)


def create_communicator(communicator_name: str = "pure_nccl", mpi_comm: Any = None, **kwargs: Any) -> CommunicatorBase:
    """Create a ChainerMN communicator.

    Args:
        communicator_name: ``'naive'``, ``'flat'``, ``'pure_nccl'`` (the default; needs
            CuPy with NCCL and a GPU), ``'non_cuda_aware'``, ``'dummy'``, or a name
            registered by a plugin. On a CPU-only machine pass ``'naive'`` or ``'flat'``.
        mpi_comm: An mpi4py communicator (default ``MPI.COMM_WORLD``).
        **kwargs: Options of the communicator; ``allreduce_grad_dtype`` and
            ``batched_copy`` belong to ``'pure_nccl'`` (and ``'non_cuda_aware'``).
            ``'pure_nccl'`` exchanges the gradients in ``allreduce_grad_dtype`` or, when
            it is ``None``, in the dtype of ``chainer.config.dtype`` (float16 for
            ``chainer.mixed16``); the MPI communicators sum float16 in float32.

    Returns:
        The communicator (a :class:`CommunicatorBase`).

    Example:
        >>> comm = chainermn.create_communicator('naive')  # doctest: +SKIP
        >>> device = comm.intra_rank  # doctest: +SKIP
    """
    if not isinstance(communicator_name, str):
        raise TypeError(f"create_communicator: communicator_name must be a str, got {type(communicator_name).__name__}")
    factory = registered_communicators.get(communicator_name)
    if factory is None:
        known = ", ".join(repr(n) for n in registered_communicators)
        if communicator_name in _REMOVED:
            raise ValueError(
                f"create_communicator: the {communicator_name!r} communicator was removed in Chainer v7; "
                f"available: {known}"
            )
        raise ValueError(f"create_communicator: unknown communicator {communicator_name!r}; available: {known}")
    return factory(mpi_comm=mpi_comm, **kwargs)


__all__ = [
    "CommunicatorBase",
    "DummyCommunicator",
    "FlatCommunicator",
    "MpiCommunicatorBase",
    "MpiUnavailableError",
    "NaiveCommunicator",
    "NcclUnavailableError",
    "NonCudaAwareCommunicator",
    "PureNcclCommunicator",
    "create_communicator",
    "registered_communicators",
]
