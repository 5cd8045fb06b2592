"""Communicators: creation and registry in this process; every collective under
``mpiexec -n 2`` and ``-n 3`` against NumPy references."""

from __future__ import annotations

import numpy
import pytest

import chainer
import chainermn
from chainer import plugins
from chainermn import communicators
from chainermn.communicators import pure_nccl_communicator

_NCCL_MISSING = pure_nccl_communicator._nccl_missing_reason()
needs_no_nccl = pytest.mark.skipif(_NCCL_MISSING is None, reason="CuPy with NCCL and a GPU are available here")


@needs_no_nccl
def test_default_pure_nccl_without_gpu_says_what_to_do():
    with pytest.raises(communicators.NcclUnavailableError) as info:
        chainermn.create_communicator()
    message = str(info.value)
    assert "CuPy" in message and "'naive'" in message and "'flat'" in message


@needs_no_nccl
@pytest.mark.parametrize("name", ["pure_nccl", "non_cuda_aware"])
def test_nccl_communicators_need_cupy(name):
    with pytest.raises(RuntimeError, match="needs CuPy with NCCL"):
        chainermn.create_communicator(name)


def test_unknown_and_removed_names():
    with pytest.raises(ValueError, match="unknown communicator 'nope'.*'naive'"):
        chainermn.create_communicator("nope")
    with pytest.raises(ValueError, match="removed in Chainer v7"):
        chainermn.create_communicator("hierarchical")
    with pytest.raises(TypeError, match="communicator_name must be a str"):
        chainermn.create_communicator(3)


def test_bad_arguments():
    with pytest.raises(ValueError, match="allreduce_grad_dtype is only available with the 'pure_nccl'"):
        chainermn.create_communicator("naive", allreduce_grad_dtype=numpy.float16)
    with pytest.raises(TypeError, match="unexpected keyword"):
        chainermn.create_communicator("flat", foo=1)
    with pytest.raises(TypeError, match="mpi4py communicator"):
        chainermn.create_communicator("naive", mpi_comm=object())


@pytest.mark.parametrize("name", ["naive", "flat", "dummy"])
def test_single_process(name):
    comm = chainermn.create_communicator(name)
    assert isinstance(comm, chainermn.CommunicatorBase)
    assert (comm.rank, comm.size, comm.intra_rank, comm.intra_size, comm.inter_rank, comm.inter_size) == (
        0,
        1,
        0,
        1,
        0,
        1,
    )
    x = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    numpy.testing.assert_array_equal(comm.allreduce(x), x)
    with pytest.raises(ValueError, match=r"dest must be a rank in \[0, 1\)"):
        comm.send(x, 3, 0)
    with pytest.raises(TypeError, match="expected a numpy.ndarray"):
        comm.allreduce([1, 2])
    with pytest.raises(ValueError, match="unknown configuration 'x'"):
        comm.set_config("x", value=1)
    with pytest.raises(ValueError, match="unknown configuration 'x'"):
        comm.get_config("x")
    assert not comm.within_config_scope
    with comm.config_scope():
        assert comm.within_config_scope
    with pytest.warns(DeprecationWarning, match="multi_node_mean_grad"):
        comm.allreduce_grad(chainer.Link())


@pytest.mark.parametrize("name", ["naive", "flat", "dummy"])
def test_configurations_are_attributes(name):
    # Chainer 7.8.1's interface: batched_copy (default True) on every MPI communicator;
    # set_config takes the value positionally and defaults it to True; attributes
    # assigned inside config_scope() become configurations.
    comm = chainermn.create_communicator(name)
    assert comm.batched_copy is True and comm.get_config() == {"batched_copy": True}
    comm.set_config("batched_copy", False)
    assert comm.batched_copy is False and comm.get_config("batched_copy") is False
    comm.set_config("batched_copy")
    assert comm.batched_copy is True
    with comm.config_scope():
        comm.foobar = "0xdeadbeef"
    assert comm.get_config("foobar") == "0xdeadbeef" == comm.foobar
    comm.plain = 1  # outside the scope: an ordinary attribute
    assert "plain" not in comm.get_config()
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        comm.nothing  # noqa: B018


