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

import functools
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
    """One built graph, the tensors a call binds to it, and how to execute it."""

    __slots__ = ("graph", "tensors", "uids", "out_shape", "workspace_size", "index", "direct")

    def __init__(self, graph: Any, tensors: tuple[Any, ...], out_shape: tuple[int, ...], workspace_size: int) -> None:
        self.graph = graph
        self.tensors = tensors
        self.out_shape = out_shape
        self.workspace_size = workspace_size
        self.index: int | None = None  # the plan autotuning chose; None: cuDNN's heuristic choice
        self.uids: tuple[int, ...] = ()
        self.direct: Any = None

    def finish(self, direct: bool = True) -> None:
        """Fix what every execution of the plan reuses: the tensors' uids, and the direct
        execute of the frontend's lowered graph where it has one (and ``direct`` allows it)."""
        self.uids = tuple(int(t.get_uid()) for t in self.tensors)
        self.direct = _direct_execute(self.graph, self.index) if direct else None


def _direct_execute(graph: Any, index: int | None) -> Any:
    """``execute(uid -> pointer, workspace pointer, raw handle)`` through the lowered C++
    graph of a cuDNN frontend 1.32 ``pygraph``, for the plan at ``index`` (the selected one
    when ``None``); ``None`` where the graph has no such form.

    ``pygraph.execute`` re-reads and normalises the variant pack in Python on every call
    (about 39 us on an H200's host, against 9 us for the lowered graph's own execute, in a
    convolution whose GPU work takes less). The lowered graph is private to the frontend:
    anything unexpected about it makes this ``None``, and the public execute runs instead."""
    try:
        lowered = graph.__dict__.get("_lowered_graph")
        if lowered is None or graph.selected_engine is not None:  # a Python engine serves the graph
            return None
        config = graph._materialize_backend_plan(graph._plan_index if index is None else index)
        cpp_index = config.cpp_index
        if cpp_index is None:  # the plan the backend itself selected
            run = lowered._execute
            return lambda pack, workspace, handle: run(pack, workspace, handle)
        run_at = lowered._execute_plan_at_index
        return lambda pack, workspace, handle: run_at(pack, workspace, cpp_index, handle)
    except Exception:
        return None


_MISSING = object()

_NORMALIZATIONS = ("bn_fwd", "bn_bwd", "bn_inf")
"""Plan kinds of batch normalization: training forward, backward, inference forward."""

_BN_IO = ("e", "f")  # the input dtypes cuDNN 9's batch normalization engines take (no float64)


@functools.cache
def _inverse_std() -> Any:
    """The CuPy kernel ``(var, eps) -> 1 / sqrt(var + eps)`` in float32 (one launch)."""
    import cupy

    return cupy.ElementwiseKernel(
        "V var, float32 eps", "float32 inv_std", "inv_std = rsqrtf((float)var + eps)", "chainer_cudnn_bn_inv_std"
    )


def _bn_dims(shape: Sequence[int]) -> list[int]:
    """The 4-D NCHW description of a C-contiguous ``(N, C, *spatial)`` array normalized per
    channel: its own shape when 4-D, else ``(N, C, prod(spatial), 1)`` (same memory)."""
    dims = [int(s) for s in shape]
    if len(dims) == 4:
        return dims
    rest = 1
    for d in dims[2:]:
        rest *= d
    return dims[:2] + [rest, 1]


