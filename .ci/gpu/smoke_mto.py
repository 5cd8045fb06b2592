"""Device check of the multi-tensor optimizer update (chainer/optimizers/_multi_tensor.py).

For each rule kind and dtype: the same parameters updated for a few steps by the
multi-tensor path and by the per-parameter kernels (the module switched off) must agree
bit for bit, and with a NumPy float64 reference within a tolerance. Then the time of one
``optimizer.update()`` over 6 and over 60 parameters, per-parameter against multi-tensor.
Prints ``PASS name`` / ``FAIL name: detail`` per check; never stops at a failure.
"""

import time
import traceback

import numpy

import chainer
from chainer import optimizers
from chainer.backends import cuda
from chainer.optimizers import _multi_tensor

cp = cuda.cupy
SHAPES = [(3, 4), (1,), (0,), (7,), (2, 3, 5), (1000, 37)]
STEPS = 4


def make_link(dtype, seed, shapes=SHAPES):
    rng = numpy.random.RandomState(seed)
    link = chainer.Link()
    with link.init_scope():
        for i, shape in enumerate(shapes):
            setattr(link, f"p{i}", chainer.Parameter(rng.standard_normal(shape).astype(dtype)))
    link.to_gpu()
    return link


def grads(dtype, step, shapes=SHAPES):
    rng = numpy.random.RandomState(100 + step)
    return [rng.standard_normal(shape).astype(dtype) for shape in shapes]


def run(make_opt, dtype, disabled, change_lr=False):
    link = make_link(dtype, 0)
    opt = make_opt().setup(link)
    served = 0
    _multi_tensor._disabled = disabled
    try:
        for step in range(STEPS):
            for p, g in zip(link.params(), grads(dtype, step)):
                p.grad = cp.asarray(g)
            if change_lr and step == 2:
                name = "alpha" if hasattr(opt.hyperparam, "alpha") else "lr"
                setattr(opt.hyperparam, name, getattr(opt.hyperparam, name) * 0.5)
            opt.update()
            served += len(_multi_tensor.for_optimizer(opt)._staged) if not disabled else 0
    finally:
        _multi_tensor._disabled = False
    params = [cp.asnumpy(p.array) for p in link.params()]
    states = [{k: cp.asnumpy(v) for k, v in p.update_rule.state.items()} for p in link.params()]
    ts = [p.update_rule.t for p in link.params()]
    return params, states, ts, served


def reference(kind, hp, dtype):
    """NumPy float64 reference of the formulas (documented in each rule's docstring)."""
    link = make_link(dtype, 0)
    ps = [cp.asnumpy(p.array).astype(numpy.float64) for p in link.params()]
    st = [{"m": numpy.zeros_like(p), "v": numpy.zeros_like(p), "vhat": numpy.zeros_like(p)} for p in ps]
    for step in range(STEPS):
        t = step + 1
        for p, s, g in zip(ps, st, grads(dtype, step)):
            g = g.astype(numpy.float64)
            if kind == "sgd":
                p -= hp["lr"] * g
            elif kind == "momentum":
                s["v"] = hp["momentum"] * s["v"] - hp["lr"] * g
                p += s["v"]
            else:
                s["m"] += (1 - hp["beta1"]) * (g - s["m"])
                s["v"] += (1 - hp["beta2"]) * (g * g - s["v"])
                s["vhat"] = numpy.maximum(s["vhat"], s["v"])
                vv = s["vhat"] if hp.get("amsgrad") else s["v"]
                lr = hp["alpha"] * numpy.sqrt(1 - hp["beta2"] ** t) / (1 - hp["beta1"] ** t)
                p -= lr * s["m"] / (numpy.sqrt(vv) + hp["eps"])
    return ps


CASES = {
    "sgd": (lambda: optimizers.SGD(lr=0.1), "sgd", {"lr": 0.1}),
    "momentum_sgd": (lambda: optimizers.MomentumSGD(lr=0.1, momentum=0.9), "momentum", {"lr": 0.1, "momentum": 0.9}),
    "adam": (lambda: optimizers.Adam(alpha=0.01), "adam", {"alpha": 0.01, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8}),
    "amsgrad": (
        lambda: optimizers.AMSGrad(alpha=0.01),
        "adam",
        {"alpha": 0.01, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "amsgrad": True},
    ),
    "adamw": (lambda: optimizers.Adam(alpha=0.01, weight_decay_rate=0.01, eta=0.5), None, None),
    "adabound": (lambda: optimizers.AdaBound(alpha=0.01), None, None),
    "amsbound": (lambda: optimizers.AMSBound(alpha=0.01), None, None),
}


