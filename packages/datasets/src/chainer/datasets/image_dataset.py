"""Datasets of image files (read with Pillow), from a directory or from zip archives.

Every image comes out as an array in CHW layout (channels, height, width) of
``chainer.config.dtype`` by default, with the pixel values of the file (0-255 for 8-bit
images, not rescaled). A grayscale image has one channel.
"""

from __future__ import annotations

import importlib.util
import io
import os
import threading
import zipfile
from collections.abc import Sequence
from typing import Any

import numpy

import chainer
from chainer.dataset import dataset_mixin

#: Whether Pillow, which reads the images, is installed (it is a dependency of
#: chainer-datasets; found without importing it, to keep ``import chainer.datasets`` light).
available: bool = importlib.util.find_spec("PIL") is not None


def _check_pillow_availability() -> None:
    if not available:
        raise ImportError(
            "the image datasets of chainer.datasets read images with Pillow, which is not installed: pip install pillow"
        )


def _read_image_as_array(source: Any, dtype: numpy.dtype, where: str, name: str) -> numpy.ndarray:
    _check_pillow_availability()
    from PIL import Image

    try:
        with Image.open(source) as image:
            array = numpy.asarray(image, dtype=dtype)
    except (OSError, ValueError, SyntaxError) as exc:
        raise OSError(f"{where}: cannot read the image {name}: {exc}") from exc
    if array.ndim == 2:
        return array[numpy.newaxis]
    return array.transpose(2, 0, 1)