def test_configurations_of_a_split_communicator_are_copied():
    comm = chainermn.create_communicator("naive")
    comm.set_config("batched_copy", False)
    sub = comm.split(0, 0)
    assert sub.get_config() == {"batched_copy": False} and type(sub) is type(comm)
    sub.set_config("batched_copy", True)
    assert comm.batched_copy is False
    sub.finalize()


def test_chunked_bcast_obj_checks_the_piece_length():
    from mpi4py import MPI

    from chainermn.communicators._communication_utility import INT_MAX, chunked_bcast_obj

    obj = {"a": list(range(1000)), "b": numpy.arange(5)}
    for max_buf_len in (1, 7, 4096, INT_MAX - 1):
        got = chunked_bcast_obj(obj, MPI.COMM_WORLD, max_buf_len)
        assert got["a"] == obj["a"] and numpy.array_equal(got["b"], obj["b"])
    for bad in (0, -1, INT_MAX):
        # A ValueError, and an AssertionError as in Chainer 7.8.1.
        with pytest.raises(ValueError, match=rf"max_buf_len must be in \[1, {INT_MAX}\), got {bad}"):
            chunked_bcast_obj(obj, MPI.COMM_WORLD, bad)
        with pytest.raises(AssertionError):
            chunked_bcast_obj(obj, MPI.COMM_WORLD, bad)


def test_messages_to_oneself_wait_in_the_communicator():
    comm = chainermn.create_communicator("naive")
    x = numpy.arange(6.0).reshape(2, 3)[:, ::2]  # not contiguous
    comm.send(x, 0, tag=3)
    comm.send((x, numpy.float32(2)), 0, tag=4)
    x[...] = -1  # the message holds a copy, as one through MPI would
    a, b = comm.recv(0, tag=4)
    numpy.testing.assert_array_equal(comm.recv(0, tag=3), [[0.0, 2.0], [3.0, 5.0]])
    assert a.flags.c_contiguous and b == 2
    comm.send_obj({"k": [1, 2]}, 0, tag=5)
    assert comm.recv_obj(0, tag=5) == {"k": [1, 2]}
    comm.send_obj("any tag", 0)
    assert comm.recv_obj(0) == "any tag"
    with pytest.raises(RuntimeError, match="nothing was sent by this process \\(rank 0\\) to itself with tag 3"):
        comm.recv(0, tag=3)
    comm.send(x, 0, tag=6)
    with pytest.raises(TypeError, match="sent to itself is arrays \\(send\\), not an object"):
        comm.recv_obj(0, tag=6)


def test_builtin_names_are_registered_through_the_hook():
    for name in ("naive", "flat", "pure_nccl", "non_cuda_aware", "dummy"):
        assert communicators.registered_communicators.origin(name) == "chainermn.builtin_communicators"


def test_third_party_communicator_through_the_hook():
    class MyComm(communicators.NaiveCommunicator):
        pass

    class Plugin:
        @plugins.hookimpl
        def chainer_register_communicators(self, register):
            register("mine", MyComm)

    plugin = Plugin()
    plugins.register(plugin, name="test-mine")
    try:
        assert isinstance(chainermn.create_communicator("mine"), MyComm)
    finally:
        plugins.unregister(name="test-mine")
    with pytest.raises(ValueError, match="unknown communicator 'mine'"):
        chainermn.create_communicator("mine")


def test_plugin_cannot_replace_a_builtin():
    class Plugin:
        @plugins.hookimpl
        def chainer_register_communicators(self, register):
            register("naive", communicators.FlatCommunicator)

    plugins.register(Plugin(), name="test-replace")
    try:
        with pytest.warns(plugins.PluginWarning, match="built-in communicator"):
            comm = chainermn.create_communicator("naive")
        assert type(comm) is communicators.NaiveCommunicator
    finally:
        plugins.unregister(name="test-replace")


