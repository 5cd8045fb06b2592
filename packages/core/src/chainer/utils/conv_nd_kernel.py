"""Generators of the CUDA sources of N-dimensional im2col and col2im (CuPy
``ElementwiseKernel`` s), and the small code-writing helpers they share with the pooling
kernels of :mod:`chainer.functions.pooling.pooling_nd_kernel`.

A generator's ``generate(ndim)`` returns ``(in_params, out_params, operation, name)``,
the arguments of ``cupy.ElementwiseKernel`` (cached per ``ndim``); ``kernel(ndim)``
compiles them on the current device. The operation is plain C++ (index arithmetic,
loops and conditionals on ``int``), so it means the same on any C++ compiler.

Layouts are those of :mod:`chainer.utils.conv_nd`: images ``(n, c, d_1, ..., d_N)``
and patches ``(n, c, k_1, ..., k_N, out_1, ..., out_N)``, both C-contiguous.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from chainer.backends import cuda

KernelSource = tuple[str, str, str, str]


def vars(prefix: str, n: int) -> list[str]:
    """``n`` variable names ``prefix_0, ..., prefix_{n-1}``."""
    return [f"{prefix}_{i}" for i in range(n)]


def map_(fn: Callable[..., Any], *lst: Iterable[Any]) -> list[Any]:
    """``list(map(fn, *lst))``."""
    return list(map(fn, *lst))


def mulexp(xs: Sequence[str], init: str | None = None) -> str:
    """The product ``init * xs[0] * xs[1] * ...`` as a C expression (``1`` if empty)."""
    factors = ([init] if init is not None else []) + list(xs)
    return " * ".join(factors) if factors else "1"


def andexp(xs: Sequence[str], init: str | None = None) -> str:
    """The conjunction ``init && xs[0] && ...`` as a C expression (``true`` if empty)."""
    terms = ([init] if init is not None else []) + list(xs)
    return " && ".join(terms) if terms else "true"


def muladdexp(xs: Sequence[str], ys: Sequence[str], init: str | None = None) -> str:
    """The flat index of the position ``ys`` in an array of shape ``xs``, in Horner form:
    ``((init * xs[0] + ys[0]) * xs[1] + ys[1]) ...``. Without ``init`` the first size is
    not needed: ``(ys[0] * xs[1] + ys[1]) ...`` (``0`` if both are empty)."""
    expr = init
    for x, y in zip(xs, ys):
        expr = y if expr is None else f"({expr} * {x} + {y})"
    return "0" if expr is None else expr


def succ_sublists(xs: Sequence[Any]) -> list[Sequence[Any]]:
    """The suffixes ``xs[0:], xs[1:], ..., xs[-1:]``."""
    return [xs[i:] for i in range(len(xs))]


class Writer:
    """Collects lines of C code with indentation: ``write(line, 'inc')`` indents the
    lines after it (an opening brace), ``'dec'`` unindents the line itself and those after
    it (a closing brace), ``'decinc'`` does both (``} else {``). ``line`` may hold several
    lines (each is indented) or none."""

    def __init__(self) -> None:
        self._indent = 0
        self._lines: list[str] = []

    def write(self, line: str, indent: str | None = None) -> None:
        if indent not in (None, "inc", "dec", "decinc"):
            raise ValueError(f"Writer.write: indent must be None, 'inc', 'dec' or 'decinc', got {indent!r}")
        if indent in ("dec", "decinc"):
            self._indent -= 1
        # A multi-line piece of code is indented line by line.
        self._lines.extend("  " * self._indent + part for part in line.splitlines())
        if indent in ("inc", "decinc"):
            self._indent += 1

    def get(self) -> str:
        """The code written so far."""
        return "\n".join(self._lines) + "\n"


def int_params(*groups: Sequence[str]) -> list[str]:
    """``int32`` parameter declarations for the names of each group."""
    return [f"int32 {name}" for group in groups for name in group]


def unravel(w: Writer, index: str, names: Sequence[str], sizes: Sequence[str], rest: str) -> None:
    """Write the C statements that split the flat ``index`` into ``names`` (of the last
    axes, whose sizes are ``sizes``) and ``rest``, the index over the leading axes."""
    w.write(f"int {rest} = {index};")
    for name, size in reversed(list(zip(names, sizes))):
        w.write(f"int {name} = {rest} % {size};")
        w.write(f"{rest} /= {size};")


class _KernelGenerator:
    """``generate(ndim)`` (cached) and ``kernel(ndim)`` for a subclass's ``_generate``."""

    @classmethod
    @cuda.memoize()
    def generate(cls, ndim: int) -> KernelSource:
        """``(in_params, out_params, operation, name)`` of the kernel for ``ndim`` spatial axes."""
        return cls._generate(ndim)

    @classmethod
    def _generate(cls, ndim: int) -> KernelSource:
        raise NotImplementedError(f"{cls.__name__}._generate: a kernel generator defines its source")

    @classmethod
    def kernel(cls, ndim: int) -> Any:
        """The compiled ``cupy.ElementwiseKernel`` (needs CuPy and a GPU)."""
        return cuda.elementwise(*cls.generate(ndim))


