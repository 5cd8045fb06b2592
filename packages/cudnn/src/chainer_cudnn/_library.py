"""Convolutions on cuDNN 9 through the graph API of NVIDIA's cuDNN frontend.

Each distinct call (operation, shapes, dtype, geometry, device and option flags) gets one
cuDNN graph, built and planned on first use and kept in a cache: a training loop builds
its plans in the first iteration and then only executes them. A graph that cuDNN cannot
run (no engine supports the geometry, or none is left after the option flags deselected
engines) is remembered as declined, and core computes those calls with CuPy.

Tensors are described as the C-contiguous NC(spatial) arrays core hands over; 1-D
convolutions are described as 2-D ones with a unit height. The padding after the input
is whatever makes exactly ``outsize`` windows fit (``cover_all`` and explicit deconvolution
output sizes need more than the padding before it); a geometry that would need negative
padding is declined.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy

_MIN_VERSION = 90000  # the graph API of cuDNN 9


def _contiguous_strides(shape: Sequence[int]) -> list[int]:
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * max(int(shape[i + 1]), 1)
    return strides


def _end_padding(in_size: int, out_size: int, k: int, s: int, p: int, d: int) -> int | None:
    """Padding after an axis of length ``in_size`` padded by ``p`` before it, so that a
    window of ``k`` taps dilated by ``d`` and moved by ``s`` fits exactly ``out_size``
    times; ``None`` when no non-negative padding does."""
    span = (k - 1) * d + 1
    post = max(0, (out_size - 1) * s + span - p - in_size)
    return post if (in_size + p + post - span) // s + 1 == out_size else None


class _Plan:
    """One built graph and the tensors a call binds to it."""

    __slots__ = ("graph", "tensors", "workspace_size", "index", "description")

    def __init__(self, graph: Any, tensors: tuple[Any, ...], workspace_size: int, index: int | None, description: str):
        self.graph = graph
        self.tensors = tensors
        self.workspace_size = workspace_size
        self.index = index  # the plan autotuning chose, or None for cuDNN's heuristic choice
        self.description = description


class FrontendCudnn:
    """The :class:`chainer.backends.cudnn_library.CudnnLibrary` of this distribution."""

    def __init__(self) -> None:
        self._cudnn: Any = None
        self._handles: dict[int, Any] = {}
        self._plans: dict[tuple[Any, ...], _Plan | None] = {}
        self._lock = threading.Lock()
        self.declined: dict[tuple[Any, ...], str] = {}
        """Graph key -> why cuDNN declined it (the calls then run on CuPy)."""

    # -- the library's status -------------------------------------------------------

    def unavailable_reason(self) -> str | None:
        try:
            import cudnn
        except Exception as exc:
            return f"the cuDNN frontend (nvidia-cudnn-frontend) failed to import ({type(exc).__name__}: {exc})"
        try:
            version = int(cudnn.backend_version())
        except Exception as exc:
            return (
                f"the cuDNN library could not be loaded ({type(exc).__name__}: {exc}); install the cuDNN 9 "
                "wheel for your CUDA version: pip install 'chainer-cudnn[cu13]' (or [cu12])"
            )
        if version < _MIN_VERSION:
            return f"cuDNN {self._format(version)} was found; the graph API needs cuDNN 9.0 or newer"
        self._cudnn = cudnn
        try:
            self._handle()
        except Exception as exc:
            self._cudnn = None
            return f"cuDNN {self._format(version)} could not create a handle ({type(exc).__name__}: {exc})"
        return None

    def version(self) -> int:
        return int(self._module().backend_version())

    def describe(self) -> str:
        cudnn = self._module()
        return f"{self._format(self.version())} (cuDNN frontend {cudnn.__version__})"

    @staticmethod
    def _format(version: int) -> str:
        return f"{version // 10000}.{version % 10000 // 100}.{version % 100}"

    def _module(self) -> Any:
        if self._cudnn is None:
            import cudnn

            self._cudnn = cudnn
        return self._cudnn

    def _handle(self) -> Any:
        """The cuDNN handle of the current device, set to CuPy's current stream."""
        import cupy

        cudnn = self._cudnn
        device = cupy.cuda.runtime.getDevice()
        handle = self._handles.get(device)
        if handle is None:
            with self._lock:
                handle = self._handles.get(device)
                if handle is None:
                    handle = self._handles[device] = cudnn.create_handle()
        cudnn.set_stream(handle, cupy.cuda.get_current_stream().ptr)
        return handle

    # -- the operations -------------------------------------------------------------

    def convolution_forward(
        self,
        x: Any,
        W: Any,
        b: Any,
        stride: Sequence[int],
        pad: Sequence[int],
        dilate: Sequence[int],
        groups: int,
        outsize: Sequence[int],
        *,
        deterministic: bool,
        autotune: bool,
        tensor_core: bool,
    ) -> Any:
        import cupy

        n, o = x.shape[0], W.shape[0]
        y_shape = (n, o) + tuple(outsize)
        post = self._post_padding(x.shape[2:], outsize, W.shape[2:], stride, pad, dilate)
        if post is None:
            return None
        key = ("fprop", x.shape, W.shape, x.dtype.char, tuple(stride), tuple(pad), post, tuple(dilate), b is not None)
        plan = self._plan(key, (deterministic, autotune, tensor_core), x.dtype, y_shape)
        if plan is None:
            return None
        y = cupy.empty(y_shape, x.dtype)
        arrays = [x, W] if b is None else [x, W, b]
        self._execute(plan, [cupy.ascontiguousarray(a) for a in arrays] + [y])
        return y

    def convolution_backward_data(
        self,
        gy: Any,
        W: Any,
        b: Any,
        stride: Sequence[int],
        pad: Sequence[int],
        dilate: Sequence[int],
        groups: int,
        outsize: Sequence[int],
        *,
        deterministic: bool,
        autotune: bool,
        tensor_core: bool,
    ) -> Any:
        import cupy

        n, c = gy.shape[0], W.shape[1] * groups
        x_shape = (n, c) + tuple(outsize)
        post = self._post_padding(outsize, gy.shape[2:], W.shape[2:], stride, pad, dilate)
        if post is None:
            return None
        key = ("dgrad", gy.shape, W.shape, gy.dtype.char, tuple(stride), tuple(pad), post, tuple(dilate), x_shape)
        plan = self._plan(key, (deterministic, autotune, tensor_core), gy.dtype, x_shape)
        if plan is None:
            return None
        gx = cupy.empty(x_shape, gy.dtype)
        self._execute(plan, [cupy.ascontiguousarray(gy), cupy.ascontiguousarray(W), gx])
        if b is not None:
            gx += b.reshape((1, c) + (1,) * len(outsize))
        return gx

    def convolution_backward_filter(
        self,
        x: Any,
        gy: Any,
        ksize: Sequence[int],
        stride: Sequence[int],
        pad: Sequence[int],
        dilate: Sequence[int],
        groups: int,
        *,
        deterministic: bool,
        autotune: bool,
        tensor_core: bool,
    ) -> Any:
        import cupy

        o, c = gy.shape[1], x.shape[1]
        w_shape = (o, c // groups) + tuple(ksize)
        post = self._post_padding(x.shape[2:], gy.shape[2:], ksize, stride, pad, dilate)
        if post is None:
            return None
        key = ("wgrad", x.shape, gy.shape, x.dtype.char, tuple(stride), tuple(pad), post, tuple(dilate), w_shape)
        plan = self._plan(key, (deterministic, autotune, tensor_core), x.dtype, w_shape)
        if plan is None:
            return None
        gW = cupy.empty(w_shape, x.dtype)
        self._execute(plan, [cupy.ascontiguousarray(x), cupy.ascontiguousarray(gy), gW])
        return gW

    @staticmethod
    def _post_padding(
        in_size: Sequence[int],
        out_size: Sequence[int],
        ksize: Sequence[int],
        stride: Sequence[int],
        pad: Sequence[int],
        dilate: Sequence[int],
    ) -> tuple[int, ...] | None:
        if not 1 <= len(in_size) <= 3:
            return None
        post = tuple(_end_padding(*args) for args in zip(in_size, out_size, ksize, stride, pad, dilate))
        return None if None in post else post  # type: ignore[return-value]

    # -- plans ----------------------------------------------------------------------

    def _plan(self, key: tuple[Any, ...], flags: tuple[bool, bool, bool], dtype: Any, out_shape: Sequence[int]) -> Any:
        import cupy

        full_key = key + flags + (cupy.cuda.runtime.getDevice(),)
        try:
            return self._plans[full_key]
        except KeyError:
            pass
        try:
            plan = self._build(key, flags, numpy.dtype(dtype), tuple(out_shape))
        except Exception as exc:
            # cudnnGraphNotSupportedError, or no engine left after the flags' deselection:
            # core computes these calls with CuPy.
            self.declined[full_key] = f"{type(exc).__name__}: {exc}"
            plan = None
        with self._lock:
            self._plans[full_key] = plan
        return plan

    def _build(
        self, key: tuple[Any, ...], flags: tuple[bool, bool, bool], dtype: Any, out_shape: tuple[int, ...]
    ) -> _Plan:
        cudnn = self._module()
        deterministic, autotune, tensor_core = flags
        kind, a_shape, b_shape, _, stride, pre, post, dilate = key[:8]
        io = {"e": cudnn.data_type.HALF, "f": cudnn.data_type.FLOAT, "d": cudnn.data_type.DOUBLE}[dtype.char]
        compute = cudnn.data_type.DOUBLE if dtype.char == "d" else cudnn.data_type.FLOAT
        handle = self._handle()
        graph = cudnn.pygraph(io_data_type=io, intermediate_data_type=compute, compute_data_type=compute, handle=handle)
        one_d = len(a_shape) == 3

        def shaped(shape: Sequence[int]) -> list[int]:
            # A 1-D convolution is described as a 2-D one of unit height (same memory).
            shape = [int(s) for s in shape]
            return shape[:2] + [1] + shape[2:] if one_d else shape

        def tensor(name: str, shape: Sequence[int]) -> Any:
            dims = shaped(shape)
            return graph.tensor(name=name, dim=dims, stride=_contiguous_strides(dims), data_type=io)

        geometry = {
            "pre_padding": ([0] if one_d else []) + list(pre),
            "post_padding": ([0] if one_d else []) + list(post),
            "stride": ([1] if one_d else []) + list(stride),
            "dilation": ([1] if one_d else []) + list(dilate),
            "compute_data_type": compute,
        }
        if kind == "fprop":
            x, w = tensor("x", a_shape), tensor("w", b_shape)
            inputs: tuple[Any, ...] = (x, w)
            out = graph.conv_fprop(image=x, weight=w, name="conv", **geometry)
            if key[8]:  # with a bias, added by the same graph
                bias = tensor("b", (1, b_shape[0]) + (1,) * (len(a_shape) - 2))
                inputs += (bias,)
                out = graph.bias(input=out, bias=bias, name="bias")
        elif kind == "dgrad":
            gy, w = tensor("gy", a_shape), tensor("w", b_shape)
            inputs = (gy, w)
            out = graph.conv_dgrad(loss=gy, filter=w, name="dgrad", **geometry)
        else:
            x, gy = tensor("x", a_shape), tensor("gy", b_shape)
            inputs = (x, gy)
            out = graph.conv_wgrad(image=x, loss=gy, name="wgrad", **geometry)
        dims = shaped(out_shape)
        out.set_output(True).set_dim(dims).set_stride(_contiguous_strides(dims)).set_data_type(io)

        graph.validate()
        graph.build_operation_graph()
        graph.create_execution_plans([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
        notes = []
        if deterministic:
            notes.append(cudnn.numerical_note.NONDETERMINISTIC)
        if not tensor_core and dtype.char != "e":
            # Full float32/float64 precision unless tensor cores (TF32) are allowed.
            notes += [cudnn.numerical_note.TENSOR_CORE, cudnn.numerical_note.DOWN_CONVERT_INPUTS]
        if notes:
            graph.deselect_numeric_notes(notes)
        graph.check_support()
        graph.build_plans(cudnn.build_plan_policy.ALL if autotune else cudnn.build_plan_policy.HEURISTICS_CHOICE)
        plan = _Plan(graph, inputs + (out,), int(graph.get_workspace_size()), None, repr(key))
        if autotune:
            self._autotune(plan, out_shape, dtype)
        return plan

    def _autotune(self, plan: _Plan, out_shape: tuple[int, ...], dtype: Any) -> None:
        """Time every plan that built once on scratch arrays and keep the fastest."""
        import cupy

        graph = plan.graph
        count = int(graph.get_execution_plan_count())
        if count < 2:
            return
        arrays = [cupy.zeros(tuple(t.get_dim()), dtype) for t in plan.tensors]
        best: tuple[float, int, int] | None = None
        for index in range(count):
            try:
                size = int(graph.get_workspace_size_plan_at_index(index))
                workspace = cupy.empty((max(size, 1),), numpy.uint8)
                pack = {t: a.data.ptr for t, a in zip(plan.tensors, arrays)}
                handle = self._handle()
                graph.execute_plan_at_index(pack, workspace, index, handle)  # warm-up
                cupy.cuda.get_current_stream().synchronize()
                start = time.perf_counter()
                for _ in range(3):
                    graph.execute_plan_at_index(pack, workspace, index, handle)
                cupy.cuda.get_current_stream().synchronize()
                elapsed = time.perf_counter() - start
            except Exception:
                continue  # that plan did not build or does not run here
            if best is None or elapsed < best[0]:
                best = (elapsed, index, size)
        if best is not None:
            plan.index, plan.workspace_size = best[1], best[2]

    def _execute(self, plan: _Plan, arrays: list[Any]) -> None:
        import cupy

        handle = self._handle()
        pack = {t: a.data.ptr for t, a in zip(plan.tensors, arrays)}
        workspace = cupy.empty((plan.workspace_size,), numpy.uint8) if plan.workspace_size else None
        if plan.index is None:
            plan.graph.execute(pack, workspace, handle=handle)
        else:
            plan.graph.execute_plan_at_index(pack, workspace, plan.index, handle)


__all__ = ["FrontendCudnn"]
