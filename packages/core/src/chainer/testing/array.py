"""Array assertions that accept NumPy and CuPy arrays (and Variables) alike."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, variable


def _to_numpy(x: Any) -> Any:
    x = variable.as_array(x)
    if isinstance(x, (numpy.ndarray, numpy.generic)) or numpy.isscalar(x):
        return numpy.asarray(x)
    if isinstance(x, (list, tuple)):
        # Chainer 7.8.1 compared nested lists of numbers too (ChainerMN's tests do).
        return numpy.asarray([_to_numpy(v) for v in x])
    return backend.cpu().send(x)


def _as_noncontiguous_array(array: Any) -> Any:
    """A copy of ``array`` with the same values (and device) that is neither C- nor
    F-contiguous; arrays of at most one element, and ``None``, are returned as they are
    (no layout of them is non-contiguous). Tuples and lists are converted item by item."""
    if array is None:
        return None
    if isinstance(array, (tuple, list)):
        return type(array)(_as_noncontiguous_array(a) for a in array)
    if array.size <= 1:
        return array
    xp = backend.get_array_module(array)
    # Every other element of a buffer twice as long along the last axis that is
    # longer than one: that axis gets a stride of two elements, so the view is
    # neither C- nor F-ordered whatever the other axes are.
    axis = max(i for i, s in enumerate(array.shape) if s > 1)
    wide_shape = list(array.shape)
    wide_shape[axis] *= 2
    wide = xp.empty(tuple(wide_shape), dtype=array.dtype)
    index = [slice(None)] * array.ndim
    index[axis] = slice(None, None, 2)
    view = wide[tuple(index)]
    view[...] = array
    return view


def assert_allclose(x: Any, y: Any, atol: float = 1e-5, rtol: float = 1e-4, verbose: bool = True) -> None:
    """Assert that ``x`` and ``y`` agree elementwise: ``|x - y| <= atol + rtol * |y|``.

    Like ``numpy.testing.assert_allclose`` (the shapes must agree, but a scalar or
    0-dimensional array is compared with every element of the other), but both
    arguments may be NumPy or CuPy arrays, Variables or scalars, and the message
    reports the worst element and its position.
    """
    x_np = _to_numpy(x)
    y_np = _to_numpy(y)
    try:
        numpy.testing.assert_allclose(x_np, y_np, atol=atol, rtol=rtol, verbose=verbose)
    except AssertionError as exc:
        try:
            xb, yb = numpy.broadcast_arrays(x_np, y_np)
        except ValueError:
            raise exc from None
        if not verbose or xb.size == 0 or xb.dtype.kind not in "biuf" or yb.dtype.kind not in "biuf":
            raise
        xf = xb.astype(numpy.float64)
        yf = yb.astype(numpy.float64)
        with numpy.errstate(invalid="ignore", divide="ignore", over="ignore"):
            err = numpy.abs(xf - yf)
            tol = atol + rtol * numpy.abs(yf)
            ratio = numpy.where(tol > 0, err / tol, numpy.inf)
        ratio = numpy.where(numpy.isnan(ratio), numpy.inf, ratio)
        worst = numpy.unravel_index(int(numpy.argmax(ratio)), xb.shape)
        detail = (
            f"\nworst element at index {tuple(int(i) for i in worst)}: x={xf[worst]!r}, y={yf[worst]!r}, "
            f"|x-y|={err[worst]!r} > atol + rtol*|y| = {tol[worst]!r}"
            f"\nx: {x_np.dtype} {x_np.shape}, y: {y_np.dtype} {y_np.shape}"
        )
        raise AssertionError(str(exc) + detail) from None