class Im2colNDKernel(_KernelGenerator):
    """im2col over ``ndim`` spatial axes.

    Parameters: ``raw T img`` (the image batch), then the ``int32`` sizes ``d_j``
    (image), ``out_j`` (output), ``k_j`` (kernel), ``s_j`` (stride), ``p_j`` (padding)
    and ``di_j`` (dilation); output ``T col`` of shape ``(n, c, *k, *out)``. Patch
    elements in the padding are 0.
    """

    @classmethod
    def _generate(cls, ndim: int) -> KernelSource:
        ds, outs, ks, ss, ps, dis = (vars(p, ndim) for p in ("d", "out", "k", "s", "p", "di"))
        kxs, oxs, xs = vars("kx", ndim), vars("ox", ndim), vars("x", ndim)
        in_params = ", ".join(["raw T img"] + int_params(ds, outs, ks, ss, ps, dis))
        w = Writer()
        unravel(w, "i", kxs + oxs, ks + outs, "nc")
        for x, o, s, p, k, di in zip(xs, oxs, ss, ps, kxs, dis):
            w.write(f"int {x} = {o} * {s} - {p} + {k} * {di};")
        inside = andexp([f"0 <= {x} && {x} < {d}" for x, d in zip(xs, ds)])
        w.write(f"if ({inside}) {{", "inc")
        w.write(f"col = img[{muladdexp(ds, xs, 'nc')}];")
        w.write("} else {", "decinc")
        w.write("col = (T)0;")
        w.write("}", "dec")
        return in_params, "T col", w.get(), f"im2col_{ndim}d"


class Col2imNDKernel(_KernelGenerator):
    """col2im over ``ndim`` spatial axes, the adjoint of :class:`Im2colNDKernel`.

    Parameters: ``raw T col`` (patches ``(n, c, *k, *out)``) and the ``int32`` sizes of
    :class:`Im2colNDKernel`; output ``T img`` of shape ``(n, c, *d)``, each pixel the
    sum of the patch elements read from it.
    """

    @classmethod
    def _generate(cls, ndim: int) -> KernelSource:
        ds, outs, ks, ss, ps, dis = (vars(p, ndim) for p in ("d", "out", "k", "s", "p", "di"))
        xs, kxs, oxs = vars("x", ndim), vars("kx", ndim), vars("ox", ndim)
        in_params = ", ".join(["raw T col"] + int_params(ds, outs, ks, ss, ps, dis))
        w = Writer()
        unravel(w, "i", xs, ds, "nc")
        w.write("T val = (T)0;")
        for x, kx, k, o, s, p, di, out in zip(xs, kxs, ks, oxs, ss, ps, dis, outs):
            # The output position whose window reads x with kernel offset kx, if any.
            w.write(f"for (int {kx} = 0; {kx} < {k}; ++{kx}) {{", "inc")
            w.write(f"int t_{kx} = {x} + {p} - {kx} * {di};")
            w.write(f"if (t_{kx} < 0 || t_{kx} % {s} != 0) continue;")
            w.write(f"int {o} = t_{kx} / {s};")
            w.write(f"if ({o} >= {out}) continue;")
        w.write(f"val = val + col[{muladdexp(outs, oxs, muladdexp(ks, kxs, 'nc'))}];")
        for _ in range(ndim):
            w.write("}", "dec")
        w.write("img = val;")
        return in_params, "T img", w.get(), f"col2im_{ndim}d"
