"""MultiNodeBatchNormalization equals BatchNormalization on the concatenated batch;
MultiNodeChainList splits an MLP over two processes with correct gradients."""

from __future__ import annotations

import pytest

LINKS = """
import chainer.links as L
from chainermn.links import MultiNodeBatchNormalization, MultiNodeChainList, create_mnbn_model
rng = numpy.random.RandomState(0)
x_all = rng.randn(6, 3, 2).astype(numpy.float32)
share = slice(3 * rank, 3 * rank + 3)
# reference: single-process BN over the whole batch, loss = sum(y * c)
c_all = rng.randn(6, 3, 2).astype(numpy.float32)
bn = L.BatchNormalization(3)
xr = chainer.Variable(x_all)
yr = bn(xr)
F.sum(yr * c_all).backward()
mnbn = MultiNodeBatchNormalization(3, comm)
x = chainer.Variable(x_all[share])
y = mnbn(x)
F.sum(y * c_all[share]).backward()
assert_allclose(y.array, yr.array[share], rtol=1e-4, atol=1e-5)
assert_allclose(x.grad, xr.grad[share], rtol=1e-4, atol=1e-5)
assert_allclose(comm.allreduce(mnbn.gamma.grad), bn.gamma.grad, rtol=1e-4, atol=1e-5)
assert_allclose(mnbn.avg_mean, bn.avg_mean, rtol=1e-5, atol=1e-6)
assert_allclose(mnbn.avg_var, bn.avg_var, rtol=1e-4, atol=1e-6)
with chainer.using_config("train", False):
    assert_allclose(mnbn(x_all).array, bn(x_all).array, rtol=1e-4, atol=1e-5)
model = create_mnbn_model(chainer.Sequential(L.Linear(2, 3), L.BatchNormalization(3)), comm)
assert isinstance(model[1], MultiNodeBatchNormalization)
# split MLP: rank 0 computes h = l1(x), rank 1 computes l2(h) and sends it back
class Part0(MultiNodeChainList):
    def __init__(self):
        super().__init__(comm)
        self.add_link(L.Linear(4, 3), rank_in=None, rank_out=1)
        self.add_link(chainer.Sequential(lambda v: v * 1), rank_in=1, rank_out=None)
class Part1(MultiNodeChainList):
    def __init__(self):
        super().__init__(comm)
        self.add_link(L.Linear(3, 2), rank_in=0, rank_out=0)
numpy.random.seed(5)
l1, l2 = L.Linear(4, 3), L.Linear(3, 2)
xin = rng.randn(5, 4).astype(numpy.float32)
ref = F.sum(l2(l1(xin)) ** 2)
ref.backward()
model = Part0() if rank == 0 else Part1()
model[0].W.array[...] = (l1 if rank == 0 else l2).W.array
model[0].b.array[...] = (l1 if rank == 0 else l2).b.array
if rank == 0:
    out = model(xin)
    loss = F.sum(out ** 2)
    assert_allclose(loss.array, ref.array, rtol=1e-5)
    loss.backward()
    assert_allclose(model[0].W.grad, l1.W.grad, rtol=1e-5, atol=1e-6)
else:
    phi = model()
    phi.backward()
    assert_allclose(model[0].W.grad, l2.W.grad, rtol=1e-5, atol=1e-6)
expect_error(ValueError, "is this process", MultiNodeChainList(comm).add_link, L.Linear(1, 1), rank_in=rank)
print("ok", rank)
"""


@pytest.mark.mpi
def test_links_two_processes(run_mpi):
    assert run_mpi(2, LINKS).count("ok") == 2
