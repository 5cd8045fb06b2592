"""Dataset examples (``chainer.datasets``), provided by the ``chainer-datasets`` distribution.

General datasets that give structure to other datasets (:class:`TupleDataset`,
:class:`DictDataset`, :class:`ConcatenatedDataset`, :class:`SubDataset` and the split
functions, :class:`TransformDataset`), domain-specific ones (images, text, pickles) and
the concrete data sets (MNIST, Fashion-MNIST, Kuzushiji-MNIST, CIFAR-10/100, SVHN, Penn
Treebank), downloaded with checksum verification and cached (see ``chainer.dataset``).
"""

from chainer.datasets._version import __version__
from chainer.datasets.cifar import get_cifar10, get_cifar100
from chainer.datasets.concatenated_dataset import ConcatenatedDataset
from chainer.datasets.dict_dataset import DictDataset
from chainer.datasets.fashion_mnist import get_fashion_mnist, get_fashion_mnist_labels
from chainer.datasets.image_dataset import (
    ImageDataset,
    LabeledImageDataset,
    LabeledZippedImageDataset,
    MultiZippedImageDataset,
    ZippedImageDataset,
)
from chainer.datasets.kuzushiji_mnist import get_kuzushiji_mnist, get_kuzushiji_mnist_labels
from chainer.datasets.mnist import get_mnist
from chainer.datasets.pickle_dataset import (
    PickleDataset,
    PickleDatasetWriter,
    open_pickle_dataset,
    open_pickle_dataset_writer,
)
from chainer.datasets.ptb import get_ptb_words, get_ptb_words_vocabulary
from chainer.datasets.sub_dataset import (
    SubDataset,
    get_cross_validation_datasets,
    get_cross_validation_datasets_random,
    split_dataset,
    split_dataset_n,
    split_dataset_n_random,
    split_dataset_random,
)
from chainer.datasets.svhn import get_svhn
from chainer.datasets.text_dataset import TextDataset
from chainer.datasets.transform_dataset import TransformDataset
from chainer.datasets.tuple_dataset import TupleDataset

__all__ = [
    "ConcatenatedDataset",
    "DictDataset",
    "ImageDataset",
    "LabeledImageDataset",
    "LabeledZippedImageDataset",
    "MultiZippedImageDataset",
    "PickleDataset",
    "PickleDatasetWriter",
    "SubDataset",
    "TextDataset",
    "TransformDataset",
    "TupleDataset",
    "ZippedImageDataset",
    "get_cifar10",
    "get_cifar100",
    "get_cross_validation_datasets",
    "get_cross_validation_datasets_random",
    "get_fashion_mnist",
    "get_fashion_mnist_labels",
    "get_kuzushiji_mnist",
    "get_kuzushiji_mnist_labels",
    "get_mnist",
    "get_ptb_words",
    "get_ptb_words_vocabulary",
    "get_svhn",
    "open_pickle_dataset",
    "open_pickle_dataset_writer",
    "split_dataset",
    "split_dataset_n",
    "split_dataset_n_random",
    "split_dataset_random",
]
