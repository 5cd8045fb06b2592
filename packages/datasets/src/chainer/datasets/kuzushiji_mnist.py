"""Kuzushiji-MNIST: 70,000 28x28 images of cursive Japanese (Kuzushiji) characters, 10 classes."""

from __future__ import annotations

from typing import Any

import numpy

from chainer.datasets import _mnist_helper

# (romanisation, character) by label, as in the data set's class map (code points U+304A ...).
_LABELS = (
    ("o", "\u304a"),
    ("ki", "\u304d"),
    ("su", "\u3059"),
    ("tsu", "\u3064"),
    ("na", "\u306a"),
    ("ha", "\u306f"),
    ("ma", "\u307e"),
    ("ya", "\u3084"),
    ("re", "\u308c"),
    ("wo", "\u3092"),
)


def get_kuzushiji_mnist_labels() -> list[tuple[str, str]]:
    """Provides a list of labels for the Kuzushiji-MNIST dataset.

    Returns:
        One ``(romaji, character)`` tuple per label, e.g. ``('o', 'お')`` (U+304A) for
        label 0.
    """
    return list(_LABELS)


def get_kuzushiji_mnist(
    withlabel: bool = True,
    ndim: int = 1,
    scale: float = 1.0,
    dtype: Any = None,
    label_dtype: Any = numpy.int32,
    rgb_format: bool = False,
) -> tuple[Any, Any]:
    """Gets the Kuzushiji-MNIST dataset.

    Downloaded on first use, verified against the published MD5s, and cached under the
    dataset root (``pfnet/chainer/kuzushiji_mnist/train.npz``, ``test.npz``). The
    arguments are those of :func:`get_mnist`.

    Returns:
        ``(train, test)``: 60,000 and 10,000 examples.
    """
    options = (withlabel, ndim, scale, dtype, label_dtype, rgb_format)
    return _mnist_helper.get("get_kuzushiji_mnist", "kuzushiji-mnist", "pfnet/chainer/kuzushiji_mnist", *options)
