"""The examples in examples/ (the docs' tutorials), each run as a user runs it.

Every script runs in a subprocess with ``--small`` (a tiny synthetic data set of the real
shapes, no download) and its own temporary ``--out`` directory. The checks are what a
user looks at: the loss in the log falls, the images open, the graph file is a Graphviz
graph, and the saved models load into freshly built models and behave as trained.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import pathlib
import re
import subprocess
import sys
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from PIL import Image

import chainer
import chainer.functions as F
import chainer.links as L

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def run_example(script: str, out: pathlib.Path, *args: str, small: bool = True, dataset_root: Any = None) -> str:
    """Runs ``examples/<script> --small --out <out> <args>`` and returns its output."""
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, MPLBACKEND="Agg")
    if dataset_root is not None:
        env["CHAINER_DATASET_ROOT"] = str(dataset_root)
    # -W error: a warning raised by the library while an example runs fails the test, as
    # it does in the rest of the suite.
    # The script runs as __main__ after NumPy's global generator is seeded, so that initial
    # weights and shuffles (which the examples, like the docs', do not seed) are the same
    # on every run and the loss thresholds below cannot flake.
    launcher = (
        "import runpy, sys, numpy; numpy.random.seed(0); sys.argv = sys.argv[1:]; "
        "runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    command = [sys.executable, "-W", "error", "-c", launcher, str(EXAMPLES / script), *(["--small"] if small else [])]
    command += ["--out", str(out), *args]
    proc = subprocess.run(command, capture_output=True, text=True, cwd=out, env=env, timeout=600)
    assert proc.returncode == 0, f"{script} exited with {proc.returncode}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc.stdout


def load_example(script: str) -> ModuleType:
    """Imports an example script as a module (for its model classes and data helpers)."""
    path = EXAMPLES / script
    spec = importlib.util.spec_from_file_location(f"example_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_log(out: pathlib.Path) -> list[dict[str, Any]]:
    """The entries LogReport wrote to ``<out>/log``."""
    entries = json.loads((out / "log").read_text())
    assert isinstance(entries, list) and entries, "the log is empty"
    return entries


def series(log: list[dict[str, Any]], key: str) -> list[float]:
    values = [entry[key] for entry in log if key in entry]
    assert values, f"no {key!r} in the log: {log}"
    assert all(math.isfinite(v) for v in values), f"{key}: {values}"
    return values


def assert_falls(values: list[float], what: str) -> None:
    assert values[-1] < values[0], f"{what} did not fall: {values}"


def assert_png(path: pathlib.Path, size: tuple[int, int] | None = None) -> None:
    assert path.is_file(), f"{path.name} was not written"
    with Image.open(path) as image:
        assert image.format == "PNG"
        image.load()
        if size is not None:
            assert image.size == size


def assert_graph(path: pathlib.Path) -> None:
    text = path.read_text()
    assert text.startswith("digraph"), text[:100]
    assert "->" in text  # it has edges, not only a header


# ---------------------------------------------------------------------------- MNIST


def accuracy_on(model: chainer.Link, dataset: Any) -> float:
    x, t = chainer.dataset.concat_examples(list(dataset))
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        return float(F.accuracy(model(x), t).array)


def test_mnist_trainer(tmp_path):
    out = tmp_path / "result"
    stdout = run_example("mnist/train_mnist.py", out, "--epoch", "3")

    log = read_log(out)
    assert [entry["epoch"] for entry in log] == [1, 2, 3]
    assert_falls(series(log, "main/loss"), "training loss")
    assert_falls(series(log, "validation/main/loss"), "validation loss")
    assert series(log, "validation/main/accuracy")[-1] > 0.5
    assert_png(out / "loss.png")
    assert_png(out / "accuracy.png")
    assert_graph(out / "cg.dot")
    assert "predicted_label:" in stdout

    # The model snapshot loads into a fresh MLP (its first layer of unknown input size
    # included) and classifies the test set as the trained model did.
    example = load_example("mnist/train_mnist.py")
    model = example.MLP()
    chainer.serializers.load_npz(str(out / "model_epoch-3"), model)
    _, test = example.make_small_mnist()
    assert accuracy_on(model, test) == pytest.approx(log[-1]["validation/main/accuracy"], abs=1e-6)


def test_mnist_trainer_resumes_from_a_snapshot(tmp_path):
    first = tmp_path / "first"
    run_example("mnist/train_mnist.py", first, "--epoch", "2", "--noplot")
    resumed = tmp_path / "resumed"
    run_example(
        "mnist/train_mnist.py", resumed, "--epoch", "3", "--noplot", "--resume", str(first / "snapshot_epoch-2")
    )
    log = read_log(resumed)
    # The log of the first two epochs comes back with the snapshot; only the third is new.
    assert [entry["epoch"] for entry in log] == [1, 2, 3]
    assert log[:2] == read_log(first)
    assert not (resumed / "model_epoch-1").exists()
    assert (resumed / "model_epoch-3").exists()


def test_mnist_custom_loop(tmp_path):
    out = tmp_path / "result"
    stdout = run_example("mnist/train_mnist_custom_loop.py", out, "--epoch", "3")

    epochs = re.findall(r"epoch:(\d+) train_loss:(\S+) val_loss:(\S+) val_accuracy:(\S+)", stdout)
    assert [int(e[0]) for e in epochs] == [1, 2, 3], stdout
    assert_falls([float(e[2]) for e in epochs], "validation loss")
    assert_png(out / "train_example.png")
    assert_png(out / "test_example.png")

    # The saved model loads into a fresh network and predicts what the script printed.
    example = load_example("mnist/train_mnist_custom_loop.py")
    model = example.MyNetwork()
    chainer.serializers.load_npz(str(out / "my_mnist.model"), model)
    _, test = example.make_small_mnist()
    x, _ = test[0]
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        predicted = int(model(x[None]).array.argmax())
    assert f"predicted label: {predicted}" in stdout
    assert accuracy_on(model, test) == pytest.approx(float(epochs[-1][3]), abs=1e-4)


@pytest.mark.parametrize("device", [["--device", "@numpy"], ["--device", "-1"], ["--gpu", "-1"]])
def test_device_options(tmp_path, device):
    # The specifiers of Chainer 7's examples: a device name, or the old integers.
    stdout = run_example("mnist/train_mnist_custom_loop.py", tmp_path, "--epoch", "1", *device)
    assert "epoch:01" in stdout


@pytest.mark.skipif(chainer.backends.cuda.available, reason="checks the message shown without CuPy")
def test_gpu_without_cupy_is_a_clear_error(tmp_path):
    command = [sys.executable, str(EXAMPLES / "mnist/train_mnist.py"), "--small", "--device", "@cupy:0"]
    proc = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert proc.returncode != 0
    assert "the '@cupy' backend is not available: CuPy is not installed" in proc.stderr


@pytest.fixture(scope="module")
def dataset_root(tmp_path_factory):
    """A dataset root holding tiny stand-ins of the converted caches that
    chainer.datasets writes after downloading MNIST, CIFAR-10 and PTB (same file names,
    keys, dtypes and shapes), so the examples' real-data path runs offline."""
    root = tmp_path_factory.mktemp("dataset_root")
    directory = root / "pfnet" / "chainer"
    rng = np.random.RandomState(0)

    mnist = load_example("mnist/train_mnist.py")
    (directory / "mnist").mkdir(parents=True)
    for split, data in zip(("train", "test"), mnist.make_small_mnist(200, 100)):
        x, y = chainer.dataset.concat_examples(list(data))
        np.savez_compressed(directory / "mnist" / f"{split}.npz", x=(x * 255).astype(np.uint8), y=y.astype(np.uint8))

    cifar = load_example("cifar/train_cifar.py")
    (directory / "cifar").mkdir()
    arrays = {}
    for split, data in zip(("train", "test"), cifar.make_small_cifar(10, 64, 32)):
        x, y = chainer.dataset.concat_examples(list(data))
        arrays[f"{split}_x"] = (x * 255).astype(np.uint8).reshape(len(x), 3072)
        arrays[f"{split}_y"] = y.astype(np.uint8)
    np.savez_compressed(directory / "cifar" / "cifar-10.npz", **arrays)

    (directory / "ptb").mkdir()
    words = [f"w{i}" for i in range(29)] + ["<eos>"]
    (directory / "ptb" / "vocab.txt").write_text("".join(w + "\n" for w in words))
    for split, n in (("train", 2000), ("valid", 200), ("test", 200)):
        np.savez_compressed(directory / "ptb" / f"{split}.npz", x=rng.randint(0, 30, size=n).astype(np.int32))
    return root


