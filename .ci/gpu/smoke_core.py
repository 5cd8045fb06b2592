"""Device smoke of the lead's issue-21 work: cuBLAS called directly, and static_graph from CUDA Graphs."""

import time

import cupy
import numpy

import chainer.functions as F
from chainer.backends import _cuda_blas


def timed(f, n=2000):
    f()
    cupy.cuda.get_current_stream().synchronize()
    t = time.perf_counter()
    for _ in range(n):
        f()
    cupy.cuda.get_current_stream().synchronize()
    return (time.perf_counter() - t) / n * 1e6


rng = numpy.random.default_rng(0)
for m, k, n in [(64, 784, 100), (100, 784, 1000)]:
    a = cupy.asarray(rng.standard_normal((m, k)).astype("f"))
    w = cupy.asarray(rng.standard_normal((n, k)).astype("f"))
    ours = _cuda_blas.matmul(a, w.T)
    ref = a.dot(w.T)
    err = float(abs(ours - ref).max())
    print(("PASS" if err < 1e-3 else "FAIL") + f" gemm {m}x{k}x{n} max diff to cupy.dot {err:.2e}")
    t_cupy = timed(lambda a=a, w=w: a.dot(w.T))
    t_ours = timed(lambda a=a, w=w: _cuda_blas.matmul(a, w.T))
    print(f"  us/call: cupy dot {t_cupy:.1f}, _cuda_blas {t_ours:.1f}")

x = cupy.ones((64, 100), "f")
print(
    f"  us/call: F.relu {timed(lambda: F.relu(x)):.1f}; F.linear {timed(lambda: F.linear(x, cupy.ones((10, 100), 'f'))):.1f}"
)
s = cupy.cuda.Stream(non_blocking=True)
with s:
    s.begin_capture()
    y = _cuda_blas.matmul(a, w.T)
    g = s.end_capture()
g.launch()
cupy.cuda.get_current_stream().synchronize()
print(("PASS" if bool(cupy.array_equal(y, ours)) else "FAIL") + " gemm captured equals eager")
print(f"  us/launch of a 1-GEMM graph: {timed(lambda: g.launch()):.1f}")
