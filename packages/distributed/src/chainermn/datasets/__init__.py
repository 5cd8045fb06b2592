"""Data-set utilities: scattering a data set between the processes, empty data sets."""

from chainermn.datasets.empty_dataset import create_empty_dataset
from chainermn.datasets.scatter import DataSizeError, scatter_dataset, scatter_index

__all__ = ["DataSizeError", "create_empty_dataset", "scatter_dataset", "scatter_index"]
