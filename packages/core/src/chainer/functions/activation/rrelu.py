"""Randomized leaky rectified linear unit."""

from __future__ import annotations

import numbers
from typing import Any

from chainer import backend, configuration, function_node, utils, variable
from chainer.functions.activation import _elementwise
from chainer.utils import argument, type_check


class RReLU(function_node.FunctionNode):
    """:math:`x` for :math:`x \\ge 0`, :math:`r x` otherwise, with a slope ``r`` per element."""

    def __init__(self, lower: float, upper: float, r: Any = None) -> None:
        for name, value in (("l", lower), ("u", upper)):
            if not isinstance(value, numbers.Real) or isinstance(value, bool) or not 0.0 <= value < 1.0:
                raise ValueError(f"chainer.functions.rrelu: {name} must be a real number in [0, 1), got {value!r}")
        if not lower < upper:
            raise ValueError(f"chainer.functions.rrelu: l must be less than u, got l={lower!r} and u={upper!r}")
        self.lower = float(lower)
        self.upper = float(upper)
        self.r = r

    @property
    def label(self) -> str:
        return "RReLU"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == "f")
        if self.r is not None:
            type_check.expect(
                x_type.dtype == type_check.make_variable(self.r.dtype, "r.dtype"),
                x_type.shape == type_check.make_variable(self.r.shape, "r.shape"),
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x = inputs[0]
        xp = backend.get_array_module(x)
        if not configuration.config.train:
            # At test time the slope is the mean of its training distribution.
            self.r = xp.full(x.shape, (self.lower + self.upper) / 2, dtype=x.dtype)
        elif self.r is None:
            self.r = xp.random.uniform(self.lower, self.upper, x.shape).astype(x.dtype, copy=False)
        elif backend.get_array_module(self.r) is not xp:
            raise TypeError(
                f"chainer.functions.rrelu: r is a {type(self.r).__module__}.{type(self.r).__name__} but x is a "
                f"{type(x).__module__}.{type(x).__name__}; put both on the same device"
            )
        return (utils.force_array(xp.where(x >= 0, x, x * self.r), x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = self.get_retained_inputs()[0].array
        xp = backend.get_array_module(x)
        factor = xp.where(x >= 0, x.dtype.type(1), self.r)
        return _elementwise.ScaleByConstant(factor, "RReLUGrad").apply(grad_outputs)


def rrelu(x: Any, l: float = 1.0 / 8, u: float = 1.0 / 3, **kwargs: Any) -> Any:  # noqa: E741
    """Randomized leaky rectified linear unit.

    ``rrelu(x, l=1. / 8, u=1. / 3, *, r=None, return_r=False)``

    In training mode (``chainer.config.train``) each negative element is multiplied by
    its own slope drawn from the uniform distribution on :math:`[l, u)`; at test time
    every slope is :math:`(l + u) / 2`. See Xu et al., *Empirical Evaluation of
    Rectified Activations in Convolutional Network* (2015).

    Args:
        x: Input variable of a floating dtype.
        l: Lower bound of the slope distribution, in :math:`[0, 1)`.
        u: Upper bound of the slope distribution, in :math:`[0, 1)` and above ``l``.
        r: Slopes to use instead of random ones in training mode: an array of the
            shape and dtype of ``x`` on its device. Ignored at test time.
        return_r: Also return the slopes used.

    Returns:
        The output variable, or ``(y, r)`` if ``return_r`` is true.

    Example:
        >>> x = np.array([-2., 3.], 'f')
        >>> y, r = F.rrelu(x, return_r=True)
        >>> bool(y.array[0] == -2 * r[0]), float(y.array[1])
        (True, 3.0)
    """
    r, return_r = argument.parse_kwargs(
        kwargs,
        ("r", None),
        ("return_r", False),
        train="train argument is not supported anymore. Use chainer.using_config",
    )
    if isinstance(r, variable.Variable):
        r = r.array
    func = RReLU(l, u, r)
    (y,) = func.apply((x,))
    if return_r:
        return y, func.r
    return y


__all__ = ["rrelu"]
