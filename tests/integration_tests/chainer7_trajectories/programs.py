"""Small deterministic training programs whose whole trajectories are compared with Chainer 7.8.1.

The same text runs under Chainer 7.8.1 on NumPy 1.26 (``make_fixtures.py`` saves what it
records) and under ours on NumPy 2 (``tests/integration_tests/test_chainer7_trajectories.py``
compares). So it uses only what both have: the public Chainer API, ``numpy.random.RandomState``
for every initial value (never an initializer's own randomness) and no NumPy-version-only API.

Each program takes a :class:`Trace` and records, after every step, the arrays that carry the
training's state: parameters, optimizer states, link states (running statistics, recurrent
state, power-iteration vectors) and reported values.
"""

from __future__ import annotations

import io
import tempfile
import warnings

import numpy as np

import chainer
import chainer.functions as F
import chainer.link_hooks
import chainer.links as L
import chainer.optimizer_hooks as H
import chainer.optimizers as O
from chainer import serializers, training
from chainer.training import extensions

F64 = np.float64


class Trace:
    """Named arrays recorded once per step; a name whose shape changes is kept per step."""

    def __init__(self) -> None:
        self.rows: dict[str, list[np.ndarray]] = {}

    def add(self, name: str, value) -> None:
        if isinstance(value, chainer.Variable):
            value = value.array
        self.rows.setdefault(name, []).append(np.array(value, copy=True))

    def arrays(self) -> dict[str, np.ndarray]:
        out = {}
        for name, values in self.rows.items():
            if len({v.shape for v in values}) == 1:
                out[name] = np.stack(values)
            else:
                for i, v in enumerate(values):
                    out[f"{name}#{i:03d}"] = v
        return out


# -- helpers ------------------------------------------------------------------------------


def _uniform(rs: np.random.RandomState, shape, dtype=F64, scale: float = 1.0) -> np.ndarray:
    return (rs.uniform(-scale, scale, shape)).astype(dtype)


def set_params(link: chainer.Link, seed: int, scale: float = 0.5) -> None:
    """Overwrite every parameter, in sorted-name order, with seeded uniform values."""
    rs = np.random.RandomState(seed)
    for _, p in sorted(link.namedparams()):
        p.array[...] = _uniform(rs, p.shape, p.dtype, scale)


def record_params(trace: Trace, link: chainer.Link, grads: bool = False) -> None:
    for name, p in sorted(link.namedparams()):
        trace.add("param" + name, p.array)
        if grads:
            trace.add("grad" + name, p.grad)


def record_states(trace: Trace, link: chainer.Link) -> None:
    for name, p in sorted(link.namedparams()):
        rule = p.update_rule
        trace.add("t" + name, rule.t)
        for key, value in sorted((rule.state or {}).items()):
            trace.add(f"state{name}/{key}", value)


class MLP(chainer.Chain):
    def __init__(self, seed: int, dtype=F64, sizes=(3, 4, 2)) -> None:
        super().__init__()
        rs = np.random.RandomState(seed)
        a, b, c = sizes
        # Chainer 7.8.1 gives an array initial_bias the default dtype: set it.
        with self.init_scope(), chainer.using_config("dtype", dtype):
            self.l1 = L.Linear(a, b, initialW=_uniform(rs, (b, a), dtype), initial_bias=_uniform(rs, b, dtype, 0.1))
            self.l2 = L.Linear(b, c, initialW=_uniform(rs, (c, b), dtype), initial_bias=_uniform(rs, c, dtype, 0.1))

    def forward(self, x):
        return self.l2(F.tanh(self.l1(x)))


def regression_data(seed: int, steps: int, batch: int = 5, dtype=F64, sizes=(3, 2), scale: float = 1.0):
    rs = np.random.RandomState(seed)
    xs = rs.normal(size=(steps, batch, sizes[0])).astype(dtype) * scale
    ts = rs.normal(size=(steps, batch, sizes[1])).astype(dtype)
    return xs, ts


