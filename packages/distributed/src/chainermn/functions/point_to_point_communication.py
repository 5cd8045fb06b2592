"""Differentiable point-to-point communication: ``send`` and ``recv``."""

from __future__ import annotations

from typing import Any

import numpy

import chainer
from chainer import backend, function_node
from chainermn.functions import _consistency


def _delegate_array(xp: Any) -> Any:
    # A variable "without data": it only carries the graph between disconnected parts.
    return xp.empty((0,), dtype=numpy.float32)


def _zeros_for(shape: tuple[int, ...], dtype: Any, xp: Any) -> Any:
    return xp.zeros(shape, dtype=dtype)


class Send(function_node.FunctionNode):
    """Sends its inputs in forward; in backward, receives their gradients from the peer."""

    def __init__(self, comm: Any, peer_rank: int, peer_tag: int) -> None:
        self.comm = comm
        self.peer_rank = peer_rank
        self.peer_tag = peer_tag

    @property
    def label(self) -> str:
        return f"Send(to rank {self.peer_rank})"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = backend.get_array_module(*inputs)
        self._specs = [(x.shape, x.dtype) for x in inputs]
        self.comm.send(tuple(inputs), self.peer_rank, self.peer_tag)
        return (_delegate_array(xp),)

    def backward(self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gxs = self.comm.recv(self.peer_rank, self.peer_tag)
        if not isinstance(gxs, tuple) or len(gxs) != len(self._specs):
            raise RuntimeError(
                f"chainermn.functions.send: rank {self.peer_rank} sent back {len(gxs)} gradients for "
                f"{len(self._specs)} sent arrays; the send/recv pairs of the two processes do not match"
            )
        return tuple(chainer.Variable(g) for g in gxs)


class Recv(function_node.FunctionNode):
    """Receives arrays in forward; in backward, sends their gradients back to the peer."""

    def __init__(self, comm: Any, peer_rank: int, peer_tag: int) -> None:
        self.comm = comm
        self.peer_rank = peer_rank
        self.peer_tag = peer_tag

    @property
    def label(self) -> str:
        return f"Recv(from rank {self.peer_rank})"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (delegate,) = inputs
        self._delegate_spec = (delegate.shape, delegate.dtype)
        data = self.comm.recv(self.peer_rank, self.peer_tag)
        if not isinstance(data, tuple):
            data = (data,)
        self._specs = [(y.shape, y.dtype) for y in data]
        return data

    def backward(self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = backend.get_array_module(*[g for g in grad_outputs if g is not None])
        gys = tuple(
            _zeros_for(shape, dtype, xp) if g is None else g.array
            for g, (shape, dtype) in zip(grad_outputs, self._specs)
        )
        self.comm.send(gys, self.peer_rank, self.peer_tag)
        shape, dtype = self._delegate_spec
        return (chainer.Variable(_zeros_for(shape, dtype, xp)),)


def send(x: Any, communicator: Any, rank: int, tag: int = 0) -> chainer.Variable:
    """Send elements to target process.

    The returned *delegate variable* holds no data, only the graph: calling
    ``backward()`` on it (or on a variable computed from it through
    :func:`chainermn.functions.pseudo_connect` or :func:`recv`) receives the gradients
    from ``rank`` and continues backprop into ``x``.

    Args:
        x: A variable (or array), or a tuple of them, to send.
        communicator: ChainerMN communicator.
        rank: Destination process (this process itself is allowed: it receives
            with :func:`recv` later).
        tag: Message tag (MPI feature).

    Returns:
        The delegate variable.

    Example:
        >>> phi = chainermn.functions.send(h, comm, rank=1)  # doctest: +SKIP
    """
    where = "chainermn.functions.send"
    xs = tuple(x) if isinstance(x, (tuple, list)) else (x,)
    if not xs:
        raise ValueError(f"{where}: nothing to send (x is empty)")
    variables = [_consistency.requiring_grad(chainer.as_variable(v)) for v in xs]
    (delegate,) = Send(communicator, rank, tag).apply(variables)
    delegate.name = "delegate_variable"
    delegate.grad = _delegate_array(delegate.xp)  # so that delegate.backward() works
    return delegate


def recv(communicator: Any, rank: int, delegate_variable: Any = None, tag: int = 0, force_tuple: bool = False) -> Any:
    """Receive elements from target process.

    In backward, the gradients of the received variables are sent back to ``rank``.
    Pass the delegate variable of the previous disconnected part of this process's graph
    (e.g. the result of a :func:`send`) as ``delegate_variable``, so that backprop reaches
    it too.

    Args:
        communicator: ChainerMN communicator.
        rank: Source process (this process itself is allowed, after its :func:`send`).
        delegate_variable: Variable connecting the previous part of the graph.
        tag: Message tag (MPI feature).
        force_tuple: Return a tuple even when one array was received.

    Returns:
        The received variable, or a tuple of them.

    Example:
        >>> y = chainermn.functions.recv(comm, rank=1, delegate_variable=phi)  # doctest: +SKIP
    """
    where = "chainermn.functions.recv"
    if delegate_variable is None:
        delegate_variable = chainer.Variable(_delegate_array(numpy))
    elif not isinstance(delegate_variable, chainer.Variable):
        raise TypeError(
            f"{where}: delegate_variable must be a chainer.Variable or None, got {type(delegate_variable).__name__}"
        )
    ys = Recv(communicator, rank, tag).apply((_consistency.requiring_grad(delegate_variable),))
    if len(ys) == 1 and not force_tuple:
        return ys[0]
    return ys


__all__ = ["recv", "send"]
