"""Names, signatures and defaults of the optimizers, as listed for Chainer 7.8.1."""

import inspect

import pytest

import chainer
from chainer import optimizer_hooks, optimizers


def plain_signature(obj):
    """The signature as the 7.8.1 API list writes it: names, defaults, no annotations."""
    parts = []
    for p in inspect.signature(obj).parameters.values():
        if p.kind is p.VAR_KEYWORD:
            parts.append(f"**{p.name}")
        elif p.kind is p.VAR_POSITIONAL:
            parts.append(f"*{p.name}")
        elif p.default is p.empty:
            parts.append(p.name)
        elif callable(p.default):
            parts.append(f"{p.name}=<function {p.default.__name__}>")
        else:
            parts.append(f"{p.name}={p.default!r}")
    return "(" + ", ".join(parts) + ")"


EXPECTED = {
    optimizers.AMSBound: "(alpha=0.001, beta1=0.9, beta2=0.999, final_lr=0.1, gamma=0.001, eps=1e-08, eta=1.0)",
    optimizers.AMSGrad: "(alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-08, eta=1.0)",
    optimizers.AdaBound: "(alpha=0.001, beta1=0.9, beta2=0.999, final_lr=0.1, gamma=0.001, eps=1e-08, eta=1.0)",
    optimizers.AdaDelta: "(rho=0.95, eps=1e-06)",
    optimizers.AdaGrad: "(lr=0.001, eps=1e-08)",
    optimizers.Adam: "(alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-08, eta=1.0, weight_decay_rate=0, amsgrad=False, "
    "adabound=False, final_lr=0.1, gamma=0.001)",
    optimizers.AdamW: "(alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-08, eta=1.0, weight_decay_rate=0)",
    optimizers.CorrectedMomentumSGD: "(lr=0.01, momentum=0.9)",
    optimizers.MSVAG: "(lr=0.1, beta=0.9, eta=1.0, weight_decay_rate=0)",
    optimizers.MomentumSGD: "(lr=0.01, momentum=0.9)",
    optimizers.NesterovAG: "(lr=0.01, momentum=0.9)",
    optimizers.RMSprop: "(lr=0.01, alpha=0.99, eps=1e-08, eps_inside_sqrt=False)",
    optimizers.RMSpropGraves: "(lr=0.0001, alpha=0.95, momentum=0.9, eps=0.0001)",
    optimizers.SGD: "(lr=0.01)",
    optimizers.SMORMS3: "(lr=0.001, eps=1e-16)",
    optimizer_hooks.GradientClipping: "(threshold)",
    optimizer_hooks.GradientHardClipping: "(lower_bound, upper_bound)",
    optimizer_hooks.GradientLARS: "(threshold=0.01, weight_decay=0.0, eps=1e-09)",
    optimizer_hooks.GradientNoise: "(eta, noise_func=<function exponential_decay_noise>)",
    optimizer_hooks.Lasso: "(rate)",
    optimizer_hooks.WeightDecay: "(rate)",
    chainer.UpdateRule: "(parent_hyperparam=None)",
    chainer.GradientMethod: "()",
    chainer.optimizer.Hyperparameter: "(parent=None)",
}


@pytest.mark.parametrize("cls", list(EXPECTED), ids=lambda c: c.__name__)
def test_signature(cls):
    assert plain_signature(cls) == EXPECTED[cls]


def test_every_optimizer_is_listed_and_exported():
    names = {c.__name__ for c in EXPECTED if c.__module__.startswith("chainer.optimizers.")}
    assert set(optimizers.__all__) == names
    assert set(optimizer_hooks.__all__) == {
        c.__name__ for c in EXPECTED if c.__module__.startswith("chainer.optimizer_hooks.")
    }


@pytest.mark.parametrize("name", sorted(optimizers.__all__))
def test_hyperparameters_are_attributes(name):
    cls = getattr(optimizers, name)
    opt = cls()
    for pname, param in inspect.signature(cls).parameters.items():
        assert getattr(opt, pname) == param.default
        assert opt.hyperparam.get_dict()[pname] == param.default
