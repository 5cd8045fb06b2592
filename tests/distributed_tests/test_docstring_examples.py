"""Every ``>>>`` example in the docstrings of chainermn's modules runs and prints what it shows
(the names available without import are listed in ``tests/conftest.py``)."""

DOCSTRING_PACKAGES = ["chainermn"]


def test_docstring_examples(docstring_module, run_docstring_examples):
    run_docstring_examples(docstring_module)
