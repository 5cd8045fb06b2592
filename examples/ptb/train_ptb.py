#!/usr/bin/env python
"""Train a recurrent neural net language model (RNNLM) on the Penn Tree Bank.

The tutorial "RNN Language Models" as one script: a two-layer LSTM language model,
``ParallelSequentialIterator`` (mini-batches of words read at equally spaced positions
of the corpus), ``BPTTUpdater`` (truncated backpropagation through time with
``unchain_backward``), gradient clipping, and the perplexity reported during training
and measured on the test split at the end.

    python train_ptb.py                       # PTB, downloaded on first use
    python train_ptb.py --device @cupy:0      # on GPU 0 (also: --device 0)
    python train_ptb.py --small --unit 32     # a tiny synthetic corpus (also: --test)
"""

import argparse
import os
import sys

import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions


class RNNForLM(chainer.Chain):
    """Embedding, two LSTM layers and a linear output layer, with dropout before each
    LSTM and before the output. All parameters start uniform in [-0.1, 0.1]."""

    def __init__(self, n_vocab, n_units):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(n_vocab, n_units)
            self.l1 = L.LSTM(n_units, n_units)
            self.l2 = L.LSTM(n_units, n_units)
            self.l3 = L.Linear(n_units, n_vocab)

        for param in self.params():
            param.array[...] = np.random.uniform(-0.1, 0.1, param.shape)

    def reset_state(self):
        self.l1.reset_state()
        self.l2.reset_state()

    def forward(self, x):
        h0 = self.embed(x)
        h1 = self.l1(F.dropout(h0))
        h2 = self.l2(F.dropout(h1))
        y = self.l3(F.dropout(h2))
        return y


