"""Differentiable communication: forward values and gradients (backward runs the
reverse communication) under mpiexec -n 2, checked against the single-process math."""

from __future__ import annotations

import numpy
import pytest

import chainer
import chainermn

FUNCTIONS = """
from chainermn import functions as mnf
def ref(r):
    return numpy.arange(6, dtype=numpy.float64).reshape(2, 3) + 10 * r
# send / recv with a delegate: rank 0: z = x * 2 -> rank 1: w = z ** 2 -> rank 0: y = sum(w)
if rank == 0:
    x = chainer.Variable(ref(0))
    phi = mnf.send(x * 2, comm, rank=1)
    w = mnf.recv(comm, rank=1, delegate_variable=phi)
    y = F.sum(w)
    y.backward()
    assert_allclose(w.array, (2 * ref(0)) ** 2)
    assert_allclose(x.grad, 8 * ref(0))  # d/dx sum((2x)^2)
else:
    z = mnf.recv(comm, rank=0)
    phi = mnf.send(z ** 2, comm, rank=0)
    phi.backward()
# allgather: loss_r = sum_j (r + 1) * ys[j]  => grad of x on every process = sum_r (r + 1)
x = chainer.Variable(ref(rank))
ys = mnf.allgather(comm, x)
assert all(numpy.array_equal(ys[j].array, ref(j)) for j in range(size))
F.sum(F.stack(ys) * (rank + 1)).backward()
assert_allclose(x.grad, numpy.full((2, 3), sum(r + 1 for r in range(size))))
# allgather of variables whose shapes differ between the processes (as in Chainer 7.8.1)
x = chainer.Variable(numpy.full((2, rank + 1), float(rank)))
ys = mnf.allgather(comm, x)
assert [y.shape for y in ys] == [(2, r + 1) for r in range(size)]
F.sum(F.concat(ys, axis=1) * (rank + 1)).backward()
assert_allclose(x.grad, numpy.full((2, rank + 1), sum(r + 1 for r in range(size))))
# alltoall: process r sends xs[j] = x * (j + 1); loss_r = sum(ys[s] * (r + 1))
x = chainer.Variable(ref(rank))
ys = mnf.alltoall(comm, [x * (j + 1) for j in range(size)])
assert all(numpy.allclose(ys[s].array, ref(s) * (rank + 1)) for s in range(size))
F.sum(F.stack(ys)) .backward()
assert_allclose(x.grad, numpy.full((2, 3), sum(j + 1 for j in range(size))))
# bcast from root 1: loss_r = sum(y) * (r + 1); gradient summed at the root
x = chainer.Variable(ref(rank))
y = mnf.bcast(comm, x if rank == 1 else None, root=1)
assert_array_equal(y.array, ref(1))
(F.sum(y) * (rank + 1)).backward()
if rank == 1:
    assert_allclose(x.grad, numpy.full((2, 3), sum(r + 1 for r in range(size))))
# gather at root 0 and scatter back
x = chainer.Variable(ref(rank))
out = mnf.gather(comm, x, root=0)
if rank == 0:
    assert len(out) == size and all(numpy.array_equal(out[r].array, ref(r)) for r in range(size))
    F.sum(F.stack([o * (i + 2) for i, o in enumerate(out)])).backward()
else:
    out.backward()
assert_allclose(x.grad, numpy.full((2, 3), rank + 2.0))
xs = [chainer.Variable(ref(r)) for r in range(size)] if rank == 0 else None
y = mnf.scatter(comm, xs, root=0)
assert_array_equal(y.array, ref(rank))
(F.sum(y) * (rank + 3)).backward()
if rank == 0:
    assert all(numpy.allclose(xs[r].grad, rank + 3 + r) for r in range(size))
# pseudo_connect: identity for the actual variables, zero for the delegate
d = chainer.Variable(numpy.ones(2))
a = chainer.Variable(ref(0))
(y,) = mnf.pseudo_connect(d, a)  # a tuple also for one variable, as in Chainer 7.8.1
assert_array_equal(y.array, ref(0))
F.sum(y * 3).backward()
assert_allclose(a.grad, numpy.full((2, 3), 3.0))
assert_array_equal(d.grad, numpy.zeros(2))
# a process may send to itself: z = 2 a comes back, and d/da sum(z^2) = 8 a
a = chainer.Variable(ref(rank))
phi = mnf.send(a * 2, comm, rank)
z = mnf.recv(comm, rank, delegate_variable=phi)
assert_array_equal(z.array, 2 * ref(rank))
F.sum(z * z).backward()
assert_allclose(a.grad, 8 * ref(rank))
expect_error(RuntimeError, "nothing was sent by this process", mnf.recv, comm, rank)
# an array sent as is (no variable needing a gradient): rank 0's backward still receives
# the gradient rank 1 sends back, so no message is left over
comm.mpi_comm.Barrier()
if rank == 0:
    phi = mnf.send(numpy.ones((1, 3)), comm, rank=1)
    (x0,) = mnf.pseudo_connect(phi, numpy.ones((1, 3)))
    F.sum(x0).backward()
elif rank == 1:
    F.sum(mnf.recv(comm, rank=0) * 2).backward()
comm.mpi_comm.Barrier()
from mpi4py import MPI
assert not comm.mpi_comm.Iprobe(source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG)
# the same for a collective: the root's backward joins the others' although its x needs no gradient
y = mnf.bcast(comm, numpy.arange(3.0) if rank == 0 else None)
F.sum(y).backward()
print("ok", rank)
"""


