"""Tabular datasets: named columns, column-wise access, cheap views.

``TabularDataset`` is the base class; ``from_data`` builds one from lists, arrays and
functions; ``DelegateDataset`` helps to write a dataset class that wraps another.
"""

from chainer.dataset.tabular import delegate_dataset, tabular_dataset
from chainer.dataset.tabular.delegate_dataset import DelegateDataset
from chainer.dataset.tabular.from_data import from_data

__all__ = ["DelegateDataset", "from_data"]
