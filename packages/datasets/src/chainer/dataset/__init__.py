"""Dataset abstraction (``chainer.dataset``), provided by the ``chainer-datasets`` distribution.

Three components: datasets (anything with ``__getitem__`` and ``__len__``;
:class:`DatasetMixin` and :class:`TabularDataset` help to write one), iterators (the
:class:`Iterator` interface; implementations in ``chainer.iterators``) and converters
(:func:`concat_examples` turns a list of examples into arrays on a device). It also
manages the download cache of the concrete data sets in ``chainer.datasets``.
"""

from chainer.dataset import convert, dataset_mixin, download, iterator, tabular
from chainer.dataset.convert import (
    ConcatWithAsyncTransfer,
    Converter,
    concat_examples,
    converter,
    to_device,
)
from chainer.dataset.dataset_mixin import DatasetMixin
from chainer.dataset.download import (
    ChecksumError,
    DownloadError,
    IncompleteDownloadError,
    cache_or_load_file,
    cached_download,
    get_dataset_directory,
    get_dataset_root,
    override_checksums,
    set_dataset_mirror,
    set_dataset_root,
)
from chainer.dataset.iterator import Iterator
from chainer.dataset.tabular.tabular_dataset import TabularDataset

__all__ = [
    "ChecksumError",
    "ConcatWithAsyncTransfer",
    "Converter",
    "DatasetMixin",
    "DownloadError",
    "IncompleteDownloadError",
    "Iterator",
    "TabularDataset",
    "cache_or_load_file",
    "cached_download",
    "concat_examples",
    "converter",
    "get_dataset_directory",
    "get_dataset_root",
    "override_checksums",
    "set_dataset_mirror",
    "set_dataset_root",
    "tabular",
    "to_device",
]
