"""Device check of chainer-cudnn, before the test suites: is cuDNN found and used, do the
three convolution graphs build and agree with im2col, and what does one call cost on
the host. Prints everything (tracebacks included) and never stops at a failure."""

import time
import traceback

import numpy

import chainer
import chainer.functions as F
from chainer.backends import cuda, cudnn_library

print("cudnn_enabled:", cuda.cudnn_enabled, "status:", cudnn_library.status()[1])
try:
    import cudnn

    print("frontend", cudnn.__version__, "backend", cudnn.backend_version())
except Exception:
    traceback.print_exc()
from chainer_cudnn.plugin import LIBRARY  # noqa: E402

cp = cuda.cupy
rng = numpy.random.RandomState(0)


def run(label, fn, arrays, gy_shape=None):
    try:
        outs = {}
        for mode in ("never", "always"):
            with chainer.using_config("use_cudnn", mode):
                vs = [chainer.Variable(cp.asarray(a)) for a in arrays]
                y = fn(*vs)
                y.grad = cp.ones_like(y.array)
                y.backward()
                outs[mode] = [cp.asnumpy(y.array)] + [cp.asnumpy(v.grad) for v in vs]
        diffs = [float(numpy.abs(a - b).max()) for a, b in zip(outs["never"], outs["always"])]
        print(f"{label}: max |cudnn - im2col| = {diffs}")
    except Exception:
        print(f"{label}: FAILED")
        traceback.print_exc()


x = rng.standard_normal((8, 16, 12, 12)).astype("f")
W = rng.standard_normal((32, 16, 3, 3)).astype("f")
b = rng.standard_normal(32).astype("f")
run("conv2d pad1 bias", lambda *v: F.convolution_2d(*v, pad=1), [x, W, b])
run("conv2d stride2 cover_all", lambda *v: F.convolution_2d(*v, stride=2, cover_all=True), [x, W])
run("conv2d groups4 dilate2", lambda *v: F.convolution_2d(*v, pad=2, dilate=2, groups=4), [x, W[:, :4]])
run(
    "deconv2d stride2 bias",
    lambda *v: F.deconvolution_2d(*v, stride=2, pad=1),
    [x, W.transpose(1, 0, 2, 3).copy(), b],
)
run("conv1d", lambda *v: F.convolution_1d(*v, pad=1), [x[:, :, 0], W[:, :, 0]])
run("conv2d f16", lambda *v: F.convolution_2d(*v, pad=1), [x.astype("e"), W.astype("e")])
run("conv2d f64", lambda *v: F.convolution_2d(*v, pad=1), [x.astype("d"), W.astype("d")])
print("declined:", {k: v[:300] for k, v in LIBRARY.declined.items()})

# host cost of one forward call
xg, Wg = cp.asarray(x), cp.asarray(W)
for mode in ("always", "never"):
    with chainer.using_config("use_cudnn", mode), chainer.no_backprop_mode():
        for _ in range(20):
            F.convolution_2d(xg, Wg, pad=1)
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        for _ in range(200):
            F.convolution_2d(xg, Wg, pad=1)
        host = (time.perf_counter() - t) / 200
        cp.cuda.Device().synchronize()
        total = (time.perf_counter() - t) / 200
    print(f"conv2d forward use_cudnn={mode}: host {host * 1e6:.1f} us/call, with sync {total * 1e6:.1f} us/call")
plans = [p for p in LIBRARY._plans.values() if p is not None]
print(f"plans: {len(plans)}, executed directly through the lowered graph: {sum(p.direct is not None for p in plans)}")