class FrontendCudnn:
    """The :class:`chainer.backends.cudnn_library.CudnnLibrary` of this distribution."""

    def __init__(self) -> None:
        self._cudnn: Any = None
        self._handles: dict[int, Any] = {}
        self._plans: dict[tuple[Any, ...], _Plan | None] = {}
        self._lock = threading.Lock()
        self._no_inference_engine: set[int] = set()  # devices where batchnorm_inference was declined
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

        flags = (deterministic, autotune, tensor_core)
        key = ("fprop", x.shape, W.shape, x.dtype.char, stride, pad, dilate, outsize, b is not None, flags)
        plan = self._plan(key)
        if plan is None:
            return None
        y = cupy.empty(plan.out_shape, x.dtype)
        self._execute(plan, (x, W, y) if b is None else (x, W, b, y))
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

        flags = (deterministic, autotune, tensor_core)
        key = ("dgrad", gy.shape, W.shape, gy.dtype.char, stride, pad, dilate, outsize, groups, flags)
        plan = self._plan(key)
        if plan is None:
            return None
        gx = cupy.empty(plan.out_shape, gy.dtype)
        self._execute(plan, (gy, W, gx))
        if b is not None:
            gx += b.reshape((1, -1) + (1,) * len(outsize))
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

        flags = (deterministic, autotune, tensor_core)
        key = ("wgrad", x.shape, gy.shape, x.dtype.char, stride, pad, dilate, tuple(ksize), groups, flags)
        plan = self._plan(key)
        if plan is None:
            return None
        gW = cupy.empty(plan.out_shape, x.dtype)
        self._execute(plan, (x, gy, gW))
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

    # -- batch normalization ----------------------------------------------------------

    DIRECT_NORMALIZATION = True
    """Whether batch normalization plans execute through the lowered graph (as the
    convolutions do) rather than ``pygraph.execute``; a switch for the device smoke check."""

    def batch_normalization_forward(
        self,
        x: Any,
        gamma: Any,
        beta: Any,
        eps: float,
        running_mean: Any,
        running_var: Any,
        decay: float,
        *,
        deterministic: bool,
    ) -> tuple[Any, Any, Any] | None:
        channels = x.shape[1] if x.ndim >= 2 else 0
        if not self._bn_supported(x, gamma, beta) or x.size // max(channels, 1) < 2:
            return None  # (a single element per channel: cuDNN's unbiased variance divides by 0)
        # cuDNN's running update is Chainer's: (1 - momentum) * running + momentum * batch with
        # the unbiased batch variance m / (m - 1) * var, so momentum is 1 - decay.
        key = ("bn_fwd", x.shape, x.dtype.char, float(eps), 1.0 - float(decay), deterministic)
        plan = self._plan(key)
        if plan is None:
            return None
        import cupy

        f32 = numpy.float32
        stats = [cupy.empty((channels,), f32) for _ in range(4)]  # mean, inv_std, next running mean/var
        y = cupy.empty(x.shape, x.dtype)
        arrays = (
            x,
            gamma.astype(f32, copy=False),
            beta.astype(f32, copy=False),
            self._running_input(running_mean, channels),
            self._running_input(running_var, channels),
            y,
            *stats,
        )
        self._execute(plan, arrays)
        for running, updated in ((running_mean, stats[2]), (running_var, stats[3])):
            if running is not None:
                cupy.copyto(running, updated.reshape(running.shape), casting="unsafe")
        return y, stats[0], stats[1]

    def batch_normalization_backward(
        self, x: Any, gamma: Any, gy: Any, mean: Any, inv_std: Any, *, deterministic: bool
    ) -> tuple[Any, Any, Any] | None:
        if not self._bn_supported(x, gamma) or gy.dtype != x.dtype or gy.shape != x.shape:
            return None
        if mean.dtype != numpy.float32 or inv_std.dtype != numpy.float32:
            return None  # statistics of a CuPy forward in float64
        plan = self._plan(("bn_bwd", x.shape, x.dtype.char, deterministic))
        if plan is None:
            return None
        import cupy

        f32 = numpy.float32
        channels = x.shape[1]
        gx = cupy.empty(x.shape, x.dtype)
        ggamma, gbeta = cupy.empty((channels,), f32), cupy.empty((channels,), f32)
        self._execute(plan, (gy, x, gamma.astype(f32, copy=False), mean, inv_std, gx, ggamma, gbeta))
        shape = gamma.shape
        return (
            gx,
            ggamma.astype(gamma.dtype, copy=False).reshape(shape),
            gbeta.astype(gamma.dtype, copy=False).reshape(shape),
        )

    def batch_normalization_inference(
        self, x: Any, gamma: Any, beta: Any, mean: Any, var: Any, eps: float, *, deterministic: bool
    ) -> Any:
        if not self._bn_supported(x, gamma, beta, mean, var):
            return None
        import cupy

        device = cupy.cuda.runtime.getDevice()
        if device in self._no_inference_engine:
            return None
        plan = self._plan(("bn_inf", x.shape, x.dtype.char, deterministic))
        if plan is None:
            # cuDNN 9.19 on an H200 has no engine for the operation at all: one refusal stops
            # the asking on this device, which cost inference about 15 us a call (measured).
            self._no_inference_engine.add(device)
            return None
        f32 = numpy.float32
        inv_std = _inverse_std()(var, f32(eps))
        y = cupy.empty(x.shape, x.dtype)
        self._execute(
            plan,
            (x, mean.astype(f32, copy=False), inv_std, gamma.astype(f32, copy=False), beta.astype(f32, copy=False), y),
        )
        return y

    @staticmethod
    def _bn_supported(x: Any, gamma: Any, *per_channel: Any) -> bool:
        """Whether cuDNN takes this call: a float16/float32 input (float32 statistics) and
        float16/float32 ``(C,)`` per-channel arrays."""
        if x.ndim < 2 or x.dtype.char not in _BN_IO or gamma.shape != (x.shape[1],):
            return False
        return all(p.dtype.char in _BN_IO and p.shape == gamma.shape for p in (gamma, *per_channel))

    def _running_input(self, running: Any, channels: int) -> Any:
        """A float32 ``(C,)`` array holding ``running`` (zeros when ``None``: the update is
        then computed and dropped)."""
        import cupy

        if running is None:
            return cupy.zeros((channels,), numpy.float32)
        return cupy.ascontiguousarray(running.reshape(channels), numpy.float32)

    def _build_normalization(self, key: tuple[Any, ...]) -> _Plan:
        cudnn = self._module()
        kind, shape, char, *rest = key
        deterministic = rest[-1]
        io = {"e": cudnn.data_type.HALF, "f": cudnn.data_type.FLOAT}[char]
        f32 = cudnn.data_type.FLOAT
        graph = cudnn.pygraph(io_data_type=io, intermediate_data_type=f32, compute_data_type=f32, handle=self._handle())
        dims = _bn_dims(shape)
        channel_dims = [1, dims[1], 1, 1]

        def tensor(name: str, per_channel: bool) -> Any:
            d = channel_dims if per_channel else dims
            return graph.tensor(name=name, dim=d, stride=_contiguous_strides(d), data_type=f32 if per_channel else io)

        def output(t: Any, per_channel: bool) -> Any:
            d = channel_dims if per_channel else dims
            t.set_output(True).set_dim(d).set_stride(_contiguous_strides(d)).set_data_type(f32 if per_channel else io)
            return t

        if kind == "bn_fwd":
            eps, momentum = rest[0], rest[1]
            inputs = (tensor("x", False),) + tuple(
                tensor(n, True) for n in ("scale", "bias", "running_mean", "running_var")
            )
            outs = graph.batchnorm(
                input=inputs[0],
                scale=inputs[1],
                bias=inputs[2],
                in_running_mean=inputs[3],
                in_running_var=inputs[4],
                epsilon=graph.tensor_scalar(float(eps), cudnn.scalar_type.RUNTIME_PARAM, name="epsilon"),
                momentum=graph.tensor_scalar(float(momentum), cudnn.scalar_type.RUNTIME_PARAM, name="momentum"),
                name="bn",
            )
            outputs = tuple(output(t, i > 0) for i, t in enumerate(outs))  # y, mean, inv_std, next mean, var
        elif kind == "bn_bwd":
            inputs = (tensor("gy", False), tensor("x", False)) + tuple(
                tensor(n, True) for n in ("scale", "mean", "inv_std")
            )
            outs = graph.batchnorm_backward(
                grad=inputs[0], input=inputs[1], scale=inputs[2], mean=inputs[3], inv_variance=inputs[4], name="bn_bwd"
            )
            outputs = tuple(output(t, i > 0) for i, t in enumerate(outs))  # gx, ggamma, gbeta
        else:  # bn_inf
            # cuDNN 9.19 has no engine for batchnorm_inference on NCHW strides (H200), and its
            # pointwise engines take channels-last (NSpatialC) layouts only. An (N, C) input is
            # channels-last as it is; an NCHW one is described as the NHWC tensor (N, S, C, 1)
            # with S = H * W the fastest axis and the channels on its "height" axis, the
            # statistics (1, 1, C, 1) broadcasting along it (the same memory, per channel).
            batch, channels, spatial = int(dims[0]), int(dims[1]), int(dims[2] * dims[3])
            c = channels
            big: tuple[list[int], list[int]]
            small: tuple[list[int], list[int]]
            if spatial == 1:
                big, small = ([batch, c, 1, 1], [c, 1, c, c]), ([1, c, 1, 1], [c, 1, c, c])
            else:
                big = ([batch, spatial, c, 1], [c * spatial, 1, spatial, spatial])
                small = ([1, 1, c, 1], [c, 1, 1, 1])
            x = graph.tensor(name="x", dim=big[0], stride=big[1], data_type=io)
            stats = [
                graph.tensor(name=k, dim=small[0], stride=small[1], data_type=f32)
                for k in ("mean", "inv_std", "scale", "bias")
            ]
            inputs = (x, *stats)
            y = graph.batchnorm_inference(
                input=x, mean=stats[0], inv_variance=stats[1], scale=stats[2], bias=stats[3], name="bn_inf"
            )
            outputs = (y.set_output(True).set_dim(big[0]).set_stride(big[1]).set_data_type(io),)
        graph.validate()
        graph.build_operation_graph()
        graph.create_execution_plans([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
        if deterministic:
            graph.deselect_numeric_notes([cudnn.numerical_note.NONDETERMINISTIC])
        graph.check_support()
        graph.build_plans(cudnn.build_plan_policy.HEURISTICS_CHOICE)
        plan = _Plan(graph, inputs + outputs, tuple(shape), int(graph.get_workspace_size()))
        plan.finish(direct=self.DIRECT_NORMALIZATION)
        return plan

    # -- plans ----------------------------------------------------------------------

    def _plan(self, key: tuple[Any, ...]) -> _Plan | None:
        """The plan of a call (``None``: declined), from the cache or built now. ``key`` holds
        the call's operation, the shapes of its two inputs, dtype, stride, pad, dilation,
        the third size (output size, groups or kernel size) or bias flag, and the flags."""
        import cupy

        full_key = key + (cupy.cuda.runtime.getDevice(),)
        plan = self._plans.get(full_key, _MISSING)
        if plan is not _MISSING:
            return plan  # type: ignore[return-value]
        try:
            plan = self._build(key)
        except Exception as exc:
            # cudnnGraphNotSupportedError, or no engine left after the flags' deselection:
            # core computes these calls with CuPy.
            self.declined[full_key] = f"{type(exc).__name__}: {exc}"
            plan = None
        with self._lock:
            self._plans[full_key] = plan
        return plan

    def _build(self, key: tuple[Any, ...]) -> _Plan | None:
        if key[0] in _NORMALIZATIONS:
            return self._build_normalization(key)
        cudnn = self._module()
        kind, a_shape, b_shape, char, stride, pre, dilate, third, extra, flags = key
        deterministic, autotune, tensor_core = flags
        dtype = numpy.dtype(char)
        if kind == "fprop":  # x, W; third: outsize
            out_shape = (a_shape[0], b_shape[0]) + tuple(third)
            post = self._post_padding(a_shape[2:], third, b_shape[2:], stride, pre, dilate)
        elif kind == "dgrad":  # gy, W; third: the image size; extra: groups
            out_shape = (a_shape[0], b_shape[1] * extra) + tuple(third)
            post = self._post_padding(third, a_shape[2:], b_shape[2:], stride, pre, dilate)
        else:  # x, gy; third: ksize; extra: groups
            out_shape = (b_shape[1], a_shape[1] // extra) + tuple(third)
            post = self._post_padding(a_shape[2:], b_shape[2:], third, stride, pre, dilate)
        if post is None:
            raise ValueError("the geometry would need padding before the end of the input, or over 3 axes")
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
            if extra:  # with a bias, added by the same graph
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
        plan = _Plan(graph, inputs + (out,), out_shape, int(graph.get_workspace_size()))
        if autotune:
            self._autotune(plan, dtype)
        plan.finish()
        return plan

    def _autotune(self, plan: _Plan, dtype: Any) -> None:
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

    def _execute(self, plan: _Plan, arrays: tuple[Any, ...]) -> None:
        import cupy

        handle = self._handle()
        # Core hands over C-contiguous arrays almost always; the copies, where not, stay
        # referenced until the execution is enqueued (the pool then orders their reuse).
        arrays = tuple(a if a.flags.c_contiguous else cupy.ascontiguousarray(a) for a in arrays)
        size = plan.workspace_size
        workspace = cupy.empty((size,), numpy.uint8) if size else None
        # The variant pack by tensor uid, which the lowered graph and pygraph both take.
        pack = {uid: a.data.ptr for uid, a in zip(plan.uids, arrays)}
        if plan.direct is not None:
            plan.direct(pack, 0 if workspace is None else workspace.data.ptr, handle.backend_handle)
        elif plan.index is None:
            plan.graph.execute(pack, workspace, handle=handle)
        else:
            plan.graph.execute_plan_at_index(pack, workspace, plan.index, handle)


__all__ = ["FrontendCudnn"]
