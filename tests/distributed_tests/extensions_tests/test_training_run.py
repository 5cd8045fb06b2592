"""The multi-node extensions inside real trainer runs, under mpiexec -n 3:
ObservationAggregator, MultiNodeEarlyStoppingTrigger, multi_node_snapshot (written per
replica set, autoloaded after a restart with another number of processes) and the
checkpointer's trainer, error and finalize paths.

Every expected value is computed in the program from the per-rank tables with NumPy or a
hand-written patience loop, never by the extensions under test."""

from __future__ import annotations

import pytest

TRAINING = """
import math, os, time
from chainer import training, serializers
from chainer.training import extensions
from chainermn.extensions import (
    MultiNodeEarlyStoppingTrigger, ObservationAggregator, create_multi_node_checkpointer, multi_node_snapshot)
PATIENCE, MAX_EPOCH, PER_EPOCH = 2, 12, 2  # 4 examples, batch 2: 2 iterations per epoch
# Aggregated epoch means: improve, improve, worse, improve, worse, worse -> stop at epoch 6.
means = numpy.array([5.0, 4.0, 4.5, 3.9, 4.2, 4.1, 3.0, 2.0, 1.0, 0.5, 0.2, 0.1])
rng = numpy.random.RandomState(7)
noise = rng.randn(size, MAX_EPOCH, PER_EPOCH) * 3.0
noise -= noise.mean(axis=(0, 2), keepdims=True)  # the noise averages out over the processes
values = means[None, :, None] + noise  # values[r, epoch - 1, i]: main/loss of rank r
flat = values.reshape(size, -1)  # flat[r, iteration - 1]

def stop_epoch(epoch_means):  # EarlyStoppingTrigger's documented schedule, mode 'min'
    best, count = math.inf, 0
    for epoch, m in enumerate(epoch_means, 1):
        if m < best:
            best, count = m, 0
        else:
            count += 1
        if count >= PATIENCE:
            return epoch
    return len(epoch_means)

STOP = stop_epoch(values.mean(axis=(0, 2)))
assert STOP == 6, STOP
local_stops = [stop_epoch(values[r].mean(axis=1)) for r in range(size)]
assert any(s != STOP for s in local_stops), local_stops  # so the test needs the aggregation

class Model(chainer.Link):
    def __init__(self, table, tag, fail_at=None):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(numpy.full(1, 3.0))
        self.add_persistent("tag", tag)
        self.table, self.calls, self.fail_at = table, 0, fail_at
    def forward(self, x):
        if self.calls == self.fail_at:
            raise RuntimeError("planned failure")
        value = float(self.table[self.calls % len(self.table)])
        self.calls += 1
        report = {"loss": value}
        if rank != 1:
            report["partial"] = 10 * value
        chainer.report(report, self)
        return F.sum(self.w * x)

class Recorder(training.Extension):
    trigger, priority = (1, "iteration"), -1000  # after every other extension
    def __init__(self, fn):
        self.fn, self.seen = fn, []
    def __call__(self, trainer):
        self.seen.append((trainer.updater.iteration, self.fn(trainer)))

def make_trainer(c, out, tag, stop=None, optimizer=None, fail_at=None):
    model = Model(flat[rank], tag, fail_at)
    opt = (optimizer or chainer.optimizers.SGD(lr=0.1)).setup(model)
    it = chainer.iterators.SerialIterator(numpy.ones((4, 1)), 2, shuffle=False)
    if stop is None:
        stop = MultiNodeEarlyStoppingTrigger(c, monitor="main/loss", patience=PATIENCE, max_trigger=(MAX_EPOCH, "epoch"))
    trainer = training.Trainer(training.StandardUpdater(it, opt), stop, out=out)
    if c.rank == 0:  # the documented case: only one process has the reporting extensions
        trainer.extend(extensions.LogReport(trigger=(1, "epoch")))
    return trainer, model

# ---- run 1: aggregators, early stopping and snapshots on the 3 processes ----
trainer, model = make_trainer(comm, "result", tag=0.0 if rank == 0 else 1.0)
trainer.extend(ObservationAggregator(comm, "main/loss", "main/loss_mean", comm_trigger=(3, "iteration")))
trainer.extend(ObservationAggregator(comm, "main/loss", "main/loss_max", comm_trigger=(3, "iteration"),
                                     aggregator=lambda vs: numpy.max(vs)), name="agg_max")
trainer.extend(ObservationAggregator(comm, "main/partial", "main/partial_mean", comm_trigger=(3, "iteration")))
keys = ("main/loss_mean", "main/loss_max", "main/partial_mean")
recorder = Recorder(lambda t: tuple(None if t.observation.get(k) is None else float(t.observation[k]) for k in keys))
trainer.extend(recorder)
trainer.extend(multi_node_snapshot(comm, extensions.snapshot(filename="snap_{.updater.iteration}", n_retains=2,
                                                             autoload=True), [0]), trigger=(1, "epoch"))
if rank == 2:
    # Late to start: rank 1 (the writer of its replica set) must not have written the
    # snapshot of epoch 1 before rank 2 has autoloaded (found nothing), or rank 2 would
    # resume from this run's own snapshot.
    time.sleep(0.5)
trainer.run()

# every process stopped at the epoch the aggregated patience schedule predicts
assert trainer.updater.epoch == STOP and trainer.updater.iteration == STOP * PER_EPOCH, trainer.updater.epoch
assert comm.gather_obj(trainer.updater.iteration) in (None, [STOP * PER_EPOCH] * size)
# the aggregators wrote their value every 3 iterations, nothing in between
for iteration, got in recorder.seen:
    if iteration % 3:
        assert got == (None, None, None), (iteration, got)
        continue
    window = flat[:, iteration - 3:iteration].mean(axis=1)  # each process's mean over the interval
    assert_allclose(got[0], numpy.mean(window), rtol=1e-12)
    assert_allclose(got[1], numpy.max(window), rtol=1e-12)
    # only ranks 0 and 2 report main/partial: the others are left out of the mean
    assert_allclose(got[2], numpy.mean([10 * window[r] for r in range(size) if r != 1]), rtol=1e-12)
assert [i for i, _ in recorder.seen] == list(range(1, STOP * PER_EPOCH + 1))

# one writer per replica set ({0} and {1, 2}), the 2 newest snapshots of each kept
comm.mpi_comm.Barrier()
if rank == 0:
    expected = {f"snap_{PER_EPOCH * e}.{m}" for e in (STOP - 1, STOP) for m in (0, 1)}
    assert {f for f in os.listdir("result") if f.startswith("snap")} == expected, os.listdir("result")
    assert "log" in os.listdir("result")

# ---- restart on 2 + 1 processes: each loads the latest snapshot of its replica set ----
sub = comm.split(rank // 2, rank)  # ranks {0, 1} and {2}
trainer2, model2 = make_trainer(sub, "result", tag=-1.0)
snap = multi_node_snapshot(sub, extensions.snapshot(filename="snap_{.updater.iteration}", autoload=True), [0])
trainer2.extend(snap, trigger=(1, "epoch"))
snap.initialize(trainer2)
assert trainer2.updater.iteration == STOP * PER_EPOCH
# rank 1 is the writer of set {1} -> ".1"; rank 2 is rank 0 of its communicator -> ".0"
assert model2.tag == (1.0 if rank == 1 else 0.0), model2.tag
assert_allclose(model2.w.array, model.w.array)
sub.finalize()

# ---- checkpointer: successful run cleans up; a failed run keeps the newest two ----
cp = create_multi_node_checkpointer("cp", comm, cp_interval=2, gc_interval=1)
trainer, model = make_trainer(comm, "cpA", 0.0, stop=(6, "iteration"))
trainer.extend(cp, trigger=(1, "iteration"))
listing = Recorder(lambda t: sorted(f for f in os.listdir("cpA") if f.startswith(f"cp.{rank}.")))
trainer.extend(listing)
trainer.run()
assert [names for _, names in listing.seen] == [
    [f"cp.{rank}.{j}" for j in sorted(range(max(i - 1, 1), i + 1), key=str)] for i in range(1, 7)]
assert not [f for f in os.listdir("cpA") if f.startswith(f"cp.{rank}.")]  # finalize removed them

cp = create_multi_node_checkpointer("cp", comm, cp_interval=2, gc_interval=1)
trainer, model = make_trainer(comm, "cpB", 0.0, stop=(6, "iteration"), fail_at=3)
trainer.extend(cp, trigger=(1, "iteration"))
weights = Recorder(lambda t: t.updater.get_optimizer("main").target.w.array.copy())
trainer.extend(weights)
expect_error(RuntimeError, "planned failure", trainer.run, show_loop_exception_msg=False)
assert sorted(f for f in os.listdir("cpB") if f.startswith(f"cp.{rank}.")) == [f"cp.{rank}.2", f"cp.{rank}.3"]
if rank == 1:
    os.remove(os.path.join("cpB", "cp.1.3"))  # iteration 2 is now the newest common one
comm.mpi_comm.Barrier()
cp = create_multi_node_checkpointer("cp", comm, cp_interval=2, gc_interval=1)
opt = chainermn.create_multi_node_optimizer(chainer.optimizers.SGD(lr=0.1), comm)
trainer, model = make_trainer(comm, "cpB", 0.0, stop=(6, "iteration"), optimizer=opt)
trainer.extend(cp, trigger=(1, "iteration"))
cp.maybe_load(trainer, opt)
assert trainer.updater.iteration == 2 and trainer.updater.epoch == 1
assert_array_equal(model.w.array, dict(weights.seen)[2])
trainer.run()
assert model.calls == 4  # iterations 3 to 6 only
# d/dw sum(w * x) = 2 per iteration, lr 0.1: the weight went on from the checkpoint
assert_allclose(model.w.array, dict(weights.seen)[2] - 4 * 0.2, rtol=1e-12)
assert not [f for f in os.listdir("cpB") if f.startswith(f"cp.{rank}.")]
print("ok", rank)
"""


@pytest.mark.mpi
def test_extensions_in_trainer_runs_three_processes(run_mpi):
    assert run_mpi(3, TRAINING).count("ok") == 3
