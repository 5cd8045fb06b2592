"""scatter_dataset / scatter_index: partitions are disjoint or of equal length, cover
the data, and follow the seed."""

from __future__ import annotations

import numpy
import pytest

import chainermn
from chainermn.datasets import scatter

SCATTER = """
n = 10
for force in (True, False):
    b, e = chainermn.scatter_index(n, comm, force_equal_length=force)
    parts = comm.gather_obj((b, e))
    if rank == 0:
        covered = sorted(i for b, e in parts for i in range(b, e))
        if force:
            assert len({e - b for b, e in parts}) == 1 and set(covered) == set(range(n))
        else:
            assert covered == list(range(n))
data = [(i, str(i)) for i in range(n)] if rank == 0 else None
for shuffle, force in ((False, False), (True, False), (True, True)):
    part = chainermn.scatter_dataset(data, comm, shuffle=shuffle, seed=3, force_equal_length=force)
    assert isinstance(part, chainer.datasets.SubDataset)
    got = comm.gather_obj([part[i] for i in range(len(part))])
    if rank == 0:
        flat = [x for p in got for x in p]
        if not force:
            assert sorted(flat) == data
        else:
            assert len({len(p) for p in got}) == 1 and set(flat) == set(data)
        if shuffle and not force:
            order = numpy.random.RandomState(3).permutation(n)
            assert flat == [data[i] for i in order]
arr = numpy.arange(12).reshape(6, 2) if rank == 1 else None
part = chainermn.scatter_dataset(arr, comm, root=1, force_equal_length=False)
assert_array_equal(numpy.asarray(part[:]), numpy.arange(12).reshape(6, 2)[6 * rank // size: 6 * (rank + 1) // size])
expect_error(ValueError, "must have a length", chainermn.scatter_dataset, 5 if rank == 0 else None, comm)
expect_error(chainermn.DataSizeError, "max_buf_len", chainermn.scatter_dataset, [1], comm, max_buf_len=2**31)
empty = chainermn.datasets.create_empty_dataset(numpy.zeros((4, 3)))
assert empty == [(), (), (), ()]
# one epoch over parts of uneven length: rank 0's number of batches on every process
from chainermn.datasets.scatter import get_epoch_trigger, get_n_iterations_for_one_epoch
mine = list(range(7 + 3 * rank))  # 7, 10, 13 examples
assert get_n_iterations_for_one_epoch(mine, 3, comm) == 3  # ceil(7 / 3)
assert get_epoch_trigger(5, mine, 3, comm) == (15, "iteration")
expect_error(ValueError, "local_batch_size must be positive, got 0 (at rank 0)", get_n_iterations_for_one_epoch, mine, 0, comm)
print("ok", rank)
"""


@pytest.mark.mpi
def test_scatter_three_processes(run_mpi):
    assert run_mpi(3, SCATTER).count("ok") == 3


def test_create_empty_dataset_needs_length():
    with pytest.raises(TypeError, match="dataset must have a length"):
        chainermn.datasets.create_empty_dataset(3)


def _expected_parts(n, size, force_equal_length):
    """The partition written out: equal-length parts start at floor(n * r / size) and
    have ceil(n / size) indices; disjoint parts give the n % size first processes one
    index more than the others."""
    if force_equal_length:
        length = -(-n // size)
        return [(r, n * r // size, n * r // size + length) for r in range(size)]
    sizes = [n // size + (1 if r < n % size else 0) for r in range(size)]
    begins = [sum(sizes[:r]) for r in range(size)]
    return [(r, begins[r], begins[r] + sizes[r]) for r in range(size)]


@pytest.mark.parametrize("n", [0, 1, 2, 7, 10, 11, 13, 1244])
@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 23])
@pytest.mark.parametrize("force_equal_length", [True, False])
def test_scatter_index_partition(n, size, force_equal_length):
    parts = list(scatter._scatter_index(n, size, force_equal_length))
    assert parts == _expected_parts(n, size, force_equal_length)
    covered = [i for _, b, e in parts for i in range(b, e)]
    if force_equal_length:
        assert set(covered) == set(range(n)) and all(0 <= b <= e <= max(n, 0) for _, b, e in parts)
    else:
        assert covered == list(range(n))


def test_scatter_index_of_chainer_7_documentation_example():
    assert list(scatter._scatter_index(10, 3, False)) == [(0, 0, 4), (1, 4, 7), (2, 7, 10)]
    assert list(scatter._scatter_index(10, 3, True)) == [(0, 0, 4), (1, 3, 7), (2, 6, 10)]


def test_iterations_of_one_epoch_in_one_process():
    comm = chainermn.create_communicator("naive")
    assert scatter.get_n_iterations_for_one_epoch(list(range(10)), 3, comm) == 4
    assert scatter.get_n_iterations_for_one_epoch([], 3, comm) == 0
    assert scatter.get_epoch_trigger(2, numpy.zeros((9, 2)), 3, comm) == (6, "iteration")
    with pytest.raises(ValueError, match="local_batch_size must be an int, got float"):
        scatter.get_n_iterations_for_one_epoch([1], 2.0, comm)