def _read_pairs_file(path: str, where: str) -> list[tuple[str, str]]:
    pairs = []
    with open(path, encoding="utf-8") as f:
        for line_number, line in enumerate(f, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 2:
                raise ValueError(
                    f"{where}: line {line_number} of {path} must be '<path> <label>', got {line.rstrip()!r}"
                )
            pairs.append((fields[0], fields[1]))
    return pairs


class ImageDataset(dataset_mixin.DatasetMixin):
    """Dataset of images built from a list of paths to image files.

    Example ``i`` is the ``i``-th image as an array of shape ``(channels, height,
    width)``.

    Args:
        paths: A list of paths, or the path of a text file with one image path per line.
        root: The directory the paths are relative to.
        dtype: The dtype of the arrays (default ``chainer.config.dtype``).

    Example:
        >>> import os
        >>> from PIL import Image
        >>> from chainer.datasets import ImageDataset
        >>> os.makedirs('images', exist_ok=True)
        >>> Image.new('RGB', (32, 32), 'orange').save('images/cat.png')
        >>> Image.new('RGB', (32, 32), 'gray').save('images/dog.jpg')
        >>> ds = ImageDataset(['cat.png', 'dog.jpg'], root='images')
        >>> ds[0].shape
        (3, 32, 32)
    """

    def __init__(self, paths: str | Sequence[str], root: str = ".", dtype: Any = None) -> None:
        if isinstance(paths, (str, os.PathLike)):
            with open(paths, encoding="utf-8") as f:
                paths = [line.strip() for line in f if line.strip()]
        self._paths = list(paths)
        self._root = root
        self._dtype = chainer.get_dtype(dtype)

    def __len__(self) -> int:
        return len(self._paths)

    def get_example(self, i: int) -> numpy.ndarray:
        path = os.path.join(self._root, self._paths[dataset_mixin.normalize_index(self, i, len(self))])
        return _read_image_as_array(path, self._dtype, "ImageDataset", path)


class LabeledImageDataset(dataset_mixin.DatasetMixin):
    """Dataset of image and label pairs built from a list of paths and labels.

    Example ``i`` is ``(image, label)``: the image as an array of shape ``(channels,
    height, width)`` and the label as a 0-dimensional array of ``label_dtype``.

    Args:
        pairs: A list of ``(path, label)`` pairs, or the path of a text file whose lines
            are ``<path> <label>`` (separated by white space).
        root: The directory the paths are relative to.
        dtype: The dtype of the images (default ``chainer.config.dtype``).
        label_dtype: The dtype of the labels.
    """

    def __init__(
        self, pairs: str | Sequence[tuple[str, Any]], root: str = ".", dtype: Any = None, label_dtype: Any = numpy.int32
    ) -> None:
        if isinstance(pairs, (str, os.PathLike)):
            pairs = _read_pairs_file(os.fspath(pairs), "LabeledImageDataset")
        self._pairs = list(pairs)
        self._root = root
        self._dtype = chainer.get_dtype(dtype)
        self._label_dtype = label_dtype

    def __len__(self) -> int:
        return len(self._pairs)

    def get_example(self, i: int) -> tuple[numpy.ndarray, numpy.ndarray]:
        path, label = self._pairs[dataset_mixin.normalize_index(self, i, len(self))]
        full_path = os.path.join(self._root, path)
        image = _read_image_as_array(full_path, self._dtype, "LabeledImageDataset", full_path)
        return image, numpy.array(label, dtype=self._label_dtype)


class _ZipReader:
    """A zip file opened once per process (a ``ZipFile`` cannot cross ``fork`` safely,
    and is not picklable), readable from several threads."""

    def __init__(self, path: str) -> None:
        self.path = os.fspath(path)
        self._pid: int | None = None
        self._zip: zipfile.ZipFile | None = None
        self._lock = threading.Lock()

    def _file(self) -> zipfile.ZipFile:
        if self._zip is None or self._pid != os.getpid():
            self._zip = zipfile.ZipFile(self.path)
            self._pid = os.getpid()
        return self._zip

    def names(self) -> list[str]:
        with self._lock:
            return [info.filename for info in self._file().infolist() if not info.is_dir()]

    def read(self, name: str) -> bytes:
        with self._lock:
            return self._file().read(name)

    def close(self) -> None:
        with self._lock:
            if self._zip is not None and self._pid == os.getpid():
                self._zip.close()
            self._zip = None

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"])  # type: ignore[misc]


class ZippedImageDataset(dataset_mixin.DatasetMixin):
    """Dataset of images built from a zip file.

    The examples are the files of the archive (directories skipped), in the archive's
    order, as arrays of shape ``(channels, height, width)``. The archive is reopened in
    each process, so the dataset works with ``MultiprocessIterator``.

    Args:
        zipfilename: The path of the zip file.
        dtype: The dtype of the arrays (default ``chainer.config.dtype``).
    """

    def __init__(self, zipfilename: str, dtype: Any = None) -> None:
        self._reader = _ZipReader(zipfilename)
        self._paths = self._reader.names()
        self._dtype = chainer.get_dtype(dtype)

    def __len__(self) -> int:
        return len(self._paths)

    def paths(self) -> list[str]:
        """The names of the images in the archive, in example order."""
        return list(self._paths)

    def get_example(self, i_or_filename: Any) -> numpy.ndarray:
        if isinstance(i_or_filename, str):
            name = i_or_filename
        else:
            name = self._paths[dataset_mixin.normalize_index(self, i_or_filename, len(self))]
        try:
            data = self._reader.read(name)
        except KeyError:
            raise KeyError(f"ZippedImageDataset: no file {name!r} in {self._reader.path}") from None
        return _read_image_as_array(
            io.BytesIO(data), self._dtype, "ZippedImageDataset", f"{name} in {self._reader.path}"
        )

    def close(self) -> None:
        """Close the archive (it is reopened if the dataset is used again)."""
        self._reader.close()


class MultiZippedImageDataset(dataset_mixin.DatasetMixin):
    """Dataset of images built from a list of paths to zip files.

    The images of all archives, one archive after the other.

    Args:
        zipfilenames: The paths of the zip files.
        dtype: The dtype of the arrays (default ``chainer.config.dtype``).
    """

    def __init__(self, zipfilenames: Sequence[str], dtype: Any = None) -> None:
        self._datasets = [ZippedImageDataset(name, dtype) for name in zipfilenames]
        self._ends = numpy.cumsum([len(d) for d in self._datasets]).tolist()

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def get_example(self, i: int) -> numpy.ndarray:
        import bisect

        i = dataset_mixin.normalize_index(self, i, len(self))
        j = bisect.bisect_right(self._ends, i)
        start = self._ends[j - 1] if j else 0
        return self._datasets[j].get_example(i - start)


class LabeledZippedImageDataset(dataset_mixin.DatasetMixin):
    """Dataset of zipped image and label pairs.

    Args:
        zipfilename: The zip file holding the images.
        labelfilename: A text file (outside the archive) whose lines are
            ``<path in the archive> <label>``.
        dtype: The dtype of the images (default ``chainer.config.dtype``).
        label_dtype: The dtype of the labels.
    """

    def __init__(self, zipfilename: str, labelfilename: str, dtype: Any = None, label_dtype: Any = numpy.int32) -> None:
        self._images = ZippedImageDataset(zipfilename, dtype)
        self._pairs = _read_pairs_file(os.fspath(labelfilename), "LabeledZippedImageDataset")
        self._label_dtype = label_dtype

    def __len__(self) -> int:
        return len(self._pairs)

    def get_example(self, i: int) -> tuple[numpy.ndarray, numpy.ndarray]:
        path, label = self._pairs[dataset_mixin.normalize_index(self, i, len(self))]
        return self._images.get_example(path), numpy.array(label, dtype=self._label_dtype)
