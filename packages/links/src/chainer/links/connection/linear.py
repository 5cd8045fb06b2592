"""Linear (fully-connected) layer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import chainer
from chainer import utils, variable
from chainer.functions.connection import linear as linear_module
from chainer.links import _checks

_WHERE = "Linear"


class Linear(chainer.Link):
    """Linear layer (a.k.a. fully-connected layer): :math:`y = x W^\\top + b`.

    Holds the weight and bias of :func:`~chainer.functions.linear`.

    ``Linear(in_size, out_size=None, nobias=False, initialW=None, initial_bias=None)``

    With one size given, ``Linear(out_size)``, the input size is taken from the first
    input (as with ``in_size=None``): ``W`` is created then, from the product of the
    input's non-batch axes.

    Args:
        in_size: Input size, or ``None`` to infer it lazily.
        out_size: Output size.
        nobias: If ``True``, no bias is used (``b`` is ``None``).
        initialW: Initializer of ``W`` of shape ``(out_size, in_size)``: an initializer,
            a scalar, an array, or ``None`` for :class:`~chainer.initializers.LeCunNormal`
            (normal with standard deviation :math:`1 / \\sqrt{\\text{in\\_size}}`).
        initial_bias: Initializer of ``b`` of shape ``(out_size,)``; ``None`` means 0.

    Attributes:
        W (~chainer.Parameter): Weight matrix.
        b (~chainer.Parameter): Bias vector, or ``None``.

    Example:
        >>> f = L.Linear(3, 2, initialW=1, initial_bias=0.5)
        >>> f(np.array([[1, 2, 3]], np.float32)).array
        array([[6.5, 6.5]], dtype=float32)
        >>> g = L.Linear(4)          # in_size inferred
        >>> g.W.array is None
        True
        >>> g(np.zeros((2, 3, 5), np.float32)).shape, g.W.shape
        ((2, 4), (4, 15))
    """

    def __init__(
        self,
        in_size: int | None,
        out_size: int | None = None,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
    ) -> None:
        super().__init__()
        if out_size is None:
            in_size, out_size = None, in_size
        if isinstance(out_size, tuple) and out_size and all(_checks.is_int(s) and s > 0 for s in out_size):
            # Chainer 7 accepts a shape here (the bias takes it; W cannot): keep it so that
            # such code constructs, and say so when the layer is applied.
            self.out_size: Any = tuple(int(s) for s in out_size)
        else:
            self.out_size = _checks.positive_int(out_size, "out_size", _WHERE)
        in_size = _checks.positive_int(in_size, "in_size", _WHERE, allow_none=True)
        with self.init_scope():
            self.W = chainer.Parameter(_checks.initializer(initialW, "initialW", _WHERE))
            if nobias:
                self.b = None
            else:
                self.b = chainer.Parameter(_checks.bias_initializer(initial_bias, "initial_bias", _WHERE))
                bias_shape = self.out_size if isinstance(self.out_size, tuple) else (self.out_size,)
                _checks.initialize(self.b, bias_shape, _WHERE)
        if in_size is not None:
            self._initialize_params(in_size)

    @classmethod
    def from_params(cls, W: Any, b: Any = None, nobias: bool = False) -> Linear:
        """A layer whose parameters start as copies of ``W`` (``(out_size, in_size)``) and
        ``b`` (``(out_size,)``; with ``nobias`` or ``b=None`` and ``nobias=False``, a zero
        bias is created only if ``nobias`` is false), on the device of ``W``.

        Args:
            W: The weight: a parameter, a variable or an array.
            b: The bias, or ``None``.
            nobias: Create no bias.
        """
        w = _checks.param_array(W, "W", _WHERE)
        if w.ndim != 2:
            raise ValueError(f"{_WHERE}.from_params: W must be 2-D (out_size, in_size), got shape {w.shape}")
        out_size, in_size = w.shape
        bias = None if b is None or nobias else _checks.param_array(b, "b", _WHERE)
        if bias is not None and bias.size != out_size:
            raise ValueError(f"{_WHERE}.from_params: b has {bias.size} elements, W has {out_size} rows")
        link = cls(in_size, out_size, nobias, initialW=w, initial_bias=bias)
        return _checks.from_params_link(link, W)

    @property
    def in_size(self) -> int | None:
        """Input size (``None`` until the first input fixes it)."""
        W = self.W
        return None if W.array is None else W.shape[1]

    def _initialize_params(self, in_size: int) -> None:
        if not isinstance(self.out_size, int):
            raise ValueError(f"{_WHERE}: out_size must be an int to create W, got {self.out_size!r}")
        _checks.initialize(self.W, (self.out_size, in_size), _WHERE)

    def forward(self, x: Any, n_batch_axes: int = 1) -> variable.Variable:
        """Apply the layer.

        Args:
            x: Input of shape ``(*batch, *features)``; the features are flattened.
            n_batch_axes: Number of leading batch axes of ``x``.

        Returns:
            Output of shape ``(*batch, out_size)``.
        """
        if self.W.array is None:
            shape = getattr(x, "shape", None)
            if shape is None or not _checks.is_int(n_batch_axes) or not 0 < n_batch_axes < len(shape) + 1:
                raise ValueError(
                    f"{_WHERE}: cannot infer in_size from an input of shape {shape} with n_batch_axes={n_batch_axes!r}"
                )
            self._initialize_params(utils.size_of_shape(shape[n_batch_axes:]))
        return linear_module.linear(x, self.W, self.b, n_batch_axes=n_batch_axes)

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        yield "in_size", self.in_size
        yield "out_size", self.out_size
        yield "nobias", self.b is None


__all__ = ["Linear"]
