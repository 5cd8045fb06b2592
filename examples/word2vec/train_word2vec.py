#!/usr/bin/env python
"""Learn word embeddings with word2vec (skip-gram or continuous bag of words) on PTB.

The tutorial "Word2Vec: Obtain word embeddings" as one script: the ``SkipGram`` and
``ContinuousBoW`` models, ``WindowIterator`` (center words at random positions with
their context windows), a ``StandardUpdater`` with a custom converter, and a
``Trainer``. The output layer is the softmax over the whole vocabulary, as the tutorial
explains (``--out-type original``), or negative sampling (``ns``) or a hierarchical
softmax (``hsm``). The embeddings are written to ``<out>/word2vec.model`` as text.

    python train_word2vec.py --model skipgram          # PTB, downloaded on first use
    python train_word2vec.py --model cbow --out-type ns --device @cupy:0
    python train_word2vec.py --small                   # a tiny synthetic corpus (also: --test)
    python train_word2vec.py --query apple --query animal   # print the most similar words
"""

import argparse
import collections
import os
import sys

import numpy as np

import chainer
import chainer.functions as F
import chainer.initializers as I
import chainer.links as L
import chainer.optimizers as O
from chainer import reporter, training
from chainer.training import extensions


class ContinuousBoW(chainer.Chain):
    """Predicts the center word from the mean of its context words' embeddings."""

    def __init__(self, n_vocab, n_units, loss_func):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(n_vocab, n_units, initialW=I.Uniform(1.0 / n_units))
            self.loss_func = loss_func

    def forward(self, x, contexts):
        e = self.embed(contexts)
        h = F.sum(e, axis=1) * (1.0 / contexts.shape[1])
        loss = self.loss_func(h, x)
        reporter.report({"loss": loss}, self)
        return loss


class SkipGram(chainer.Chain):
    """Predicts the context words from the center word. Written the other way round, as
    in the tutorial: each context word's embedding predicts the center word, which gives
    the same pairs and one big batch for the output layer."""

    def __init__(self, n_vocab, n_units, loss_func):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(n_vocab, n_units, initialW=I.Uniform(1.0 / n_units))
            self.loss_func = loss_func

    def forward(self, x, contexts):
        e = self.embed(contexts)
        batch_size, n_context, n_units = e.shape
        x = F.broadcast_to(x[:, None], (batch_size, n_context))
        e = F.reshape(e, (batch_size * n_context, n_units))
        x = F.reshape(x, (batch_size * n_context,))
        loss = self.loss_func(e, x)
        reporter.report({"loss": loss}, self)
        return loss


class SoftmaxCrossEntropyLoss(chainer.Chain):
    """Softmax cross entropy loss function preceded by linear transformation."""

    def __init__(self, n_in, n_out):
        super().__init__()
        with self.init_scope():
            self.out = L.Linear(n_in, n_out, initialW=0)

    def forward(self, x, t):
        return F.softmax_cross_entropy(self.out(x), t)


class WindowIterator(chainer.dataset.Iterator):
    """Dataset iterator to create a batch of sequences at different positions.

    This iterator returns a pair of the current words and the context words.
    """

    def __init__(self, dataset, window, batch_size, repeat=True):
        self.dataset = np.array(dataset, np.int32)
        self.window = window  # size of context window
        self.batch_size = batch_size
        self._repeat = repeat
        # order is the array which is shuffled ``[window, window + 1, ...,
        # len(dataset) - window - 1]``
        self.order = np.random.permutation(len(dataset) - window * 2).astype(np.int32)
        self.order += window
        self.reset()

    def reset(self):
        """Starts over (the Evaluator calls it before each evaluation)."""
        self.current_position = 0
        # Number of completed sweeps over the dataset. In this case, it is incremented if
        # every word is visited at least once after the last increment.
        self.epoch = 0
        # True if the epoch is incremented at the last iteration.
        self.is_new_epoch = False

    def __next__(self):
        """This iterator returns a list representing a mini-batch.

        Each item indicates a different position in the original sequence.
        """
        if not self._repeat and self.epoch > 0:
            raise StopIteration

        i = self.current_position
        i_end = i + self.batch_size
        position = self.order[i:i_end]
        # A window width drawn from 1..window for this batch
        w = np.random.randint(self.window) + 1
        offset = np.concatenate([np.arange(-w, 0), np.arange(1, w + 1)])
        pos = position[:, None] + offset[None, :]
        contexts = self.dataset.take(pos)
        center = self.dataset.take(position)

        if i_end >= len(self.order):
            np.random.shuffle(self.order)
            self.epoch += 1
            self.is_new_epoch = True
            self.current_position = 0
        else:
            self.is_new_epoch = False
            self.current_position = i_end

        return center, contexts

    @property
    def epoch_detail(self):
        return self.epoch + float(self.current_position) / len(self.order)

    def serialize(self, serializer):
        self.current_position = serializer("current_position", self.current_position)
        self.epoch = serializer("epoch", self.epoch)
        self.is_new_epoch = serializer("is_new_epoch", self.is_new_epoch)
        if self.order is not None:
            serializer("order", self.order)


