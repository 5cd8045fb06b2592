"""MultiNodeBatchNormalization equals BatchNormalization on the concatenated batch;
MultiNodeChainList splits an MLP over two processes with correct gradients;
create_multi_node_n_step_rnn splits an encoder-decoder RNN with the gradients of the
single-process model."""

from __future__ import annotations

import numpy
import pytest

import chainer
import chainermn
from chainermn.links import MultiNodeBatchNormalization

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
# a component may send to this very process; what was sent as a tuple arrives as one
# argument; a single output comes back as a variable (not a tuple)
class Pair(chainer.Link):
    def forward(self, v):
        return v * 2, v * 3
class Add(chainer.Link):
    def forward(self, pair):
        return pair[0] + pair[1]
class SelfLoop(MultiNodeChainList):
    def __init__(self):
        super().__init__(comm)
        self.add_link(Pair(), rank_in=None, rank_out=rank)
        self.add_link(Add(), rank_in=rank, rank_out=None)
v = chainer.Variable(numpy.arange(3.0))
out = SelfLoop()(v)
assert isinstance(out, chainer.Variable)
assert_allclose(out.array, 5 * numpy.arange(3.0))
F.sum(out * out).backward()  # d/dv (5 v)^2 = 50 v
assert_allclose(v.grad, 50 * numpy.arange(3.0))
# a fan-out and fan-in over this process and the other one: out = g(f(x)) + h(f(x)), with
# f, g on rank 0 and h on rank 1 (multiplications by parameters), and backprop does not
# deadlock although rank 0 receives from itself and from rank 1 in the same component
class Mul(chainer.Link):
    def __init__(self, c):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(numpy.full(3, float(c)))
    def forward(self, v):
        return v * self.w
class Sum(chainer.Link):
    def forward(self, *vs):
        return sum(vs[1:], vs[0])
class Fan(MultiNodeChainList):
    def __init__(self):
        super().__init__(comm)
        self.add_link(Mul(2), rank_in=None, rank_out=[0, 1])
        self.add_link(Mul(3), rank_in=0, rank_out=0)
        self.add_link(Sum(), rank_in=[0, 1], rank_out=None)
class Leaf(MultiNodeChainList):
    def __init__(self):
        super().__init__(comm)
        self.add_link(Mul(5), rank_in=0, rank_out=0)
x = chainer.Variable(numpy.array([1.0, 2.0, -1.0]))
fan = Fan() if rank == 0 else Leaf()
if rank == 0:
    out = fan(x)
    assert_allclose(out.array, 16 * x.array)  # 3 * 2 x + 5 * 2 x
    F.sum(out).backward()
    assert_allclose(x.grad, numpy.full(3, 16.0))
    assert_allclose(fan[0].w.grad, 8 * x.array)
    assert_allclose(fan[1].w.grad, 2 * x.array)
else:
    fan().backward()
    assert_allclose(fan[0].w.grad, 2 * x.array)
expect_error(ValueError, "rank_in must be None, a rank or a list of ranks in [0, 2)", MultiNodeChainList(comm).add_link, L.Linear(1, 1), rank_in=2)
print("ok", rank)
"""


@pytest.mark.mpi
def test_links_two_processes(run_mpi):
    assert run_mpi(2, LINKS).count("ok") == 2


N_STEP_RNN = """
import copy
import chainer.links as L
from chainermn.functions import pseudo_connect
from chainermn.links import create_multi_node_n_step_rnn
rng = numpy.random.RandomState(0)
xs = [rng.randn(n, 3) for n in (3, 2)]  # encoder inputs (on rank 0)
zs = [rng.randn(n, 3) for n in (2, 4)]  # decoder inputs (on rank 1)
cs = [rng.randn(n, 4) for n in (2, 4)]  # weights of the decoder's loss
numpy.random.seed(3)
enc_ref, dec_ref = L.NStepLSTM(2, 3, 4, 0.0), L.NStepLSTM(2, 3, 4, 0.0)
for link in (enc_ref, dec_ref):
    for p in link.params():
        p.array = p.array.astype(numpy.float64)
    link.cleargrads()  # the NaN float32 gradients of new parameters (as in Chainer 7)
# single-process reference: the encoder's final states start the decoder
xvs = [chainer.Variable(x) for x in xs]
hy, cy, ys_enc = enc_ref(None, None, xvs)
_, _, ys_dec = dec_ref(hy, cy, zs)
loss = 0.5 * F.sum(ys_enc[0]) + sum(F.sum(y * c) for y, c in zip(ys_dec, cs))
loss.backward()
if rank == 0:
    enc = create_multi_node_n_step_rnn(copy.deepcopy(enc_ref), comm, rank_out=1)
    enc.cleargrads()
    xv2 = [chainer.Variable(x) for x in xs]
    hy2, cy2, ys2, phi = enc(xv2)
    assert_allclose(hy2.array, hy.array, rtol=1e-12)
    pseudo_connect(phi, 0.5 * F.sum(ys2[0]))[0].backward()  # backward waits for rank 1's gradients
    for (name, p), (_, q) in zip(sorted(enc.actual_rnn.namedparams()), sorted(enc_ref.namedparams())):
        assert_allclose(p.grad, q.grad, rtol=1e-10, atol=1e-12, err_msg=name)
    for a, b in zip(xv2, xvs):
        assert_allclose(a.grad, b.grad, rtol=1e-10, atol=1e-12)
