"""The interface every ChainerMN communicator implements."""

from __future__ import annotations

import abc
import contextlib
import warnings
from collections.abc import Iterator
from typing import Any


class CommunicatorBase(abc.ABC):
    """Interface definition of all communicators.

    Methods are named after their MPI counterparts (:meth:`bcast` after ``MPI_Bcast``).
    Those without suffix move arrays (NumPy, or CuPy through host memory); those with the
    ``_obj`` suffix move picklable Python objects. Every process of the communicator must
    call a collective method (everything except ``send``/``recv``) in the same order.

    Subclasses register through the ``chainer_register_communicators`` plugin hook to be
    built by :func:`chainermn.create_communicator`.
    """

    def __init__(self) -> None:
        # Written through object.__setattr__: __setattr__ below reads them.
        object.__setattr__(self, "_configs", {})
        object.__setattr__(self, "_within_config_scope", False)

    # -- topology ------------------------------------------------------------------------

    @property
    @abc.abstractmethod
    def rank(self) -> int:
        """Rank (process id in the cluster) of this process."""

    @property
    @abc.abstractmethod
    def size(self) -> int:
        """Number of processes of the cluster."""

    @property
    @abc.abstractmethod
    def intra_rank(self) -> int:
        """Rank of this process among the processes of its machine (0, 1, ...)."""

    @property
    @abc.abstractmethod
    def intra_size(self) -> int:
        """Number of processes on this machine."""

    @property
    @abc.abstractmethod
    def inter_rank(self) -> int:
        """Rank of this machine among the machines of the cluster."""

    @property
    @abc.abstractmethod
    def inter_size(self) -> int:
        """Number of machines that take part."""

    @abc.abstractmethod
    def split(self, color: int, key: int) -> CommunicatorBase:
        """Split the communicator like ``MPI_Comm_split``.

        Processes passing the same ``color`` end up in the same new communicator, ranked
        by ``key``. Returns a communicator of the same class.
        """

    # -- configuration -------------------------------------------------------------------
    #
    # A configuration is an attribute assigned inside ``config_scope()`` (in the
    # constructor of the communicator that has it): ``comm.batched_copy`` reads it,
    # ``set_config``/``get_config`` change and read it by name.

    def __getattr__(self, name: str) -> Any:
        # Only reached when the ordinary lookup fails.
        configs = self.__dict__.get("_configs")
        if configs is not None and name in configs:
            return configs[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        if self.__dict__.get("_within_config_scope"):
            self._configs[name] = value
        else:
            object.__setattr__(self, name, value)

    def _check_config_name(self, name: Any, where: str) -> None:
        if name not in self._configs:
            known = ", ".join(sorted(self._configs)) or "none"
            raise ValueError(f"{type(self).__name__}.{where}: unknown configuration {name!r} (known: {known})")

    def set_config(self, name: str, value: Any = True, **kwargs: Any) -> None:
        """Set the configuration ``name`` to ``value`` (``comm.set_config('batched_copy', False)``).

        Which names exist depends on the communicator (see
        :func:`~chainermn.create_communicator`); an unknown name raises ``ValueError``.
        """
        self._check_config_name(name, "set_config")
        if kwargs:
            raise TypeError(f"{type(self).__name__}.set_config: unexpected keyword arguments {sorted(kwargs)}")
        self._configs[name] = value

    def get_config(self, name: str | None = None) -> Any:
        """Return the value of configuration ``name``, or for ``None`` a dict of all of
        them (``None`` when the communicator has none)."""
        if name is None:
            return dict(self._configs) or None
        self._check_config_name(name, "get_config")
        return self._configs[name]

    @contextlib.contextmanager
    def config_scope(self) -> Iterator[None]:
        """A ``with`` block in which attributes assigned to the communicator become
        configurations (readable by :meth:`get_config`, changeable by :meth:`set_config`)."""
        previous = self._within_config_scope
        object.__setattr__(self, "_within_config_scope", True)
        try:
            yield
        finally:
            object.__setattr__(self, "_within_config_scope", previous)

    @property
    def within_config_scope(self) -> bool:
        """Whether the code runs inside :meth:`config_scope`."""
        return self._within_config_scope

    # -- arrays --------------------------------------------------------------------------

    @abc.abstractmethod
    def send(self, data: Any, dest: int, tag: int) -> None:
        """Send an array, or a tuple of arrays, to rank ``dest`` (blocking)."""

    @abc.abstractmethod
    def recv(self, source: int, tag: int) -> Any:
        """Receive what rank ``source`` sent with :meth:`send` under ``tag``."""

    @abc.abstractmethod
    def bcast(self, data: Any, max_buf_len: int | None = None, root: int = 0) -> Any:
        """Broadcast an array from ``root``; the other processes' ``data`` is ignored."""

    @abc.abstractmethod
    def gather(self, data: Any, root: int = 0) -> Any:
        """Gather one array from every process: a tuple at ``root``, ``None`` elsewhere."""

    @abc.abstractmethod
    def allgather(self, x: Any) -> tuple[Any, ...]:
        """Every process receives the tuple of every process's array (in rank order)."""

    @abc.abstractmethod
    def allreduce(self, data: Any) -> Any:
        """The element-wise sum of every process's array, on every process."""

    @abc.abstractmethod
    def scatter(self, xs: Any, root: int = 0) -> Any:
        """``root`` passes one array per process; process ``i`` receives ``xs[i]``."""

    @abc.abstractmethod
    def alltoall(self, xs: Any) -> tuple[Any, ...]:
        """Every process passes one array per process and receives one from each."""

    # -- Python objects ------------------------------------------------------------------

    @abc.abstractmethod
    def send_obj(self, obj: Any, dest: int, tag: int) -> None:
        """Send a picklable object to rank ``dest``."""

    @abc.abstractmethod
    def recv_obj(self, source: int, tag: int) -> Any:
        """Receive an object sent by :meth:`send_obj`."""

    @abc.abstractmethod
    def bcast_obj(self, obj: Any, max_buf_len: int | None = None, root: int = 0) -> Any:
        """Broadcast a picklable object from ``root`` to every process."""

    @abc.abstractmethod
    def gather_obj(self, obj: Any, root: int = 0) -> list[Any] | None:
        """A list of every process's object (in rank order) at ``root``, ``None`` elsewhere."""

    @abc.abstractmethod
    def allreduce_obj(self, obj: Any) -> Any:
        """The sum (``+``) of every process's object, on every process."""

    # -- models --------------------------------------------------------------------------

    @abc.abstractmethod
    def bcast_data(self, model: Any) -> None:
        """Copy the parameter arrays of rank 0's ``model`` into every process's ``model``."""

    def broadcast_data(self, model: Any) -> None:
        """The older name of :meth:`bcast_data`."""
        self.bcast_data(model)

    @abc.abstractmethod
    def multi_node_mean_grad(self, model: Any, zero_fill: bool = False) -> None:
        """Replace each parameter gradient of ``model`` by its mean over the processes.

        With ``zero_fill``, an initialized parameter without gradient (unused in this
        iteration) takes part with a zero gradient; otherwise it is skipped, which needs
        every process to have skipped it too.
        """

    def allreduce_grad(self, model: Any, zero_fill: bool = False) -> None:
        """Deprecated (v7) name of :meth:`multi_node_mean_grad`."""
        # No stacklevel: attributed to ChainerMN as in Chainer 7 (Python's default filters hide it).
        warnings.warn(
            "CommunicatorBase.allreduce_grad is deprecated since Chainer v7; use multi_node_mean_grad",
            DeprecationWarning,
        )
        self.multi_node_mean_grad(model, zero_fill)

    def finalize(self) -> None:
        """Release the communicator's resources; it must not be used afterwards."""
        return  # nothing to release by default


__all__ = ["CommunicatorBase"]