class ParallelSequentialIterator(chainer.dataset.Iterator):
    """Mini-batches of (current word, next word) pairs read at ``batch_size`` positions
    equally spaced in the corpus, each advancing by one word per call."""

    def __init__(self, dataset, batch_size, repeat=True):
        super().__init__()
        self.dataset = dataset
        self.batch_size = batch_size  # batch size
        self.repeat = repeat
        length = len(dataset)
        # Offsets maintain the position of each sequence in the mini-batch.
        self.offsets = [i * length // batch_size for i in range(batch_size)]
        self.reset()

    def reset(self):
        # Number of completed sweeps over the dataset. In this case, it is incremented if
        # every word is visited at least once after the last increment.
        self.epoch = 0
        # True if the epoch is incremented at the last iteration.
        self.is_new_epoch = False
        # NOTE: this is not a count of parameter updates. It is just a count of calls
        # of ``__next__``.
        self.iteration = 0
        # use -1 instead of None internally
        self._previous_epoch_detail = -1.0

    def __next__(self):
        # This iterator returns a list representing a mini-batch. Each item indicates a
        # different position in the original sequence. Each item is represented by a
        # pair of two word IDs. The first word is at the "current" position, while the
        # second word at the next position. At each iteration, the iteration count is
        # incremented, which pushes forward the "current" position.
        length = len(self.dataset)
        if not self.repeat and self.iteration * self.batch_size >= length:
            # If not self.repeat, this iterator stops at the end of the first epoch
            # (i.e., when all words are visited once).
            raise StopIteration
        cur_words = self.get_words()
        self._previous_epoch_detail = self.epoch_detail
        self.iteration += 1
        next_words = self.get_words()

        epoch = self.iteration * self.batch_size // length
        self.is_new_epoch = self.epoch < epoch
        if self.is_new_epoch:
            self.epoch = epoch

        return list(zip(cur_words, next_words))

    @property
    def epoch_detail(self):
        # Floating point version of epoch.
        return self.iteration * self.batch_size / len(self.dataset)

    @property
    def previous_epoch_detail(self):
        if self._previous_epoch_detail < 0:
            return None
        return self._previous_epoch_detail

    def get_words(self):
        # It returns a list of current words.
        return [self.dataset[(offset + self.iteration) % len(self.dataset)] for offset in self.offsets]

    def serialize(self, serializer):
        # It is important to serialize the state to be recovered on resume.
        self.iteration = serializer("iteration", self.iteration)
        self.epoch = serializer("epoch", self.epoch)
        self._previous_epoch_detail = serializer("previous_epoch_detail", self._previous_epoch_detail)


class BPTTUpdater(training.updaters.StandardUpdater):
    """Truncated backpropagation through time: accumulate the loss over ``bprop_len``
    consecutive words, backpropagate, cut the graph there and update."""

    def __init__(self, train_iter, optimizer, bprop_len, device):
        super().__init__(train_iter, optimizer, device=device)
        self.bprop_len = bprop_len

    # The core part of the update routine can be customized by overriding.
    def update_core(self):
        loss = 0
        # When we pass one iterator and optimizer to StandardUpdater.__init__, they are
        # automatically named 'main'.
        train_iter = self.get_iterator("main")
        optimizer = self.get_optimizer("main")

        # Progress the dataset iterator for bprop_len words at each iteration.
        for _ in range(self.bprop_len):
            # Get the next batch (a list of tuples of two word IDs)
            batch = train_iter.__next__()

            # Concatenate the word IDs to matrices and send them to the device
            # self.converter does this job
            # (it is chainer.dataset.concat_examples by default)
            x, t = self.converter(batch, self.device)

            # Compute the loss at this time step and accumulate it
            loss += optimizer.target(x, t)

        optimizer.target.cleargrads()  # Clear the parameter gradients
        loss.backward()  # Backprop
        loss.unchain_backward()  # Truncate the graph
        optimizer.update()  # Update the parameters


def compute_perplexity(result):
    """LogReport postprocess: the perplexity is the exponential of the mean cross entropy."""
    result["perplexity"] = np.exp(result["main/loss"])
    if "validation/main/loss" in result:
        result["val_perplexity"] = np.exp(result["validation/main/loss"])


def make_small_corpus(n_vocab=30, length=3000, seed=0):
    """A tiny stand-in for PTB's three long int32 word-ID sequences: sentences drawn from
    a few fixed templates over a small vocabulary, separated by an end-of-sentence word
    (ID 0), so a language model has something to learn."""
    rng = np.random.RandomState(seed)
    templates = [rng.randint(1, n_vocab, size=rng.randint(3, 8)) for _ in range(6)]

    def corpus(n_words):
        words = []
        while len(words) < n_words:
            words.extend(templates[rng.randint(len(templates))].tolist())
            words.append(0)
        return np.array(words[:n_words], dtype=np.int32)

    return corpus(length), corpus(length // 10), corpus(length // 10)


def main():
    parser = argparse.ArgumentParser(description="Chainer example: RNN language model on PTB")
    parser.add_argument("--batchsize", "-b", type=int, default=20, help="Number of examples in each mini-batch")
    parser.add_argument(
        "--bproplen",
        "-l",
        type=int,
        default=35,
        help="Number of words in each mini-batch (= length of truncated BPTT)",
    )
    parser.add_argument("--epoch", "-e", type=int, default=39, help="Number of sweeps over the dataset to train")
    parser.add_argument(
        "--device",
        "-d",
        type=str,
        default="-1",
        help="Device specifier: '@numpy', '@cupy:N', or an integer "
        "(a negative one is the CPU, N >= 0 is GPU N, as in Chainer's older examples)",
    )
    parser.add_argument("--gradclip", "-c", type=float, default=5, help="Gradient norm threshold to clip")
    parser.add_argument("--out", "-o", default="result", help="Directory to output the result")
    parser.add_argument("--resume", "-r", type=str, help="Resume the training from snapshot")
    parser.add_argument(
        "--small",
        "--test",
        dest="small",
        action="store_true",
        help="Use a tiny synthetic corpus of PTB's form (quick runs and tests)",
    )
    parser.add_argument("--unit", "-u", type=int, default=650, help="Number of LSTM units in each layer")
    parser.add_argument("--model", "-m", default="model.npz", help="Model file name to serialize (in --out)")
    group = parser.add_argument_group("deprecated arguments")
    group.add_argument(
        "--gpu", "-g", dest="device", type=int, nargs="?", const=0, help="GPU ID (negative value indicates CPU)"
    )
    args = parser.parse_args()

    device = chainer.get_device(args.device)
    device.use()

    # Load the Penn Tree Bank long word sequence dataset
    if args.small:
        train, val, test = make_small_corpus()
    else:
        try:
            train, val, test = chainer.datasets.get_ptb_words()
        except OSError as error:
            sys.exit(f"Could not get the Penn Tree Bank ({error}).\nRun with --small to try it on synthetic data.")
    n_vocab = max(train) + 1  # train is just an array of integers
    print(f"#vocab = {n_vocab}")

    # Create the dataset iterators
    train_iter = ParallelSequentialIterator(train, args.batchsize)
    val_iter = ParallelSequentialIterator(val, 1, repeat=False)
    test_iter = ParallelSequentialIterator(test, 1, repeat=False)

    # Prepare an RNNLM model
    rnn = RNNForLM(n_vocab, args.unit)
    model = L.Classifier(rnn)
    model.compute_accuracy = False  # we only want the perplexity
    model.to_device(device)

    # Set up an optimizer
    optimizer = chainer.optimizers.SGD(lr=1.0)
    optimizer.setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.GradientClipping(args.gradclip))

    # Set up a trainer
    updater = BPTTUpdater(train_iter, optimizer, args.bproplen, device)
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)

    eval_model = model.copy()  # Model with shared params and distinct states
    eval_rnn = eval_model.predictor
    trainer.extend(
        extensions.Evaluator(
            val_iter,
            eval_model,
            device=device,
            # Reset the RNN state at the beginning of each evaluation
            eval_hook=lambda _: eval_rnn.reset_state(),
        )
    )

    interval = 10 if args.small else 500
    trainer.extend(extensions.LogReport(postprocess=compute_perplexity, trigger=(interval, "iteration")))
    trainer.extend(
        extensions.PrintReport(["epoch", "iteration", "perplexity", "val_perplexity"]), trigger=(interval, "iteration")
    )
    trainer.extend(extensions.ProgressBar(update_interval=1 if args.small else 10))
    trainer.extend(extensions.snapshot())
    trainer.extend(extensions.snapshot_object(model, "model_iter_{.updater.iteration}"))
    if args.resume:
        chainer.serializers.load_npz(args.resume, trainer)

    trainer.run()

    # Evaluate the final model
    print("test")
    eval_rnn.reset_state()
    evaluator = extensions.Evaluator(test_iter, eval_model, device=device)
    result = evaluator()
    print(f"test perplexity: {np.exp(float(result['main/loss']))}")

    # Serialize the final model
    chainer.serializers.save_npz(os.path.join(args.out, args.model), model)


if __name__ == "__main__":
    main()
