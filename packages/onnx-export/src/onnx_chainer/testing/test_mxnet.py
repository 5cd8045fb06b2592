"""Checking exported test cases with MXNet, as Chainer 7.8.1 could.

MXNet was retired by Apache in 2023; its last release runs on neither NumPy 2 nor
Python 3.11 and later, which this package requires, so the check is not implemented:
use :mod:`onnx_chainer.testing.test_onnxruntime`.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence

__all__ = ["MXNET_AVAILABLE", "check_model_expect"]

#: Whether MXNet is installed.
MXNET_AVAILABLE = importlib.util.find_spec("mxnet") is not None


def check_model_expect(
    test_path: str, input_names: Sequence[str] | None = None, rtol: float = 1e-5, atol: float = 1e-5
) -> None:
    """Run a test case with MXNet: not implemented (see the module documentation).

    Raises:
        NotImplementedError: Always; check with
            :func:`onnx_chainer.testing.test_onnxruntime.check_model_expect`.
    """
    raise NotImplementedError(
        "onnx_chainer.testing.test_mxnet.check_model_expect: checking with MXNet is not implemented, because "
        "MXNet (retired in 2023) runs on neither NumPy 2 nor Python 3.11+; use "
        "onnx_chainer.testing.test_onnxruntime.check_model_expect"
    )
