"""Saving and loading objects: NPZ (always available) and HDF5 (with h5py).

Keys and file layouts are those of Chainer 7.8.1, so files go both ways. Loading never
unpickles, validates the whole file before changing anything, and saving writes files
atomically.
"""

from chainer.serializers.hdf5 import HDF5Deserializer, HDF5Serializer, load_hdf5, save_hdf5
from chainer.serializers.npz import DictionarySerializer, NpzDeserializer, load_npz, save_npz

__all__ = [
    "DictionarySerializer",
    "HDF5Deserializer",
    "HDF5Serializer",
    "NpzDeserializer",
    "load_hdf5",
    "load_npz",
    "save_hdf5",
    "save_npz",
]
