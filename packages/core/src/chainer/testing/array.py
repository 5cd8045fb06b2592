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


def assert_allclose(x: Any, y: Any, atol: float = 1e-5, rtol: float = 1e-4, verbose: bool = True) -> None:
    """Assert that ``x`` and ``y`` agree elementwise: ``|x - y| <= atol + rtol * |y|``.

    Unlike ``numpy.testing.assert_allclose``, both arguments may be NumPy or CuPy arrays
    (or Variables), the shapes must be equal (no broadcasting, except that a 0-d side,
    such as a Python number, is compared with every element, as in Chainer 7.8.1), and
    the message reports the largest errors and their positions.
    """
    x_np = _to_numpy(x)
    y_np = _to_numpy(y)
    if x_np.shape != y_np.shape and x_np.ndim and y_np.ndim:
        raise AssertionError(f"assert_allclose: shapes differ: {x_np.shape} vs {y_np.shape}")
    try:
        numpy.testing.assert_allclose(x_np, y_np, atol=atol, rtol=rtol, verbose=verbose)
    except AssertionError as exc:
        if not verbose or x_np.size == 0:
            raise
        xf, yf = numpy.broadcast_arrays(x_np.astype(numpy.float64), y_np.astype(numpy.float64))
        err = numpy.abs(xf - yf)
        tol = atol + rtol * numpy.abs(yf)
        with numpy.errstate(invalid="ignore", divide="ignore"):
            ratio = numpy.where(tol > 0, err / tol, numpy.inf)
        worst = numpy.unravel_index(numpy.nanargmax(ratio) if numpy.isfinite(ratio).any() else 0, xf.shape)
        detail = (
            f"\nworst element at index {tuple(int(i) for i in worst)}: x={xf[worst]!r}, y={yf[worst]!r}, "
            f"|x-y|={err[worst]!r} > atol + rtol*|y| = {tol[worst]!r}"
            f"\nx dtype {x_np.dtype}, y dtype {y_np.dtype}, shape {xf.shape}"
        )
        raise AssertionError(str(exc) + detail) from None
