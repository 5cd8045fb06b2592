"""Every ``>>>`` example in the docstrings of onnx_chainer's modules runs and prints what it shows
(the names available without import are listed in ``tests/conftest.py``)."""

DOCSTRING_PACKAGES = ["onnx_chainer"]


def test_docstring_examples(docstring_module, run_docstring_examples):
    run_docstring_examples(docstring_module)
