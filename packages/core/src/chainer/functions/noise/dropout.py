"""Dropout regularization."""

from __future__ import annotations

import numbers
from typing import Any

import numpy

from chainer import backend, configuration, function_node, utils, variable
from chainer.functions.activation import _elementwise
from chainer.utils import argument, type_check


def _check_ratio(ratio: Any, where: str) -> float:
    if not isinstance(ratio, numbers.Real) or isinstance(ratio, bool) or not 0.0 <= ratio < 1.0:
        raise ValueError(f"{where}: ratio must be a real number in [0, 1), got {ratio!r}")
    return float(ratio)


def uniform_sample(xp: Any, shape: tuple[int, ...]) -> Any:
    """Uniform samples on ``[0, 1)`` from the global generator of ``xp`` (seeded by
    ``numpy.random.seed`` / ``cupy.random.seed``); float32 on GPU, where it is faster."""
    if xp is numpy:
        return numpy.random.random_sample(shape)
    return xp.random.rand(*shape, dtype=numpy.float32)


class Dropout(function_node.FunctionNode):
    """``y = x * mask``; the mask holds ``0`` (dropped) or ``1 / (1 - ratio)`` (kept)."""

    def __init__(self, dropout_ratio: float, mask: Any = None) -> None:
        self.dropout_ratio = _check_ratio(dropout_ratio, "chainer.functions.dropout")
        self.mask = mask

    @property
    def label(self) -> str:
        return "Dropout"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == "f")
        if self.mask is not None:
            # Any dtype of mask is fine (Chainer reuses one Dropout, and so its mask, for
            # inputs of several dtypes); the output has the dtype of x.
            type_check.expect(x_type.shape == type_check.make_variable(self.mask.shape, "mask.shape"))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        xp = backend.get_array_module(x)
        if self.mask is None:
            scale = x.dtype.type(1.0 / (1.0 - self.dropout_ratio))
            self.mask = utils.force_array((uniform_sample(xp, x.shape) >= self.dropout_ratio) * scale, x.dtype)
        elif backend.get_array_module(self.mask) is not xp:
            raise TypeError(
                f"chainer.functions.dropout: mask is a {type(self.mask).__module__}.{type(self.mask).__name__} "
                f"but x is a {type(x).__module__}.{type(x).__name__}; put both on the same device"
            )
        return (utils.force_array(x * self.mask, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return DropoutGrad(self.mask).apply(grad_outputs)


class DropoutGrad(_elementwise.ScaleByConstant):
    """``gx = gy * mask``, the gradient of dropout with its ``mask`` (0 or the scale
    ``1 / (1 - ratio)``). Linear in ``gy``, so its gradient is itself."""

    def __init__(self, mask: Any) -> None:
        super().__init__(mask, "DropoutGrad")


class DropoutGradCuDNN(DropoutGrad):
    """The name of Chainer's cuDNN dropout gradient. CuPy 14 has no cuDNN: it is
    :class:`DropoutGrad` with the same mask."""


def dropout(x: Any, ratio: float = 0.5, **kwargs: Any) -> Any:
    """Drops elements of ``x`` at random and scales the rest by ``1 / (1 - ratio)``.

    ``dropout(x, ratio=.5, *, mask=None, return_mask=False)``

    In training mode (``chainer.config.train``) each element is zeroed with
    probability ``ratio``, so the expected output equals ``x``. At test time the
    function is the identity. See Srivastava et al., *Dropout: A Simple Way to Prevent
    Neural Networks from Overfitting* (2014).

    Args:
        x: Input variable of a floating dtype.
        ratio: Probability of dropping an element, in ``[0, 1)``.
        mask: The mask to apply instead of a random one: an array of the shape and
            dtype of ``x``, on its device, whose entries are ``0`` or ``1 / (1 - ratio)``
            (``ratio`` is then not used). Typically a mask returned by an earlier call.
        return_mask: Also return the mask used (``None`` at test time).

    Returns:
        The output variable, or ``(y, mask)`` if ``return_mask`` is true.

    Example:
        >>> x = np.ones((2, 3), 'f')
        >>> with chainer.using_config('train', False):
        ...     F.dropout(x).array
        array([[1., 1., 1.],
               [1., 1., 1.]], dtype=float32)
    """
    mask, return_mask = argument.parse_kwargs(
        kwargs,
        ("mask", None),
        ("return_mask", False),
        train="train argument is not supported anymore. Use chainer.using_config",
    )
    if isinstance(mask, variable.Variable):
        mask = mask.array
    if configuration.config.train:
        func = Dropout(ratio, mask)
        (y,) = func.apply((x,))
        mask = func.mask
    else:
        _check_ratio(ratio, "chainer.functions.dropout")
        y = variable.as_variable(x)
        mask = None
    if return_mask:
        return y, mask
    return y


__all__ = ["dropout"]
