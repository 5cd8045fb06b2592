"""A small training run used by test_resume.py: run as a script it may be killed with
SIGKILL at a given iteration; imported, ``train`` runs it in the test process."""

from __future__ import annotations

import glob
import os
import signal
import sys

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _training_testlib as T

import chainer
import chainer.functions as F
from chainer import serializers, training
from chainer.training import extensions, triggers


class DropoutMLP(chainer.Chain):
    """Draws random numbers at every forward (dropout), so the RNG state matters."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = T.Linear(None, 6)
            self.l2 = T.Linear(None, 3)

    def forward(self, x):
        return self.l2(F.dropout(F.relu(self.l1(x)), 0.3))


def train(out, kill_at=None, resume=None, epochs=6, reseed_after_load=False):
    """resume: None (fresh), 'autoload' or 'load_npz'. reseed_after_load: draw other
    random numbers than the snapshot's after loading it (a control)."""
    numpy.random.seed(0)
    train_set = T.classification_data(n=50, seed=3)
    test_set = T.classification_data(n=20, seed=4)
    model = T.Classifier(DropoutMLP())
    optimizer = chainer.optimizers.MomentumSGD(lr=0.1).setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.WeightDecay(1e-4))
    train_iter = chainer.iterators.SerialIterator(train_set, 8)
    test_iter = chainer.iterators.SerialIterator(test_set, 8, repeat=False, shuffle=False)
    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=-1)
    trainer = training.Trainer(updater, (epochs, "epoch"), out=out)
    # Evaluated, marked and logged once before training too: a resumed run must not do
    # it again (the mark would land in the first entry after resuming).
    trainer.extend(extensions.Evaluator(test_iter, model), call_before_training=True)
    trainer.extend(
        lambda t: chainer.report({"before_training": 1.0}),
        name="mark",
        trigger=(10**6, "iteration"),
        call_before_training=True,
    )
    trainer.extend(extensions.LogReport(trigger=(5, "iteration")), call_before_training=True)
    trainer.extend(extensions.MicroAverage("main/accuracy", "main/loss", "main/ratio", trigger=(3, "iteration")))
    trainer.extend(extensions.ExponentialShift("lr", 0.7), trigger=(1, "epoch"))
    trainer.extend(extensions.observe_lr(), trigger=(2, "iteration"))
    trainer.extend(
        extensions.snapshot_object(model, "best_model"), trigger=triggers.MinValueTrigger("validation/main/loss")
    )
    trainer.extend(extensions.snapshot(autoload=resume == "autoload", n_retains=2), trigger=(1, "epoch"))
    if kill_at is not None:

        @training.make_extension(priority=-1000)
        def kill(trainer):
            if trainer.updater.iteration == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)

        trainer.extend(kill)
    if resume == "load_npz":
        latest = max(glob.glob(os.path.join(out, "snapshot_iter_*")), key=os.path.getmtime)
        serializers.load_npz(latest, trainer)
        if reseed_after_load:
            numpy.random.seed(12345)
    trainer.run()
    return trainer


def final_state(trainer):
    """Everything that must match: parameters, optimizer state, log without times."""
    s = serializers.DictionarySerializer()
    s.save(trainer.updater.get_optimizer("main"))
    s["model"].save(trainer.updater.get_optimizer("main").target)
    log = [{k: v for k, v in entry.items() if k != "elapsed_time"} for entry in trainer.get_extension("LogReport").log]
    return s.target, log


if __name__ == "__main__":
    train(sys.argv[1], kill_at=int(sys.argv[2]))
