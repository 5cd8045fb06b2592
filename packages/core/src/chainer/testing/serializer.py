"""Round trips through the serializers, for tests of serializable objects."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from typing import Any


def save_and_load(src: Any, dst: Any, filename: str, saver: Callable[..., Any], loader: Callable[..., Any]) -> None:
    """Saves ``src`` and loads it to ``dst`` using a de/serializer.

    Calls ``saver(filename, src)`` then ``loader(filename, dst)``.

    Args:
        src: The object to save (a link, an optimizer, ...).
        dst: The object to load into.
        filename: The file to write.
        saver: For example :func:`chainer.serializers.save_npz`.
        loader: For example :func:`chainer.serializers.load_npz`.
    """
    saver(filename, src)
    loader(filename, dst)


def _round_trip(src: Any, dst: Any, suffix: str, saver: Callable[..., Any], loader: Callable[..., Any]) -> None:
    directory = tempfile.mkdtemp(prefix="chainer-test-")
    try:
        save_and_load(src, dst, os.path.join(directory, f"object{suffix}"), saver, loader)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def save_and_load_npz(src: Any, dst: Any) -> None:
    """Saves ``src`` to an NPZ file and loads it to ``dst``.

    The file lives in a temporary directory removed afterwards.
    """
    from chainer.serializers import npz

    _round_trip(src, dst, ".npz", npz.save_npz, npz.load_npz)


def save_and_load_hdf5(src: Any, dst: Any) -> None:
    """Saves ``src`` to an HDF5 file and loads it to ``dst`` (needs h5py).

    The file lives in a temporary directory removed afterwards.
    """
    from chainer.serializers import hdf5

    _round_trip(src, dst, ".h5", hdf5.save_hdf5, hdf5.load_hdf5)


__all__ = ["save_and_load", "save_and_load_hdf5", "save_and_load_npz"]
