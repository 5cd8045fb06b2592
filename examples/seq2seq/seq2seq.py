#!/usr/bin/env python
"""Train a sequence to sequence (seq2seq) model for machine translation.

The tutorial "Write a Sequence to Sequence (seq2seq) Model" as one script: an encoder
and a decoder of stacked LSTMs (``L.NStepLSTM``) over word embeddings, trained with a
``StandardUpdater`` on a parallel corpus, greedy translation, and the BLEU score of the
translations of a validation set reported during training.

The corpus is given as files, as the tutorial prepares them from WMT15's
French-English data: one tokenized sentence per line (the source and target files
line-aligned) and one word per line in each vocabulary file.

    python seq2seq.py giga-fren.preprocess.en giga-fren.preprocess.fr vocab.en vocab.fr \\
        --validation-source newstest2013.preprocess.en \\
        --validation-target newstest2013.preprocess.fr --device @cupy:0
    python seq2seq.py --small --unit 32 --layer 1     # a tiny synthetic parallel corpus

BLEU is computed by ``corpus_bleu`` below (the tutorial uses NLTK's, with its
smoothing "method1"; this one gives the same scores for the same inputs).
"""

import argparse
import collections
import datetime
import math
import os

import numpy

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions

UNK = 0
EOS = 1


def sequence_embed(embed, xs):
    """Embeds a list of word-ID arrays of different lengths with one call of ``embed``."""
    x_len = [len(x) for x in xs]
    x_section = numpy.cumsum(x_len[:-1])
    ex = embed(F.concat(xs, axis=0))
    exs = F.split_axis(ex, x_section, 0)
    return exs


class Seq2seq(chainer.Chain):
    """The encoder reads the (reversed) source sentence; its final states start the
    decoder, which predicts the target sentence word by word."""

    def __init__(self, n_layers, n_source_vocab, n_target_vocab, n_units):
        super().__init__()
        with self.init_scope():
            self.embed_x = L.EmbedID(n_source_vocab, n_units)
            self.embed_y = L.EmbedID(n_target_vocab, n_units)
            self.encoder = L.NStepLSTM(n_layers, n_units, n_units, 0.1)
            self.decoder = L.NStepLSTM(n_layers, n_units, n_units, 0.1)
            self.W = L.Linear(n_units, n_target_vocab)

        self.n_layers = n_layers
        self.n_units = n_units

    def forward(self, xs, ys):
        xs = [x[::-1] for x in xs]

        eos = self.xp.array([EOS], numpy.int32)
        ys_in = [F.concat([eos, y], axis=0) for y in ys]
        ys_out = [F.concat([y, eos], axis=0) for y in ys]

        # Both xs and ys_in are lists of arrays.
        exs = sequence_embed(self.embed_x, xs)
        eys = sequence_embed(self.embed_y, ys_in)

        batch = len(xs)
        # None represents a zero vector in an encoder.
        hx, cx, _ = self.encoder(None, None, exs)
        _, _, os = self.decoder(hx, cx, eys)

        # It is faster to concatenate data before calculating loss because only one
        # matrix multiplication is called.
        concat_os = F.concat(os, axis=0)
        concat_ys_out = F.concat(ys_out, axis=0)
        loss = F.sum(F.softmax_cross_entropy(self.W(concat_os), concat_ys_out, reduce="no")) / batch

        chainer.report({"loss": loss}, self)
        n_words = concat_ys_out.shape[0]
        perp = self.xp.exp(loss.array * batch / n_words)
        chainer.report({"perp": perp}, self)
        return loss

    def translate(self, xs, max_length=100):
        batch = len(xs)
        with chainer.no_backprop_mode(), chainer.using_config("train", False):
            xs = [x[::-1] for x in xs]
            exs = sequence_embed(self.embed_x, xs)
            h, c, _ = self.encoder(None, None, exs)
            ys = self.xp.full(batch, EOS, numpy.int32)
            result = []
            for _ in range(max_length):
                eys = self.embed_y(ys)
                eys = F.split_axis(eys, batch, 0)
                h, c, ys = self.decoder(h, c, eys)
                cys = F.concat(ys, axis=0)
                wy = self.W(cys)
                ys = self.xp.argmax(wy.array, axis=1).astype(numpy.int32)
                result.append(ys)

        result = chainer.get_device("@numpy").send(self.xp.stack(result).T)

        # Remove EOS taggs
        outs = []
        for y in result:
            inds = numpy.argwhere(y == EOS)
            if len(inds) > 0:
                y = y[: inds[0, 0]]
            outs.append(y)
        return outs


