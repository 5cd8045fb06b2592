"""Every ``>>>`` example in the docstrings of chainer-links' modules runs and prints what it
shows (the names available without import are listed in ``tests/conftest.py``)."""

import importlib.util

import pytest

DOCSTRING_PACKAGES = ["chainer.links"]
# Modules whose public links must each come with an example.
MUST_HAVE_EXAMPLES = {
    "chainer.links.activation.maxout",
    "chainer.links.activation.prelu",
    "chainer.links.activation.simplified_dropconnect",
    "chainer.links.activation.swish",
    "chainer.links.connection.bias",
    "chainer.links.connection.bilinear",
    "chainer.links.connection.convolution_2d",
    "chainer.links.connection.convolution_nd",
    "chainer.links.connection.deconvolution_2d",
    "chainer.links.connection.deconvolution_nd",
    "chainer.links.connection.deformable_convolution_2d",
    "chainer.links.connection.depthwise_convolution_2d",
    "chainer.links.connection.dilated_convolution_2d",
    "chainer.links.connection.embed_id",
    "chainer.links.connection.highway",
    "chainer.links.connection.inception",
    "chainer.links.connection.inceptionbn",
    "chainer.links.connection.linear",
    "chainer.links.connection.local_convolution_2d",
    "chainer.links.connection.mlp_convolution_2d",
    "chainer.links.connection.parameter",
    "chainer.links.connection.scale",
    "chainer.links.loss.black_out",
    "chainer.links.loss.crf1d",
    "chainer.links.loss.hierarchical_softmax",
    "chainer.links.loss.negative_sampling",
    "chainer.links.model.classifier",
    "chainer.links.model.vision.resnet",
    "chainer.links.normalization.batch_normalization",
    "chainer.links.normalization.batch_renormalization",
    "chainer.links.normalization.decorrelated_batch_normalization",
    "chainer.links.normalization.group_normalization",
    "chainer.links.normalization.layer_normalization",
    "chainer.links.rnn.gru",
    "chainer.links.rnn.lstm",
    "chainer.links.rnn.mgu",
    "chainer.links.rnn.n_step_gru",
    "chainer.links.rnn.n_step_lstm",
    "chainer.links.rnn.n_step_rnn",
    "chainer.links.rnn.peephole",
    "chainer.links.rnn.tree_lstm",
    "chainer.links.rnn.zoneoutlstm",
}


def _protobuf_installed():
    try:
        return importlib.util.find_spec("google.protobuf") is not None
    except ModuleNotFoundError:  # no "google" namespace at all
        return False


def test_docstring_examples(docstring_module, run_docstring_examples):
    if docstring_module.startswith("chainer.links.caffe") and not _protobuf_installed():
        pytest.skip("chainer.links.caffe needs protobuf (the extra chainer-links[caffe]), which is not installed")
    examples_run = run_docstring_examples(docstring_module)
    if docstring_module in MUST_HAVE_EXAMPLES:
        assert examples_run > 0, f"{docstring_module} has no docstring example"
