"""The public surface of chainermn, and the error when mpi4py is missing."""

from __future__ import annotations

import subprocess
import sys

import chainermn

# The 7.8.1 names (chainer-7.8.1-api.txt, module chainermn and its sub-modules).
API = {
    "chainermn": [
        "CommunicatorBase",
        "DataSizeError",
        "MultiNodeChainList",
        "create_communicator",
        "create_multi_node_checkpointer",
        "create_multi_node_evaluator",
        "create_multi_node_optimizer",
        "scatter_dataset",
        "scatter_index",
    ],
    "chainermn.communicators": ["CommunicatorBase", "create_communicator"],
    "chainermn.datasets": ["DataSizeError", "create_empty_dataset", "scatter_dataset", "scatter_index"],
    "chainermn.extensions": [
        "AllreducePersistent",
        "GenericMultiNodeEvaluator",
        "MultiNodeEarlyStoppingTrigger",
        "ObservationAggregator",
        "create_multi_node_checkpointer",
        "create_multi_node_evaluator",
        "multi_node_snapshot",
    ],
    "chainermn.functions": ["allgather", "alltoall", "bcast", "gather", "pseudo_connect", "recv", "scatter", "send"],
    "chainermn.global_except_hook": ["add_hook"],
    "chainermn.iterators": ["create_multi_node_iterator", "create_synchronized_iterator"],
    "chainermn.links": [
        "MultiNodeBatchNormalization",
        "MultiNodeChainList",
        "create_mnbn_model",
        "create_multi_node_n_step_rnn",
    ],
}


def test_public_names():
    import importlib

    missing = [f"{m}.{n}" for m, names in API.items() for n in names if not hasattr(importlib.import_module(m), n)]
    assert missing == []
    assert chainermn.__version__ == "8.0.0"
    members = [
        "allgather", "allreduce", "allreduce_grad", "allreduce_obj", "alltoall", "bcast", "bcast_data", "bcast_obj",
        "broadcast_data", "config_scope", "finalize", "gather", "gather_obj", "get_config", "inter_rank", "inter_size",
        "intra_rank", "intra_size", "multi_node_mean_grad", "rank", "recv", "recv_obj", "scatter", "send", "send_obj",
        "set_config", "size", "split", "within_config_scope",
    ]  # fmt: skip
    assert [m for m in members if not hasattr(chainermn.CommunicatorBase, m)] == []


def test_import_without_mpi4py_names_the_distribution():
    code = "import sys; sys.modules['mpi4py'] = None; import chainermn"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode != 0
    assert "ImportError" in proc.stderr and "pip install chainer-distributed" in proc.stderr
