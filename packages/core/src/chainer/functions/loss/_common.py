"""Helpers shared by the loss functions: argument checks, label checks, a stable
log-softmax on raw arrays, and small differentiable building blocks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from chainer import backend, function_node, variable
from chainer.utils import type_check


def check_reduce(reduce: Any, allowed: Sequence[str], where: str) -> None:
    """Raise ValueError unless ``reduce`` is one of ``allowed``."""
    if not isinstance(reduce, str) or reduce not in allowed:
        options = " and ".join(repr(a) for a in allowed)
        raise ValueError(f"chainer.functions.{where}: only {options} are valid for reduce, but {reduce!r} is given")


def check_arguments(check: Any, arrays: Sequence[Any], where: str) -> None:
    """Run a ``check_type_forward``-style ``check`` for a function built from other
    functions, so that its messages name it like a :class:`FunctionNode` would."""
    type_check.run_check(check, tuple(variable.as_array(a) for a in arrays), where)


def compute_dtype(dtype: Any) -> Any:
    """float16 is computed in float32 (and cast back); other dtypes as they are."""
    return numpy.float32 if dtype == numpy.float16 else numpy.dtype(dtype).type


def check_labels(t: Any, n_class: int, where: str, ignore_label: Any = None, name: str = "t") -> None:
    """Raise ValueError unless every label is in ``[0, n_class)`` or equals ``ignore_label``.

    One vectorised min/max pair over the labels: cheap next to any loss computation.
    """
    if t.size == 0:
        return
    xp = backend.get_array_module(t)
    checked = t if ignore_label is None else xp.where(t == ignore_label, 0, t)
    low = int(checked.min())
    high = int(checked.max())
    if low < 0 or high >= n_class:
        bad = low if low < 0 else high
        allowed = f"in [0, {n_class})"
        if ignore_label is not None:
            allowed += f" or equal to ignore_label ({ignore_label})"
        raise ValueError(f"chainer.functions.{where}: every label of {name} must be {allowed}; found {bad}")


def log_softmax_array(x: Any, axis: int) -> Any:
    """``log(softmax(x))`` along ``axis`` on a raw array, shifted by the maximum so that
    it neither overflows nor underflows."""
    xp = backend.get_array_module(x)
    m = x.max(axis=axis, keepdims=True)
    z = x - m
    return z - xp.log(xp.exp(z).sum(axis=axis, keepdims=True))


def safe_sqrt(x: Any) -> variable.Variable:
    """Differentiable :math:`\\sqrt{x}` for ``x >= 0`` whose gradient at exactly zero is
    zero instead of infinite (a norm of a zero vector then gets the zero subgradient
    rather than NaN)."""
    x = variable.as_variable(x)
    zero = (x.array == 0).astype(x.dtype)
    return (x + zero) ** 0.5 - zero


def norm(x: Any, axis: Any, p: int) -> variable.Variable:
    """The L1 (``p == 1``) or L2 (``p == 2``) norm of ``x`` over ``axis``."""
    from chainer.functions.math import sum as sum_module

    if p == 1:
        return sum_module.sum(abs(x), axis=axis)
    x = variable.as_variable(x)
    if x.dtype == numpy.float16:
        # In float16 the square root's second derivative, (x^2)^-1.5 / 4, overflows for a
        # norm below about 1e-3, where the Hessian of the norm (about 1 / norm) is finite:
        # double backprop gave inf/NaN. The norm is computed in float32 and cast back.
        from chainer.functions.array import cast

        return cast.cast(norm(cast.cast(x, numpy.float32), axis, p), numpy.float16)
    return safe_sqrt(sum_module.sum(x * x, axis=axis))


class ScatterRows(function_node.FunctionNode):
    """Place ``x`` at rows ``[start, start + len(x))`` of a zero array of ``n`` rows
    (a differentiable pad; summing several of them concatenates along axis 0)."""

    def __init__(self, start: int, n: int) -> None:
        self.start = start
        self.n = n

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._stop = self.start + x.shape[0]
        xp = backend.get_array_module(x)
        y = xp.zeros((self.n,) + x.shape[1:], x.dtype)
        y[self.start : self._stop] = x
        return (y,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (grad_outputs[0][self.start : self._stop],)


def concat_rows(parts: Sequence[Any]) -> variable.Variable:
    """Concatenate variables along axis 0 (differentiably)."""
    if len(parts) == 1:
        return variable.as_variable(parts[0])
    n = sum(p.shape[0] for p in parts)
    total = None
    start = 0
    for p in parts:
        placed = ScatterRows(start, n).apply((p,))[0]
        total = placed if total is None else total + placed
        start += p.shape[0]
    assert total is not None
    return total