# -- optimizers -----------------------------------------------------------------------------


def _optimizer_program(make, changes=None, steps: int = 20, data_scale: float = 1.0, extra=None):
    """A regression MLP trained by ``make()``; ``changes[step]`` edits it before that step."""

    def program(trace: Trace) -> None:
        model = MLP(seed=1)
        optimizer = make()
        optimizer.setup(model)
        if extra is not None:
            extra(optimizer, model)
        xs, ts = regression_data(2, steps, scale=data_scale)

        def lossfun(x, t):
            loss = F.mean_squared_error(model(x), t)
            trace.add("loss", loss)
            return loss

        for i in range(steps):
            if changes and i in changes:
                changes[i](optimizer, model)
            if i % 2:
                optimizer.update(lossfun, xs[i], ts[i])
            else:  # the other documented way: backward by hand, then update()
                model.cleargrads()
                lossfun(xs[i], ts[i]).backward()
                optimizer.update()
            trace.add("optimizer.t", optimizer.t)
            # (Adam's lr is deprecated in both for alpha_t.)
            trace.add(
                "optimizer.lr", optimizer.alpha_t if isinstance(optimizer, O.Adam) else getattr(optimizer, "lr", 0.0)
            )
            record_params(trace, model, grads=True)
            record_states(trace, model)

    return program


def _set(**values):
    def change(optimizer, model):
        for name, value in values.items():
            setattr(optimizer, name, value)

    return change


def _per_param(optimizer, model):
    # Per-parameter hyperparameters shadow the optimizer's; a disabled rule freezes its param.
    model.l1.W.update_rule.hyperparam.lr = 0.02
    model.l2.b.update_rule.enabled = False


def _per_param_adam(optimizer, model):
    model.l1.W.update_rule.hyperparam.alpha = 0.002
    model.l1.b.update_rule.hyperparam.beta1 = 0.5
    model.l2.b.update_rule.enabled = False


def _reenable(optimizer, model):
    model.l2.b.update_rule.enabled = True


