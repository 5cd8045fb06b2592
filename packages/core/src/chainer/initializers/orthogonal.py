"""The Orthogonal initializer (Saxe et al., https://arxiv.org/abs/1312.6120)."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import initializer
from chainer.initializers import _util
from chainer.utils import argument

_MODES = ("auto", "projection", "basis", "embedding")


class Orthogonal(initializer.Initializer):
    """Fills an array with ``scale`` times a (semi-)orthogonal matrix.

    The array is viewed as a matrix ``W`` of shape ``(n, d)``: ``n = shape[0]`` vectors of
    dimension ``d = prod(shape[1:])`` (a 0-d array is one vector of dimension 1, a 1-d
    array ``shape[0]`` vectors of dimension 1, as in Chainer 7). A matrix of standard normal samples is
    QR-decomposed, the signs of ``Q``'s columns are fixed so that ``R`` has a non-negative
    diagonal (which makes ``Q`` Haar-distributed, Edelman and Rao 2005), and ``Q`` gives:

    - ``n <= d``: orthonormal rows, ``W @ W.T == scale**2 * I`` (a projection);
    - ``n > d``: orthonormal columns, ``W.T @ W == scale**2 * I`` (an embedding).

    Args:
        scale: Multiplier of the orthogonal matrix.
        dtype: Expected dtype of the target array.
        mode: An assertion on the shape: ``'auto'`` (any shape), ``'projection'``
            (``n <= d``), ``'basis'`` (``n == d``) or ``'embedding'`` (``n >= d``).
        rng: A random generator with a ``normal(loc, scale, size)`` method (keyword only);
            NumPy's global random state by default.
    """

    def __init__(self, scale: float = 1.1, dtype: Any = None, mode: str = "auto", **kwargs: Any) -> None:
        (self.rng,) = argument.parse_kwargs(kwargs, ("rng", None))
        if mode not in _MODES:
            raise ValueError(f"Orthogonal: mode must be one of {_MODES}, got {mode!r}")
        self.scale = _util.check_scale("Orthogonal", scale)
        self.mode = mode
        super().__init__(dtype)

    def _check_mode(self, n: int, d: int, shape: tuple[int, ...]) -> None:
        ok = {"auto": True, "projection": n <= d, "basis": n == d, "embedding": n >= d}[self.mode]
        if not ok:
            relation = {"projection": "<=", "basis": "==", "embedding": ">="}[self.mode]
            raise ValueError(
                f"Orthogonal: mode={self.mode!r} needs shape[0] {relation} prod(shape[1:]), but the shape {shape} "
                f"is {n} vectors of dimension {d}"
            )

    def __call__(self, array: Any) -> None:
        _util.check_floating(self, array)
        n = array.shape[0] if array.ndim else 1
        d = array.size // n if n else int(numpy.prod(array.shape[1:]))
        self._check_mode(n, d, tuple(array.shape))
        if array.size == 0:
            # An empty matrix has no orthonormal rows or columns to give (Chainer 7 refuses too).
            raise ValueError(f"Orthogonal: cannot fill an empty array (shape {tuple(array.shape)})")
        # Q of a tall Gaussian matrix has orthonormal columns; transpose it for wide W. The
        # samples are drawn in W's own shape, as Chainer 7.8.1 draws them, so that a seeded
        # program starts from 7.8.1's numbers.
        a = _util.random_source(self.rng).normal(loc=0.0, scale=1.0, size=(n, d))
        q, r = numpy.linalg.qr(a if n >= d else a.T)
        signs = numpy.sign(numpy.diag(r))
        signs[signs == 0] = 1.0
        q *= signs
        w = q if n >= d else q.T
        _util.fill(array, (self.scale * w).reshape(array.shape))


__all__ = ["Orthogonal"]