@chainer.dataset.converter()
def convert(batch, device):
    """The batch is already a pair of arrays (centers, contexts): send it to the device."""
    center, contexts = batch
    return device.send(center), device.send(contexts)


def make_small_corpus(n_topics=5, words_per_topic=8, length=4000, seed=0):
    """A tiny stand-in for PTB: int32 word-ID sequences and a vocabulary (word -> ID).
    Each sentence uses the words of one topic, so words of a topic share contexts and
    end up with similar embeddings."""
    rng = np.random.RandomState(seed)
    n_vocab = n_topics * words_per_topic + 1  # ID 0 is the end of a sentence
    vocab = {"<eos>": 0}
    for topic in range(n_topics):
        for k in range(words_per_topic):
            vocab[f"topic{topic}_word{k}"] = 1 + topic * words_per_topic + k
    assert len(vocab) == n_vocab

    def corpus(n_words):
        words = []
        while len(words) < n_words:
            topic = rng.randint(n_topics)
            sentence = 1 + topic * words_per_topic + rng.randint(words_per_topic, size=rng.randint(5, 12))
            words.extend(sentence.tolist())
            words.append(0)
        return np.array(words[:n_words], dtype=np.int32)

    return corpus(length), corpus(length // 5), vocab


def most_similar(embeddings, index2word, word2index, query, n=5):
    """The ``n`` words whose embeddings have the largest cosine similarity to ``query``'s."""
    norms = np.linalg.norm(embeddings, axis=1, keepdims=True)
    w = embeddings / np.maximum(norms, 1e-12)
    similarity = w @ w[word2index[query]]
    result = []
    for i in (-similarity).argsort():
        if index2word[i] != query:
            result.append((index2word[i], float(similarity[i])))
        if len(result) == n:
            break
    return result


def main():
    parser = argparse.ArgumentParser(description="Chainer example: word2vec")
    parser.add_argument(
        "--device",
        "-d",
        type=str,
        default="-1",
        help="Device specifier: '@numpy', '@cupy:N', or an integer "
        "(a negative one is the CPU, N >= 0 is GPU N, as in Chainer's older examples)",
    )
    parser.add_argument("--unit", "-u", default=100, type=int, help="number of units")
    parser.add_argument("--window", "-w", default=5, type=int, help="window size")
    parser.add_argument("--batchsize", "-b", type=int, default=1000, help="learning minibatch size")
    parser.add_argument("--epoch", "-e", default=20, type=int, help="number of epochs to learn")
    parser.add_argument(
        "--model", "-m", choices=["skipgram", "cbow"], default="skipgram", help="model type (skipgram or cbow)"
    )
    parser.add_argument("--negative-size", default=5, type=int, help="number of negative samples")
    parser.add_argument(
        "--out-type",
        "-o",
        choices=["original", "ns", "hsm"],
        default="original",
        help="output model type: the softmax over all words (original), negative sampling (ns) "
        "or hierarchical softmax (hsm)",
    )
    parser.add_argument("--out", default="result", help="Directory to output the result")
    parser.add_argument("--resume", "-r", type=str, help="Resume the training from snapshot")
    parser.add_argument("--snapshot-interval", type=int, default=1, help="Interval of snapshots (epochs)")
    parser.add_argument("--query", action="append", default=[], help="print the words most similar to this one")
    parser.add_argument(
        "--small",
        "--test",
        dest="small",
        action="store_true",
        help="Use a tiny synthetic corpus of PTB's form (quick runs and tests)",
    )
    group = parser.add_argument_group("deprecated arguments")
    group.add_argument(
        "--gpu", "-g", dest="device", type=int, nargs="?", const=0, help="GPU ID (negative value indicates CPU)"
    )
    args = parser.parse_args()

    device = chainer.get_device(args.device)
    device.use()

    print(f"Device: {device}")
    print(f"# unit: {args.unit}")
    print(f"Window: {args.window}")
    print(f"Minibatch-size: {args.batchsize}")
    print(f"# epoch: {args.epoch}")
    print(f"Training model: {args.model}")
    print(f"Output type: {args.out_type}")
    print("")

    # Load the dataset
    if args.small:
        train, val, vocab = make_small_corpus()
    else:
        try:
            train, val, _ = chainer.datasets.get_ptb_words()
            vocab = chainer.datasets.get_ptb_words_vocabulary()
        except OSError as error:
            sys.exit(f"Could not get the Penn Tree Bank ({error}).\nRun with --small to try it on synthetic data.")
    counts = collections.Counter(train.tolist())
    counts.update(collections.Counter(val.tolist()))
    n_vocab = len(vocab)

    index2word = {wid: word for word, wid in vocab.items()}

    print(f"n_vocab: {n_vocab}")
    print(f"data length: {len(train)}")

    # Choose the output layer and its loss
    if args.out_type == "hsm":
        HSM = L.BinaryHierarchicalSoftmax
        tree = HSM.create_huffman_tree(counts)
        loss_func = HSM(args.unit, tree)
        loss_func.W.array[...] = 0
    elif args.out_type == "ns":
        cs = [counts[w] for w in range(n_vocab)]
        loss_func = L.NegativeSampling(args.unit, cs, args.negative_size)
        loss_func.W.array[...] = 0
    else:
        loss_func = SoftmaxCrossEntropyLoss(args.unit, n_vocab)

    # Choose the model
    if args.model == "skipgram":
        model = SkipGram(n_vocab, args.unit, loss_func)
    else:
        model = ContinuousBoW(n_vocab, args.unit, loss_func)
    model.to_device(device)

    # Set up an optimizer
    optimizer = O.Adam()
    optimizer.setup(model)

    # Set up the iterators
    train_iter = WindowIterator(train, args.window, args.batchsize)
    val_iter = WindowIterator(val, args.window, args.batchsize, repeat=False)

    # Set up an updater
    updater = training.updaters.StandardUpdater(train_iter, optimizer, converter=convert, device=device)

    # Set up a trainer
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)

    trainer.extend(extensions.Evaluator(val_iter, model, converter=convert, device=device))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(["epoch", "main/loss", "validation/main/loss"]))
    trainer.extend(extensions.ProgressBar())
    trainer.extend(
        extensions.snapshot(filename="snapshot_epoch_{.updater.epoch}"), trigger=(args.snapshot_interval, "epoch")
    )

    if args.resume is not None:
        chainer.serializers.load_npz(args.resume, trainer)

    trainer.run()

    # Save the word2vec model as text: "n_vocab n_units", then "word v1 v2 ..." per word
    embeddings = chainer.backends.cuda.to_cpu(model.embed.W.array)
    path = os.path.join(args.out, "word2vec.model")
    with open(path + ".tmp", "w") as f:
        f.write(f"{len(index2word)} {args.unit}\n")
        for i, wi in enumerate(embeddings):
            if i in index2word:
                f.write(f"{index2word[i]} {' '.join(map(str, wi))}\n")
    os.replace(path + ".tmp", path)

    for query in args.query:
        if query not in vocab:
            print(f"{query!r} is not in the vocabulary")
            continue
        print(f"query: {query}")
        for word, similarity in most_similar(embeddings, index2word, vocab, query):
            print(f"{word}: {similarity}")


if __name__ == "__main__":
    main()