COLLECTIVES = """
def ref(r):  # what process r contributes, computable on every process
    return numpy.arange(6, dtype=numpy.float64).reshape(2, 3) * (r + 1) - r
x = ref(rank)
total = sum(ref(r) for r in range(size))
for dtype in (numpy.float16, numpy.float32, numpy.float64, numpy.int32, numpy.bool_):
    y = comm.allreduce(x.astype(dtype))
    assert y.dtype == (numpy.int64 if dtype == numpy.bool_ else dtype), (dtype, y.dtype)
    expected = sum(ref(r).astype(dtype).astype(numpy.float64) for r in range(size))
    assert_allclose(y.astype(numpy.float64), expected)
ys = comm.allgather(x.astype(numpy.float32))
assert len(ys) == size and all(numpy.array_equal(ys[r], ref(r).astype(numpy.float32)) for r in range(size))
ys = comm.allgather(numpy.full(rank + 1, rank, dtype=numpy.int8 if rank else numpy.float64))  # shapes, dtypes differ
assert [y.tolist() for y in ys] == [[r] * (r + 1) for r in range(size)]
assert [y.dtype for y in ys] == [numpy.float64] + [numpy.int8] * (size - 1)
expect_error(ValueError, "must agree on the shape and dtype", comm.allreduce, numpy.zeros(rank + 1))
root = size - 1
y = comm.bcast(x if rank == root else None, root=root)
assert_array_equal(y, ref(root))
y = comm.bcast(x.astype(numpy.float16) if rank == 0 else None, max_buf_len=5)
assert y.dtype == numpy.float16 and numpy.array_equal(y, ref(0).astype(numpy.float16))
g = comm.gather(numpy.full(rank + 1, rank, numpy.int16), root=1)
if rank == 1:
    assert [a.tolist() for a in g] == [[r] * (r + 1) for r in range(size)]
else:
    assert g is None
xs = [numpy.full((r, 2), r, numpy.float32) for r in range(size)] if rank == 0 else None
y = comm.scatter(xs)
assert y.shape == (rank, 2) and (y == rank).all()
ys = comm.alltoall([numpy.full(r + 1, 10 * rank + r) for r in range(size)])
assert [a.tolist() for a in ys] == [[10 * s + rank] * (rank + 1) for s in range(size)]
expect_error(ValueError, "one per process", comm.alltoall, [x])
# point to point, tuples and 0-d arrays
if rank == 0:
    comm.send((x, numpy.float32(3)), 1, 5)
    comm.send_obj({"big": list(range(1000))}, 1, 6)
elif rank == 1:
    a, b = comm.recv(0, 5)
    assert_array_equal(a, ref(0))
    assert b.shape == () and b == 3
    assert comm.recv_obj(0, 6) == {"big": list(range(1000))}
# an object of any tag, with the status of its message
if rank == 0:
    comm.send_obj("any", 1, tag=9)
elif rank == 1:
    from mpi4py import MPI
    status = MPI.Status()
    assert comm.recv_obj(0, status=status) == "any"
    assert (status.Get_source(), status.Get_tag()) == (0, 9)
assert comm.bcast_obj({"r": rank} if rank == 0 else None, max_buf_len=3) == {"r": 0}
assert comm.gather_obj(rank * 2, root=0) == ([2 * r for r in range(size)] if rank == 0 else None)
assert comm.allreduce_obj(rank + 1) == size * (size + 1) // 2
# every process on this machine: one node
assert (comm.intra_rank, comm.intra_size, comm.inter_rank, comm.inter_size) == (rank, size, 0, 1)
sub = comm.split(rank % 2, -rank)
members = [r for r in range(size) if r % 2 == rank % 2]
assert sub.size == len(members) and sub.rank == sorted(members, reverse=True).index(rank)
assert type(sub) is type(comm)
assert sub.allreduce(numpy.array([rank])).tolist() == [sum(members)]
sub.finalize()
# gradient mean: zero_fill, mismatch detection, dtypes
class M(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.a = chainer.Parameter(numpy.zeros((2, 3), numpy.float32))
            self.b = chainer.Parameter(numpy.zeros(4, numpy.float16))
            self.c = chainer.Parameter(numpy.zeros(2, numpy.float64))
            self.lazy = chainer.Parameter()
m = M()
m.lazy.cleargrad()  # an uninitialized parameter's gradient is unreadable until cleared (Chainer 7)
m.a.grad = ref(rank).astype(numpy.float32)
m.b.grad = numpy.full(4, rank + 1, numpy.float16)
m.c.grad = None if rank == 0 else numpy.full(2, 3.0)
comm.multi_node_mean_grad(m, zero_fill=True)
assert_allclose(m.a.grad, total / size, rtol=1e-6)
assert m.b.grad.dtype == numpy.float16 and numpy.allclose(m.b.grad, (size + 1) / 2)
assert_allclose(m.c.grad, numpy.full(2, 3.0 * (size - 1) / size))
assert m.lazy.grad is None
m.c.grad = None if rank == 0 else numpy.full(2, 3.0)
expect_error(ValueError, "different sets of gradients", comm.multi_node_mean_grad, m)
expect_error(ValueError, "rank 1 has ['/c'] that rank 0 lacks", comm.multi_node_mean_grad, m)
# the same names but another shape on the last process: the message says which and how
m.c.grad = numpy.full(2, 3.0)
if rank == size - 1:
    m.a.array = numpy.zeros((3, 2), numpy.float32)
    m.a.grad = numpy.zeros((3, 2), numpy.float32)
shapes = ", ".join(f"rank {r} {(3, 2) if r == size - 1 else (2, 3)} float32" for r in range(size))
expect_error(ValueError, f"differ in shape or dtype between the processes (do they build the same model?): '/a': {shapes}", comm.multi_node_mean_grad, m)
# bcast_data copies rank 0's parameters and initializes lazy ones
m2 = M()
m2.a.array[...] = rank + 7
if rank == 0:
    m2.lazy.initialize((3,))
    m2.lazy.array[...] = 5
comm.bcast_data(m2)
assert (m2.a.array == 7).all() and m2.lazy.array.tolist() == [5, 5, 5]
# an argument that is unusable on one process raises on every process (no hang: the
# test's timeout catches one); the processes stay in step afterwards
last = size - 1
bad = "not an array"
expect_error(TypeError, "(at the root, rank 0)" if rank else "got str", comm.bcast, bad if rank == 0 else None)
m3 = M()
if rank == last:
    m3.a.array = numpy.zeros((3, 2), numpy.float32)
expect_error(ValueError, f"rank {last}: parameter '/a' has shape/dtype ((3, 2)", comm.bcast_data, m3)
expect_error(TypeError, f"rank {last}: ", comm.gather, bad if rank == last else numpy.ones(2))
expect_error(TypeError, f"rank {last}: ", comm.allgather, bad if rank == last else numpy.ones(2))
expect_error(TypeError, "rank 0: ", comm.allreduce, bad if rank == 0 else numpy.ones(2))
expect_error(ValueError, f"rank {last}: ", comm.alltoall, [numpy.ones(1)] * (size - 1) + [bad if rank == last else numpy.ones(1)])
if rank == 0:
    expect_error(TypeError, "got str", comm.send, bad, 1, 5)
elif rank == 1:
    expect_error(TypeError, "(at the sender, rank 0)", comm.recv, 0, 5)
assert_array_equal(comm.allreduce(numpy.full(2, rank)), numpy.full(2, size * (size - 1) // 2))
print("ok", rank)
"""