OPTIMIZERS = {
    "sgd": (lambda: O.SGD(lr=0.1), {10: _set(lr=0.03)}),
    "sgd_per_param": (lambda: O.SGD(lr=0.1), {5: _per_param, 12: _reenable}),
    "momentum_sgd": (lambda: O.MomentumSGD(lr=0.05, momentum=0.8), {10: _set(lr=0.01, momentum=0.5)}),
    "momentum_sgd_per_param": (lambda: O.MomentumSGD(), {4: _per_param, 15: _reenable}),
    "corrected_momentum_sgd": (lambda: O.CorrectedMomentumSGD(lr=0.05, momentum=0.7), {10: _set(lr=0.01)}),
    "nesterov_ag": (lambda: O.NesterovAG(lr=0.05, momentum=0.85), {10: _set(lr=0.02)}),
    "adadelta": (lambda: O.AdaDelta(rho=0.9, eps=1e-5), {10: _set(rho=0.8)}),
    "adagrad": (lambda: O.AdaGrad(lr=0.1, eps=1e-6), {10: _set(lr=0.05)}),
    "adam": (lambda: O.Adam(alpha=0.01, beta1=0.8, beta2=0.99, eps=1e-6), {10: _set(alpha=0.005)}),
    "adam_default": (lambda: O.Adam(), {}),
    "adam_eta_weight_decay": (lambda: O.Adam(alpha=0.01, eta=0.5, weight_decay_rate=0.01), {8: _set(eta=0.25)}),
    "adam_per_param": (lambda: O.Adam(alpha=0.01), {3: _per_param_adam, 14: _reenable}),
    "adam_amsgrad": (lambda: O.Adam(alpha=0.02, beta2=0.9, amsgrad=True), {10: _set(alpha=0.01)}),
    "adam_adabound": (lambda: O.Adam(alpha=0.01, adabound=True, final_lr=0.05, gamma=0.01), {10: _set(alpha=0.02)}),
    "adam_amsbound": (lambda: O.Adam(alpha=0.01, adabound=True, amsgrad=True, final_lr=0.2, gamma=0.1), {}),
    "adam_adamw": (lambda: O.Adam(alpha=0.01, weight_decay_rate=0.05, eta=0.5), {}),
    "adabound": (lambda: O.AdaBound(alpha=0.01, beta1=0.85, final_lr=0.05, gamma=0.02, eps=1e-6), {}),
    "amsbound": (
        lambda: O.AMSBound(alpha=0.01, beta2=0.95, final_lr=0.3, gamma=0.05, eta=0.8),
        {10: _set(alpha=0.005)},
    ),
    "amsgrad": (lambda: O.AMSGrad(alpha=0.02, beta1=0.7, beta2=0.9, eps=1e-6, eta=0.9), {10: _set(alpha=0.01)}),
    "adamw": (lambda: O.AdamW(alpha=0.01, weight_decay_rate=0.05, eta=0.5), {10: _set(eta=1.0)}),
    "msvag": (lambda: O.MSVAG(lr=0.1, beta=0.8, eta=0.7, weight_decay_rate=0.01), {10: _set(lr=0.05)}),
    "msvag_default": (lambda: O.MSVAG(), {}),
    "rmsprop": (lambda: O.RMSprop(lr=0.01, alpha=0.9, eps=1e-4), {10: _set(lr=0.005)}),
    "rmsprop_eps_inside_sqrt": (lambda: O.RMSprop(lr=0.01, alpha=0.9, eps=1e-2, eps_inside_sqrt=True), {}),
    "rmsprop_graves": (lambda: O.RMSpropGraves(lr=0.01, alpha=0.9, momentum=0.8, eps=1e-3), {10: _set(lr=0.002)}),
    "smorms3": (lambda: O.SMORMS3(lr=0.01, eps=1e-10), {10: _set(lr=0.02)}),
}


# -- optimizer hooks ------------------------------------------------------------------------


def _hooks(*hooks):
    def extra(optimizer, model):
        for hook, kwargs in hooks:
            optimizer.add_hook(hook(), **kwargs)

    return extra


def _rule_hooks(optimizer, model):
    model.l1.W.update_rule.add_hook(H.WeightDecay(0.05))
    model.l2.W.update_rule.add_hook(H.GradientHardClipping(-0.02, 0.02), name="clip")


def _remove_rule_hook(optimizer, model):
    model.l2.W.update_rule.remove_hook("clip")


def _remove_optimizer_hook(optimizer, model):
    optimizer.remove_hook("WeightDecay")


HOOKS = {
    "hook_weight_decay": (lambda: O.SGD(lr=0.1), _hooks((lambda: H.WeightDecay(0.01), {})), {}),
    "hook_lasso": (lambda: O.MomentumSGD(lr=0.05), _hooks((lambda: H.Lasso(0.01), {})), {}),
    "hook_gradient_clipping": (lambda: O.SGD(lr=0.1), _hooks((lambda: H.GradientClipping(1.5), {})), {}),
    "hook_gradient_hard_clipping": (
        lambda: O.Adam(alpha=0.01),
        _hooks((lambda: H.GradientHardClipping(-0.4, 0.3), {})),
        {},
    ),
    "hook_gradient_lars": (
        lambda: O.MomentumSGD(lr=0.1),
        _hooks((lambda: H.GradientLARS(threshold=0.05, weight_decay=0.001), {})),
        {},
    ),
    "hook_clip_then_decay": (
        lambda: O.SGD(lr=0.1),
        _hooks((lambda: H.GradientClipping(1.5), {}), (lambda: H.WeightDecay(0.2), {})),
        {},
    ),
    "hook_decay_then_clip": (
        lambda: O.SGD(lr=0.1),
        _hooks((lambda: H.WeightDecay(0.2), {}), (lambda: H.GradientClipping(1.5), {})),
        {},
    ),
    "hook_timing_pre_post": (
        lambda: O.MomentumSGD(lr=0.05),
        _hooks(
            (lambda: H.WeightDecay(0.05), {"timing": "post"}),
            (lambda: H.GradientHardClipping(-0.3, 0.3), {"timing": "pre"}),
            (lambda: H.Lasso(0.02), {"timing": "post"}),
        ),
        {12: _remove_optimizer_hook},
    ),
    "hook_update_rule": (lambda: O.MomentumSGD(lr=0.05), _rule_hooks, {10: _remove_rule_hook}),
}