def check(name, dtype, change_lr=False):
    label = f"{name}/{numpy.dtype(dtype).name}{'/lr-change' if change_lr else ''}"
    try:
        make_opt, kind, hp = CASES[name]
        new = run(make_opt, dtype, False, change_lr)
        old = run(make_opt, dtype, True, change_lr)
        if new[3] < STEPS - 1:
            print(f"FAIL {label}: multi-tensor served {new[3]} group launches over {STEPS} steps")
            return
        bad = [i for i, (a, b) in enumerate(zip(new[0], old[0])) if a.tobytes() != b.tobytes()]
        bad += [
            f"state{i}"
            for i, (a, b) in enumerate(zip(new[1], old[1]))
            if any(a[k].tobytes() != b[k].tobytes() for k in a)
        ]
        if bad or new[2] != old[2]:
            diff = max((float(numpy.abs(new[0][i] - old[0][i]).max()) for i in bad if isinstance(i, int)), default=0)
            print(
                f"FAIL {label}: not bitwise equal to the per-parameter kernels at {bad}, max diff {diff}, "
                f"t {new[2]} vs {old[2]}"
            )
            return
        if kind is not None and not change_lr:
            ref = reference(kind, hp, dtype)
            rtol = 1e-4 if dtype == numpy.float32 else 1e-10
            for a, r in zip(new[0], ref):
                numpy.testing.assert_allclose(a, r, rtol=rtol, atol=rtol)
        print(f"PASS {label}")
    except Exception as error:
        print(f"FAIL {label}: {type(error).__name__}: {error}")
        traceback.print_exc()


def timing(nparams, make_opt, label):
    rng = numpy.random.RandomState(0)
    shapes = [(256, 256) if i % 2 == 0 else (256,) for i in range(nparams)]
    link = make_link(numpy.float32, 0, shapes)
    opt = make_opt().setup(link)
    for p in link.params():
        p.grad = cp.asarray(rng.standard_normal(p.shape).astype(numpy.float32))
    results = {}
    for _rounds in range(3):
        for disabled in (True, False):
            _multi_tensor._disabled = disabled
            opt.update()
            cp.cuda.get_current_stream().synchronize()
            n = 200
            start = time.perf_counter()
            for _ in range(n):
                opt.update()
            cp.cuda.get_current_stream().synchronize()
            us = (time.perf_counter() - start) / n * 1e6
            results.setdefault(disabled, []).append(us)
    _multi_tensor._disabled = False
    old, new = min(results[True]), min(results[False])
    print(
        f"TIME {label} {nparams} params: per-parameter {old:.1f} us/update, multi-tensor {new:.1f} us/update "
        f"({old / new:.2f}x)  [all rounds: {[round(x) for x in results[True]]} vs {[round(x) for x in results[False]]}]"
    )


def components(nparams, make_opt, label, profile=False):
    """Host time of the pieces: stage() alone, launch() alone, the per-parameter loop."""
    rng = numpy.random.RandomState(0)
    shapes = [(256, 256) if i % 2 == 0 else (256,) for i in range(nparams)]
    link = make_link(numpy.float32, 0, shapes)
    opt = make_opt().setup(link)
    for p in link.params():
        p.grad = cp.asarray(rng.standard_normal(p.shape).astype(numpy.float32))
    opt.update()
    params = list(link.params())
    mtu = _multi_tensor.for_optimizer(opt)
    sync = cp.cuda.get_current_stream().synchronize
    out = {}
    for what, fn in (
        ("stage", lambda: mtu.stage(params)),
        ("launch", mtu.launch),
        ("per-param loop", lambda: [p.update() for p in params]),
        ("stage+launch", lambda: (mtu.stage(params), mtu.launch())),
    ):
        fn()
        sync()
        start = time.perf_counter()
        for _ in range(200):
            fn()
        sync()
        out[what] = (time.perf_counter() - start) / 200 * 1e6
    print(f"PARTS {label} {nparams} params: " + ", ".join(f"{k} {v:.1f} us" for k, v in out.items()))
    if profile:
        import cProfile
        import pstats

        pr = cProfile.Profile()
        pr.enable()
        for _ in range(100):
            mtu.stage(params)
        pr.disable()
        pstats.Stats(pr).sort_stats("tottime").print_stats(14)


def main():
    t0 = time.time()
    print("cupy", cp.__version__, "device", cp.cuda.runtime.getDeviceProperties(0)["name"])
    for name in CASES:
        for dtype in (numpy.float32, numpy.float64):
            check(name, dtype)
    check("adam", numpy.float32, change_lr=True)
    check("momentum_sgd", numpy.float64, change_lr=True)
    print("broken kernels:", sorted(_multi_tensor._broken))
    for n in (6, 60):
        for name in ("adam", "momentum_sgd"):
            try:
                timing(n, CASES[name][0], name)
            except Exception as error:
                print(f"FAIL timing {name} {n}: {type(error).__name__}: {error}")
                traceback.print_exc()
    for n in (6, 60):
        try:
            components(n, CASES["adam"][0], "adam", profile=n == 60)
        except Exception as error:
            print(f"FAIL parts {n}: {type(error).__name__}: {error}")
            traceback.print_exc()
    print(f"total {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
