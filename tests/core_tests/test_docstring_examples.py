"""Every ``>>>`` example in the docstrings of chainer-core's modules runs and prints what it
shows (the names available without import are listed in ``tests/conftest.py``)."""

DOCSTRING_PACKAGES = ["chainer"]
# Sub-packages of the chainer import package that other distributions install.
DOCSTRING_EXCLUDE = ["chainer.links", "chainer.dataset", "chainer.datasets", "chainer.iterators", "chainer.training"]
# Packages whose public modules must each come with an example.
MUST_HAVE_EXAMPLES = (
    "chainer.distributions",
    "chainer.functions.activation",
    "chainer.functions.evaluation",
    "chainer.functions.noise",
    "chainer.functions.normalization",
    "chainer.functions.rnn",
    "chainer.functions.util",
)


def _must_have_examples(name):
    package, _, leaf = name.rpartition(".")
    return (package in MUST_HAVE_EXAMPLES and not leaf.startswith("_")) or name in (
        "chainer.distribution",
        "chainer.graph_optimizations.static_graph",
        "chainer.graph_optimizations.static_graph_utilities",
    )


def test_docstring_examples(docstring_module, run_docstring_examples):
    examples_run = run_docstring_examples(docstring_module)
    if _must_have_examples(docstring_module):
        assert examples_run > 0, f"{docstring_module} has no docstring example"