@pytest.mark.parametrize(
    ("script", "args"),
    [
        ("mnist/train_mnist.py", ["--epoch", "1", "--noplot"]),
        ("mnist/train_mnist_custom_loop.py", ["--epoch", "1"]),
        ("vae/train_vae.py", ["--epoch", "1", "--dim-h", "50"]),
        ("cifar/train_cifar.py", ["--arch", "lenet5", "--epoch", "1", "--noplot"]),
        ("dcgan/train_dcgan.py", ["--ch", "16", "--batchsize", "16", "--epoch", "1", "--display_interval", "2"]),
        ("ptb/train_ptb.py", ["--unit", "16", "--epoch", "1", "--bproplen", "10"]),
        ("word2vec/train_word2vec.py", ["--unit", "8", "--window", "3", "--batchsize", "100", "--epoch", "1"]),
    ],
)
def test_real_data_path(tmp_path, dataset_root, script, args):
    # Without --small the examples load their data through chainer.datasets; here from
    # the tiny caches above instead of a download.
    stdout = run_example(script, tmp_path, *args, small=False, dataset_root=dataset_root)
    if script.startswith("ptb/"):
        assert "#vocab = 30" in stdout and "test perplexity" in stdout
    elif script.startswith("mnist/train_mnist_custom"):
        assert "epoch:01" in stdout
    else:
        assert read_log(tmp_path)[-1]["epoch"] == 1


