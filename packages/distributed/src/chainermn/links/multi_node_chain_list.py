"""MultiNodeChainList: a model made of parts that exchange their inputs and outputs
with other processes."""

from __future__ import annotations

from typing import Any

import chainer
from chainermn import functions


def _ranks(value: Any, arg: str, comm: Any) -> list[int] | None:
    if value is None:
        return None
    ranks = [value] if isinstance(value, int) else list(value)
    for r in ranks:
        if not isinstance(r, int) or isinstance(r, bool) or not 0 <= r < comm.size:
            raise ValueError(
                f"MultiNodeChainList.add_link: {arg} must be None, a rank or a list of ranks in [0, {comm.size}), "
                f"got {value!r}"
            )
    if not ranks:
        raise ValueError(f"MultiNodeChainList.add_link: {arg} must not be empty")
    return ranks


class MultiNodeChainList(chainer.ChainList):
    """Combining multiple non-connected components of computational graph.

    Each link added with :meth:`add_link` is one component: it takes the model's inputs
    (``rank_in=None``) or what the processes ``rank_in`` send, and its output is the
    model's output (``rank_out=None``) or is sent to the processes ``rank_out``. The
    components run in the order they were added; delegate variables chain them so that
    backprop visits them in reverse order and every send/recv pair exchanges gradients.
    The call returns the model output, tied to the last delegate variable with
    :func:`~chainermn.functions.pseudo_connect` (or the delegate variable itself when
    no component produces an output), so ``backward()`` on it runs everything.

    Args:
        comm: ChainerMN communicator.
    """

    def __init__(self, comm: Any) -> None:
        super().__init__()
        self._comm = comm
        self._rank_inouts: list[tuple[list[int] | None, list[int] | None]] = []

    def add_link(self, link: Any, rank_in: Any = None, rank_out: Any = None) -> None:  # type: ignore[override]
        """Register one connected component with the ranks it receives from and sends to.

        Args:
            link: The component.
            rank_in: ``None`` (the model's inputs), a rank or a list of ranks (the
                component gets one argument per rank: what it sent, a variable or a
                tuple). This process's own rank is allowed.
            rank_out: ``None`` (the model's output), a rank or a list of ranks.
        """
        ins, outs = _ranks(rank_in, "rank_in", self._comm), _ranks(rank_out, "rank_out", self._comm)
        if outs is None and any(o is None for _, o in self._rank_inouts):
            raise ValueError(
                "MultiNodeChainList.add_link: only one component can produce the model output (rank_out=None)"
            )
        super().add_link(link)
        self._rank_inouts.append((ins, outs))

    def forward(self, *inputs: Any) -> Any:
        if not self._rank_inouts:
            raise RuntimeError("MultiNodeChainList: no component was added (use add_link)")
        y = None
        delegate = None
        for link, (rank_in, rank_out) in zip(self._children, self._rank_inouts):
            if rank_in is None:
                xs: tuple[Any, ...] = inputs
                if delegate is not None and xs:
                    # Keep the backward path to the previous component.
                    xs = functions.pseudo_connect(delegate, *xs)
                    delegate = None
            else:
                # One argument per source rank: what a rank sent as a tuple stays a tuple.
                # Every receive hangs on the same delegate, so that backprop sends all
                # their gradients before the earlier components wait for theirs (a
                # receive without delegate would come last, after those waits: deadlock).
                xs = tuple(functions.recv(self._comm, r, delegate_variable=delegate) for r in rank_in)
                delegate = None
            out = link(*xs)
            if rank_out is None:
                y = out
            else:
                for r in rank_out:
                    phi = functions.send(out, self._comm, r)
                    delegate = phi if delegate is None else functions.pseudo_connect(delegate, phi)[0]
        if y is None:
            return delegate
        if delegate is None:
            return y
        if isinstance(y, tuple):
            return functions.pseudo_connect(delegate, *y)
        (y,) = functions.pseudo_connect(delegate, y)
        return y


__all__ = ["MultiNodeChainList"]
