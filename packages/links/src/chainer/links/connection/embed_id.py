"""Embedding layer for integer ids."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import chainer
from chainer import functions, initializers, variable
from chainer.links import _checks

_WHERE = "EmbedID"


class EmbedID(chainer.Link):
    """Embedding layer: maps each integer id to a learned vector (a row of ``W``).

    This is a linear layer applied to one-hot vectors, computed without building them
    (:func:`~chainer.functions.embed_id`).

    Args:
        in_size: Number of distinct ids (the vocabulary size); ids are ``0 .. in_size - 1``.
        out_size: Size of each embedding vector.
        initialW: Initializer of ``W`` of shape ``(in_size, out_size)``; ``None`` means
            :class:`~chainer.initializers.Normal` with scale 1.
        ignore_label: An id that gives a zero vector (and no gradient), e.g. ``-1`` for
            padding; ``None`` for none.

    Attributes:
        W (~chainer.Parameter): Embedding matrix.
        ignore_label: The ignored id or ``None``.

    Example:
        >>> embed = L.EmbedID(10, 4, ignore_label=-1)
        >>> embed(np.array([[1, 2], [3, -1]], np.int32)).shape
        (2, 2, 4)
    """

    ignore_label: int | None = None

    def __init__(self, in_size: int, out_size: int, initialW: Any = None, ignore_label: int | None = None) -> None:
        super().__init__()
        in_size = _checks.positive_int(in_size, "in_size", _WHERE)
        out_size = _checks.positive_int(out_size, "out_size", _WHERE)
        if ignore_label is not None and not _checks.is_int(ignore_label):
            raise TypeError(f"{_WHERE}: ignore_label must be an int or None, got {ignore_label!r}")
        self.ignore_label = ignore_label
        init = initializers.Normal(1.0) if initialW is None else _checks.initializer(initialW, "initialW", _WHERE)
        with self.init_scope():
            self.W = chainer.Parameter(init)
        _checks.initialize(self.W, (in_size, out_size), _WHERE)

    @classmethod
    def from_params(cls, W: Any, ignore_label: int | None = None) -> EmbedID:
        """A layer whose embedding matrix starts as a copy of ``W`` (``(in_size,
        out_size)``: a parameter, a variable or an array), on the device of ``W``."""
        w = _checks.param_array(W, "W", _WHERE)
        if w.ndim != 2:
            raise ValueError(f"{_WHERE}.from_params: W must be 2-D (in_size, out_size), got shape {w.shape}")
        link = cls(w.shape[0], w.shape[1], initialW=w, ignore_label=ignore_label)
        return _checks.from_params_link(link, W)

    def forward(self, x: Any) -> variable.Variable:
        """Embed the integer ids ``x`` (any shape ``S``); the output has shape ``S + (out_size,)``."""
        return functions.embed_id(x, self.W, ignore_label=self.ignore_label)

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        yield "in_size", self.W.shape[0]
        yield "out_size", self.W.shape[1]
        yield "ignore_label", self.ignore_label


__all__ = ["EmbedID"]
