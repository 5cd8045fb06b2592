"""Write a model and its test data where the test suites of onnx_chainer expect them."""

from __future__ import annotations

import os
from typing import Any

from onnx_chainer.export_testcase import export_testcase

__all__ = ["TEST_OUT_DIR", "gen_test_data_set"]

#: The folder (relative to the working directory) the test data sets are written to.
TEST_OUT_DIR = "out"


def gen_test_data_set(model: Any, args: Any, name: str, opset_version: int, **kwargs: Any) -> str:
    """Export ``model`` with its inputs and outputs to ``TEST_OUT_DIR/opset<N>/<name>``.

    Args:
        model: The model (see :func:`onnx_chainer.export`).
        args: Its inputs.
        name: The folder of this test case.
        opset_version: The opset to export.
        **kwargs: Other arguments of :func:`onnx_chainer.export_testcase`.

    Returns:
        The folder written (``model.onnx`` and ``test_data_set_0/``).
    """
    path = os.path.join(TEST_OUT_DIR, f"opset{opset_version}", name)
    export_testcase(model, args, path, opset_version=opset_version, **kwargs)
    return path
