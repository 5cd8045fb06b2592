"""Stacked (bi)directional RNNs over variable-length sequences: the common base of the
``NStep*`` links and the Elman RNN links :class:`NStepRNNTanh`, :class:`NStepRNNReLU`,
:class:`NStepBiRNNTanh` and :class:`NStepBiRNNReLU`.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer import link, variable
from chainer.functions.array import permutate, transpose_sequence
from chainer.functions.rnn import n_step_rnn as n_step_rnn_function
from chainer.links.rnn import _state
from chainer.utils import argument


class NStepRNNBase(link.ChainList):
    """Base of the stacked RNN links over variable-length sequences.

    The parameters of layer ``l`` and direction ``d`` live in the child link number
    ``k = l * D + d`` (``D`` is 2 for bidirectional links, else 1) as ``w0, w1, ...`` and
    ``b0, b1, ...`` — saved under the keys ``'k/w0'``, ``'k/b0'``, ... as in Chainer. The
    first half of the ``w*`` act on the layer input (shape ``(out_size, in_size)`` for
    layer 0, ``(out_size, D * out_size)`` above) and the second half on the previous
    hidden state (``(out_size, out_size)``); every ``b*`` has shape ``(out_size,)``.

    Subclasses set ``n_weights``, ``use_bi_direction`` and :meth:`rnn`.

    Args:
        n_layers: Number of layers.
        in_size: Input size of the first layer.
        out_size: Size of the hidden states (and of each direction's output).
        dropout: Dropout ratio of the inputs of the layers above the first.
        initialW: Initializer of every weight matrix (default LeCunNormal).
        initial_bias: Initializer of every bias (default 0).
    """

    n_weights = 2
    use_bi_direction = False

    def __init__(
        self,
        n_layers: int,
        in_size: int,
        out_size: int,
        dropout: float,
        *,
        initialW: Any = None,
        initial_bias: Any = None,
        **kwargs: Any,
    ) -> None:
        where = type(self).__name__
        if kwargs:
            argument.check_unexpected_kwargs(
                kwargs,
                use_cudnn="use_cudnn argument is not supported anymore. Use chainer.using_config",
                use_bi_direction="use_bi_direction is not supported anymore: choose the NStepBi* link instead",
                activation="activation is not supported anymore: choose the NStep*RNNTanh or NStep*RNNReLU link",
            )
            argument.assert_kwargs_empty(kwargs)
        n_layers = _state.check_size(n_layers, "n_layers", where)
        in_size = _state.check_size(in_size, "in_size", where)
        out_size = _state.check_size(out_size, "out_size", where)
        dropout = _state.check_ratio(dropout, "dropout", where)
        w_init = _state.check_initializer(initialW, "initialW", where)
        b_init = _state.check_initializer(0 if initial_bias is None else initial_bias, "initial_bias", where)
        direction = 2 if self.use_bi_direction else 1
        n_input_weights = self.n_weights // 2
        cells = []
        for layer in range(n_layers):
            layer_in = in_size if layer == 0 else out_size * direction
            for _ in range(direction):
                cell = link.Link()
                with cell.init_scope():
                    for j in range(self.n_weights):
                        fan_in = layer_in if j < n_input_weights else out_size
                        setattr(cell, f"w{j}", variable.Parameter(w_init, (out_size, fan_in)))
                        setattr(cell, f"b{j}", variable.Parameter(b_init, (out_size,)))
                cells.append(cell)
        super().__init__(*cells)
        self.n_layers = n_layers
        self.dropout = dropout
        self.out_size = out_size
        self.direction = direction

    @property
    def ws(self) -> list[list[variable.Parameter]]:
        """The weight matrices, ``ws[k][j]`` being ``w{j}`` of child ``k``."""
        return [[getattr(cell, f"w{j}") for j in range(self.n_weights)] for cell in self]

    @property
    def bs(self) -> list[list[variable.Parameter]]:
        """The biases, ``bs[k][j]`` being ``b{j}`` of child ``k``."""
        return [[getattr(cell, f"b{j}") for j in range(self.n_weights)] for cell in self]

    @property
    def n_cells(self) -> int:
        """The number of state arrays: 2 (``hx`` and ``cx``) for LSTMs, 1 (``hx``) otherwise."""
        raise NotImplementedError(f"{type(self).__name__} does not define n_cells")

    def rnn(self, *args: Any) -> Any:
        """The function these links apply (e.g. :func:`chainer.functions.n_step_lstm`)."""
        raise NotImplementedError(f"{type(self).__name__} does not define rnn")

    def init_hx(self, xs: Any) -> variable.Variable:
        """A zero initial state of shape ``(n_layers * D, len(xs), out_size)``."""
        shape = (self.n_layers * self.direction, len(xs), self.out_size)
        return variable.Variable(_state.zeros(self.device, shape, xs[0].dtype), requires_grad=False)

    def _call(self, hs: list[Any], xs: Any, kwargs: dict[str, Any]) -> tuple[list[Any], list[Any]]:
        where = type(self).__name__
        if kwargs:
            argument.check_unexpected_kwargs(
                kwargs, train="train argument is not supported anymore. Use chainer.using_config"
            )
            argument.assert_kwargs_empty(kwargs)
        if not isinstance(xs, (list, tuple)) or len(xs) == 0:
            raise TypeError(f"{where}: xs must be a non-empty list of sequences, got {type(xs).__name__}")
        for i, x in enumerate(xs):
            if not hasattr(x, "shape") or len(x.shape) != 2:
                raise ValueError(
                    f"{where}: xs[{i}] must be a 2-D array or variable (length, {self[0].w0.shape[1]}), "
                    f"got {getattr(x, 'shape', type(x).__name__)}"
                )
        lengths = [x.shape[0] for x in xs]
        # The functions take time-major steps, built from the sequences sorted longest
        # first; the caller's order is restored on the way out.
        order = numpy.argsort([-n for n in lengths], kind="stable")
        is_sorted = bool((order == numpy.arange(len(xs))).all())
        if not is_sorted:
            xs = [xs[i] for i in order]
            indices = self.device.send(order.astype(numpy.int32))
        states = []
        for h in hs:
            if h is None:
                h = self.init_hx(xs)
            elif not is_sorted:
                h = permutate.permutate(h, indices, axis=1)
            states.append(h)
        n_running = sum(1 for n in lengths if n > 0)
        if n_running == 0:
            # No time step at all: every state is final as given.
            final_states = [variable.as_variable(h) for h in states]
            ys: list[Any] = []
        else:
            steps = transpose_sequence.transpose_sequence(xs)
            result = self.rnn(self.n_layers, self.dropout, *states, self.ws, self.bs, list(steps))
            final_states = list(result[:-1])
            ys = list(transpose_sequence.transpose_sequence(result[-1]))
        if n_running < len(xs):
            # Sequences of length zero come last in the sorted order and have empty outputs.
            dtype = xs[0].dtype
            empty = (0, self.direction * self.out_size)
            ys += [variable.Variable(_state.zeros(self.device, empty, dtype)) for _ in range(len(xs) - n_running)]
        if not is_sorted:
            final_states = [permutate.permutate(h, indices, axis=1, inv=True) for h in final_states]
            unsorted: list[Any] = [None] * len(ys)
            for position, i in enumerate(order):
                unsorted[i] = ys[position]
            ys = unsorted
        return final_states, ys


class _NStepRNNFamily(NStepRNNBase):
    """The Elman RNN links: ``forward(hx, xs) -> (hy, ys)``."""

    activation = "tanh"

    @property
    def n_cells(self) -> int:
        return 1

    def rnn(self, *args: Any) -> Any:
        if self.use_bi_direction:
            return n_step_rnn_function.n_step_birnn(*args, activation=self.activation)
        return n_step_rnn_function.n_step_rnn(*args, activation=self.activation)

    def forward(self, hx: Any, xs: Any, **kwargs: Any) -> tuple[variable.Variable, list[variable.Variable]]:
        """Run over the sequences ``xs``.

        Args:
            hx: Initial hidden states of shape ``(n_layers * D, len(xs), out_size)``, or
                ``None`` for zeros.
            xs: List of input sequences, ``xs[b]`` of shape ``(L_b, in_size)``, in any order.

        Returns:
            ``(hy, ys)``: the final hidden states (shape of ``hx``) and the outputs of
            the last layer, ``ys[b]`` of shape ``(L_b, D * out_size)``, in the order of ``xs``.
        """
        (hy,), ys = self._call([hx], xs, kwargs)
        return hy, ys


class NStepRNNTanh(_NStepRNNFamily):
    """Stacked unidirectional Elman RNN with ``tanh``, over variable-length sequences.

    ``NStepRNNTanh(n_layers, in_size, out_size, dropout, *, initialW=None, initial_bias=None)``

    Applies :func:`chainer.functions.n_step_rnn` with ``activation='tanh'``; parameters as
    described in :class:`NStepRNNBase` (``w0``: input, ``w1``: recurrent).

    Example:
        >>> rnn = L.NStepRNNTanh(2, 3, 4, 0.0)
        >>> hy, ys = rnn(None, [np.ones((5, 3), 'f'), np.ones((2, 3), 'f')])
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 4), [(5, 4), (2, 4)])
    """

    activation = "tanh"


class NStepRNNReLU(_NStepRNNFamily):
    """Stacked unidirectional Elman RNN with ReLU, over variable-length sequences.

    ``NStepRNNReLU(n_layers, in_size, out_size, dropout, *, initialW=None, initial_bias=None)``

    As :class:`NStepRNNTanh` with ``activation='relu'``.
    """

    activation = "relu"


class NStepBiRNNTanh(_NStepRNNFamily):
    """Stacked bidirectional Elman RNN with ``tanh``, over variable-length sequences.

    ``NStepBiRNNTanh(n_layers, in_size, out_size, dropout, *, initialW=None, initial_bias=None)``

    Applies :func:`chainer.functions.n_step_birnn`; children ``2 l`` and ``2 l + 1`` hold
    the forward and backward direction of layer ``l``, and outputs have ``2 * out_size`` units.
    """

    activation = "tanh"
    use_bi_direction = True


class NStepBiRNNReLU(_NStepRNNFamily):
    """Stacked bidirectional Elman RNN with ReLU, over variable-length sequences.

    ``NStepBiRNNReLU(n_layers, in_size, out_size, dropout, *, initialW=None, initial_bias=None)``

    As :class:`NStepBiRNNTanh` with ``activation='relu'``.
    """

    activation = "relu"
    use_bi_direction = True


def argsort_list_descent(lst: Any) -> numpy.ndarray:
    """The indices that sort the sequences ``lst`` by length, longest first (a stable
    order among equal lengths), as an int32 array."""
    return numpy.argsort([-len(x) for x in lst], kind="stable").astype(numpy.int32)


def permutate_list(lst: Any, indices: Any, inv: bool) -> list[Any]:
    """``lst`` reordered: ``[lst[i] for i in indices]``, or with ``inv`` the inverse
    permutation (``result[indices[k]] = lst[k]``)."""
    if len(indices) != len(lst):
        raise ValueError(f"permutate_list: {len(indices)} indices for a list of {len(lst)} elements")
    if not inv:
        return [lst[i] for i in indices]
    result: list[Any] = [None] * len(lst)
    for k, i in enumerate(indices):
        result[i] = lst[k]
    return result


__all__ = ["NStepBiRNNReLU", "NStepBiRNNTanh", "NStepRNNReLU", "NStepRNNTanh"]