@chainer.dataset.converter()
def convert(batch, device):
    """Sends the source and target sentences of a batch to the device, each list as one
    transfer, and returns them as the keyword arguments of ``Seq2seq.forward``."""

    def to_device_batch(batch):
        if device is None:
            return batch
        src_xp = chainer.backend.get_array_module(*batch)
        xp = device.xp
        concat = src_xp.concatenate(batch, axis=0)
        sections = list(numpy.cumsum([len(x) for x in batch[:-1]], dtype=numpy.int32))
        concat_dst = device.send(concat)
        batch_dst = xp.split(concat_dst, sections)
        return batch_dst

    return {"xs": to_device_batch([x for x, _ in batch]), "ys": to_device_batch([y for _, y in batch])}


# ----------------------------------------------------------------------------------- BLEU


def _ngrams(words, n):
    return collections.Counter(tuple(words[i : i + n]) for i in range(len(words) - n + 1))


def corpus_bleu(list_of_references, hypotheses, max_n=4, epsilon=0.1):
    """Corpus-level BLEU (Papineni et al., 2002) of tokenized translations.

    Args:
        list_of_references: For each hypothesis, a list of its reference translations
            (each a sequence of tokens).
        hypotheses: The translations, each a sequence of tokens.
        max_n: The longest n-grams counted; their precisions are weighted uniformly.
        epsilon: An n-gram order without any match counts ``epsilon`` matches instead
            ("method1" of Chen and Cherry, 2014), so one empty order does not make the
            score zero. A corpus without any matching word scores 0.

    Returns:
        The score, a float in [0, 1].
    """
    if len(list_of_references) != len(hypotheses):
        raise ValueError(f"corpus_bleu: {len(list_of_references)} lists of references for {len(hypotheses)} hypotheses")
    matches = [0] * max_n
    totals = [0] * max_n
    hyp_length = 0
    ref_length = 0
    for references, hypothesis in zip(list_of_references, hypotheses):
        hypothesis = list(hypothesis)
        references = [list(r) for r in references]
        hyp_length += len(hypothesis)
        # The reference length closest to the hypothesis's (the shorter one on a tie).
        ref_length += min((abs(len(r) - len(hypothesis)), len(r)) for r in references)[1]
        for n in range(1, max_n + 1):
            counts = _ngrams(hypothesis, n)
            max_ref_counts = collections.Counter()
            for reference in references:
                max_ref_counts |= _ngrams(reference, n)
            matches[n - 1] += sum(min(c, max_ref_counts[g]) for g, c in counts.items())
            totals[n - 1] += max(1, sum(counts.values()))
    if hyp_length == 0 or matches[0] == 0:
        return 0.0
    log_precision = sum(math.log((m if m > 0 else epsilon) / t) for m, t in zip(matches, totals)) / max_n
    brevity_penalty = 1.0 if hyp_length > ref_length else math.exp(1 - ref_length / hyp_length)
    return brevity_penalty * math.exp(log_precision)


class CalculateBleu(chainer.training.Extension):
    """Reports the BLEU score of the model's translations of ``test_data``."""

    trigger = 1, "epoch"
    priority = chainer.training.PRIORITY_WRITER

    def __init__(self, model, test_data, key, device, batch=100, max_length=100):
        self.model = model
        self.test_data = test_data
        self.key = key
        self.batch = batch
        self.device = device
        self.max_length = max_length

    def __call__(self, trainer):
        device = self.device
        with chainer.no_backprop_mode():
            references = []
            hypotheses = []
            for i in range(0, len(self.test_data), self.batch):
                sources, targets = zip(*self.test_data[i : i + self.batch])
                references.extend([[t.tolist()] for t in targets])

                sources = [device.send(x) for x in sources]
                ys = [y.tolist() for y in self.model.translate(sources, self.max_length)]
                hypotheses.extend(ys)

        bleu = corpus_bleu(references, hypotheses)
        chainer.report({self.key: bleu})


# ----------------------------------------------------------------------------- the data


def load_vocabulary(path):
    with open(path, encoding="utf-8") as f:
        # +2 for UNK and EOS
        word_ids = {line.strip(): i + 2 for i, line in enumerate(f)}
    word_ids["<UNK>"] = 0
    word_ids["<EOS>"] = 1
    return word_ids


def load_data(vocabulary, path):
    print(f"loading...: {path}")
    data = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            words = line.strip().split()
            array = numpy.array([vocabulary.get(w, UNK) for w in words], numpy.int32)
            data.append(array)
    return data


def load_data_using_dataset_api(src_vocab, src_path, target_vocab, target_path, filter_func):
    """The same pairs as ``load_data``, read from the files on access (``TextDataset``)
    instead of all kept in memory."""

    def _transform_line(vocabulary, line):
        words = line.strip().split()
        return numpy.array([vocabulary.get(w, UNK) for w in words], numpy.int32)

    def _transform(example):
        source, target = example
        return (_transform_line(src_vocab, source), _transform_line(target_vocab, target))

    return chainer.datasets.TransformDataset(
        chainer.datasets.TextDataset([src_path, target_path], encoding="utf-8", filter_func=filter_func),
        _transform,
    )


