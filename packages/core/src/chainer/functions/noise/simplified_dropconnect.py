"""Linear layer regularized by simplified DropConnect."""

from __future__ import annotations

import numbers
from typing import Any

import numpy

from chainer import backend, function_node, utils, variable
from chainer.functions.noise import dropout as dropout_module
from chainer.utils import type_check


class SimplifiedDropconnect(function_node.FunctionNode):
    """``y[b] = (W * mask[b] * scale) x[b] + bias``.

    ``mask`` has shape ``(B, M, N)`` (one weight mask per example) or ``(M, N)`` (one
    mask for the batch). ``W`` may have another float dtype than ``x`` (as in Chainer);
    the product is computed in the wider of the two and the output has the dtype of ``x``.
    """

    def __init__(self, scale: float, mask: Any) -> None:
        self._scale = scale
        self.mask = mask

    @property
    def label(self) -> str:
        return "SimplifiedDropconnect"

    def check_type_forward(self, in_types: Any) -> None:
        n_in = type_check.eval(in_types.size())
        if n_in not in (2, 3):
            raise type_check.InvalidType("in_types.size() == 2 or 3 (x, W[, b])", f"in_types.size() == {n_in}")
        type_check._argname(in_types, ("x", "W", "b")[:n_in])
        x_type, w_type = in_types[0], in_types[1]
        type_check.expect(
            x_type.dtype.kind == "f",
            w_type.dtype.kind == "f",
            x_type.ndim == 2,
            w_type.ndim == 2,
            x_type.shape[1] == w_type.shape[1],
        )
        if n_in == 3:
            b_type = in_types[2]
            type_check.expect(b_type.dtype == x_type.dtype, b_type.ndim == 1, b_type.shape[0] == w_type.shape[0])

    def _factor(self, dtype: Any) -> Any:
        return self.mask.astype(dtype) * dtype.type(self._scale)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs[0], inputs[1]
        xp = backend.get_array_module(x)
        dtype = numpy.promote_types(x.dtype, W.dtype)
        masked = W.astype(dtype, copy=False) * self._factor(dtype)
        x = x.astype(dtype, copy=False)
        if masked.ndim == 3:
            # (batch, out, in) @ (batch, in, 1): one masked matrix-vector product per example.
            y = xp.matmul(masked, x[:, :, None])[:, :, 0]
        else:
            y = x.dot(masked.T)
        if len(inputs) == 3:
            y = y + inputs[2]
        return (utils.force_array(y, inputs[0].dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import broadcast, cast, reshape
        from chainer.functions.math import matmul
        from chainer.functions.math import sum as sum_module

        x, W = self.get_retained_inputs()
        gy = grad_outputs[0]
        # The gradients are computed in the dtype of x (that of gy) and cast back for W.
        W_x = cast.cast(W, x.dtype) if W.dtype != x.dtype else W
        factor = self._factor(x.dtype)
        n_out, n_in = W.shape
        batch = x.shape[0]
        if factor.ndim == 3:
            gy3 = broadcast.broadcast_to(reshape.reshape(gy, (batch, n_out, 1)), factor.shape)
        result: list[Any] = []
        for index in indexes:
            if index == 0:
                if factor.ndim == 3:
                    w = broadcast.broadcast_to(reshape.reshape(W_x, (1, n_out, n_in)), factor.shape)
                    result.append(sum_module.sum(gy3 * w * factor, axis=1))
                else:
                    result.append(matmul.matmul(gy, W_x * factor))
            elif index == 1:
                if factor.ndim == 3:
                    x3 = broadcast.broadcast_to(reshape.reshape(x, (batch, 1, n_in)), factor.shape)
                    gW = sum_module.sum(gy3 * x3 * factor, axis=0)
                else:
                    gW = matmul.matmul(gy, x, transa=True) * factor
                result.append(cast.cast(gW, W.dtype) if W.dtype != x.dtype else gW)
            else:
                result.append(sum_module.sum(gy, axis=0))
        return tuple(result)


def simplified_dropconnect(
    x: Any,
    W: Any,
    b: Any = None,
    ratio: float = 0.5,
    train: bool = True,
    mask: Any = None,
    use_batchwise_mask: bool = True,
) -> variable.Variable:
    """Linear function regularized by simplified DropConnect.

    Each weight is dropped with probability ``ratio`` and the kept ones are scaled by
    ``1 / (1 - ratio)``; the bias is never dropped. With ``use_batchwise_mask`` every
    example of the batch has its own mask, otherwise one mask is shared. See Wan et al.,
    *Regularization of Neural Networks using DropConnect* (2013).

    Unlike most functions this one takes ``train`` as an argument (as in Chainer):
    with ``train=False`` no weight is dropped and the result is ``linear(x, W, b)``
    (a given ``mask`` still applies, unscaled).

    Args:
        x: Input of shape ``(B, d_1, ..., d_m)``; the non-batch axes are flattened to ``N``.
        W: Weight of shape ``(M, N)``, of any float dtype (its gradient has its dtype).
        b: Optional bias of shape ``(M,)``.
        ratio: Probability of dropping a weight, in ``[0, 1)``.
        train: Whether weights are dropped.
        mask: The mask to use instead of a random one: ``0``/``1`` (or boolean) values of
            shape ``(B, M, N)`` with ``use_batchwise_mask``, ``(M, N)`` without.
        use_batchwise_mask: Draw a separate mask for each example.

    Returns:
        Output of shape ``(B, M)``.

    Example:
        >>> x = np.ones((2, 3), 'f'); W = np.ones((4, 3), 'f')
        >>> F.simplified_dropconnect(x, W, train=False).array
        array([[3., 3., 3., 3.],
               [3., 3., 3., 3.]], dtype=float32)
    """
    from chainer.functions.array import reshape

    where = "chainer.functions.simplified_dropconnect"
    if not isinstance(ratio, numbers.Real) or isinstance(ratio, bool) or not 0.0 <= ratio < 1.0:
        raise ValueError(f"{where}: ratio must be a real number in [0, 1), got {ratio!r}")
    if not train:
        ratio = 0.0
    x = variable.as_variable(x)
    W = variable.as_variable(W)
    if x.ndim < 2:
        raise type_check.InvalidType(
            "x.ndim >= 2",
            f"x.ndim == {x.ndim}",
            msg=f"{where}: x needs a batch axis and a feature axis; got shape {x.shape}",
        )
    if x.ndim > 2:
        x = reshape.reshape(x, (x.shape[0], -1))
    if W.ndim != 2:
        raise type_check.InvalidType(
            "W.ndim == 2", f"W.ndim == {W.ndim}", msg=f"{where}: W must be 2-dimensional; got shape {W.shape}"
        )
    xp = backend.get_array_module(W.array)
    scale = 1.0 / (1.0 - ratio)
    # The mask's shape follows use_batchwise_mask, a given mask's too (as in Chainer).
    shape = (x.shape[0],) + W.shape if use_batchwise_mask else W.shape
    if mask is None:
        mask = dropout_module.uniform_sample(xp, shape) >= ratio
    else:
        if isinstance(mask, variable.Variable):
            mask = mask.array
        if mask.shape != shape:
            raise type_check.InvalidType(
                f"mask.shape == {shape}",
                f"mask.shape == {mask.shape}",
                msg=(
                    f"{where}: mask must have shape {'(B, M, N)' if use_batchwise_mask else '(M, N)'} = {shape} "
                    f"with use_batchwise_mask={use_batchwise_mask}; got shape {mask.shape}"
                ),
            )
    args = (x, W) if b is None else (x, W, b)
    return SimplifiedDropconnect(scale, mask).apply(args)[0]


__all__ = ["simplified_dropconnect"]