# -- loss scaling ---------------------------------------------------------------------------


def _loss_scaling_program(configure, dtype, overflow_steps=(), steps: int = 16):
    def program(trace: Trace) -> None:
        model = MLP(seed=3, dtype=dtype)
        optimizer = O.Adam(alpha=0.01) if dtype == np.float32 else O.SGD(lr=0.05)
        optimizer.setup(model)
        configure(optimizer)
        xs, ts = regression_data(4, steps, dtype=dtype)

        def lossfun(x, t, factor):
            loss = F.mean_squared_error(model(x), t) * factor
            trace.add("loss", loss)
            return loss

        for i in range(steps):
            # On the overflow steps, a factor near the dtype's largest value: times a loss
            # scale of 2 or more, the gradient of the loss is inf.
            factor = np.asarray(6e4 if dtype == np.float16 else 3e38, dtype) if i in overflow_steps else 1.0
            with np.errstate(over="ignore", invalid="ignore"), warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                optimizer.update(lossfun, xs[i], ts[i], factor)
            # A skipped update warns once per parameter whose gradient is not finite.
            trace.add("non_finite_warnings", sum("Non finite number found" in str(w.message) for w in caught))
            trace.add("loss_scale", optimizer._loss_scale)
            trace.add("optimizer.t", optimizer.t)
            record_params(trace, model)
            record_states(trace, model)

    return program


LOSS_SCALING = {
    "loss_scaling_static": _loss_scaling_program(lambda o: o.loss_scaling(scale=128.0), np.float32),
    "loss_scaling_dynamic": _loss_scaling_program(lambda o: o.loss_scaling(interval=3), np.float32, (6, 7, 12)),
    "loss_scaling_dynamic_default": _loss_scaling_program(lambda o: o.loss_scaling(), np.float32, (9,)),
    "loss_scaling_dynamic_float16": _loss_scaling_program(lambda o: o.loss_scaling(interval=2), np.float16, (5,)),
}


# -- links with state ------------------------------------------------------------------------


class BNNet(chainer.Chain):
    def __init__(self, norm) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(4, 3)
            self.norm = norm
            self.l2 = L.Linear(3, 2)
        set_params(self, 5)

    def forward(self, x, **kwargs):
        return self.l2(F.tanh(self.norm(self.l1(x), **kwargs)))


def _norm_program(make_norm, steps: int = 15, finetune_steps: int = 0, test_every: int = 5):
    def program(trace: Trace) -> None:
        with chainer.using_config("dtype", F64):
            model = BNNet(make_norm())
        optimizer = O.MomentumSGD(lr=0.05)
        optimizer.setup(model)
        xs, ts = regression_data(6, steps + finetune_steps, batch=6, sizes=(4, 2), scale=2.0)
        xs = xs + 0.5
        for i in range(steps):
            model.cleargrads()
            loss = F.mean_squared_error(model(xs[i]), ts[i])
            loss.backward()
            optimizer.update()
            trace.add("loss", loss)
            record_params(trace, model)
            for name in ("avg_mean", "avg_var", "N", "r", "d"):
                if getattr(model.norm, name, None) is not None:
                    trace.add("norm." + name, getattr(model.norm, name))
            if i % test_every == test_every - 1:
                with chainer.using_config("train", False):
                    trace.add("test_output", model(xs[0]))
        for i in range(steps, steps + finetune_steps):
            model(xs[i], finetune=True)
            trace.add("finetune.avg_mean", model.norm.avg_mean)
            trace.add("finetune.avg_var", model.norm.avg_var)
            trace.add("finetune.N", model.norm.N)
            with chainer.using_config("train", False):
                trace.add("finetune.test_output", model(xs[0]))

    return program


