"""Data-set utilities: scattering a data set between the processes."""

from chainermn.datasets._scatter import DataSizeError, create_empty_dataset, scatter_dataset, scatter_index

__all__ = ["DataSizeError", "create_empty_dataset", "scatter_dataset", "scatter_index"]
