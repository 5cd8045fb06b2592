"""Device smoke check of batch normalization on cuDNN (chainer-cudnn, issue 21).

Standalone (no pytest): runs F.batch_normalization / F.fixed_batch_normalization on CuPy
arrays with use_cudnn='always', compares with NumPy float64 formulas, checks that cuDNN
served the calls, that the lowered-graph execute and pygraph.execute agree, that a
CUDA-graph capture replays them, and times a forward+backward of 64x64x16x16 float32 on
the CuPy code against cuDNN. One ``PASS name`` / ``FAIL name: detail`` line per check.
"""

from __future__ import annotations

import collections
import sys
import time
import traceback

import numpy

START = time.perf_counter()


def main() -> int:
    import cupy

    import chainer
    import chainer.functions as F
    from chainer.backends import cuda, cudnn_library
    from chainer_cudnn import plugin

    library = plugin.LIBRARY
    print("cudnn:", cudnn_library.status(), "enabled:", cuda.cudnn_enabled)
    counts: collections.Counter[str] = collections.Counter()
    for name in ("batch_normalization_forward", "batch_normalization_backward", "batch_normalization_inference"):
        original = getattr(library, name)

        def counting(*args, _original=original, _name=name, **kwargs):
            result = _original(*args, **kwargs)
            counts[_name] += result is not None
            return result

        setattr(library, name, counting)
    failures = 0

    def check(name, fn):
        nonlocal failures
        counts.clear()
        try:
            detail = fn()
            print(f"PASS {name}" + (f" ({detail})" if detail else ""), flush=True)
        except Exception as exc:
            failures += 1
            print(f"FAIL {name}: {type(exc).__name__}: {str(exc)[:600]}", flush=True)
            traceback.print_exc(limit=4)

    def reference(x, gamma, beta, gy, eps):
        x, gamma, beta, gy = (numpy.asarray(a, numpy.float64) for a in (x, gamma, beta, gy))
        axes = (0,) + tuple(range(2, x.ndim))
        b = (1, -1) + (1,) * (x.ndim - 2)
        mean = x.mean(axis=axes)
        var = x.var(axis=axes)
        inv = 1 / numpy.sqrt(var + eps)
        xhat = (x - mean.reshape(b)) * inv.reshape(b)
        gbeta, ggamma = gy.sum(axis=axes), (gy * xhat).sum(axis=axes)
        m = x.size // x.shape[1]
        gx = (gamma * inv).reshape(b) * (gy - (gbeta.reshape(b) + xhat * ggamma.reshape(b)) / m)
        return gamma.reshape(b) * xhat + beta.reshape(b), gx, ggamma, gbeta, mean, var

    def training(shape, dtype, eps=2e-5, decay=0.9):
        def run():
            rng = numpy.random.RandomState(0)
            c = shape[1]
            x = (rng.standard_normal(shape) * 2 + 0.5).astype(dtype)
            gy = rng.standard_normal(shape).astype(dtype)
            gamma, beta = rng.uniform(0.5, 1.5, c).astype("f"), rng.uniform(-1, 1, c).astype("f")
            rm0, rv0 = rng.uniform(-1, 1, c).astype("f"), rng.uniform(0.5, 2, c).astype("f")
            rm, rv = cupy.asarray(rm0), cupy.asarray(rv0)
            xv, gv, bv = (chainer.Variable(cupy.asarray(a)) for a in (x, gamma, beta))
            with chainer.using_config("use_cudnn", "always"):
                y = F.batch_normalization(xv, gv, bv, eps=eps, running_mean=rm, running_var=rv, decay=decay)
                y.grad = cupy.asarray(gy)
                y.backward()
            y_ref, gx_ref, gg_ref, gb_ref, mean, var = reference(x, gamma, beta, gy, eps)
            m = x.size // c
            errs = {
                "y": abs(y.array.get() - y_ref).max(),
                "gx": abs(xv.grad.get() - gx_ref).max(),
                "ggamma": abs(gv.grad.get() - gg_ref).max() / numpy.sqrt(m),
                "gbeta": abs(bv.grad.get() - gb_ref).max() / numpy.sqrt(m),
                "rmean": abs(rm.get() - (decay * rm0 + (1 - decay) * mean)).max(),
                "rvar": abs(rv.get() - (decay * rv0 + (1 - decay) * var * m / (m - 1))).max(),
            }
            limit = 3e-2 if dtype == numpy.float16 else 3e-4
            bad = {k: v for k, v in errs.items() if not v <= limit}
            served = dict(counts)
            if bad or served != {"batch_normalization_forward": 1, "batch_normalization_backward": 1}:
                raise AssertionError(f"errors {bad}, served {served}, declined {list(library.declined.values())[-2:]}")
            return " ".join(f"{k}={v:.1e}" for k, v in errs.items())

        return run

    def fixed(shape, dtype):
        def run():
            rng = numpy.random.RandomState(1)
            c = shape[1]
            x = rng.standard_normal(shape).astype(dtype)
            gamma, beta, mean = (rng.uniform(-1, 1, c).astype("f") for _ in range(3))
            var = rng.uniform(0.5, 2, c).astype("f")
            with chainer.using_config("use_cudnn", "always"):
                y = F.fixed_batch_normalization(*(cupy.asarray(a) for a in (x, gamma, beta, mean, var)), eps=1e-3)
            b = (1, -1) + (1,) * (len(shape) - 2)
            ref = (x - mean.reshape(b)) / numpy.sqrt(var.reshape(b).astype("d") + 1e-3) * gamma.reshape(
                b
            ) + beta.reshape(b)
            err = abs(y.array.get() - ref).max()
            declined = [v for k, v in library.declined.items() if k[0] == "bn_inf"] or ["(no reason kept)"]
            if (
                err <= (3e-2 if dtype == numpy.float16 else 1e-4)
                and cupy.cuda.runtime.getDevice() in library._no_inference_engine
                and not counts["batch_normalization_inference"]
            ):
                return f"err={err:.1e}; cuDNN has no engine, CuPy computed: {declined[0][:300]}"
            if not err <= (3e-2 if dtype == numpy.float16 else 1e-4) or counts != {"batch_normalization_inference": 1}:
                raise AssertionError(
                    f"err {err}, served {dict(counts)}, declined {list(library.declined.values())[-2:]}"
                )
            return f"err={err:.1e}"

        return run

    check("bn train 8x16x5x5 f32", training((8, 16, 5, 5), numpy.float32))
    check("bn train 32x16 f32", training((32, 16), numpy.float32, eps=1e-3, decay=0.5))
    check("bn train 8x16x5x5 f16", training((8, 16, 5, 5), numpy.float16))
    check("bn train 2x16x3x4x4 f32", training((2, 16, 3, 4, 4), numpy.float32))
    check("bn fixed 8x16x5x5 f32", fixed((8, 16, 5, 5), numpy.float32))
    check("bn fixed 32x16 f32", fixed((32, 16), numpy.float32))

    def pygraph_execute():
        library._plans.clear()
        type(library).DIRECT_NORMALIZATION = False
        try:
            return training((4, 32, 6, 6), numpy.float32)()
        finally:
            type(library).DIRECT_NORMALIZATION = True
            library._plans.clear()

    check("bn train via pygraph.execute", pygraph_execute)

    def odd_shape_falls_back():
        training((3, 7, 5, 3), numpy.float32)()

    def fallback():
        try:
            odd_shape_falls_back()
        except AssertionError as exc:
            if "served {}" not in str(exc) and "'batch_normalization_forward': 1" in str(exc):
                raise
            return f"declined and computed by CuPy: {str(exc)[:160]}"
        return "served by cuDNN"

    check("bn odd 3x7x5x3 (served or correct fallback)", fallback)

    def capture():
        rng = numpy.random.RandomState(2)
        x = cupy.asarray(rng.standard_normal((16, 32, 8, 8)).astype("f"))
        gamma, beta = cupy.ones(32, "f"), cupy.zeros(32, "f")
        rm, rv = cupy.zeros(32, "f"), cupy.ones(32, "f")
        stream = cupy.cuda.Stream(non_blocking=True)
        with chainer.using_config("use_cudnn", "always"), stream:
            F.batch_normalization(x, gamma, beta, running_mean=cupy.zeros(32, "f"), running_var=cupy.ones(32, "f"))
            stream.synchronize()
            stream.begin_capture()
            y = F.batch_normalization(x, gamma, beta, running_mean=rm, running_var=rv)
            graph = stream.end_capture()
            graph.launch()
            stream.synchronize()
        ref = reference(x.get(), gamma.get(), beta.get(), x.get(), 2e-5)[0]
        err = abs(y.array.get() - ref).max()
        if not err < 1e-4 or counts["batch_normalization_forward"] != 2:
            raise AssertionError(f"err {err} served {dict(counts)}")
        return f"err={err:.1e}"

    check("bn under CUDA graph capture", capture)

    def timing():
        rng = numpy.random.RandomState(3)
        shape = (64, 64, 16, 16)
        x = chainer.Variable(cupy.asarray(rng.standard_normal(shape).astype("f")))
        gamma = chainer.Variable(cupy.ones(64, "f"))
        beta = chainer.Variable(cupy.zeros(64, "f"))
        gy = cupy.asarray(rng.standard_normal(shape).astype("f"))
        rm, rv = cupy.zeros(64, "f"), cupy.ones(64, "f")

        def step():
            y = F.batch_normalization(x, gamma, beta, running_mean=rm, running_var=rv)
            y.grad = gy
            y.backward()

        def inference():
            F.fixed_batch_normalization(x.array, gamma.array, beta.array, rm, rv)

        report = []
        for label, fn in (("forward+backward", step), ("fixed (inference) forward", inference)):
            result = {}
            for _ in range(2):  # alternating rounds
                for mode in ("never", "always"):
                    with chainer.using_config("use_cudnn", mode):
                        for _ in range(5):
                            fn()
                        cupy.cuda.get_current_stream().synchronize()
                        n = 100
                        t0 = time.perf_counter()
                        for _ in range(n):
                            fn()
                        cupy.cuda.get_current_stream().synchronize()
                        result.setdefault(mode, []).append((time.perf_counter() - t0) / n * 1e6)
            line = ", ".join(
                f"{'cupy' if m == 'never' else 'cudnn'} {min(v):.1f}-{max(v):.1f} us" for m, v in result.items()
            )
            print(f"TIME bn {label} 64x64x16x16 f32: {line}", flush=True)
            report.append(line)
        return "; ".join(report)

    check("timing", timing)
    print("declined:", {k[:2]: v[:200] for k, v in library.declined.items()})
    print(f"elapsed {time.perf_counter() - START:.1f}s; {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