@pytest.mark.mpi
def test_functions_two_processes(run_mpi):
    assert run_mpi(2, FUNCTIONS).count("ok") == 2


# Each call gets a bad argument on one process only; every process must raise (a process
# left waiting in the collective would hang the job: the timeout catches that), with the
# message naming the failing rank, and the processes stay in step afterwards.
BAD_ARGUMENTS = """
from chainermn import functions as mnf
x = chainer.Variable(numpy.ones((2, 3)))
last = size - 1
expect_error(ValueError, "xs (at the root, rank 0) must hold 2 variables", mnf.scatter, comm, [x] * 3 if rank == 0 else None)
expect_error(TypeError, "rank 1: xs (at the root, rank 1) must be a tuple", mnf.scatter, comm, x if rank == 1 else None, 1)
expect_error(TypeError, "xs (at the root, rank 0)[1] must be a chainer.Variable or an array, got str",
             mnf.scatter, comm, [x, "bad"] if rank == 0 else None)
expect_error(TypeError, "rank 1: x (at the root, rank 1) must be a chainer.Variable or an array, got NoneType",
             mnf.bcast, comm, None, 1)
expect_error(TypeError, "must hold an array", mnf.bcast, comm, chainer.Variable() if rank == 0 else None)
expect_error(TypeError, f"rank {last}: x must be a chainer.Variable or an array, got list",
             mnf.gather, comm, [1, 2] if rank == last else x)
expect_error(TypeError, "rank 0: x must be a chainer.Variable or an array, got NoneType",
             mnf.allgather, comm, None if rank == 0 else x)
expect_error(ValueError, f"rank {last}: xs must hold {size} variables (one per process), got {size + 1}",
             mnf.alltoall, comm, [x] * (size + (rank == last)))
expect_error(TypeError, "rank 0: xs[1] must be a chainer.Variable or an array, got str",
             mnf.alltoall, comm, [x, "bad"] if rank == 0 else [x, x])
# still in step: a real collective after all the failures
ys = mnf.allgather(comm, x * (rank + 1))
assert [float(y.array[0, 0]) for y in ys] == [r + 1.0 for r in range(size)]
print("ok", rank)
"""


@pytest.mark.mpi
def test_bad_arguments_raise_on_every_process(run_mpi):
    assert run_mpi(2, BAD_ARGUMENTS, timeout=60).count("ok") == 2


def test_pseudo_connect_errors():
    with pytest.raises(ValueError, match="at least one actual variable"):
        chainermn.functions.pseudo_connect(None)
    with pytest.raises(TypeError, match="delegate_variable must be a chainer.Variable"):
        chainermn.functions.pseudo_connect(3, 1.0)


def test_pseudo_connect_returns_a_tuple_and_the_gradients():
    delegate = chainer.Variable(numpy.ones((2, 1)))
    a = chainer.Variable(numpy.arange(3.0))
    (y,) = chainermn.functions.pseudo_connect(delegate, a)  # a tuple also for one variable
    numpy.testing.assert_array_equal(y.array, a.array)
    chainer.functions.sum(y * y).backward()
    numpy.testing.assert_array_equal(a.grad, 2 * a.array)  # identity: d/da sum(a^2)
    numpy.testing.assert_array_equal(delegate.grad, numpy.zeros((2, 1)))
    ys = chainermn.functions.pseudo_connect(None, a, numpy.zeros(2))
    assert isinstance(ys, tuple) and len(ys) == 2 and ys[0] is a
