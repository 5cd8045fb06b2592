"""Generators of the CUDA sources of N-dimensional pooling (CuPy ``ElementwiseKernel`` s).

A forward kernel runs over the outputs ``(n, c, out_1, ..., out_N)`` and visits the
input elements of each output's window that lie inside the image; a backward kernel runs
over the inputs ``(n, c, d_1, ..., d_N)`` and visits the outputs whose windows contain
each input element. A subclass fills in what happens around and at each visit
(:meth:`before`, :meth:`main`, :meth:`after`) and its own parameters; the generator
adds the geometry: ``int32`` parameters ``d_j`` (input size), ``out_j`` (output size),
``k_j`` (window), ``s_j`` (stride) and ``p_j`` (padding), after the subclass's inputs.

``generate(ndim)`` returns ``(in_params, out_params, operation, name)`` (cached);
``kernel(ndim)`` compiles it on the current device. The operations are plain C++.
"""

from __future__ import annotations

from chainer.utils import conv_nd_kernel
from chainer.utils.conv_nd_kernel import Writer, int_params, muladdexp, unravel, vars


class _PoolingNDKernel(conv_nd_kernel._KernelGenerator):
    """What the forward and backward generators share: the subclass hooks."""

    ndim = 0

    def name(self) -> str:
        """The kernel's name (the number of axes is appended)."""
        raise NotImplementedError(f"{type(self).__name__}.name: a pooling kernel names itself")

    def in_params(self) -> list[str]:
        """The subclass's input parameters, e.g. ``['raw T in']``."""
        raise NotImplementedError(f"{type(self).__name__}.in_params: a pooling kernel declares its inputs")

    def out_params(self) -> list[str]:
        """The output parameters, e.g. ``['T out']``."""
        raise NotImplementedError(f"{type(self).__name__}.out_params: a pooling kernel declares its outputs")

    def before(self) -> str:
        """Code before the visits (declare accumulators)."""
        return ""

    def after(self, xs: list[str]) -> str:
        """Code after the visits (write the outputs); ``xs`` are the element's own indices."""
        return ""

    def _geometry(self, ndim: int) -> tuple[list[str], ...]:
        self.ndim = ndim
        return tuple(vars(p, ndim) for p in ("d", "out", "k", "s", "p"))

    def _source(self, ndim: int, w: Writer) -> tuple[str, str, str, str]:
        ds, outs, ks, ss, ps = self._geometry(ndim)
        in_params = ", ".join(self.in_params() + int_params(ds, outs, ks, ss, ps))
        return in_params, ", ".join(self.out_params()), w.get(), f"{self.name()}_{ndim}d"

    @classmethod
    def _generate(cls, ndim: int) -> tuple[str, str, str, str]:
        return cls()._build(ndim)

    def _build(self, ndim: int) -> tuple[str, str, str, str]:
        raise NotImplementedError


class PoolingNDKernelForward(_PoolingNDKernel):
    """Base of the forward kernels: over each output, visit its window.

    :meth:`main` is called with the flat ``offset`` of the visited input element and
    the names ``xs`` of its coordinates; the window's first coordinate along axis ``j``
    (possibly in the padding) is ``origin_j``.
    """

    def main(self, offset: str, xs: list[str]) -> str:
        """Code for one visited input element."""
        raise NotImplementedError(f"{type(self).__name__}.main: a pooling kernel says what a visit does")

    def _build(self, ndim: int) -> tuple[str, str, str, str]:
        ds, outs, ks, ss, ps = self._geometry(ndim)
        out_xs, xs, origins = vars("out_x", ndim), vars("x", ndim), vars("origin", ndim)
        w = Writer()
        unravel(w, "i", out_xs, outs, "nc")
        for origin, o, s, p in zip(origins, out_xs, ss, ps):
            w.write(f"int {origin} = {o} * {s} - {p};")
        w.write(self.before())
        for x, origin, k, d in zip(xs, origins, ks, ds):
            start = f"({origin} < 0 ? 0 : {origin})"
            stop = f"({origin} + {k} < {d} ? {origin} + {k} : {d})"
            w.write(f"for (int {x} = {start}; {x} < {stop}; ++{x}) {{", "inc")
        w.write(f"int offset = {muladdexp(ds, xs, 'nc')};")
        w.write(self.main("offset", xs))
        for _ in range(ndim):
            w.write("}", "dec")
        w.write(self.after(out_xs))
        return self._source(ndim, w)


class PoolingNDKernelBackward(_PoolingNDKernel):
    """Base of the backward kernels: over each input element, visit the outputs whose
    windows contain it.

    :meth:`main` is called with the flat ``offset`` of the visited output, the names
    ``xs`` of the element's coordinates and ``out_xs`` of the output's.
    """

    def main(self, offset: str, xs: list[str], out_xs: list[str]) -> str:
        """Code for one visited output."""
        raise NotImplementedError(f"{type(self).__name__}.main: a pooling kernel says what a visit does")

    def _build(self, ndim: int) -> tuple[str, str, str, str]:
        ds, outs, ks, ss, ps = self._geometry(ndim)
        xs, out_xs = vars("x", ndim), vars("out_x", ndim)
        w = Writer()
        unravel(w, "i", xs, ds, "nc")
        w.write(self.before())
        for x, o, out, k, s, p in zip(xs, out_xs, outs, ks, ss, ps):
            # o's window [o s - p, o s - p + k) holds x for (x + p - k) / s < o <= (x + p) / s.
            w.write(f"int first_{o} = {x} + {p} - {k} < 0 ? 0 : ({x} + {p} - {k}) / {s} + 1;")
            w.write(f"int stop_{o} = ({x} + {p}) / {s} + 1 < {out} ? ({x} + {p}) / {s} + 1 : {out};")
            w.write(f"for (int {o} = first_{o}; {o} < stop_{o}; ++{o}) {{", "inc")
        w.write(f"int offset = {muladdexp(outs, out_xs, 'nc')};")
        w.write(self.main("offset", xs, out_xs))
        for _ in range(ndim):
            w.write("}", "dec")
        w.write(self.after(xs))
        return self._source(ndim, w)