def calculate_unknown_ratio(data):
    unknown = sum((s == UNK).sum() for s in data)
    total = sum(s.size for s in data)
    return unknown / total


def write_small_corpus(directory, n_words=12, n_train=400, n_valid=40, seed=0):
    """Writes a tiny parallel corpus of the tutorial's form (line-aligned source and
    target files, one vocabulary file per language) and returns their paths: source
    word ``s<i>`` translates to target word ``t<perm[i]>``, in the same order."""
    rng = numpy.random.RandomState(seed)
    translation = rng.permutation(n_words)
    os.makedirs(directory, exist_ok=True)

    def write(name, lines):
        path = os.path.join(directory, name)
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(line + "\n" for line in lines)
        return path

    def sentences(n):
        src, tgt = [], []
        for _ in range(n):
            ids = rng.randint(n_words, size=rng.randint(3, 7))
            src.append(" ".join(f"s{i}" for i in ids))
            tgt.append(" ".join(f"t{translation[i]}" for i in ids))
        return src, tgt

    train_src, train_tgt = sentences(n_train)
    valid_src, valid_tgt = sentences(n_valid)
    return {
        "SOURCE": write("train.src", train_src),
        "TARGET": write("train.tgt", train_tgt),
        "SOURCE_VOCAB": write("vocab.src", [f"s{i}" for i in range(n_words)]),
        "TARGET_VOCAB": write("vocab.tgt", [f"t{i}" for i in range(n_words)]),
        "validation_source": write("valid.src", valid_src),
        "validation_target": write("valid.tgt", valid_tgt),
    }


