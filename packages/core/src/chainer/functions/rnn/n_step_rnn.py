"""Stacked uni- and bidirectional Elman RNNs over variable-length sequences."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from chainer import function_node, variable
from chainer.functions.rnn import _n_step
from chainer.utils import argument


def _spec(activation: Any, where: str) -> _n_step.CellSpec:
    from chainer.functions.activation import relu, tanh
    from chainer.functions.connection import linear

    functions = {"tanh": tanh.tanh, "relu": relu.relu}
    if activation not in functions:
        raise ValueError(f'{where}: invalid activation "{activation}"; choose "tanh" or "relu"')
    act = functions[activation]

    def build(w: Sequence[Any], b: Sequence[Any]) -> tuple[Any, Any, _n_step.Step]:
        w_h = w[1]

        def step(projected: Any, h: Any, c: Any) -> tuple[Any, Any]:
            return act(projected + linear.linear(h, w_h)), None

        return w[0], b[0] + b[1], step

    return _n_step.CellSpec(f"rnn_{activation}", n_weights=2, n_input_weights=1, has_cell=False, build=build)


def n_step_rnn(
    n_layers: int, dropout_ratio: float, hx: Any, ws: Any, bs: Any, xs: Any, activation: str = "tanh", **kwargs: Any
) -> Any:
    """Stacked unidirectional Elman RNN over a batch of variable-length sequences.

    ``n_step_rnn(n_layers, dropout_ratio, hx, ws, bs, xs, activation='tanh')``

    Each layer ``l`` computes :math:`h_t = f(W_0 x_t + W_1 h_{t-1} + b_0 + b_1)` with
    ``W_j = ws[l][j]``, ``b_j = bs[l][j]`` and ``f`` the activation. Dropout (training
    mode only) is applied to the inputs of the layers above the first.

    Args:
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio of the inputs of layers ``1 .. S - 1``.
        hx: Initial hidden states, shape ``(S, B, N)``.
        ws: ``S`` lists of 2 weight matrices: ``ws[l][0]`` of shape ``(N, I)`` (``(N, N)``
            above layer 0) and ``ws[l][1]`` of shape ``(N, N)``.
        bs: ``S`` lists of 2 bias vectors of shape ``(N,)``.
        xs: Time-major inputs, ``xs[t]`` of shape ``(B_t, I)`` with ``B_0 >= B_1 >= ...``
            (see :func:`n_step_lstm`; :func:`~chainer.functions.transpose_sequence` makes
            them from sequences sorted by decreasing length).
        activation: ``'tanh'`` or ``'relu'``.

    Returns:
        ``(hy, ys)``: final hidden states, shape ``(S, B, N)``, and the last layer's
        outputs, time-major: ``ys[t]`` of shape ``(B_t, N)``.

    Example:
        >>> seqs = [np.array([[1., 2.], [3., 4.]], 'f'), np.array([[5., 6.]], 'f')]
        >>> xs = F.transpose_sequence(seqs)  # xs[0]: first step of both, xs[1]: second of the first
        >>> ws = [[np.eye(2, dtype='f'), np.zeros((2, 2), 'f')]]
        >>> bs = [[np.zeros(2, 'f'), np.zeros(2, 'f')]]
        >>> hy, ys = F.n_step_rnn(1, 0.0, np.zeros((1, 2, 2), 'f'), ws, bs, xs, activation='relu')
        >>> [y.array for y in ys]
        [array([[1., 2.],
               [5., 6.]], dtype=float32), array([[3., 4.]], dtype=float32)]
    """
    _n_step.check_kwargs(kwargs)
    argument.assert_kwargs_empty(kwargs)
    return n_step_rnn_base(n_layers, dropout_ratio, hx, ws, bs, xs, activation, False)


def n_step_birnn(
    n_layers: int, dropout_ratio: float, hx: Any, ws: Any, bs: Any, xs: Any, activation: str = "tanh", **kwargs: Any
) -> Any:
    """Stacked bidirectional Elman RNN over a batch of variable-length sequences.

    ``n_step_birnn(n_layers, dropout_ratio, hx, ws, bs, xs, activation='tanh')``

    The recurrence of :func:`n_step_rnn` in both directions; parameters and states of
    layer ``l`` are at index ``2 l`` (forward) and ``2 l + 1`` (backward in time), and a
    layer's output concatenates both directions (so ``ws[k][0]`` above the first layer
    has shape ``(N, 2N)``).

    Args:
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio of the inputs of layers ``1 .. S - 1``.
        hx: Initial hidden states, shape ``(2S, B, N)``.
        ws: ``2S`` lists of 2 weight matrices.
        bs: ``2S`` lists of 2 bias vectors of shape ``(N,)``.
        xs: Time-major inputs, ``xs[t]`` of shape ``(B_t, I)`` with ``B_0 >= B_1 >= ...``.
        activation: ``'tanh'`` or ``'relu'``.

    Returns:
        ``(hy, ys)``: final states of shape ``(2S, B, N)`` and time-major outputs,
        ``ys[t]`` of shape ``(B_t, 2N)`` (forward direction first).

    Example:
        >>> xs = F.transpose_sequence([np.ones((3, 2), 'f')])
        >>> ws = [[np.eye(2, dtype='f'), np.zeros((2, 2), 'f')] for _ in range(2)]
        >>> bs = [[np.zeros(2, 'f'), np.zeros(2, 'f')] for _ in range(2)]
        >>> hy, ys = F.n_step_birnn(1, 0.0, np.zeros((2, 1, 2), 'f'), ws, bs, xs, activation='relu')
        >>> hy.shape, [y.shape for y in ys]
        ((2, 1, 2), [(1, 4), (1, 4), (1, 4)])
    """
    _n_step.check_kwargs(kwargs)
    argument.assert_kwargs_empty(kwargs)
    return n_step_rnn_base(n_layers, dropout_ratio, hx, ws, bs, xs, activation, True)


def n_step_rnn_base(
    n_layers: int,
    dropout_ratio: float,
    hx: Any,
    ws: Any,
    bs: Any,
    xs: Any,
    activation: str,
    use_bi_direction: bool,
    **kwargs: Any,
) -> Any:
    """:func:`n_step_rnn` (``use_bi_direction=False``) or :func:`n_step_birnn` (``True``).

    Returns:
        ``(hy, ys)``, as those functions do.
    """
    where = "n_step_birnn" if use_bi_direction else "n_step_rnn"
    _n_step.check_kwargs(kwargs)
    argument.assert_kwargs_empty(kwargs)
    spec = _spec(activation, where)
    hy, _, ys = _n_step.n_step_rnn_base(where, spec, n_layers, dropout_ratio, hx, None, ws, bs, xs, use_bi_direction)
    return hy, ys


def n_step_rnn_impl(
    f: Callable[..., tuple[Any, Any]],
    n_layers: int,
    dropout_ratio: float,
    hx: Any,
    cx: Any,
    ws: Any,
    bs: Any,
    xs: Any,
    use_bi_direction: bool,
) -> tuple[Any, Any, list[Any]]:
    """A stacked (bidirectional) RNN whose cell is the function ``f``.

    ``f(x, h, c, w, b) -> (h, c)`` computes one time step of one layer and direction
    for the ``B_t`` running sequences: ``x`` their input (``(B_t, I)``), ``h`` and
    ``c`` their states (``c`` is ``None`` when ``cx`` is), ``w`` and ``b`` the lists
    ``ws[k]`` and ``bs[k]`` of that layer and direction. The layers, the directions, the
    time-major variable-length batch and the dropout between layers are as in
    :func:`n_step_lstm`, whose cell is :func:`chainer.functions.rnn.n_step_lstm._lstm`.

    Args:
        f: The cell function.
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio of the inputs of layers ``1 .. S - 1``.
        hx: Initial hidden states, ``(S, B, N)`` (``(2S, B, N)`` bidirectional).
        cx: Initial cell states of the shape of ``hx``, or ``None`` for a cell without one.
        ws: ``S`` (or ``2S``) lists of weights, passed to ``f`` as they are.
        bs: ``S`` (or ``2S``) lists of biases, passed to ``f`` as they are.
        xs: Time-major inputs, ``xs[t]`` of shape ``(B_t, I)`` with ``B_0 >= B_1 >= ...``.
        use_bi_direction: Run a backward-in-time cell too (index ``2 l + 1``) and
            concatenate both directions' outputs.

    Returns:
        ``(hy, cy, ys)``: the final states (``cy`` is ``None`` when ``cx`` is) and the
        list of the last layer's time-major outputs.
    """
    n_weights = len(ws[0]) if isinstance(ws, (list, tuple)) and ws and isinstance(ws[0], (list, tuple)) else 0
    spec = _n_step.cell_function_spec(f, n_weights, has_cell=cx is not None)
    return _n_step.n_step_rnn_base(
        "n_step_rnn_impl", spec, n_layers, dropout_ratio, hx, cx, ws, bs, xs, use_bi_direction
    )


class BaseNStepRNN(function_node.FunctionNode):
    """Chainer's cuDNN RNN kernel (the base of ``NStepLSTM``, ``NStepGRU``, ...).

    Not implemented: CuPy 14 has no cuDNN, so there is nothing to run it with. The
    functions :func:`~chainer.functions.n_step_lstm`, :func:`~chainer.functions.n_step_gru`,
    :func:`~chainer.functions.n_step_rnn` and their bidirectional forms compute the same
    on every device.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(cudnn_rnn_message(type(self).__name__))


