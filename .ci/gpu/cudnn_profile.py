"""Where the host time of a cuDNN convolution goes (device check for issue 21): each layer
of one forward call timed alone, the frontend's execute forms side by side, and a cProfile
of the benchmark's CNN step on cuDNN."""

import cProfile
import pstats
import sys
import time
import traceback

import numpy

import chainer
import chainer.functions as F
from chainer.backends import cuda

cp = cuda.cupy
from chainer_cudnn.plugin import LIBRARY  # noqa: E402


def per_call(label, fn, n=300):
    try:
        for _ in range(20):
            fn()
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        for _ in range(n):
            fn()
        host = (time.perf_counter() - t) / n
        cp.cuda.Device().synchronize()
        print(f"{label:60s} {host * 1e6:8.1f} us/call")
    except Exception:
        print(f"{label}: FAILED")
        traceback.print_exc(limit=4)


rng = numpy.random.RandomState(0)
x = cp.asarray(rng.standard_normal((64, 32, 16, 16)).astype("f"))
W = cp.asarray(rng.standard_normal((64, 32, 3, 3)).astype("f"))
b = cp.asarray(rng.standard_normal(64).astype("f"))
flags = {"deterministic": False, "autotune": False, "tensor_core": False}
with chainer.using_config("use_cudnn", "always"), chainer.no_backprop_mode():
    per_call("F.convolution_2d(x, W, b) on cuDNN", lambda: F.convolution_2d(x, W, b, pad=1))
    per_call(
        "LIBRARY.convolution_forward",
        lambda: LIBRARY.convolution_forward(x, W, b, (1, 1), (1, 1), (1, 1), 1, (16, 16), **flags),
    )
with chainer.using_config("use_cudnn", "never"), chainer.no_backprop_mode():
    per_call("F.convolution_2d(x, W, b) on im2col", lambda: F.convolution_2d(x, W, b, pad=1))
    per_call("F.relu(x)", lambda: F.relu(x))
per_call("cupy.empty((64, 64, 16, 16))", lambda: cp.empty((64, 64, 16, 16), "f"))
per_call("LIBRARY._handle()", LIBRARY._handle)
plan = next(p for k, p in LIBRARY._plans.items() if k[0] == "fprop" and p is not None)
y = cp.empty((64, 64, 16, 16), "f")
arrays = [x, W, b, y]
handle = LIBRARY._handle()
ws = cp.empty((max(plan.workspace_size, 1),), numpy.uint8)
print("workspace", plan.workspace_size, "tensors", [t.get_uid() for t in plan.tensors])
pack = {t: a.data.ptr for t, a in zip(plan.tensors, arrays)}
per_call("graph.execute(dict of Tensor -> int)", lambda: plan.graph.execute(pack, ws, handle=handle))
uids = [t.get_uid() for t in plan.tensors]
pack_uid = {u: a.data.ptr for u, a in zip(uids, arrays)}
per_call("graph.execute(dict of uid -> int)", lambda: plan.graph.execute(pack_uid, ws, handle=handle))
ptrs = [a.data.ptr for a in arrays]
per_call(
    "graph.execute(list of int, tensor_uids=)", lambda: plan.graph.execute(ptrs, ws, handle=handle, tensor_uids=uids)
)
per_call(
    "graph.execute(list of cupy, tensor_uids=)", lambda: plan.graph.execute(arrays, ws, handle=handle, tensor_uids=uids)
)
per_call("graph.execute(dict of uid -> cupy)", lambda: plan.graph.execute(dict(zip(uids, arrays)), ws, handle=handle))
lowered = plan.graph.__dict__.get("_lowered_graph")
if lowered is not None:
    print("lowered", type(lowered), [n for n in dir(lowered) if "execute" in n])
    try:
        from cudnn._handle import to_backend_handle

        raw = to_backend_handle(handle)
        per_call(
            "lowered._execute(dict uid->int, ws int, raw handle)", lambda: lowered._execute(pack_uid, ws.data.ptr, raw)
        )
    except Exception:
        traceback.print_exc(limit=3)
y_ref = cp.empty_like(y)
plan.graph.execute({t: a.data.ptr for t, a in zip(plan.tensors, [x, W, b, y_ref])}, ws, handle=handle)
plan.graph.execute(ptrs, ws, handle=handle, tensor_uids=uids)
print("ordered == dict:", bool((y == y_ref).all()))

sys.path.insert(0, "benchmarks")
import gpu  # noqa: E402

for name in ("cnn",):
    step = gpu.BENCHMARKS[name]()[0]
    for _ in range(5):
        step()
    cp.cuda.Device().synchronize()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(20):
        step()
    cp.cuda.Device().synchronize()
    profiler.disable()
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(28)
    stats.sort_stats("cumulative").print_stats(45)
