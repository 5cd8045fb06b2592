"""Linear-chain conditional random field loss layer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import initializers, link, variable
from chainer.functions.array import permutate, transpose_sequence
from chainer.functions.loss import crf1d as crf1d_function
from chainer.links.loss import _sequences


def _check_sequences(where: str, name: str, seqs: Any) -> None:
    if not isinstance(seqs, (list, tuple)) or len(seqs) == 0:
        raise TypeError(f"{where}: {name} must be a non-empty list of sequences, got {type(seqs).__name__}")


class CRF1d(link.Link):
    """Linear-chain conditional random field loss layer.

    ``CRF1d(n_label, initial_cost=None)``

    Holds the transition scores ``cost`` of shape ``(n_label, n_label)`` (``cost[i, j]``:
    label ``j`` following label ``i``) and applies :func:`chainer.functions.crf1d`; decoding
    is :meth:`argmax` (Viterbi, :func:`chainer.functions.argmax_crf1d`).

    Args:
        n_label: Number of labels.
        initial_cost: Initializer of ``cost`` (default zeros).

    Example:
        >>> crf = L.CRF1d(3)
        >>> xs = [np.random.randn(n, 3).astype('f') for n in (4, 2)]   # batch-major
        >>> ys = [np.zeros(n, 'i') for n in (4, 2)]
        >>> crf(xs, ys, transpose=True).shape
        ()
        >>> score, path = crf.argmax(xs, transpose=True)
        >>> [p.shape for p in path]
        [(4,), (2,)]
    """

    def __init__(self, n_label: int, initial_cost: Any = None) -> None:
        if not isinstance(n_label, int) or isinstance(n_label, bool) or n_label < 1:
            raise ValueError(f"CRF1d: n_label must be a positive int, got {n_label!r}")
        super().__init__()
        if initial_cost is None:
            initial_cost = initializers.Zero()
        with self.init_scope():
            self.cost = variable.Parameter(initializers._get_initializer(initial_cost), (n_label, n_label))

    def forward(self, xs: Sequence[Any], ys: Sequence[Any], reduce: str = "mean", transpose: bool = False) -> Any:
        """The negative log-likelihood of the label sequences ``ys``.

        Args:
            xs: Unary scores. Time-major by default: a list of ``L`` arrays of shape
                ``(B_t, n_label)`` with non-increasing ``B_t``. With ``transpose=True``,
                batch-major: a list of ``B`` arrays of shape ``(L_b, n_label)`` in any order.
            ys: Labels, laid out like ``xs`` (int arrays of shape ``(B_t,)`` or ``(L_b,)``).
            reduce: ``'mean'`` (average over the batch) or ``'no'`` (one loss per sequence).
            transpose: Whether ``xs`` and ``ys`` are batch-major.

        Returns:
            The loss: a scalar, or with ``reduce='no'`` an array of shape ``(B,)`` (in the
            order of the sequences given).
        """
        _check_sequences("CRF1d", "xs", xs)
        _check_sequences("CRF1d", "ys", ys)
        if not transpose:
            return crf1d_function.crf1d(self.cost, xs, ys, reduce)
        if len(xs) != len(ys):
            raise ValueError(f"CRF1d: xs and ys must hold as many sequences, got {len(xs)} and {len(ys)}")
        indices = _sequences.argsort_list_descent(xs)
        trans_x = transpose_sequence.transpose_sequence(_sequences.permutate_list(xs, indices, inv=False))
        trans_y = transpose_sequence.transpose_sequence(_sequences.permutate_list(ys, indices, inv=False))
        loss = crf1d_function.crf1d(self.cost, trans_x, trans_y, reduce)
        if reduce == "no":
            loss = permutate.permutate(loss, self.device.send(indices), inv=True)
        return loss

    def argmax(self, xs: Sequence[Any], transpose: bool = False) -> tuple[variable.Variable, list[Any]]:
        """The most probable label sequences (Viterbi decoding).

        Args:
            xs: Unary scores, time-major by default or batch-major with ``transpose=True``
                (see :meth:`forward`).
            transpose: Whether ``xs`` is batch-major.

        Returns:
            ``(score, path)``: the score of each best path, shape ``(B,)``, and the paths —
            time-major int arrays of shape ``(B_t,)``, or with ``transpose=True`` one array
            of shape ``(L_b,)`` per sequence. With ``transpose=True`` both follow the order
            of the sequences given.
        """
        _check_sequences("CRF1d.argmax", "xs", xs)
        if not transpose:
            return crf1d_function.argmax_crf1d(self.cost, xs)
        indices = _sequences.argsort_list_descent(xs)
        trans_x = transpose_sequence.transpose_sequence(_sequences.permutate_list(xs, indices, inv=False))
        score, trans_path = crf1d_function.argmax_crf1d(self.cost, trans_x)
        path = [p.array for p in transpose_sequence.transpose_sequence(trans_path)]
        path = _sequences.permutate_list(path, indices, inv=True)
        score = permutate.permutate(score, self.device.send(indices), inv=True)
        return score, path


__all__ = ["CRF1d"]
