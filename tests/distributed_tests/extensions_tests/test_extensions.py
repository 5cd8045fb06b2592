"""Multi-node evaluator, GenericMultiNodeEvaluator, AllreducePersistent, checkpointer and
the iterators, under mpiexec -n 2."""

from __future__ import annotations

import pytest

EXTENSIONS = """
import os
from chainer.training import extensions
from chainermn.extensions import AllreducePersistent, GenericMultiNodeEvaluator, create_multi_node_checkpointer
from chainermn.iterators import create_multi_node_iterator, create_synchronized_iterator
class Scale(chainer.Link):
    def forward(self, x):
        chainer.report({"v": F.mean(x)}, self)
        return x
data = numpy.arange(8, dtype=numpy.float32).reshape(8, 1)
local = data[4 * rank: 4 * rank + 4]
it = chainer.iterators.SerialIterator(local, 2, repeat=False, shuffle=False)
ev = chainermn.create_multi_node_evaluator(extensions.Evaluator(it, Scale()), comm)
result = ev()
assert_allclose(float(result["main/v"]), data.mean())
gen = GenericMultiNodeEvaluator(comm, chainer.iterators.SerialIterator(local, 3, repeat=False, shuffle=False), lambda x: x.sum())
res = gen()
if rank == 0:
    # batch by batch: every process's first batch (in rank order), then the second ones
    assert [float(r) for r in res] == [data[4*r+b:4*r+e].sum() for b, e in ((0, 3), (3, 4)) for r in range(size)]
else:
    assert res is None
link = chainer.Link()
link.add_persistent("m", numpy.full(2, float(rank)))
link.add_persistent("n", rank)
AllreducePersistent(link, comm)()
assert_allclose(link.m, numpy.full(2, (size - 1) / 2))
assert link.n == rank
# multi-node iterator: the master's batches everywhere
ds = list(range(10)) if rank == 0 else chainermn.datasets.create_empty_dataset(list(range(10)))
mit = create_multi_node_iterator(chainer.iterators.SerialIterator(ds, 4, shuffle=True), comm)
batches = [next(mit) for _ in range(3)]
all_batches = comm.gather_obj(batches)
if rank == 0:
    assert all(b == all_batches[0] for b in all_batches)
assert mit.epoch == 1 and mit.is_new_epoch is True and mit.epoch_detail == 1.2
# saving a multi-node iterator: every process writes the master's state, so a plain
# iterator loaded from any process's copy goes on where the master's iterator was
from chainer.serializers import DictionarySerializer, NpzDeserializer
data10 = numpy.arange(10, dtype=numpy.float32)
src = chainer.iterators.SerialIterator(data10 if rank == 0 else numpy.zeros(10, numpy.float32), 4, shuffle=True)
mit2 = create_multi_node_iterator(src, comm)
next(mit2)
saver = DictionarySerializer()
mit2.serialize(saver)
assert sorted(saver.target) == ["current_position", "epoch", "is_new_epoch", "order", "previous_epoch_detail"]
plain = chainer.iterators.SerialIterator(data10, 4, shuffle=True)
plain.serialize(NpzDeserializer(saver.target))
assert plain.epoch_detail == mit2.epoch_detail == 0.4
assert [float(v) for v in next(plain)] == [float(v) for v in next(mit2)]
sit = create_synchronized_iterator(chainer.iterators.SerialIterator(list(range(10)), 5, shuffle=True), comm)
first = next(sit)
assert all(f == first for f in comm.bcast_obj(comm.gather_obj(first)))
# checkpointer: atomic per-rank files, resume from the newest common iteration
class Holder(chainer.Link):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.p = chainer.Parameter(numpy.zeros(2, numpy.float32))
out = f"ckpt"
cp = create_multi_node_checkpointer("run", comm, cp_interval=2, gc_interval=1, path=out)
h = Holder()
for it_no in (1, 2, 3):
    h.p.array[...] = it_no + 10 * rank
    cp.save(h, it_no)
assert sorted(f for f in os.listdir(out) if f.startswith(f"run.{rank}.")) == [f"run.{rank}.2", f"run.{rank}.3"]
if rank == 1:
    os.remove(os.path.join(out, "run.1.3"))
comm.bcast_obj(None)
h2 = Holder()
cp.maybe_load(h2)
assert_array_equal(h2.p.array, numpy.full(2, 2 + 10 * rank))
print("ok", rank)
"""


@pytest.mark.mpi
def test_extensions_and_iterators_two_processes(run_mpi):
    assert run_mpi(2, EXTENSIONS).count("ok") == 2