def _batch_renormalization_function(trace: Trace) -> None:
    """F.batch_renormalization's running statistics, with and without update_statistics."""
    rs = np.random.RandomState(7)
    gamma = _uniform(rs, 3) + 1.0
    beta = _uniform(rs, 3)
    mean = np.zeros(3)
    var = np.ones(3)
    for i in range(12):
        x = rs.normal(size=(5, 3)) * 3.0 + 1.0
        y = F.batch_renormalization(
            x,
            gamma,
            beta,
            rmax=1.3,
            dmax=0.4,
            running_mean=mean,
            running_var=var,
            decay=0.7,
            update_statistics=(i % 3 != 2),
        )
        trace.add("y", y)
        trace.add("running_mean", mean)
        trace.add("running_var", var)
        yf = F.fixed_batch_normalization(x, gamma, beta, mean, var)
        trace.add("fixed_y", yf)


def _sequences(seed: int, lengths, size: int):
    rs = np.random.RandomState(seed)
    return [rs.normal(size=(n, size)) for n in lengths]


def _recurrent_program(make, kind: str, steps: int = 8, batch_sizes=(4, 4, 3, 2, 2, 1)):
    """Train a recurrent link: ``kind`` picks how it is driven over time."""

    def program(trace: Trace) -> None:
        with chainer.using_config("dtype", F64):
            link = make()
        set_params(link, 8)
        optimizer = O.SGD(lr=0.1)
        optimizer.setup(link)
        rs = np.random.RandomState(9)
        for step in range(steps):
            link.cleargrads()
            if kind in ("stateful", "stateless_lstm"):
                # L.LSTM lets the batch shrink over time, as with sequences sorted by length.
                if kind == "stateful":
                    link.reset_state()
                else:
                    c = h = None
                loss = 0
                for t, n in enumerate(batch_sizes):
                    x = rs.normal(size=(n, 3))
                    if kind == "stateful":
                        y = link(x)
                    else:
                        if c is not None:
                            c, h = c[:n], h[:n]
                        c, y = link(c, h, x)
                        h = y
                    loss += F.sum(y * rs.normal(size=y.shape))
                    trace.add(f"y{t}", y)
                    if kind == "stateful" and step == steps - 1:
                        for name in ("c", "h"):
                            if getattr(link, name, None) is not None:
                                trace.add(f"state.{name}{t}", getattr(link, name))
            else:
                xs = _sequences(10 + step, (3, 5, 2, 5), 3)
                if kind == "nstep_hx":
                    hx = rs.normal(size=(2, len(xs), 4))  # one layer, two directions
                    out = link(hx, xs)
                else:
                    out = link(None, None, xs) if "LSTM" in type(link).__name__ else link(None, xs)
                ys = out[-1]
                loss = 0
                for k, y in enumerate(ys):
                    loss += F.sum(y * rs.normal(size=y.shape))
                    trace.add(f"ys{k}", y)
                for k, state in enumerate(out[:-1]):
                    trace.add(f"state{k}", state)
            loss.backward()
            optimizer.update()
            trace.add("loss", loss)
            record_params(trace, link)

    return program


def _classifier(trace: Trace) -> None:
    model = L.Classifier(MLP(seed=11, sizes=(4, 6, 3)))
    optimizer = O.Adam(alpha=0.05)
    optimizer.setup(model)
    rs = np.random.RandomState(12)
    reporter = chainer.Reporter()
    reporter.add_observer("main", model)
    for _ in range(15):
        x = rs.normal(size=(8, 4))
        t = (np.abs(x[:, :3]).argmax(axis=1)).astype(np.int32)
        observation = {}
        with reporter.scope(observation):
            optimizer.update(model, x, t)
        trace.add("main/loss", observation["main/loss"])
        trace.add("main/accuracy", observation["main/accuracy"])
        trace.add("model.loss", model.loss)
        trace.add("model.accuracy", model.accuracy)
        record_params(trace, model)