else:
    dec = create_multi_node_n_step_rnn(copy.deepcopy(dec_ref), comm, rank_in=0)
    dec.cleargrads()
    _, _, ys2, delegate = dec(zs)
    assert delegate is None
    for a, b in zip(ys2, ys_dec):
        assert_allclose(a.array, b.array, rtol=1e-12)
    sum(F.sum(y * c) for y, c in zip(ys2, cs)).backward()
    for (name, p), (_, q) in zip(sorted(dec.actual_rnn.namedparams()), sorted(dec_ref.namedparams())):
        assert_allclose(p.grad, q.grad, rtol=1e-10, atol=1e-12, err_msg=name)
# a GRU has one state: rank 1 starts from rank 0's final hidden state
numpy.random.seed(4)
gru_a, gru_b = L.NStepGRU(1, 3, 4, 0.0), L.NStepGRU(1, 3, 4, 0.0)
h_ref, _ = gru_a(None, [x.astype(numpy.float32) for x in xs])
_, ys_ref = gru_b(h_ref, [z.astype(numpy.float32) for z in zs])
if rank == 0:
    h, _, phi = create_multi_node_n_step_rnn(gru_a, comm, rank_out=1)([x.astype(numpy.float32) for x in xs])
    assert_allclose(h.array, h_ref.array)
else:
    _, ys, _ = create_multi_node_n_step_rnn(gru_b, comm, rank_in=0)([z.astype(numpy.float32) for z in zs])
    assert_allclose(ys[1].array, ys_ref[1].array, rtol=1e-5, atol=1e-6)
expect_error(TypeError, "must be a stacked RNN link", create_multi_node_n_step_rnn, L.Linear(2, 2), comm)
expect_error(ValueError, "rank_out must be None or a rank in [0, 2)", create_multi_node_n_step_rnn, gru_a, comm, None, 2)
print("ok", rank)
"""


@pytest.mark.mpi
def test_multi_node_n_step_rnn_two_processes(run_mpi):
    assert run_mpi(2, N_STEP_RNN).count("ok") == 2


def test_nccl_backend_needs_an_nccl_communicator():
    comm = chainermn.create_communicator("naive")
    with pytest.raises(ValueError, match="communication_backend='nccl' needs a NCCL communicator"):
        MultiNodeBatchNormalization(3, comm, communication_backend="nccl")
    assert MultiNodeBatchNormalization(3, comm).communication_backend == "mpi"


def test_communication_backend_choice():
    from chainermn.functions import batch_normalization as mnbn

    comm = chainermn.create_communicator("naive")
    assert mnbn.get_communication_backend(comm) == "mpi"
    assert mnbn.get_communication_backend(comm, "mpi") == "mpi"
    for bad, message in (
        ("dummy", "must be 'mpi', 'nccl' or 'auto', got 'dummy'"),
        ("nccl", "needs a NCCL communicator"),
    ):
        with pytest.raises(ValueError, match=message):
            mnbn.get_communication_backend(comm, bad)
        with pytest.raises(ValueError, match=message):
            MultiNodeBatchNormalization(1, comm, communication_backend=bad)
    selector = mnbn.MultiNodeBNImplSelector(comm, "auto")
    assert type(selector(None, (numpy.zeros(2),))) is mnbn._MpiImpl


def test_mixed16_keeps_parameters_and_statistics_in_float32():
    comm = chainermn.create_communicator("naive")
    with chainer.using_config("dtype", chainer.mixed16):
        layer = MultiNodeBatchNormalization(3, comm)
    assert {a.dtype for a in (layer.gamma.array, layer.beta.array, layer.avg_mean, layer.avg_var)} == {
        numpy.dtype(numpy.float32)
    }
    x = numpy.random.default_rng(1).standard_normal((6, 3)).astype(numpy.float16)
    y = layer(x)
    assert y.dtype == numpy.float16
    # One process: the batch normalization formula over the local batch.
    x64 = x.astype(numpy.float64)
    expected = (x64 - x64.mean(axis=0)) / numpy.sqrt(x64.var(axis=0) + 2e-5)
    numpy.testing.assert_allclose(y.array.astype(numpy.float64), expected, rtol=1e-2, atol=1e-2)
    chainer.functions.sum(y * y).backward()
    assert layer.gamma.grad.dtype == numpy.float32