# ---------------------------------------------------------------------------- CIFAR


@pytest.mark.slow
def test_cifar_lenet5_learns(tmp_path):
    out = tmp_path / "result"
    run_example("cifar/train_cifar.py", out, "--arch", "lenet5", "--epoch", "20", "--batchsize", "8", "--noplot")
    log = read_log(out)
    assert_falls(series(log, "main/loss"), "training loss")
    assert_graph(out / "cg.dot")

    example = load_example("cifar/train_cifar.py")
    model = example.LeNet5(10)
    chainer.serializers.load_npz(str(out / "model_epoch-20"), model)
    _, test = example.make_small_cifar(10)
    assert accuracy_on(model, test) == pytest.approx(log[-1]["validation/main/accuracy"], abs=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["vgg16", "resnet152"])
def test_cifar_large_models(tmp_path, arch):
    # The full-size VGG16 and ResNet152 of the tutorial, in this process: the script runs
    # them like LeNet5, but its compressed snapshots of their 130 and 230 MB of
    # parameters every epoch would take most of a minute here.
    example = load_example("cifar/train_cifar.py")
    train, _ = example.make_small_cifar(10)
    x, t = chainer.dataset.concat_examples(list(train)[:4])
    model = L.Classifier(example.ARCHS[arch](10))
    optimizer = chainer.optimizers.MomentumSGD(0.01)
    optimizer.setup(model)
    optimizer.update(model, x, t)
    assert math.isfinite(float(model.loss.array))
    first_conv = model.predictor[0].conv1 if arch == "vgg16" else model.predictor.conv1
    assert first_conv.W.shape[:2] == (64, 3) and np.abs(first_conv.W.grad).sum() > 0

    path = tmp_path / "model.npz"
    chainer.serializers.save_npz(str(path), model.predictor, compression=False)
    loaded = example.ARCHS[arch](10)
    chainer.serializers.load_npz(str(path), loaded)
    trained = dict(model.predictor.namedparams())
    for name, param in loaded.namedparams():
        np.testing.assert_array_equal(param.array, trained[name].array)
    if arch == "vgg16":
        with chainer.using_config("train", False), chainer.no_backprop_mode():
            np.testing.assert_array_equal(loaded(x).array, model.predictor(x).array)
    else:
        # BatchNormalization's running statistics come back too.
        np.testing.assert_array_equal(loaded.res5[2].bn_c.avg_var, model.predictor.res5[2].bn_c.avg_var)
        assert not np.all(loaded.res5[2].bn_c.avg_var == 1)


# ---------------------------------------------------------------------------- DCGAN


@pytest.mark.slow
def test_dcgan(tmp_path):
    out = tmp_path / "result"
    run_example(
        "dcgan/train_dcgan.py",
        out,
        *("--ch", "16", "--batchsize", "16", "--epoch", "40"),
        *("--display_interval", "20", "--snapshot_interval", "160", "--train_seed", "0"),
    )
    log = read_log(out)
    assert [entry["iteration"] for entry in log] == list(range(20, 161, 20))
    # The discriminator learns to tell the real images from the generated ones: its loss
    # leaves log(4) (chance) well behind.
    dis_loss = series(log, "dis/loss")
    assert dis_loss[0] > 1.2 and dis_loss[-1] < 0.75 * dis_loss[0], dis_loss
    series(log, "gen/loss")
    assert_png(out / "preview" / "image00000160.png", size=(320, 320))

    example = load_example("dcgan/train_dcgan.py")
    gen = example.Generator(100, ch=16)
    dis = example.Discriminator(ch=16)
    chainer.serializers.load_npz(str(out / "gen_iter_160.npz"), gen)
    chainer.serializers.load_npz(str(out / "dis_iter_160.npz"), dis)
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        images = gen(gen.make_hidden(2))
        scores = dis(images)
    assert images.shape == (2, 3, 32, 32) and scores.shape == (2, 1)
    assert 0 <= float(images.array.min()) and float(images.array.max()) <= 1


