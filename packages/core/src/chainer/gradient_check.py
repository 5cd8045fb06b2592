"""Numerical gradients and checks of backward implementations against them."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from chainer import backend, configuration, variable
from chainer._backprop import _backward_summing
from chainer._backprop import grad as _grad


class NondifferentiableError(Exception):
    """The function is not differentiable at the point where a numerical gradient was asked."""


class _InvalidEpsError(ValueError, AssertionError):
    # A ValueError that code written for Chainer (which asserted eps > 0) also catches
    # as an AssertionError.
    pass


class _MixedDevicesError(ValueError, RuntimeError):
    # Chainer raised RuntimeError for arrays on different devices.
    pass


def _as_tuple(x: Any) -> tuple[Any, ...]:
    if x is None:
        return ()
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x,)


def _to_float64(y: Any) -> numpy.ndarray[Any, Any]:
    """An output or output gradient as a float64 NumPy array (Python scalars allowed)."""
    if y is None:
        return numpy.zeros(())
    y = variable.as_array(y)
    if isinstance(y, numpy.ndarray) or numpy.isscalar(y):
        return numpy.asarray(y, dtype=numpy.float64)
    return numpy.asarray(backend.cpu().send(y), dtype=numpy.float64)


# Offsets (in units of eps) of the evaluations that the nondifferentiability test fits a
# parabola through, and the projection onto the residual of that least-squares fit.
_DETECT_OFFSETS = (-1.0, -0.5, 0.0, 0.5, 1.0)
_design = numpy.vander(numpy.array(_DETECT_OFFSETS), 3)
_RESIDUAL_PROJECTION = numpy.eye(5) - _design @ numpy.linalg.pinv(_design)


def _check_differentiable(
    samples: list[numpy.ndarray[Any, Any]], eps: float, diff_atol: float, diff_rtol: float, where: str
) -> None:
    """Raise NondifferentiableError unless every output element, sampled at the five
    offsets, lies on a parabola within ``diff_atol + diff_rtol * (max - min)`` (RMS of the
    fit's residual). An element that is not finite anywhere carries no information and
    is skipped; one finite at some offsets only is a discontinuity."""
    ys = numpy.stack([s.reshape(-1) for s in samples])  # (5, n)
    finite = numpy.isfinite(ys)
    all_finite = finite.all(axis=0)
    none_finite = ~finite.any(axis=0)
    if not (all_finite | none_finite).all():
        raise NondifferentiableError(
            f"{where}: the function is finite on only part of [x - eps, x + eps] (eps={eps}); it is not "
            f"differentiable there. Values at x + {list(_DETECT_OFFSETS)} * eps:\n{ys[:, ~(all_finite | none_finite)]}"
        )
    ys = ys[:, all_finite]
    if ys.size == 0:
        return
    # Relative to the center value, so that a constant output fits exactly (a parabola
    # fitted to raw values leaves rounding residue that a zero tolerance would flag).
    residual = _RESIDUAL_PROJECTION @ (ys - ys[2])
    error = numpy.sqrt((residual * residual).mean(axis=0))
    tolerance = diff_atol + diff_rtol * (ys.max(axis=0) - ys.min(axis=0))
    bad = error > tolerance
    if bad.any():
        raise NondifferentiableError(
            f"{where}: the function is not differentiable at this point, or eps={eps} is too large: the "
            f"values at x + {list(_DETECT_OFFSETS)} * eps do not lie on a parabola (RMS fitting error "
            f"{error[bad].tolist()} > diff_atol + diff_rtol * (max - min) = {tolerance[bad].tolist()}; "
            f"diff_atol={diff_atol}, diff_rtol={diff_rtol}). Values:\n{ys[:, bad]}"
        )


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
    """Gradients of ``sum(f() * grad_outputs)`` with respect to ``inputs`` by finite
    differences.

    ``f`` is called with no arguments and must read the arrays in ``inputs``, which are
    perturbed in place one element at a time (and restored).

    Without ``detect_nondifferentiable`` the derivative is the central difference over
    ``x ± eps``. With it, ``f`` is also evaluated at ``x ± eps/2`` (and at ``x``); the
    derivative is the five-point central difference, and
    :class:`NondifferentiableError` is raised if an output does not lie on a parabola
    over ``[x - eps, x + eps]`` within ``diff_atol + diff_rtol * (max - min)`` of its
    values there (a kink, a jump or a step too large for the curvature).

    Args:
        f: Zero-argument callable returning a tuple of outputs (arrays or scalars).
        inputs: Input arrays (perturbed in place).
        grad_outputs: Weights of the outputs (arrays or scalars; ``None`` counts as zero).
        eps: Step of the finite difference.
        detect_nondifferentiable: Check differentiability as described above.
        diff_atol, diff_rtol: Tolerances of that check.
        center_outputs: Outputs at the unperturbed inputs (computed if needed).

    Returns:
        A tuple of gradient arrays, one per input (``None`` for non-float inputs).
    """
    if not eps > 0:
        raise _InvalidEpsError(f"numerical_grad: eps must be positive, got {eps}")
    inputs = tuple(inputs)
    grad_outputs = tuple(grad_outputs)
    arrays = [x for x in (*inputs, *grad_outputs) if x is not None and not numpy.isscalar(x)]
    devices = {backend.get_device_from_array(x) for x in arrays}
    if len(devices) > 1:
        raise _MixedDevicesError(
            f"numerical_grad: all arrays must be on one device, got {', '.join(sorted(map(str, devices)))}"
        )
    weights = [None if gy is None else _to_float64(gy) for gy in grad_outputs]

    def evaluate() -> list[numpy.ndarray[Any, Any]]:
        # Without type checks, as in Chainer 7.8.1: check_backward(dtype=...) casts the
        # inputs and parameters it perturbs but not a link's other arrays (a batch
        # normalization's running statistics), a mix that functions' checks refuse.
        with configuration.using_config("type_check", False):
            outputs = _as_tuple(f())
        # Copied at once: f may return the very input array that is perturbed next.
        return [_to_float64(y).copy() for y in outputs]

    def weighted(outputs: Sequence[numpy.ndarray[Any, Any]]) -> float:
        total = 0.0
        for y, w in zip(outputs, weights):
            if w is not None:
                total += float((y * w).sum())
        return total

    center = None
    if detect_nondifferentiable:
        center = [_to_float64(y) for y in _as_tuple(center_outputs)] if center_outputs is not None else evaluate()
    results: list[Any] = []
    for i_in, x in enumerate(inputs):
        if x is None or x.dtype.kind != "f":
            results.append(None)
            continue
        gx = numpy.zeros(x.shape, numpy.float64)
        for index in numpy.ndindex(*x.shape):
            orig = x[index].copy()
            try:
                if detect_nondifferentiable:
                    samples: dict[float, list[numpy.ndarray[Any, Any]]] = {}
                    for k in (-1.0, -0.5, 0.5, 1.0):
                        x[index] = orig + k * eps
                        samples[k] = evaluate()
                else:
                    x[index] = orig - eps
                    low = float(x[index])
                    minus = weighted(evaluate())
                    x[index] = orig + eps
                    high = float(x[index])
                    plus = weighted(evaluate())
            finally:
                x[index] = orig
            if detect_nondifferentiable:
                assert center is not None  # evaluated above when detecting
                samples[0.0] = center
                for i_out in range(len(center)):
                    _check_differentiable(
                        [samples[k][i_out] for k in _DETECT_OFFSETS],
                        eps,
                        diff_atol,
                        diff_rtol,
                        f"numerical_grad (input {i_in}, index {index}, output {i_out})",
                    )
                # Five-point central difference with h = eps / 2.
                gx[index] = (
                    8 * (weighted(samples[0.5]) - weighted(samples[-0.5]))
                    - (weighted(samples[1.0]) - weighted(samples[-1.0]))
                ) / (6 * eps)
            else:
                # The actual step differs from 2 eps when x is low precision; divide by the real one.
                gx[index] = (plus - minus) / (high - low)
        xp = backend.get_array_module(x)
        results.append(xp.asarray(gx.astype(x.dtype)))
    return tuple(results)


class _CheckBackward:
    """One run of :func:`check_backward`: backward from the outputs, then the directional
    derivative along one random unit direction over all checked inputs and parameters,
    from the gradients and numerically."""

    def __init__(
        self,
        func: Callable[..., Any],
        x_data: Any,
        y_grad: Any,
        params: Any,
        eps: float,
        atol: float,
        rtol: float,
        no_grads: Sequence[bool] | None,
        dtype: Any,
        detect_nondifferentiable: bool,
    ) -> None:
        self.func = func
        # (Variables are accepted in place of arrays, as their arrays.)
        self.x_data = tuple(variable.as_array(x) for x in _as_tuple(x_data))
        self.y_grad = y_grad
        self.params = _as_tuple(params)
        for p in self.params:
            if not isinstance(p, variable.Variable):
                raise TypeError(f"check_backward: params must be Variables, got {type(p).__name__}")
        if no_grads is None:
            no_grads = [x is None or x.dtype.kind != "f" for x in self.x_data]
        elif len(no_grads) != len(self.x_data):
            raise ValueError(f"check_backward: no_grads has {len(no_grads)} entries for {len(self.x_data)} inputs")
        self.no_grads = list(no_grads)
        self.eps = eps
        self.atol = atol
        self.rtol = rtol
        self.dtype = None if dtype is None else numpy.dtype(dtype)
        self.detect_nondifferentiable = detect_nondifferentiable

    @staticmethod
    def _sample_unit_vector(size: int, xp: Any) -> Any:
        """A random unit vector of ``size`` float64 elements on the current device, each
        element at least ``0.1 / sqrt(size)`` in magnitude (so that every input moves)
        and of random sign."""
        if size == 0:
            return xp.zeros((0,), numpy.float64)
        magnitude = xp.random.uniform(0.5, 1.5, size)
        sign = xp.where(xp.random.uniform(0, 1, size) < 0.5, -1.0, 1.0)
        y = sign * magnitude
        return y / xp.sqrt((y * y).sum())

    def run(self) -> None:
        xs = [variable.Variable(x, requires_grad=x is not None and x.dtype.kind == "f") for x in self.x_data]
        saved_param_grads = [p.grad_var for p in self.params]
        for p in self.params:
            p.cleargrad()
        try:
            self._run(xs)
        finally:
            for p, g in zip(self.params, saved_param_grads):
                p.grad_var = g

    def _outputs(self, xs: Sequence[Any]) -> tuple[variable.Variable, ...]:
        with configuration.using_config("enable_backprop", True):
            ys = _as_tuple(self.func(*xs))
        return tuple(variable.as_variable(y) for y in ys)

    def _run(self, xs: list[variable.Variable]) -> None:
        ys = self._outputs(xs)
        y_grad = _as_tuple(self.y_grad)
        if not y_grad:
            if not all(y.array is not None and y.size == 1 for y in ys):
                raise ValueError("check_backward: y_grad is None, so every output must have one element")
            y_grad = tuple(backend.get_array_module(y.array).ones_like(y.array) for y in ys)
        if len(y_grad) != len(ys):
            raise ValueError(f"check_backward: func returned {len(ys)} outputs but y_grad has {len(y_grad)} entries")
        for y, gy in zip(ys, y_grad):
            if gy is not None and y.array is not None and gy.shape != y.shape:
                raise ValueError(f"check_backward: y_grad of shape {gy.shape} does not match output shape {y.shape}")
        self.y_grad = y_grad

        contributing = [(y, gy) for y, gy in zip(ys, y_grad) if gy is not None]
        if contributing:
            _backward_summing([y for y, _ in contributing], [gy for _, gy in contributing])
        for i, (x, skip) in enumerate(zip(xs, self.no_grads)):
            if skip and x.grad is not None:
                raise RuntimeError(
                    f"check_backward: backward computed a gradient of input {i}, which no_grads says has none"
                )

        targets = [x for x, skip in zip(xs, self.no_grads) if not skip] + list(self.params)
        if not targets:
            return
        xp = backend.get_array_module(*[t.array for t in targets])
        direction = self._sample_unit_vector(sum(t.size for t in targets), xp)
        directions = []
        offset = 0
        for t in targets:
            directions.append(direction[offset : offset + t.size].reshape(t.shape))
            offset += t.size

        analytic = 0.0
        for t, d in zip(targets, directions):
            g = t.grad
            if g is not None:
                analytic += float((_to_float64(g) * _to_float64(d)).sum())
        numeric = self._directional_numeric_gradient(xs, targets, directions)
        if not abs(numeric - analytic) <= self.atol + self.rtol * abs(analytic):
            lines = [
                f"check_backward failed (eps={self.eps} atol={self.atol} rtol={self.rtol}): the directional "
                "derivative from backward does not match the numerical one.",
                f"  gradients (numeric):  {numeric!r}",
                f"  gradients (backward): {analytic!r}",
                f"  |difference| = {abs(numeric - analytic)!r} > atol + rtol * |backward| = "
                f"{self.atol + self.rtol * abs(analytic)!r}",
            ]
            n_inputs = len(targets) - len(self.params)
            for i, (t, d) in enumerate(zip(targets, directions)):
                kind = f"input {i}" if i < n_inputs else f"param {i - n_inputs}"
                lines.append(
                    f"  {kind}: shape {t.shape}, dtype {t.dtype}, gradient {'None' if t.grad is None else 'computed'}"
                )
                lines.append(f"    direction: {backend.cpu().send(d)}")
            raise AssertionError("\n".join(lines))

    def _directional_numeric_gradient(
        self, xs: list[variable.Variable], targets: list[variable.Variable], directions: list[Any]
    ) -> float:
        dtype = self.dtype
        target_ids = {id(t) for t in targets}

        def cast(a: Any) -> Any:
            if dtype is None or a is None or a.dtype.kind != "f":
                return a
            return a.astype(dtype)

        # Every float input is cast to `dtype` (the checked ones and the others alike).
        bases = [cast(x.array) for x in xs]
        param_bases = [cast(p.array) for p in self.params]
        originals = [p.array for p in self.params]
        direction_of = {id(t): d for t, d in zip(targets, directions)}
        # On the targets' device (a GPU, a plugin's device), as numerical_grad wants every
        # array on one device.
        delta = backend.get_device_from_array(targets[0].array).send(numpy.zeros((), numpy.float64))

        def moved(var: variable.Variable, base: Any) -> Any:
            if id(var) not in target_ids:
                return base
            xp = backend.get_array_module(base)
            # asarray: arithmetic on a 0-dimensional array gives a scalar.
            return xp.asarray(base + float(delta) * direction_of[id(var)], dtype=base.dtype)

        def f() -> tuple[Any, ...]:
            inputs = [variable.Variable(moved(x, b), requires_grad=x.requires_grad) for x, b in zip(xs, bases)]
            for p, base in zip(self.params, param_bases):
                p.array = moved(p, base)
            return tuple(None if y.array is None else y.array for y in self._outputs(inputs))

        try:
            (gd,) = numerical_grad(
                f,
                (delta,),
                self.y_grad,
                eps=self.eps,
                detect_nondifferentiable=self.detect_nondifferentiable,
                # As Chainer: the fit is judged relative to the values' range only (rtol).
                diff_atol=0,
                diff_rtol=self.rtol,
            )
        finally:
            for p, original in zip(self.params, originals):
                p.array = original
        return float(gd)


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

    Backward is run from the outputs with gradients ``y_grad``; then the derivative along
    one random unit-length direction ``d`` over all checked inputs and ``params`` is
    computed both from those gradients, ``sum(gx * d)``, and numerically from
    ``func(x ± eps d) · y_grad``. They must agree within ``atol + rtol * |sum(gx * d)|``.

    Args:
        func: Callable taking variables and returning a variable or tuple of variables.
        x_data: An input array or a tuple of them.
        y_grad: Output gradient array(s); ``None`` if every output is a scalar (``1`` is used).
            A ``None`` entry leaves that output out.
        params: Parameters (:class:`~chainer.Variable`) ``func`` uses whose gradients are
            checked too.
        eps: Finite-difference step (the length of the step along ``d``).
        atol, rtol: Tolerances (``rtol`` is also that of the nondifferentiability test).
        no_grads: Per input, ``True`` if it has no gradient (default: non-float inputs).
            A float input marked so must get no gradient from backward (``RuntimeError``).
        dtype: Compute the numerical derivative with the float inputs cast to this dtype
            (e.g. ``numpy.float64`` for float16 functions).
        detect_nondifferentiable: Raise :class:`NondifferentiableError` if the function
            is not differentiable at the point (see :func:`numerical_grad`).

    Raises:
        AssertionError: The gradients disagree.
    """
    _CheckBackward(func, x_data, y_grad, params, eps, atol, rtol, no_grads, dtype, detect_nondifferentiable).run()


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
    x_data = _as_tuple(x_data)
    y_grad = _as_tuple(y_grad)
    params = _as_tuple(params)
    x_grad_grad = _as_tuple(x_grad_grad)
    params_grad_grad = _as_tuple(params_grad_grad)
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
        ys = tuple(variable.as_variable(y) for y in _as_tuple(func(*xs)))
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


def assert_allclose(x: Any, y: Any, atol: float = 1e-5, rtol: float = 1e-4, verbose: bool = True) -> None:
    """Deprecated alias of :func:`chainer.testing.assert_allclose` (as in Chainer 7)."""
    # No stacklevel: attributed to Chainer, as Chainer 7's deprecations are (hidden by default).
    warnings.warn(
        "chainer.gradient_check.assert_allclose is deprecated; use chainer.testing.assert_allclose", DeprecationWarning
    )
    from chainer import testing

    testing.assert_allclose(x, y, atol=atol, rtol=rtol, verbose=verbose)