def main():
    parser = argparse.ArgumentParser(description="Chainer example: seq2seq")
    parser.add_argument("SOURCE", nargs="?", help="source sentence list")
    parser.add_argument("TARGET", nargs="?", help="target sentence list")
    parser.add_argument("SOURCE_VOCAB", nargs="?", help="source vocabulary file")
    parser.add_argument("TARGET_VOCAB", nargs="?", help="target vocabulary file")
    parser.add_argument("--validation-source", help="source sentence list for validation")
    parser.add_argument("--validation-target", help="target sentence list for validation")
    parser.add_argument("--batchsize", "-b", type=int, default=64, help="number of sentence pairs in each mini-batch")
    parser.add_argument("--epoch", "-e", type=int, default=20, help="number of sweeps over the dataset to train")
    parser.add_argument("--resume", "-r", type=str, help="resume the training from snapshot")
    parser.add_argument("--save", "-s", type=str, help="save a snapshot of the training")
    parser.add_argument("--unit", "-u", type=int, default=1024, help="number of units")
    parser.add_argument("--layer", "-l", type=int, default=3, help="number of layers")
    parser.add_argument(
        "--use-dataset-api",
        default=False,
        action="store_true",
        help="use TextDataset API to reduce CPU memory usage",
    )
    parser.add_argument("--min-source-sentence", type=int, default=1, help="minimium length of source sentence")
    parser.add_argument("--max-source-sentence", type=int, default=50, help="maximum length of source sentence")
    parser.add_argument("--min-target-sentence", type=int, default=1, help="minimium length of target sentence")
    parser.add_argument("--max-target-sentence", type=int, default=50, help="maximum length of target sentence")
    parser.add_argument("--log-interval", type=int, default=200, help="number of iteration to show log")
    parser.add_argument(
        "--validation-interval",
        type=int,
        default=4000,
        help="number of iteration to evlauate the model with validation dataset",
    )
    parser.add_argument(
        "--device",
        "-d",
        type=str,
        default="-1",
        help="Device specifier: '@numpy', '@cupy:N', or an integer "
        "(a negative one is the CPU, N >= 0 is GPU N, as in Chainer's older examples)",
    )
    parser.add_argument("--out", "-o", default="result", help="directory to output the result")
    parser.add_argument(
        "--small",
        action="store_true",
        help="write a tiny synthetic parallel corpus to <out>/small_corpus and train on it (quick runs and tests)",
    )
    group = parser.add_argument_group("deprecated arguments")
    group.add_argument(
        "--gpu", "-g", dest="device", type=int, nargs="?", const=0, help="GPU ID (negative value indicates CPU)"
    )
    args = parser.parse_args()

    if args.small:
        for name, path in write_small_corpus(os.path.join(args.out, "small_corpus")).items():
            setattr(args, name, path)
    elif not all([args.SOURCE, args.TARGET, args.SOURCE_VOCAB, args.TARGET_VOCAB]):
        parser.error("SOURCE, TARGET, SOURCE_VOCAB and TARGET_VOCAB are required (or --small)")

    device = chainer.get_device(args.device)
    device.use()

    # Load pre-processed dataset
    print(f"[{datetime.datetime.now()}] Loading dataset... (this may take several minutes)")
    source_ids = load_vocabulary(args.SOURCE_VOCAB)
    target_ids = load_vocabulary(args.TARGET_VOCAB)

    if args.use_dataset_api:
        # By using TextDataset, you can avoid loading whole dataset on memory.
        # This significantly reduces the host memory usage.
        def _filter_func(s, t):
            sl = len(s.strip().split())  # number of words in source line
            tl = len(t.strip().split())  # number of words in target line
            return (
                args.min_source_sentence <= sl <= args.max_source_sentence
                and args.min_target_sentence <= tl <= args.max_target_sentence
            )

        train_data = load_data_using_dataset_api(source_ids, args.SOURCE, target_ids, args.TARGET, _filter_func)
    else:
        # Load all records on memory.
        train_source = load_data(source_ids, args.SOURCE)
        train_target = load_data(target_ids, args.TARGET)
        assert len(train_source) == len(train_target)

        train_data = [
            (s, t)
            for s, t in zip(train_source, train_target)
            if args.min_source_sentence <= len(s) <= args.max_source_sentence
            and args.min_target_sentence <= len(t) <= args.max_target_sentence
        ]
    print(f"[{datetime.datetime.now()}] Dataset loaded.")

    if not args.use_dataset_api:
        # Skip printing statistics when using TextDataset API, as it is slow.
        train_source_unknown = calculate_unknown_ratio([s for s, _ in train_data])
        train_target_unknown = calculate_unknown_ratio([t for _, t in train_data])

        print(f"Source vocabulary size: {len(source_ids)}")
        print(f"Target vocabulary size: {len(target_ids)}")
        print(f"Train data size: {len(train_data)}")
        print(f"Train source unknown ratio: {train_source_unknown * 100:.2f}%")
        print(f"Train target unknown ratio: {train_target_unknown * 100:.2f}%")

    target_words = {i: w for w, i in target_ids.items()}
    source_words = {i: w for w, i in source_ids.items()}

    # Set up the model
    model = Seq2seq(args.layer, len(source_ids), len(target_ids), args.unit)
    model.to_device(device)

    # Set up the optimizer
    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)

    # Set up the iterator
    train_iter = chainer.iterators.SerialIterator(train_data, args.batchsize)

    # Set up the updater and the trainer
    updater = training.updaters.StandardUpdater(train_iter, optimizer, converter=convert, device=device)
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)
    trainer.extend(extensions.LogReport(trigger=(args.log_interval, "iteration")))
    trainer.extend(
        extensions.PrintReport(
            ["epoch", "iteration", "main/loss", "main/perp", "validation/main/bleu", "elapsed_time"]
        ),
        trigger=(args.log_interval, "iteration"),
    )
    trainer.extend(
        extensions.snapshot(filename="snapshot_epoch_{.updater.iteration}"),
        trigger=(args.validation_interval, "iteration"),
    )

    if args.validation_source and args.validation_target:
        test_source = load_data(source_ids, args.validation_source)
        test_target = load_data(target_ids, args.validation_target)
        assert len(test_source) == len(test_target)
        test_data = list(zip(test_source, test_target))
        test_data = [(s, t) for s, t in test_data if 0 < len(s) and 0 < len(t)]
        test_source_unknown = calculate_unknown_ratio([s for s, _ in test_data])
        test_target_unknown = calculate_unknown_ratio([t for _, t in test_data])

        print(f"Validation data: {len(test_data)}")
        print(f"Validation source unknown ratio: {test_source_unknown * 100:.2f}%")
        print(f"Validation target unknown ratio: {test_target_unknown * 100:.2f}%")

        @chainer.training.make_extension()
        def translate(trainer):
            source, target = test_data[numpy.random.choice(len(test_data))]
            result = model.translate([model.xp.array(source)])[0]

            source_sentence = " ".join([source_words[x] for x in source])
            target_sentence = " ".join([target_words[y] for y in target])
            result_sentence = " ".join([target_words[y] for y in result])
            print("# source : " + source_sentence)
            print("# result : " + result_sentence)
            print("# expect : " + target_sentence)

        trainer.extend(translate, trigger=(args.validation_interval, "iteration"))
        trainer.extend(
            CalculateBleu(model, test_data, "validation/main/bleu", device),
            trigger=(args.validation_interval, "iteration"),
        )

    if args.resume is not None:
        # Resume from a snapshot
        chainer.serializers.load_npz(args.resume, trainer)

    print("start training")
    trainer.run()

    if args.save is not None:
        # Save a snapshot
        chainer.serializers.save_npz(args.save, trainer)


if __name__ == "__main__":
    main()
