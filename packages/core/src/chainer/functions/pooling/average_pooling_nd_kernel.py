"""Generators of the CUDA sources of N-dimensional average pooling (see
:mod:`~chainer.functions.pooling.pooling_nd_kernel` for the geometry parameters).

The padding counts as zeros: the sum of each window's elements inside the image is
multiplied by ``coeff``, the reciprocal of the window size ``k_1 ... k_N``."""

from __future__ import annotations

from chainer.functions.pooling import pooling_nd_kernel


class AveragePoolingNDKernelForward(pooling_nd_kernel.PoolingNDKernelForward):
    """``out = coeff * sum(window)``. Parameters: ``raw T in, T coeff``; output ``T out``."""

    def name(self) -> str:
        return "avg_pool"

    def in_params(self) -> list[str]:
        return ["raw T in", "T coeff"]

    def out_params(self) -> list[str]:
        return ["T out"]

    def before(self) -> str:
        return "T val = (T)0;"

    def main(self, offset: str, xs: list[str]) -> str:
        return f"val = val + in[{offset}];"

    def after(self, xs: list[str]) -> str:
        return "out = val * coeff;"


class AveragePoolingNDKernelBackward(pooling_nd_kernel.PoolingNDKernelBackward):
    """``gx = coeff * sum(gy)`` over the outputs whose windows contain the element.
    Parameters: ``raw T gy, T coeff``; output ``T gx``."""

    def name(self) -> str:
        return "avg_pool_grad"

    def in_params(self) -> list[str]:
        return ["raw T gy", "T coeff"]

    def out_params(self) -> list[str]:
        return ["T gx"]

    def before(self) -> str:
        return "T val = (T)0;"

    def main(self, offset: str, xs: list[str], out_xs: list[str]) -> str:
        return f"val = val + gy[{offset}];"

    def after(self, xs: list[str]) -> str:
        return "gx = val * coeff;"
