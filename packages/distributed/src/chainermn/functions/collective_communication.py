"""Differentiable collective communication: bcast, gather, scatter, allgather, alltoall.

Each backward runs the reverse collective on the gradients (a broadcast's gradient is
the sum gathered at the root, a gather's is a scatter, ...). Every process must call the
function, and every process runs its backward, so the collectives of backward match up
too. An output gradient that is ``None`` travels as zeros. A bad argument on any process
raises on every process (see :mod:`chainermn.functions._consistency`).
"""

from __future__ import annotations

from typing import Any

import numpy

import chainer
from chainer import backend, function_node
from chainermn.functions import _consistency


def _dummy(xp: Any = numpy) -> Any:
    return xp.empty((0,), dtype=numpy.float32)


def _grads_or_zeros(grad_outputs: tuple[Any, ...], specs: list[tuple[Any, Any]], xp: Any) -> tuple[Any, ...]:
    return tuple(
        xp.zeros(shape, dtype=dtype) if g is None else g.array for g, (shape, dtype) in zip(grad_outputs, specs)
    )


def _xp(grad_outputs: tuple[Any, ...]) -> Any:
    return backend.get_array_module(*[g for g in grad_outputs if g is not None])


class Bcast(function_node.FunctionNode):
    def __init__(self, comm: Any, root: int) -> None:
        self.comm = comm
        self.root = root

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self._input_spec = (x.shape, x.dtype)
        is_root = self.comm.rank == self.root
        y = self.comm.bcast(x if is_root else None, root=self.root)
        if is_root:
            y = y.copy()
        self._output_spec = (y.shape, y.dtype)
        return (y,)

    def backward(self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = _xp(grad_outputs)
        (gy,) = _grads_or_zeros(grad_outputs, [self._output_spec], xp)
        gys = self.comm.gather(gy, root=self.root)
        if self.comm.rank == self.root:
            gx = gys[0].copy()
            for g in gys[1:]:
                gx += xp.asarray(g)
        else:
            gx = xp.zeros(*self._input_spec)
        return (chainer.Variable(gx),)


class Gather(function_node.FunctionNode):
    def __init__(self, comm: Any, root: int) -> None:
        self.comm = comm
        self.root = root

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self._input_spec = (x.shape, x.dtype)
        ys = self.comm.gather(x, root=self.root)
        if self.comm.rank == self.root:
            self._output_specs = [(y.shape, y.dtype) for y in ys]
            return tuple(ys)
        self._output_specs = [((0,), numpy.float32)]
        return (_dummy(backend.get_array_module(x)),)

    def backward(self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = _xp(grad_outputs)
        gys = _grads_or_zeros(grad_outputs, self._output_specs, xp)
        gx = self.comm.scatter(gys if self.comm.rank == self.root else None, root=self.root)
        return (chainer.Variable(xp.asarray(gx)),)


class Scatter(function_node.FunctionNode):
    def __init__(self, comm: Any, root: int) -> None:
        self.comm = comm
        self.root = root

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self._input_specs = [(x.shape, x.dtype) for x in inputs]
        is_root = self.comm.rank == self.root
        y = self.comm.scatter(tuple(inputs) if is_root else None, root=self.root)
        if is_root:
            y = y.copy()
        self._output_spec = (y.shape, y.dtype)
        return (y,)

    def backward(self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = _xp(grad_outputs)
        (gy,) = _grads_or_zeros(grad_outputs, [self._output_spec], xp)
        gys = self.comm.gather(gy, root=self.root)
        if self.comm.rank == self.root:
            return tuple(chainer.Variable(xp.asarray(g)) for g in gys)
        return tuple(chainer.Variable(xp.zeros(shape, dtype=dtype)) for shape, dtype in self._input_specs)


class AllGather(function_node.FunctionNode):
    def __init__(self, comm: Any) -> None:
        self.comm = comm

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        ys = self.comm.allgather(x)
        self._output_specs = [(y.shape, y.dtype) for y in ys]
        return tuple(ys)

    def backward(self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # Process i's x went to every process as ys[i]: its gradient is the sum over the
        # processes of their gradient for ys[i], which an all-to-all brings together.
        xp = _xp(grad_outputs)
        received = self.comm.alltoall(_grads_or_zeros(grad_outputs, self._output_specs, xp))
        gx = xp.asarray(received[0]).copy()
        for g in received[1:]:
            gx += xp.asarray(g)
        return (chainer.Variable(gx),)


class AllToAll(function_node.FunctionNode):
    def __init__(self, comm: Any) -> None:
        self.comm = comm

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        ys = self.comm.alltoall(tuple(inputs))
        self._output_specs = [(y.shape, y.dtype) for y in ys]
        return tuple(ys)

    def backward(self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = _xp(grad_outputs)
        gxs = self.comm.alltoall(_grads_or_zeros(grad_outputs, self._output_specs, xp))
        return tuple(chainer.Variable(xp.asarray(g)) for g in gxs)


def _check_root(comm: Any, root: Any, where: str) -> int:
    if not isinstance(root, (int, numpy.integer)) or isinstance(root, bool) or not 0 <= root < comm.size:
        raise ValueError(f"{where}: root must be a rank in [0, {comm.size}), got {root!r}")
    return int(root)


def _inputs_per_process(comm: Any, xs: Any, what: str) -> tuple[chainer.Variable, ...]:
    if not isinstance(xs, (tuple, list)):
        raise TypeError(f"{what} must be a tuple or list of {comm.size} variables, got {type(xs).__name__}")
    if len(xs) != comm.size:
        raise ValueError(f"{what} must hold {comm.size} variables (one per process), got {len(xs)}")
    return tuple(_consistency.as_input(x, f"{what}[{i}]") for i, x in enumerate(xs))


def bcast(comm: Any, x: Any, root: int = 0) -> chainer.Variable:
    """Differentiable broadcast communication between workers.

    ``root`` passes the variable to broadcast; the other processes' ``x`` is ignored
    (pass ``None``). In backward, the gradients of all processes are summed at ``root``.

    Args:
        comm: ChainerMN communicator.
        x: Variable to broadcast (at ``root``).
        root: Rank of the broadcasting process.

    Returns:
        The broadcast variable, on every process.

    Example:
        >>> w = chainermn.functions.bcast(comm, w if comm.rank == 0 else None)  # doctest: +SKIP
    """
    where = "chainermn.functions.bcast"
    root = _check_root(comm, root, where)
    error = None
    if comm.rank == root:
        try:
            x = _consistency.as_input(x, f"x (at the root, rank {root})")
        except TypeError as exc:
            error = exc
    else:
        x = chainer.Variable(_dummy())
    _consistency.raise_from_root(comm, root, error, where)
    (y,) = Bcast(comm, root).apply((x,))
    return y


def gather(comm: Any, x: Any, root: int = 0) -> Any:
    """Differentiable gather communication between workers.

    In backward, the gradients at ``root`` are scattered back to the processes.

    Args:
        comm: ChainerMN communicator.
        x: Variable to send to ``root``.
        root: Rank of the gathering process.

    Returns:
        At ``root``, the tuple of every process's variable (in rank order). Elsewhere a
        delegate variable without data, which keeps the backward path (Chainer 7.8.1
        documents ``None``; return it from the model, or pass it to
        :func:`~chainermn.functions.pseudo_connect`, so that backward reaches the gather).

    Example:
        >>> ys = chainermn.functions.gather(comm, h)  # doctest: +SKIP
    """
    where = "chainermn.functions.gather"
    root = _check_root(comm, root, where)
    error = None
    try:
        x = _consistency.as_input(x, "x")
    except TypeError as exc:
        error = exc
    _consistency.raise_from_any(comm, error, where)
    ys = Gather(comm, root).apply((x,))
    if comm.rank == root:
        return ys
    (delegate,) = ys
    delegate.grad = _dummy(delegate.xp)
    return delegate


def scatter(comm: Any, xs: Any, root: int = 0) -> chainer.Variable:
    """Differentiable scatter communication between workers.

    In backward, the gradients are gathered back to ``root``.

    Args:
        comm: ChainerMN communicator.
        xs: At ``root``, one variable per process; ``None`` elsewhere.
        root: Rank of the scattering process.

    Returns:
        This process's variable.

    Example:
        >>> y = chainermn.functions.scatter(comm, xs if comm.rank == 0 else None)  # doctest: +SKIP
    """
    where = "chainermn.functions.scatter"
    root = _check_root(comm, root, where)
    inputs = (chainer.Variable(_dummy()),)
    error = None
    if comm.rank == root:
        try:
            inputs = _inputs_per_process(comm, xs, f"xs (at the root, rank {root})")
        except (TypeError, ValueError) as exc:
            error = exc
    _consistency.raise_from_root(comm, root, error, where)
    (y,) = Scatter(comm, root).apply(inputs)
    return y


def allgather(comm: Any, x: Any) -> tuple[chainer.Variable, ...]:
    """Differentiable all-gather communication between workers.

    Every process receives every process's ``x`` (same shapes). In backward, each process
    gets the sum over the processes of the gradients of its own ``x``.

    Args:
        comm: ChainerMN communicator.
        x: Variable to send.

    Returns:
        The tuple of every process's variable, in rank order.

    Example:
        >>> h = F.average(F.stack(chainermn.functions.allgather(comm, h)), axis=0)  # doctest: +SKIP
    """
    error = None
    try:
        x = _consistency.as_input(x, "x")
    except TypeError as exc:
        error = exc
    _consistency.raise_from_any(comm, error, "chainermn.functions.allgather")
    return AllGather(comm).apply((x,))


def alltoall(comm: Any, xs: Any) -> tuple[chainer.Variable, ...]:
    """Differentiable all-to-all communication between workers.

    Process ``i`` sends ``xs[j]`` to process ``j`` and receives one variable from each.
    In backward, the gradients travel the reverse way.

    Args:
        comm: ChainerMN communicator.
        xs: One variable per process.

    Returns:
        The received variables, in rank order of their senders.

    Example:
        >>> ys = chainermn.functions.alltoall(comm, xs)  # doctest: +SKIP
    """
    inputs: tuple[chainer.Variable, ...] = ()
    error = None
    try:
        inputs = _inputs_per_process(comm, xs, "xs")
    except (TypeError, ValueError) as exc:
        error = exc
    _consistency.raise_from_any(comm, error, "chainermn.functions.alltoall")
    return AllToAll(comm).apply(inputs)


__all__ = ["allgather", "alltoall", "bcast", "gather", "scatter"]
