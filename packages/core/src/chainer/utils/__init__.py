"""Small utilities shared by functions, links and user code."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

import numpy

from chainer.utils import argument, conv, type_check
from chainer.utils._collections import collections_abc
from chainer.utils._temporaries import make_temporary, remove_stale_temporaries
from chainer.utils.conv import get_conv_outsize, get_deconv_outsize

# The function replaces the module of the same name as the package attribute (the
# module stays importable as chainer.utils.experimental).
from chainer.utils.experimental import experimental

# Likewise: chainer.utils.nondeterministic is the function, as in Chainer.
from chainer.utils.nondeterministic import nondeterministic

_ndarray = numpy.ndarray


def force_array(x: Any, dtype: Any = None) -> Any:
    """Return ``x`` as an array: NumPy turns 0-dimensional results into scalars, and
    functions must return arrays.

    Args:
        x: An array or a NumPy scalar.
        dtype: If given, the result has this dtype.
    """
    if type(x) is _ndarray and dtype is None:
        return x
    if isinstance(x, numpy.generic) or not hasattr(x, "ndim"):
        return numpy.asarray(x, dtype=dtype)
    if dtype is not None and x.dtype != dtype:
        return x.astype(dtype, copy=False)
    return x


def force_type(dtype: Any, value: Any) -> Any:
    """Cast a scalar or array ``value`` to ``dtype`` (a no-op if it already has it)."""
    if numpy.isscalar(value):
        return numpy.dtype(dtype).type(value)
    if value.dtype != dtype:
        return value.astype(dtype, copy=False)
    return value


def size_of_shape(shape: Any) -> int:
    """Number of elements of an array of this shape (``1`` for ``()``)."""
    size = 1
    for s in shape:
        size *= int(s)
    return size


def sum_to(x: Any, shape: tuple[int, ...]) -> Any:
    """Sum the array ``x`` down to ``shape`` (undoing NumPy broadcasting)."""
    if x.shape == shape:
        return x
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and x.shape[i + lead] != 1)
    y = x.sum(axis=axes, keepdims=True)
    if lead:
        y = y.reshape(y.shape[lead:])
    return y


@contextlib.contextmanager
def tempdir(**kwargs: Any) -> Iterator[str]:
    """A temporary directory for the block, removed with its contents afterwards.

    Keyword arguments go to :func:`tempfile.mkdtemp` (``suffix``, ``prefix``, ``dir``).

    Example:
        >>> import os
        >>> with chainer.utils.tempdir() as path:
        ...     os.path.isdir(path)
        True
    """
    path = tempfile.mkdtemp(**kwargs)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


# Last: these modules import chainer.backend, which imports this package; the helpers
# above must exist by then. (Written out, so that type checkers see them.)
from chainer.utils.sparse import CooMatrix, get_order, to_coo
from chainer.utils.walker_alias import WalkerAlias

__all__ = [
    "CooMatrix",
    "WalkerAlias",
    "collections_abc",
    "experimental",
    "force_array",
    "force_type",
    "get_conv_outsize",
    "get_deconv_outsize",
    "get_order",
    "make_temporary",
    "remove_stale_temporaries",
    "size_of_shape",
    "sum_to",
    "tempdir",
    "to_coo",
]