LINKS = {
    "batchnorm": _norm_program(lambda: L.BatchNormalization(3, decay=0.8)),
    "batchnorm_default_decay_finetune": _norm_program(lambda: L.BatchNormalization(3), finetune_steps=6),
    "batchnorm_no_gamma_beta": _norm_program(
        lambda: L.BatchNormalization(3, decay=0.5, eps=1e-3, use_gamma=False, use_beta=False)
    ),
    "batch_renormalization": _norm_program(lambda: L.BatchRenormalization(3, rmax=1.2, dmax=0.3, decay=0.8)),
    "batch_renormalization_finetune": _norm_program(
        lambda: L.BatchRenormalization(3, rmax=1.5, dmax=0.5), steps=8, finetune_steps=5
    ),
    "batch_renormalization_function": _batch_renormalization_function,
    "lstm": _recurrent_program(lambda: L.LSTM(3, 4), "stateful"),
    "stateful_gru": _recurrent_program(lambda: L.StatefulGRU(3, 4), "stateful", batch_sizes=(3,) * 5),
    "gru": _recurrent_program(lambda: L.GRU(3, 4), "stateful", batch_sizes=(2,) * 4),
    "stateless_lstm": _recurrent_program(lambda: L.StatelessLSTM(3, 4), "stateless_lstm"),
    "nstep_lstm": _recurrent_program(lambda: L.NStepLSTM(2, 3, 4, 0.0), "nstep"),
    "nstep_bigru": _recurrent_program(lambda: L.NStepBiGRU(1, 3, 4, 0.0), "nstep_hx"),
    "nstep_bilstm": _recurrent_program(lambda: L.NStepBiLSTM(1, 3, 4, 0.0), "nstep"),
    "classifier": _classifier,
}


# -- trainer schedules ----------------------------------------------------------------------


def _schedule_program(make_optimizer, make_extension, trigger=(1, "iteration"), iterations: int = 14, attr="lr"):
    def program(trace: Trace) -> None:
        model = L.Classifier(MLP(seed=13, sizes=(4, 5, 3)))
        optimizer = make_optimizer()
        optimizer.setup(model)
        rs = np.random.RandomState(14)
        x = rs.normal(size=(12, 4))
        t = (np.abs(x[:, :3]).argmax(axis=1)).astype(np.int32)
        dataset = chainer.datasets.TupleDataset(x, t)
        iterator = chainer.iterators.SerialIterator(dataset, 4, shuffle=False)
        updater = training.updaters.StandardUpdater(iterator, optimizer)
        with tempfile.TemporaryDirectory() as out:
            trainer = training.Trainer(updater, (iterations, "iteration"), out=out)
            trainer.extend(make_extension(), trigger=trigger)
            log = extensions.LogReport(trigger=(1, "iteration"), log_name=None)
            trainer.extend(log)
            if attr == "lr":
                trainer.extend(extensions.observe_lr(), trigger=(1, "iteration"))
            else:  # observe_lr reads optimizer.lr, deprecated for Adam in both
                observe = extensions.observe_value(attr, lambda trainer: getattr(optimizer, attr))
                trainer.extend(observe, trigger=(1, "iteration"))

            @training.make_extension(trigger=(1, "iteration"), priority=-1000)
            def record(trainer):
                trace.add("optimizer." + attr, getattr(optimizer, attr))
                record_params(trace, model)

            trainer.extend(record)
            trainer.run()
        for entry in log.log:
            for key in ("epoch", "iteration", attr, "main/loss", "main/accuracy"):
                trace.add("log." + key, entry[key])

    return program