@pytest.mark.mpi
@pytest.mark.parametrize(("n", "name"), [(2, "naive"), (3, "flat")])
def test_collectives(run_mpi, n, name):
    out = run_mpi(n, COLLECTIVES, comm_name=name)
    assert sorted(line for line in out.splitlines() if line.startswith("ok")) == [f"ok {r}" for r in range(n)]


@pytest.mark.parametrize("name", ["naive", "flat"])
def test_debug_mode_reports_diverged_gradients(name):
    comm = chainermn.create_communicator(name)
    link = chainer.Link()
    with link.init_scope():
        link.w = chainer.Parameter(numpy.zeros(3, numpy.float32))
        link.v = chainer.Parameter(numpy.zeros(2, numpy.float32))
    link.w.grad = numpy.array([1.0, numpy.nan, 2.0], numpy.float32)
    link.v.grad = numpy.ones(2, numpy.float32)
    comm.multi_node_mean_grad(link)  # not checked outside debug mode
    chainer.set_debug(True)
    try:
        with pytest.raises(ValueError, match=r"gradients diverged after the all-reduce: 'w' hold NaN or infinity"):
            comm.multi_node_mean_grad(link)
        link.w.grad = numpy.ones(3, numpy.float32)
        comm.multi_node_mean_grad(link)
    finally:
        chainer.set_debug(False)


