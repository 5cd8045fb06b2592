"""Device check of softmax_cross_entropy's CuPy kernels (issue 21): forward and backward
against NumPy float64 on a few shapes and dtypes, one CUDA-graph capture, and the cost of
one forward + backward on the old array-level path, the new kernels and PyTorch (if
present). Prints one PASS/FAIL line per check and never stops at a failure; < 20 s."""

import time
import traceback

import numpy

import chainer
import chainer.functions as F
from chainer.backends import cuda
from chainer.functions.loss import _softmax_cross_entropy_cuda as kernels

cp = cuda.cupy
rng = numpy.random.RandomState(0)


def reference(x, t, cw, reduce):
    x = x.astype(numpy.float64)
    e = numpy.exp(x - x.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    valid = t != -1
    ts = numpy.where(valid, t, 0)
    w = valid * (1.0 if cw is None else cw.astype(numpy.float64)[ts])
    picked = numpy.take_along_axis(p, ts.reshape(ts.shape[:1] + (1,) + ts.shape[1:]), 1).reshape(t.shape)
    loss = -numpy.log(picked) * w
    onehot = numpy.zeros_like(p)
    numpy.put_along_axis(onehot, ts.reshape(ts.shape[:1] + (1,) + ts.shape[1:]), 1.0, 1)
    scale = w / max(valid.sum(), 1) if reduce == "mean" else w
    gx = (p - onehot) * scale.reshape(scale.shape[:1] + (1,) + scale.shape[1:])
    return (loss.sum() / max(valid.sum(), 1) if reduce == "mean" else loss), gx


def step(x, t, cw, reduce):
    xv = chainer.Variable(x)
    loss = F.softmax_cross_entropy(xv, t, class_weight=cw, reduce=reduce)
    if reduce == "no":
        loss.grad = cp.ones(loss.shape, loss.dtype)
    loss.backward()
    return loss, xv


def check(name, shape, dtype, reduce, weighted):
    try:
        x = rng.uniform(-4, 4, shape).astype(dtype)
        t = rng.randint(0, shape[1], shape[:1] + shape[2:]).astype(numpy.int32)
        t.reshape(-1)[::5] = -1
        cw = rng.uniform(0.5, 2, shape[1]).astype(dtype) if weighted else None
        loss, xv = step(cp.asarray(x), cp.asarray(t), None if cw is None else cp.asarray(cw), reduce)
        served = loss.creator._lse is not None
        ey, egx = reference(x, t, cw, reduce)
        tol = 5e-2 if dtype == numpy.float16 else 1e-4
        dy = float(numpy.abs(cp.asnumpy(loss.array).astype(numpy.float64) - ey).max())
        dgx = float(numpy.abs(cp.asnumpy(xv.grad).astype(numpy.float64) - egx).max())
        ok = served and dy <= tol * (1 + numpy.abs(ey).max()) and dgx <= tol
        print(f"{'PASS' if ok else 'FAIL'} {name}: served={served} max|dy|={dy:.2e} max|dgx|={dgx:.2e}")
    except Exception:
        print(f"FAIL {name}: exception")
        traceback.print_exc()


print("cupy", cp.__version__, "broken:", kernels._broken)
for dtype in (numpy.float16, numpy.float32, numpy.float64):
    for shape in ((100, 10), (512, 1000), (4, 7, 5, 3)):
        for reduce, weighted in (("mean", False), ("no", True)):
            check(f"{numpy.dtype(dtype).name} {shape} {reduce} weighted={weighted}", shape, dtype, reduce, weighted)

try:  # capture: no host synchronisation inside forward + backward
    x = cp.asarray(rng.uniform(-1, 1, (64, 10)).astype(numpy.float32))
    t = cp.asarray(rng.randint(0, 10, 64).astype(numpy.int32))
    eager_loss, eager_x = step(x, t, None, "mean")
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        s.begin_capture()
        try:
            loss, xv = step(x, t, None, "mean")
        finally:
            g = s.end_capture()
        g.launch()
        s.synchronize()
    same = bool(cp.array_equal(loss.array, eager_loss.array)) and bool(cp.array_equal(xv.grad, eager_x.grad))
    print(f"{'PASS' if same else 'FAIL'} capture: graph result equals the eager one: {same}")
except Exception:
    print("FAIL capture: exception")
    traceback.print_exc()

try:
    F.softmax_cross_entropy(cp.zeros((3, 4), "f"), cp.asarray(numpy.array([0, 7, 1], "i")))
    print("FAIL out-of-range label: no error")
except ValueError as error:
    print(f"PASS out-of-range label: {error}")


def timed(fn, n=200):
    for _ in range(10):
        fn()
    cp.cuda.get_current_stream().synchronize()
    start = time.perf_counter()
    for _ in range(n):
        fn()
    cp.cuda.get_current_stream().synchronize()
    return (time.perf_counter() - start) / n * 1e6


try:
    import torch
except ImportError:
    torch = None


def time_shape(shape):
    x = cp.asarray(rng.uniform(-1, 1, shape).astype(numpy.float32))
    t = cp.asarray(rng.randint(0, shape[1], shape[0]).astype(numpy.int32))
    new = timed(lambda: step(x, t, None, "mean"))
    original = kernels.available
    kernels.available = lambda *args: False
    try:
        old = timed(lambda: step(x, t, None, "mean"))
    finally:
        kernels.available = original
    new2 = timed(lambda: step(x, t, None, "mean"))
    # As under stream capture: the label flag is not read, so no host wait (what a graph replays).
    capturing = kernels.is_capturing
    kernels.is_capturing = lambda: True
    try:
        unchecked = timed(lambda: step(x, t, None, "mean"))
    finally:
        kernels.is_capturing = capturing
    line = (
        f"TIME {shape} float32 forward+backward us/call: old {old:.1f} new {min(new, new2):.1f}-{max(new, new2):.1f}"
        f" new-without-label-check {unchecked:.1f}"
    )
    if torch is not None and torch.cuda.is_available():
        tx = torch.from_dlpack(x).clone().requires_grad_()
        tt = torch.from_dlpack(t).long()

        def torch_step():
            torch.nn.functional.cross_entropy(tx, tt).backward()

        line += f" torch {timed(torch_step):.1f}"
    print(line)


for shape in ((100, 10), (512, 1000)):
    try:
        time_shape(shape)
    except Exception:
        print(f"FAIL timing {shape}: exception")
        traceback.print_exc()
