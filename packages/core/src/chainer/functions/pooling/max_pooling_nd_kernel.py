"""Generators of the CUDA sources of N-dimensional max pooling (see
:mod:`~chainer.functions.pooling.pooling_nd_kernel` for the geometry parameters)."""

from __future__ import annotations

from chainer.functions.pooling import pooling_nd_kernel
from chainer.utils.conv_nd_kernel import muladdexp, vars


def _window_index(ks: list[str], xs: list[str], origins: list[str]) -> str:
    """The flat index of ``xs`` within the window starting at ``origins`` (padding included)."""
    return muladdexp(ks, [f"({x} - {origin})" for x, origin in zip(xs, origins)])


class MaxPoolingNDKernelForward(pooling_nd_kernel.PoolingNDKernelForward):
    """``out`` the maximum of each window and ``indexes`` the position of the (first)
    maximum within the window, as a flat index over the window's ``k_1 x ... x k_N``
    positions (padding included). Parameters: ``raw T in``; outputs ``T out, int32 indexes``.
    """

    def name(self) -> str:
        return "max_pool"

    def in_params(self) -> list[str]:
        return ["raw T in"]

    def out_params(self) -> list[str]:
        return ["T out", "int32 indexes"]

    def before(self) -> str:
        return "T maxval = (T)0;\nint argmax = -1;"

    def main(self, offset: str, xs: list[str]) -> str:
        index = _window_index(vars("k", self.ndim), xs, vars("origin", self.ndim))
        return f"T v = in[{offset}];\nif (argmax < 0 || v > maxval) {{\n  maxval = v;\n  argmax = {index};\n}}"

    def after(self, xs: list[str]) -> str:
        return "out = maxval;\nindexes = argmax;"


class MaxPoolingNDKernelBackward(pooling_nd_kernel.PoolingNDKernelBackward):
    """``gx``: each input element receives the gradients ``gy`` of the outputs whose
    maximum it was (``indexes`` as :class:`MaxPoolingNDKernelForward` gives them).
    Parameters: ``raw T gy, raw int32 indexes``; output ``T gx``."""

    def name(self) -> str:
        return "max_pool_grad"

    def in_params(self) -> list[str]:
        return ["raw T gy", "raw int32 indexes"]

    def out_params(self) -> list[str]:
        return ["T gx"]

    def before(self) -> str:
        return "T val = (T)0;"

    def main(self, offset: str, xs: list[str], out_xs: list[str]) -> str:
        ks, ss, ps = (vars(p, self.ndim) for p in ("k", "s", "p"))
        origins = [f"({o} * {s} - {p})" for o, s, p in zip(out_xs, ss, ps)]
        index = _window_index(ks, xs, origins)
        return f"if (indexes[{offset}] == {index}) val = val + gy[{offset}];"

    def after(self, xs: list[str]) -> str:
        return "gx = val;"


class MaxPoolingNDKernelForwardWithIndexes(pooling_nd_kernel.PoolingNDKernelForward):
    """``out``: the element of each window at the given window-relative ``indexes``
    (as :class:`MaxPoolingNDKernelForward` returns them), 0 if that is padding.
    Parameters: ``raw T in, int32 indexes`` (one per output); output ``T out``."""

    def name(self) -> str:
        return "max_pool_with_indexes"

    def in_params(self) -> list[str]:
        return ["raw T in", "int32 indexes"]

    def out_params(self) -> list[str]:
        return ["T out"]

    def before(self) -> str:
        return "T val = (T)0;"

    def main(self, offset: str, xs: list[str]) -> str:
        index = _window_index(vars("k", self.ndim), xs, vars("origin", self.ndim))
        return f"if ({index} == indexes) val = in[{offset}];"

    def after(self, xs: list[str]) -> str:
        return "out = val;"


class MaxPoolingNDKernelForwardWithIndexes1(MaxPoolingNDKernelForwardWithIndexes):
    """:class:`MaxPoolingNDKernelForwardWithIndexes` with ``indexes`` that are flat
    positions in the input's spatial plane ``d_1 x ... x d_N`` (0 if the position is not
    in the window)."""

    def name(self) -> str:
        return "max_pool_with_plane_indexes"

    def main(self, offset: str, xs: list[str]) -> str:
        return f"if ({muladdexp(vars('d', self.ndim), xs)} == indexes) val = in[{offset}];"