# ------------------------------------------------------------------------------ PTB


def test_ptb_language_model(tmp_path):
    out = tmp_path / "result"
    stdout = run_example("ptb/train_ptb.py", out, "--unit", "32", "--epoch", "10", "--bproplen", "10")
    log = read_log(out)
    perplexity = series(log, "perplexity")
    assert_falls(perplexity, "perplexity")
    assert_falls(series(log, "val_perplexity"), "validation perplexity")
    # The perplexity is the exponential of the cross entropy the Classifier reports.
    np.testing.assert_allclose(perplexity, np.exp(series(log, "main/loss")), rtol=1e-6)

    example = load_example("ptb/train_ptb.py")
    train, _, test = example.make_small_corpus()
    n_vocab = int(train.max()) + 1
    (test_perplexity,) = re.findall(r"test perplexity: (\S+)", stdout)
    # Far better than guessing uniformly among the words.
    assert float(test_perplexity) < n_vocab / 2

    model = L.Classifier(example.RNNForLM(n_vocab, 32))
    chainer.serializers.load_npz(str(out / "model.npz"), model)
    # The loaded model scores the test corpus as the script measured it (the iterator
    # wraps around: the last word is followed by the first).
    rnn = model.predictor
    rnn.reset_state()
    losses = []
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        for cur, nxt in zip(test, np.roll(test, -1)):
            losses.append(float(F.softmax_cross_entropy(rnn(np.array([cur])), np.array([nxt])).array))
    assert math.exp(np.mean(losses)) == pytest.approx(float(test_perplexity), rel=1e-4)


# ------------------------------------------------------------------------- word2vec


# Negative sampling and the hierarchical softmax report sums over the predictions, whose
# number varies with the window drawn for each batch: with CBOW (one prediction per
# center word) their epoch means fall steadily.
@pytest.mark.parametrize(
    ("model", "out_type"), [("skipgram", "original"), ("cbow", "original"), ("cbow", "ns"), ("cbow", "hsm")]
)
def test_word2vec(tmp_path, model, out_type):
    out = tmp_path / "result"
    stdout = run_example(
        "word2vec/train_word2vec.py",
        out,
        *("--model", model, "--out-type", out_type, "--unit", "16", "--window", "3"),
        *("--batchsize", "100", "--epoch", "5", "--query", "topic0_word0", "--query", "topic3_word2"),
    )
    log = read_log(out)
    assert_falls(series(log, "main/loss"), "training loss")
    series(log, "validation/main/loss")

    # word2vec.model: "<n_vocab> <n_units>", then one word and its vector per line.
    example = load_example("word2vec/train_word2vec.py")
    _, _, vocab = example.make_small_corpus()
    header, *lines = (out / "word2vec.model").read_text().splitlines()
    assert header == f"{len(vocab)} 16"
    assert sorted(line.split()[0] for line in lines) == sorted(vocab)
    assert all(len(line.split()) == 17 for line in lines)

    # The words of a topic share their contexts in the corpus, so the softmax models put
    # them close together: the nearest neighbours printed are of the query's topic.
    for query in ("topic0_word0", "topic3_word2"):
        block = stdout.split(f"query: {query}\n")[1].splitlines()[:5]
        neighbours = [line.split(":")[0] for line in block]
        assert len(neighbours) == 5 and query not in neighbours
        if out_type == "original":
            topic = query.split("_")[0]
            assert sum(n.startswith(topic + "_") for n in neighbours) >= 4, neighbours


# -------------------------------------------------------------------------- seq2seq


@pytest.mark.slow
def test_seq2seq(tmp_path):
    out = tmp_path / "result"
    stdout = run_example(
        "seq2seq/seq2seq.py",
        out,
        *("--unit", "32", "--layer", "1", "--batchsize", "32", "--epoch", "8"),
        *("--log-interval", "25", "--validation-interval", "25"),
    )
    log = read_log(out)
    assert_falls(series(log, "main/loss"), "training loss")
    assert_falls(series(log, "main/perp"), "perplexity")
    bleu = series(log, "validation/main/bleu")
    assert all(0 <= b <= 1 for b in bleu)
    assert "# result : " in stdout
    assert (out / "small_corpus" / "train.src").is_file()


