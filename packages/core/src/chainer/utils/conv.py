"""Output-size arithmetic of convolution and pooling."""

from __future__ import annotations


def get_conv_outsize(size: int, k: int, s: int, p: int, cover_all: bool = False, d: int = 1) -> int:
    """Output length of a convolution along one axis.

    Args:
        size: Input length. k: Kernel size. s: Stride. p: Padding (each side).
        cover_all: Add one more output if the last window would cut off input.
        d: Dilation.
    """
    dk = k + (k - 1) * (d - 1)
    if cover_all:
        return (size + p * 2 - dk + s - 1) // s + 1
    return (size + p * 2 - dk) // s + 1


def get_deconv_outsize(size: int, k: int, s: int, p: int, cover_all: bool = False, d: int = 1) -> int:
    """Output length of a deconvolution (transposed convolution) along one axis."""
    dk = (k - 1) * d + 1
    if cover_all:
        return s * (size - 1) + dk - s + 1 - 2 * p
    return s * (size - 1) + dk - 2 * p
