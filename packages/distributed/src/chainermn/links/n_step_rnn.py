"""A stacked RNN whose initial state comes from one process and whose final state goes
to another (encoder on one process, decoder on the next)."""

from __future__ import annotations

from typing import Any

import chainer
from chainermn import functions


class _MultiNodeNStepRNN(chainer.Chain):
    def __init__(self, link: Any, communicator: Any, rank_in: int | None, rank_out: int | None) -> None:
        super().__init__()
        with self.init_scope():
            self.actual_rnn = link
        self.communicator = communicator
        self.rank_in = rank_in
        self.rank_out = rank_out
        self.n_cells = int(link.n_cells)

    def forward(self, *inputs: Any) -> tuple[Any, ...]:
        cells: tuple[Any, ...] = (None,) * self.n_cells
        if self.rank_in is not None:
            cells = functions.recv(self.communicator, rank=self.rank_in, force_tuple=True)
        outputs = self.actual_rnn(*cells, *inputs)
        delegate = None
        if self.rank_out is not None:
            delegate = functions.send(tuple(outputs[: self.n_cells]), self.communicator, rank=self.rank_out)
        return (*outputs, delegate)


def create_multi_node_n_step_rnn(
    actual_link: Any, communicator: Any, rank_in: int | None = None, rank_out: int | None = None
) -> Any:
    """Create a multi node stacked RNN link from a Chainer stacked RNN link.

    Calling the returned link with the input sequences receives the initial hidden (and
    cell) states from ``rank_in`` (or starts from zeros when ``None``), runs
    ``actual_link`` and sends its final states to ``rank_out``. It returns the outputs of
    ``actual_link`` followed by the delegate variable of the send (``None`` when
    ``rank_out`` is ``None``): ``hy, cy, ys, delegate = rnn(xs)`` for an LSTM.

    Args:
        actual_link: A stacked RNN link (``chainer.links.NStepLSTM``, ``NStepGRU``...).
        communicator: ChainerMN communicator.
        rank_in: Rank to receive the initial states from.
        rank_out: Rank to send the final states to.

    Returns:
        The multi-node RNN link.

    Example:
        >>> encoder = create_multi_node_n_step_rnn(L.NStepLSTM(1, 4, 4, 0.0), comm, rank_out=1)  # doctest: +SKIP
    """
    if not hasattr(actual_link, "n_cells"):
        raise TypeError(
            "create_multi_node_n_step_rnn: actual_link must be a stacked RNN link (NStepLSTM, NStepGRU, ...), "
            f"got {type(actual_link).__name__}"
        )
    for arg, value in (("rank_in", rank_in), ("rank_out", rank_out)):
        if value is not None and (not isinstance(value, int) or not 0 <= value < communicator.size):
            raise ValueError(
                f"create_multi_node_n_step_rnn: {arg} must be None or a rank in [0, {communicator.size}), got {value!r}"
            )
    return _MultiNodeNStepRNN(actual_link, communicator, rank_in, rank_out)


__all__ = ["create_multi_node_n_step_rnn"]