def test_corpus_bleu_against_the_formula():
    bleu = load_example("seq2seq/seq2seq.py").corpus_bleu

    hypothesis = "the cat sat on the mat".split()
    reference = "the cat is on the mat".split()
    # Clipped n-gram matches / n-grams in the hypothesis: 5/6, 3/5, 1/4, and 0/3 for
    # 4-grams, counted as 0.1/3. The lengths are equal: no brevity penalty.
    expected = math.exp((math.log(5 / 6) + math.log(3 / 5) + math.log(1 / 4) + math.log(0.1 / 3)) / 4)
    assert bleu([[reference]], [hypothesis]) == pytest.approx(expected, rel=1e-12)

    assert bleu([[reference]], [reference]) == pytest.approx(1.0)
    assert bleu([["a", "b"]], [["c", "d"]]) == 0.0  # no word in common
    assert bleu([[["x"]]], [[]]) == 0.0  # an empty translation

    # Brevity penalty exp(1 - r / c) for a short translation; clipping of repeated words.
    short = bleu([["a b c d e f g h".split()]], ["a b c d".split()])
    assert short == pytest.approx(math.exp(1 - 8 / 4))
    # "the" x3 clipped to the reference's one; no 4-gram at all counts as 0 of 1.
    expected = math.exp((math.log(1 / 3) + math.log(0.1 / 2) + math.log(0.1 / 1) + math.log(0.1 / 1)) / 4)
    assert bleu([["the cat".split()]], ["the the the".split()]) == pytest.approx(expected)

    # Several references: counts clipped by the most generous reference ("the" appears
    # once in each), and the reference length closest to the translation's (4, not 7:
    # shorter than the translation's 5, so no brevity penalty).
    refs = ["the cat is here".split(), "there is a cat on the mat".split()]
    hyp = "the cat on the mat".split()
    p = [4 / 5, 4 / 4, 2 / 3, 1 / 2]
    assert bleu([refs], [hyp]) == pytest.approx(math.exp(sum(map(math.log, p)) / 4))
    # With only the long reference, the brevity penalty applies: exp(1 - 7 / 5).
    p = [4 / 5, 3 / 4, 2 / 3, 1 / 2]
    assert bleu([refs[1:]], [hyp]) == pytest.approx(math.exp(1 - 7 / 5) * math.exp(sum(map(math.log, p)) / 4))

    # Corpus level: the counts are summed over the sentences before dividing.
    corpus = bleu([[reference], ["a b c d".split()]], [hypothesis, "a b c d".split()])
    p = [(5 + 4) / (6 + 4), (3 + 3) / (5 + 3), (1 + 2) / (4 + 2), (0 + 1) / (3 + 1)]
    assert corpus == pytest.approx(math.exp(sum(map(math.log, p)) / 4))

    with pytest.raises(ValueError, match="corpus_bleu: 1 lists of references for 2 hypotheses"):
        bleu([[reference]], [hypothesis, hypothesis])


# ------------------------------------------------------------------------------ VAE


@pytest.mark.slow
def test_vae(tmp_path):
    out = tmp_path / "result"
    run_example("vae/train_vae.py", out, "--epoch", "5", "--dim-h", "100")
    log = read_log(out)
    assert_falls(series(log, "main/loss"), "negative ELBO")
    assert_falls(series(log, "validation/main/loss"), "validation negative ELBO")
    assert_falls(series(log, "main/rec_loss"), "reconstruction loss")
    for name in ("train", "train_reconstructed", "test", "test_reconstructed", "sampled"):
        assert_png(out / f"{name}.png")
    assert_graph(out / "cg.dot")

    # The saved model reconstructs the test images better than an untrained one.
    example = load_example("vae/train_vae.py")
    _, test = example.make_small_mnist()

    def reconstruction_error(model):
        with chainer.using_config("train", False), chainer.no_backprop_mode():
            logits = model(test, sigmoid=False)
        return float(F.bernoulli_nll(test, logits).array) / len(test)

    trained = example.VAE(784, 20, 100)
    chainer.serializers.load_npz(str(out / "model.npz"), trained)
    untrained = example.VAE(784, 20, 100)
    assert reconstruction_error(trained) < 0.9 * reconstruction_error(untrained)