def _msgd():
    return O.MomentumSGD(lr=0.2)


SCHEDULES = {
    "exponential_shift": _schedule_program(_msgd, lambda: extensions.ExponentialShift("lr", 0.7, init=0.3)),
    "exponential_shift_target": _schedule_program(
        _msgd, lambda: extensions.ExponentialShift("lr", 0.5, target=0.05), trigger=(2, "iteration")
    ),
    "exponential_shift_adam_alpha": _schedule_program(
        lambda: O.Adam(alpha=0.05), lambda: extensions.ExponentialShift("alpha", 0.8), attr="alpha"
    ),
    "linear_shift": _schedule_program(_msgd, lambda: extensions.LinearShift("lr", (0.3, 0.01), (2, 9))),
    "multistep_shift": _schedule_program(_msgd, lambda: extensions.MultistepShift("lr", 0.5, [3, 7, 9], 0.3)),
    "polynomial_shift": _schedule_program(_msgd, lambda: extensions.PolynomialShift("lr", 0.5, 12, init=0.3)),
    "polynomial_shift_target": _schedule_program(_msgd, lambda: extensions.PolynomialShift("lr", 2.0, 16, target=0.02)),
    "step_shift": _schedule_program(_msgd, lambda: extensions.StepShift("lr", 0.5, 4, init=0.3)),
    "step_shift_target": _schedule_program(_msgd, lambda: extensions.StepShift("lr", 0.3, 3, target=0.05)),
    "warmup_shift": _schedule_program(_msgd, lambda: extensions.WarmupShift("lr", 0.01, 5, 0.3)),
    "inverse_shift": _schedule_program(_msgd, lambda: extensions.InverseShift("lr", 0.2, 0.75, init=0.3)),
    "inverse_shift_target": _schedule_program(
        _msgd, lambda: extensions.InverseShift("lr", 0.5, 1.0, target=0.08), trigger=(1, "epoch")
    ),
    "exponential_shift_epoch": _schedule_program(
        _msgd, lambda: extensions.ExponentialShift("lr", 0.5), trigger=(1, "epoch"), iterations=12
    ),
}


# -- link hooks -------------------------------------------------------------------------------


def _link_hook_program(make_link, make_hook, x_shape, steps: int = 12, seed_vector: bool = False):
    def program(trace: Trace) -> None:
        with chainer.using_config("dtype", F64):
            link = make_link()
        set_params(link, 15)
        hook = make_hook()
        link.add_hook(hook)
        rs = np.random.RandomState(16)
        if seed_vector:
            # The power-iteration vector starts from Chainer's own generator: set it here.
            u = getattr(link, hook.vector_name)
            u[...] = rs.normal(size=u.shape).astype(u.dtype)
            trace.add("initial_u", u)
        optimizer = O.SGD(lr=0.1)
        optimizer.setup(link)
        for _ in range(steps):
            x = rs.normal(size=x_shape)
            link.cleargrads()
            y = link(x)
            loss = F.sum(y * rs.normal(size=y.shape))
            loss.backward()
            optimizer.update()
            trace.add("y", y)
            record_params(trace, link, grads=True)
            if seed_vector:
                trace.add("u", getattr(link, hook.vector_name))
            with chainer.using_config("train", False):
                trace.add("test_y", link(x))
            if seed_vector:  # test mode leaves the vector alone
                trace.add("u_after_test", getattr(link, hook.vector_name))

    return program


LINK_HOOKS = {
    "spectral_normalization": _link_hook_program(
        lambda: L.Linear(3, 4), lambda: chainer.link_hooks.SpectralNormalization(), (5, 3), seed_vector=True
    ),
    "spectral_normalization_gamma_conv": _link_hook_program(
        lambda: L.Convolution2D(2, 3, 2),
        lambda: chainer.link_hooks.SpectralNormalization(n_power_iteration=2, use_gamma=True),
        (2, 2, 4, 4),
        seed_vector=True,
    ),
    "weight_standardization": _link_hook_program(
        lambda: L.Linear(3, 4), lambda: chainer.link_hooks.WeightStandardization(), (5, 3)
    ),
    "weight_standardization_conv": _link_hook_program(
        lambda: L.Convolution2D(2, 3, 2), lambda: chainer.link_hooks.WeightStandardization(eps=1e-3), (2, 2, 4, 4)
    ),
}


