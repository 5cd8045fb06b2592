"""scatter_dataset / scatter_index: partitions are disjoint or of equal length, cover
the data, and follow the seed."""

from __future__ import annotations

import pytest

import chainermn

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
print("ok", rank)
"""


@pytest.mark.mpi
def test_scatter_three_processes(run_mpi):
    assert run_mpi(3, SCATTER).count("ok") == 3


def test_create_empty_dataset_needs_length():
    with pytest.raises(TypeError, match="dataset must have a length"):
        chainermn.datasets.create_empty_dataset(3)
