"""Kuzushiji-MNIST: 70,000 28x28 images of cursive Japanese (Kuzushiji) characters, 10 classes."""

from __future__ import annotations

from typing import Any

import numpy

from chainer.datasets import _mnist_format

# (romanisation, Unicode code point) by label, as in the data set's class map.
_LABELS = (
    ("o", "U+304A"),
    ("ki", "U+304D"),
    ("su", "U+3059"),
    ("tsu", "U+3064"),
    ("na", "U+306A"),
    ("ha", "U+306F"),
    ("ma", "U+307E"),
    ("ya", "U+3084"),
    ("re", "U+308C"),
    ("wo", "U+3092"),
)


def get_kuzushiji_mnist_labels() -> list[tuple[str, str]]:
    """Provides a list of labels for the Kuzushiji-MNIST dataset.

    Returns:
        One ``(romaji, code point)`` tuple per label, e.g. ``('o', 'U+304A')`` for
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
    return _mnist_format.get("get_kuzushiji_mnist", "kuzushiji-mnist", "pfnet/chainer/kuzushiji_mnist", *options)
