"""Numerical gradients and checks of backward implementations against them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy

from chainer import backend, configuration, variable
from chainer._backprop import grad as _grad


class NondifferentiableError(Exception):
    """The function is not differentiable at the point where a numerical gradient was asked."""


def _to_tuple(x: Any) -> tuple[Any, ...]:
    if x is None:
        return ()
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x,)


def _as_arrays(outputs: Any) -> tuple[Any, ...]:
    return tuple(variable.as_array(y) for y in _to_tuple(outputs))


def numerical_grad(
    f: Callable[[], Any],
    inputs: Sequence[Any],
    grad_outputs: Sequence[Any],
    eps: float = 1e-3,
    detect_nondifferentiable: bool = False,
    diff_atol: float = 0,
    diff_rtol: float = 1e-2,
    center_outputs: Any = None,
) -> tuple[Any, ...]:
    """Gradients of ``sum(f() * grad_outputs)`` with respect to ``inputs`` by central
    finite differences.

    ``f`` is called with no arguments and must read the arrays in ``inputs``, which are
    perturbed in place one element at a time (and restored).

    Args:
        f: Zero-argument callable returning a tuple of output arrays.
        inputs: Input arrays (perturbed in place).
        grad_outputs: Weights of the outputs (``None`` entries count as zero).
        eps: Step of the finite difference.
        detect_nondifferentiable: Also evaluate at ``±2 eps`` and raise
            :class:`NondifferentiableError` where the one-sided slopes disagree.
        diff_atol, diff_rtol: Tolerances of that detection.
        center_outputs: Outputs at the unperturbed inputs (computed if needed).

    Returns:
        A tuple of gradient arrays, one per input (``None`` for non-float inputs).
    """
    if eps <= 0:
        raise ValueError(f"numerical_grad: eps must be positive, got {eps}")
    inputs = tuple(inputs)
    grad_outputs = tuple(grad_outputs)
    devices = {backend.get_device_from_array(x) for x in (*inputs, *grad_outputs) if x is not None}
    if len(devices) > 1:
        raise ValueError(f"numerical_grad: all arrays must be on one device, got {', '.join(map(str, devices))}")

    def weighted_sum(outputs: tuple[Any, ...]) -> float:
        total = 0.0
        for y, gy in zip(outputs, grad_outputs):
            if gy is None or y is None:
                continue
            total += float(
                (backend.cpu().send(y).astype(numpy.float64) * backend.cpu().send(gy).astype(numpy.float64)).sum()
            )
        return total

    if detect_nondifferentiable and center_outputs is None:
        center_outputs = _as_arrays(f())
    results: list[Any] = []
    for x in inputs:
        if x is None or x.dtype.kind != "f":
            results.append(None)
            continue
        gx = numpy.zeros(x.shape, numpy.float64)
        flat_index = numpy.ndindex(*x.shape) if x.ndim else [()]
        for index in flat_index:
            orig = x[index].copy() if hasattr(x[index], "copy") else x[index]
            steps = (-2, -1, 1, 2) if detect_nondifferentiable else (-1, 1)
            values = {}
            try:
                for k in steps:
                    x[index] = orig + k * eps
                    values[k] = weighted_sum(_as_arrays(f()))
            finally:
                x[index] = orig
            # The actual step differs from eps when x is low precision; use the real one.
            actual = [float(numpy.asarray(orig + k * eps, dtype=x.dtype)) - float(orig) for k in (-1, 1)]
            gx[index] = (values[1] - values[-1]) / (actual[1] - actual[0])
            if detect_nondifferentiable:
                center = weighted_sum(center_outputs)
                left = (center - values[-1]) / eps
                right = (values[1] - center) / eps
                left2 = (values[-1] - values[-2]) / eps
                right2 = (values[2] - values[1]) / eps
                slopes = numpy.array([left2, left, right, right2])
                if not numpy.allclose(slopes, slopes.mean(), atol=diff_atol + 1e-12, rtol=diff_rtol):
                    raise NondifferentiableError(
                        f"numerical_grad: the function looks nondifferentiable at input index {index} "
                        f"(one-sided slopes {slopes.tolist()})"
                    )
        xp = backend.get_array_module(x)
        results.append(xp.asarray(gx.astype(x.dtype)))
    return tuple(results)


def check_backward(
    func: Callable[..., Any],
    x_data: Any,
    y_grad: Any,
    params: Any = (),
    eps: float = 1e-3,
    atol: float = 1e-5,
    rtol: float = 1e-4,
    no_grads: Sequence[bool] | None = None,
    dtype: Any = None,
    detect_nondifferentiable: bool = False,
) -> None:
    """Check the backward of ``func`` against a numerical directional derivative.

    Backward is run from the outputs with gradients ``y_grad``; then the directional
    derivative along a random direction ``d`` over all inputs (and ``params``) is
    computed both from those gradients, ``sum(gx * d)``, and by central differences,
    ``(f(x + eps d) - f(x - eps d)) · y_grad / (2 eps)``. They must agree within
    ``atol`` and ``rtol``.

    Args:
        func: Callable taking variables and returning a variable or tuple of variables.
        x_data: An input array or a tuple of them.
        y_grad: Output gradient array(s); ``None`` if the output is a scalar (``1`` is used).
        params: Parameters (:class:`~chainer.Variable`) ``func`` uses whose gradients are
            checked too.
        eps: Finite-difference step.
        atol, rtol: Tolerances.
        no_grads: Per input, ``True`` to skip its gradient (default: non-float inputs).
        dtype: Compute the numerical derivative with inputs cast to this dtype
            (e.g. ``numpy.float64`` for float16 functions).
        detect_nondifferentiable: Raise :class:`NondifferentiableError` if the function
            is not differentiable at the point.

    Raises:
        AssertionError: The gradients disagree.
    """
    x_data = _to_tuple(x_data)
    params = _to_tuple(params)
    for p in params:
        if not isinstance(p, variable.Variable):
            raise TypeError(f"check_backward: params must be Variables, got {type(p).__name__}")
    if no_grads is None:
        no_grads = [x.dtype.kind != "f" for x in x_data]
    elif len(no_grads) != len(x_data):
        raise ValueError(f"check_backward: no_grads has {len(no_grads)} entries for {len(x_data)} inputs")

    xs = [variable.Variable(x, requires_grad=not skip) for x, skip in zip(x_data, no_grads)]
    for p in params:
        p.cleargrad()
    with configuration.using_config("enable_backprop", True):
        ys = _to_tuple(func(*xs))
    ys = tuple(variable.as_variable(y) for y in ys)
    y_grad = _to_tuple(y_grad)
    if not y_grad:
        if not all(y.size == 1 for y in ys):
            raise ValueError("check_backward: y_grad is None, so every output must have one element")
        y_grad = tuple(backend.get_array_module(y.array).ones_like(y.array) for y in ys)
    if len(y_grad) != len(ys):
        raise ValueError(f"check_backward: func returned {len(ys)} outputs but y_grad has {len(y_grad)} entries")
    for y, gy in zip(ys, y_grad):
        if gy is not None and gy.shape != y.shape:
            raise ValueError(f"check_backward: y_grad of shape {gy.shape} does not match output shape {y.shape}")

    targets = [x for x, skip in zip(xs, no_grads) if not skip] + list(params)
    if not targets:
        return
    contributing = [(y, gy) for y, gy in zip(ys, y_grad) if gy is not None]
    analytic = _grad(
        [y for y, _ in contributing],
        targets,
        grad_outputs=[gy for _, gy in contributing],
    )

    rng = numpy.random.default_rng(0)
    directions = [rng.normal(size=t.shape) for t in targets]
    analytic_dd = 0.0
    for g, d in zip(analytic, directions):
        if g is None:
            continue
        analytic_dd += float((backend.cpu().send(g.array).astype(numpy.float64) * d).sum())

    # Evaluate f along x + t * d for t = ±eps, with inputs cast to `dtype` if asked.
    target_arrays = [t.array for t in targets]
    casted = [a if dtype is None or a.dtype.kind != "f" else a.astype(dtype) for a in target_arrays]
    originals = [t.array for t in targets]

    def evaluate(step: float) -> float:
        for t, base, d in zip(targets, casted, directions):
            xp = backend.get_array_module(base)
            t.array = xp.asarray(base + xp.asarray(d.astype(base.dtype) * step)) if step else base
        outs = _to_tuple(func(*xs))
        total = 0.0
        for y, gy in zip(outs, y_grad):
            if gy is None:
                continue
            total += float(
                (
                    backend.cpu().send(variable.as_array(y)).astype(numpy.float64)
                    * backend.cpu().send(gy).astype(numpy.float64)
                ).sum()
            )
        return total

    try:
        if detect_nondifferentiable:
            values = {k: evaluate(k * eps) for k in (-2, -1, 0, 1, 2)}
            slopes = (
                numpy.array(
                    [values[-1] - values[-2], values[0] - values[-1], values[1] - values[0], values[2] - values[1]]
                )
                / eps
            )
            if not numpy.allclose(slopes, slopes.mean(), rtol=1e-2, atol=max(atol, 1e-8)):
                raise NondifferentiableError(
                    f"check_backward: the function looks nondifferentiable here (one-sided slopes {slopes.tolist()})"
                )
            numeric_dd = (values[1] - values[-1]) / (2 * eps)
        else:
            numeric_dd = (evaluate(eps) - evaluate(-eps)) / (2 * eps)
    finally:
        for t, original in zip(targets, originals):
            t.array = original

    if abs(analytic_dd - numeric_dd) > atol + rtol * abs(numeric_dd):
        lines = [
            "check_backward failed: the directional derivative from backward does not match the numerical one.",
            f"  analytic  (sum of gx * d): {analytic_dd!r}",
            f"  numerical ((f(x+eps d) - f(x-eps d)) / 2 eps): {numeric_dd!r}",
            f"  eps={eps}, atol={atol}, rtol={rtol}",
        ]
        for i, (t, g) in enumerate(zip(targets, analytic)):
            kind = "input" if i < len(targets) - len(params) else "param"
            lines.append(f"  {kind} {i}: shape {t.shape}, dtype {t.dtype}, grad {'None' if g is None else 'computed'}")
        raise AssertionError("\n".join(lines))


def check_double_backward(
    func: Callable[..., Any],
    x_data: Any,
    y_grad: Any,
    x_grad_grad: Any,
    params: Any = (),
    params_grad_grad: Any = (),
    eps: float = 1e-3,
    atol: float = 1e-4,
    rtol: float = 1e-3,
    no_grads: Sequence[bool] | None = None,
    dtype: Any = None,
    detect_nondifferentiable: bool = False,
) -> None:
    """Check the second-order gradient of ``func`` numerically.

    The first-order gradient ``g(x, gy) = d(func(x) · gy)/dx`` is computed with double
    backprop enabled, and :func:`check_backward` is run on ``g`` with output gradients
    ``x_grad_grad`` (and ``params_grad_grad``).
    """
    x_data = _to_tuple(x_data)
    y_grad = _to_tuple(y_grad)
    params = _to_tuple(params)
    x_grad_grad = _to_tuple(x_grad_grad)
    params_grad_grad = _to_tuple(params_grad_grad)
    n_x = len(x_data)
    if no_grads is None:
        no_grads = [x.dtype.kind != "f" for x in x_data]
    first_order_targets = [i for i in range(n_x) if not no_grads[i]]
    if len(x_grad_grad) != len(first_order_targets):
        if len(x_grad_grad) == n_x:
            x_grad_grad = tuple(x_grad_grad[i] for i in first_order_targets)
        else:
            raise ValueError(
                f"check_double_backward: x_grad_grad has {len(x_grad_grad)} entries; expected one per "
                f"differentiable input ({len(first_order_targets)})"
            )
    if len(params_grad_grad) != len(params):
        raise ValueError(
            f"check_double_backward: params_grad_grad has {len(params_grad_grad)} entries for {len(params)} params"
        )

    def first_order(*args: Any) -> tuple[Any, ...]:
        xs, gys = args[:n_x], args[n_x:]
        ys = tuple(variable.as_variable(y) for y in _to_tuple(func(*xs)))
        if not gys:
            gys = tuple(
                variable.Variable(backend.get_array_module(y.array).ones_like(y.array), requires_grad=False) for y in ys
            )
        targets = [xs[i] for i in first_order_targets] + list(params)
        grads = _grad(list(ys), targets, grad_outputs=list(gys), enable_double_backprop=True)
        result = []
        for g, t in zip(grads, targets):
            if g is None:
                g = variable.Variable(backend.get_array_module(t.array).zeros_like(t.array), requires_grad=False)
            result.append(g)
        return tuple(result)

    inputs = x_data + y_grad
    check_backward(
        first_order,
        inputs,
        x_grad_grad + params_grad_grad,
        params=params,
        eps=eps,
        atol=atol,
        rtol=rtol,
        no_grads=list(no_grads) + [False] * len(y_grad),
        dtype=dtype,
        detect_nondifferentiable=detect_nondifferentiable,
    )
