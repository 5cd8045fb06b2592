"""CUDAProfileHook: NVTX ranges around each function, for NVIDIA's profilers."""

from __future__ import annotations

import warnings
from typing import Any

from chainer import function_hook
from chainer.backends import cuda


class CUDAProfileHook(function_hook.FunctionHook):
    """Marks every forward and backward as an NVTX range (visible in Nsight Systems).
    Needs CuPy and a GPU (raises ``RuntimeError`` saying why otherwise)."""

    name = "CUDAProfileHook"

    def __init__(self) -> None:
        cuda.check_cuda_available()
        # cupy.cuda.nvtx_enabled (deprecated by CuPy, still what Chainer 7.8.1 read) is False
        # when CuPy was built without NVTX.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            nvtx_enabled = getattr(cuda.cupy.cuda, "nvtx_enabled", True)
        if not nvtx_enabled:
            raise RuntimeError("CUDAProfileHook: CuPy has no NVTX support (cupy.cuda.nvtx_enabled is False)")
        self._nvtx = cuda.cupy.cuda.nvtx

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._nvtx.RangePush(f"{function.label}.forward")

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._nvtx.RangePop()

    def backward_preprocess(self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]) -> None:
        self._nvtx.RangePush(f"{function.label}.backward")

    def backward_postprocess(self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]) -> None:
        self._nvtx.RangePop()