# -- resuming from a snapshot ------------------------------------------------------------------


def _resume_program(make, configure=None, steps: int = 16, resume_at: int = 7):
    """Train, save model and optimizer with save_npz at ``resume_at``, load them into fresh
    objects and go on: the states, ``t`` and hyperparameters must survive the round trip."""

    def program(trace: Trace) -> None:
        model = MLP(seed=17)
        optimizer = make()
        optimizer.setup(model)
        if configure is not None:
            configure(optimizer)
        xs, ts = regression_data(18, steps)
        for i in range(steps):
            if i == resume_at:
                files = [io.BytesIO(), io.BytesIO()]
                serializers.save_npz(files[0], model)
                serializers.save_npz(files[1], optimizer)
                model = MLP(seed=19)
                optimizer = make()
                optimizer.setup(model)
                if configure is not None:
                    configure(optimizer)
                for f, target in zip(files, (model, optimizer)):
                    f.seek(0)
                    serializers.load_npz(f, target)
            optimizer.update(lambda m, x, t: F.mean_squared_error(m(x), t), model, xs[i], ts[i])
            trace.add("optimizer.t", optimizer.t)
            if configure is not None:
                trace.add("loss_scale", optimizer._loss_scale)
            record_params(trace, model)
            record_states(trace, model)

    return program


def _float16_program(make, steps: int = 12):
    """float16 parameters updated through float32 master copies (use_fp32_update)."""

    def program(trace: Trace) -> None:
        model = MLP(seed=20, dtype=np.float16)
        optimizer = make()
        optimizer.setup(model)
        optimizer.use_fp32_update()
        xs, ts = regression_data(21, steps, dtype=np.float16)
        for i in range(steps):
            optimizer.update(lambda m, x, t: F.mean_squared_error(m(x), t), model, xs[i], ts[i])
            record_params(trace, model)
            for name, p in sorted(model.namedparams()):
                trace.add("fp32_param" + name, p.update_rule._fp32_param.array)

    return program


FLOAT16 = {
    "float16_fp32_update_sgd": _float16_program(lambda: O.SGD(lr=0.1)),
    "float16_fp32_update_adam": _float16_program(lambda: O.Adam(alpha=0.01)),
}


RESUME = {
    "resume_adam": _resume_program(lambda: O.Adam(alpha=0.01, amsgrad=True)),
    "resume_momentum_sgd": _resume_program(lambda: O.MomentumSGD(lr=0.05)),
    "resume_rmsprop_graves": _resume_program(lambda: O.RMSpropGraves(lr=0.01)),
    "resume_dynamic_loss_scaling": _resume_program(lambda: O.SGD(lr=0.05), lambda o: o.loss_scaling(interval=2)),
}


def _all_programs():
    programs = {}
    for name, (make, changes) in OPTIMIZERS.items():
        programs[name] = _optimizer_program(make, changes)
    for name, (make, extra, changes) in HOOKS.items():
        programs[name] = _optimizer_program(make, changes, extra=extra, data_scale=2.0)
    programs.update(LOSS_SCALING)
    programs.update(LINKS)
    programs.update(SCHEDULES)
    programs.update(LINK_HOOKS)
    programs.update(RESUME)
    programs.update(FLOAT16)
    return programs


PROGRAMS = _all_programs()


def run(name: str) -> dict[str, np.ndarray]:
    """Run one program and return what it recorded."""
    trace = Trace()
    PROGRAMS[name](trace)
    return trace.arrays()