def test_topology_and_buffers_in_one_process():
    from mpi4py import MPI

    from chainermn.communicators import _communication_utility, _memory_utility

    # [rank, intra_rank, intra_size, inter_rank, inter_size]
    assert _communication_utility.init_ranks(MPI.COMM_WORLD) == [0, 0, 1, 0, 1]
    x = numpy.arange(4, dtype=numpy.float32)
    buf = _memory_utility.array_to_buffer_object(x)
    assert buf[0] is x and buf[1] == MPI.FLOAT
    MPI.COMM_WORLD.Bcast(buf, root=0)
    assert _memory_utility.array_to_buffer_object(x, MPI.DOUBLE)[1] == MPI.DOUBLE
    with pytest.raises(ValueError, match="must be C-contiguous"):
        _memory_utility.array_to_buffer_object(numpy.zeros((3, 4), numpy.float32)[:, 1])
    with pytest.raises(TypeError, match="expected a numpy.ndarray or cupy.ndarray, got list"):
        _memory_utility.array_to_buffer_object([1.0])
    with pytest.raises(TypeError, match="expected a cupy.ndarray, got ndarray"):
        _memory_utility.get_device_memory_pointer(x)


@pytest.mark.skipif(_NCCL_MISSING is None, reason="CuPy with NCCL is available here")
def test_nccl_module_without_nccl_says_why():
    from chainermn import nccl

    if nccl.available:
        pytest.skip("CuPy with NCCL is importable here (only the GPU is missing)")
    assert nccl.unavailable_reason
    for call in (
        nccl.get_build_version,
        nccl.get_version,
        nccl.get_unique_id,
        lambda: nccl.NcclCommunicator(1, b"", 0),
    ):
        with pytest.raises(nccl.NcclUnavailableError, match="NCCL is not available here: "):
            call()
    with pytest.raises(AttributeError, match="has no attribute 'NCCL_SUM'; NCCL is not available here"):
        nccl.NCCL_SUM  # noqa: B018
    assert not hasattr(nccl, "NCCL_FLOAT16")


def test_gradient_mismatch_says_which_names_or_shapes_differ():
    # The message of multi_node_mean_grad when the processes' gradients differ (the
    # mpiexec tests above raise it for real): missing names, else the differing shapes,
    # never two identical lists of names.
    from chainermn.communicators import mpi_communicator_base as base

    same = [("/a", (2, 3), "<f4"), ("/b", (4,), "<f2")]
    message = base._gradient_mismatch([same, same[:1], [*same, ("/c", (2,), "<f8")]])
    assert message.endswith(
        "compared with rank 0 (2 gradients), rank 1 lacks ['/b']; rank 2 has ['/c'] that rank 0 lacks"
    )
    reshaped = [("/a", (3, 2), "<f4"), ("/b", (4,), "<f4")]
    message = base._gradient_mismatch([same, same, reshaped])
    assert message.startswith("the gradients to average differ in shape or dtype between the processes")
    assert message.endswith(
        "'/a': rank 0 (2, 3) float32, rank 1 (2, 3) float32, rank 2 (3, 2) float32; "
        "'/b': rank 0 (4,) float16, rank 1 (4,) float16, rank 2 (4,) float32"
    )
