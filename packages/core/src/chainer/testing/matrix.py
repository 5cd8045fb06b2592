"""``generate_matrix``: random matrices with given singular values (for tests of
linear-algebra functions whose conditioning must be controlled)."""

from __future__ import annotations

from typing import Any

import numpy


def _broadcast_to(array: Any, shape: tuple[int, ...]) -> Any:
    """``array`` broadcast to ``shape``, as a ValueError naming generate_matrix if it cannot be."""
    try:
        return numpy.broadcast_to(array, shape)
    except ValueError:
        raise ValueError(
            f"generate_matrix: singular_values of shape {numpy.shape(array)} do not broadcast to {shape}"
        ) from None


def _random_unitary(batch: tuple[int, ...], n: int, dtype: numpy.dtype) -> Any:
    """Random unitary (orthogonal for real dtypes) matrices of shape ``batch + (n, n)``."""
    a = numpy.random.standard_normal(batch + (n, n))
    if dtype.kind == "c":
        a = a + 1j * numpy.random.standard_normal(batch + (n, n))
    q, r = numpy.linalg.qr(a)
    # Fix the phases so that the distribution is uniform (Haar), not biased by QR's signs.
    d = numpy.diagonal(r, axis1=-2, axis2=-1)
    phase = numpy.where(d == 0, 1, d / numpy.where(d == 0, 1, numpy.abs(d)))
    return q * phase[..., None, :]


def generate_matrix(shape: tuple[int, ...], dtype: Any = float, **kwargs: Any) -> numpy.ndarray:
    """A random array of matrices whose singular values are given.

    Args:
        shape: ``(..., M, N)``: the batch shape and the matrix shape.
        dtype: A floating-point or complex dtype.
        singular_values: Keyword-only and required: non-negative real values of shape
            broadcastable to ``(..., min(M, N))``.

    Returns:
        numpy.ndarray: ``U @ diag(s) @ V^H`` with random unitary ``U`` and ``V``.
    """
    if "singular_values" not in kwargs:
        raise TypeError("generate_matrix: the keyword argument singular_values is required")
    singular_values = kwargs.pop("singular_values")
    if kwargs:
        raise TypeError(f"generate_matrix: unexpected keyword arguments {sorted(kwargs)}")
    shape = tuple(int(s) for s in shape)
    if len(shape) < 2:
        raise ValueError(f"generate_matrix: shape must have at least two axes, got {shape}")
    dtype = numpy.dtype(dtype)
    if dtype.kind not in "fc":
        raise TypeError(f"generate_matrix: dtype must be a floating-point or complex dtype, got {dtype}")
    s = numpy.asarray(singular_values)
    if s.dtype.kind not in "biuf":
        raise TypeError(f"generate_matrix: singular_values must be real, got dtype {s.dtype}")
    if (s < 0).any():
        raise ValueError("generate_matrix: singular_values must be non-negative")
    *batch_list, m, n = shape
    batch = tuple(batch_list)
    k = min(m, n)
    s = _broadcast_to(s, batch + (k,))
    if 0 in shape:
        return numpy.zeros(shape, dtype)
    u = _random_unitary(batch, m, dtype)[..., :k]
    v = _random_unitary(batch, n, dtype)[..., :k]
    x = (u * s[..., None, :]) @ numpy.swapaxes(v.conj(), -1, -2)
    if dtype.kind == "f":
        x = x.real
    return x.astype(dtype)