def cudnn_rnn_message(name: str) -> str:
    return (
        f"chainer.functions.rnn: {name} is Chainer's cuDNN RNN kernel, which is not implemented: CuPy 14 has no "
        "cuDNN. Use chainer.functions.n_step_lstm, n_step_gru or n_step_rnn (or their bidirectional forms), which "
        "compute the same on every device"
    )


class NStepRNNTanh(BaseNStepRNN):
    """cuDNN kernel of :func:`n_step_rnn` with ``tanh``; not implemented (see :class:`BaseNStepRNN`)."""


class NStepRNNReLU(BaseNStepRNN):
    """cuDNN kernel of :func:`n_step_rnn` with ``relu``; not implemented (see :class:`BaseNStepRNN`)."""


class NStepBiRNNTanh(BaseNStepRNN):
    """cuDNN kernel of :func:`n_step_birnn` with ``tanh``; not implemented (see :class:`BaseNStepRNN`)."""


class NStepBiRNNReLU(BaseNStepRNN):
    """cuDNN kernel of :func:`n_step_birnn` with ``relu``; not implemented (see :class:`BaseNStepRNN`)."""


class CudnnRNNWeightConcat(function_node.FunctionNode):
    """Packs RNN weights into cuDNN's parameter layout; not implemented, as CuPy 14 has
    no cuDNN to take that layout (see :class:`BaseNStepRNN`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(cudnn_rnn_message("CudnnRNNWeightConcat"))


def cudnn_rnn_weight_concat(
    n_layers: int, states: Any, use_bi_direction: bool, rnn_mode: str, ws: Any, bs: Any
) -> variable.Variable:
    """Packs RNN weights into cuDNN's parameter layout; not implemented (see
    :class:`CudnnRNNWeightConcat`).

    Raises:
        NotImplementedError: Always.
    """
    raise NotImplementedError(cudnn_rnn_message("cudnn_rnn_weight_concat"))


__all__ = ["n_step_birnn", "n_step_rnn"]
