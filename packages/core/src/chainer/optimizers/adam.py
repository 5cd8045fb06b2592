"""Adam and its variants: AdamW, AMSGrad, AdaBound and AMSBound."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy

from chainer import _workspace, optimizer
from chainer.backends import cpu_kernels, cuda
from chainer.optimizers import _common

_default_hyperparam = _common.make_defaults(
    alpha=0.001,
    beta1=0.9,
    beta2=0.999,
    eps=1e-8,
    eta=1.0,
    weight_decay_rate=0,
    amsgrad=False,
    adabound=False,
    final_lr=0.1,
    gamma=1e-3,
)
_FLAGS = ("amsgrad", "adabound")


def _learning_rate(owner: str, hp: optimizer.Hyperparameter, t: int) -> float:
    if t == 0:
        raise RuntimeError(
            f"{owner}.alpha_t: the bias-corrected learning rate is undefined before the first update (t == 0)"
        )
    fix1 = 1.0 - math.pow(_common.scalar(hp.beta1), t)
    fix2 = 1.0 - math.pow(_common.scalar(hp.beta2), t)
    return _common.scalar(hp.alpha) * math.sqrt(fix2) / fix1


class _BiasCorrectedRate:
    """The ``alpha_t`` and deprecated ``lr`` properties of :class:`AdamRule` and :class:`Adam`,
    computed from their ``hyperparam`` and update count ``t``."""

    hyperparam: optimizer.Hyperparameter
    t: int
    _alpha_t_owner: str

    @property
    def alpha_t(self) -> float:
        """The bias-corrected step size ``alpha * sqrt(1 - beta2**t) / (1 - beta1**t)``."""
        return _learning_rate(self._alpha_t_owner, self.hyperparam, self.t)

    @property
    def lr(self) -> float:
        """Deprecated alias of :attr:`alpha_t` (its name before Chainer 6)."""
        owner = self._alpha_t_owner
        # No stacklevel: attributed to this module as in Chainer 7, so that Python's
        # default filters keep it out of the output of the user's script.
        warnings.warn(f"{owner}.lr has been renamed to {owner}.alpha_t; {owner}.lr is deprecated", DeprecationWarning)
        return self.alpha_t


# The whole update in one CUDA kernel (the NumPy formulas of AdamRule._update_param take
# twelve passes, each a kernel launch on a GPU). G, P and M are the gradient, parameter
# and moment types (M is float32 for float16 parameters).
_GPU_IN = (
    "G grad, M lr, M one_minus_beta1, M one_minus_beta2, M eps, M weight_decay_rate, M eta, M lower, M upper, bool clip"
)
_GPU_UPDATE = """
    M g = (M)grad;
    m += one_minus_beta1 * (g - m);
    v += one_minus_beta2 * (g * g - v);
    {second_moment}
    M step = lr / (sqrt(vv) + eps);
    if (clip) step = step < lower ? lower : (step > upper ? upper : step);
    step *= m;
    step += weight_decay_rate * (M)param;
    param = (P)((M)param - eta * step);
"""


def _gpu_kernel(amsgrad: bool) -> Any:
    if amsgrad:
        return cuda.elementwise(
            _GPU_IN,
            "P param, M m, M v, M vhat",
            _GPU_UPDATE.format(second_moment="vhat = vhat < v ? v : vhat; M vv = vhat;"),
            "chainer_amsgrad_update",
        )
    return cuda.elementwise(
        _GPU_IN, "P param, M m, M v", _GPU_UPDATE.format(second_moment="M vv = v;"), "chainer_adam_update"
    )


def _intermediate_dtype(dtype: Any) -> numpy.dtype[Any]:
    # float16 moments underflow (squared gradients below 6e-8 vanish): compute in float32.
    dtype = numpy.dtype(dtype)
    return numpy.dtype(numpy.float32) if dtype == numpy.float16 else dtype


class AdamRule(_BiasCorrectedRate, _common.RuleBase):
    """Update rule of :class:`Adam` (and of its variants)::

        m += (1 - beta1) * (grad - m)
        v += (1 - beta2) * (grad**2 - v)
        vhat = max(vhat, v) if amsgrad else v
        step = lr / (sqrt(vhat) + eps)               # lr = alpha * sqrt(1 - beta2**t) / (1 - beta1**t)
        step = clip(step, lower(t), upper(t))        # adabound only
        param -= eta * (step * m + weight_decay_rate * param)

    With AdaBound, ``lower(t) = f * (1 - 1 / (gamma * t + 1))`` and
    ``upper(t) = f * (1 + 1 / (gamma * t))``, where ``f = final_lr * alpha / initial_alpha``
    follows schedules of ``alpha``; ``initial_alpha`` is ``alpha`` when the rule is made.
    float16 parameters are updated with float32 moments.

    Args:
        parent_hyperparam: Hyperparameters to fall back on (the module defaults if ``None``).
        alpha, beta1, beta2, eps, eta, weight_decay_rate, amsgrad, adabound, final_lr,
        gamma: Hyperparameters (see :class:`Adam`); ``None`` inherits.

    Attributes:
        initial_alpha (float): ``alpha`` at construction (the AdaBound reference).
    """

    _defaults = _default_hyperparam
    _flags = _FLAGS
    _alpha_t_owner = "AdamRule"

    def __init__(
        self,
        parent_hyperparam: optimizer.Hyperparameter | None = None,
        alpha: float | None = None,
        beta1: float | None = None,
        beta2: float | None = None,
        eps: float | None = None,
        eta: float | None = None,
        weight_decay_rate: float | None = None,
        amsgrad: bool | None = None,
        adabound: bool | None = None,
        final_lr: float | None = None,
        gamma: float | None = None,
    ) -> None:
        super().__init__(
            parent_hyperparam,
            alpha=alpha,
            beta1=beta1,
            beta2=beta2,
            eps=eps,
            eta=eta,
            weight_decay_rate=weight_decay_rate,
            amsgrad=amsgrad,
            adabound=adabound,
            final_lr=final_lr,
            gamma=gamma,
        )
        self.initial_alpha = _common.scalar(self.hyperparam.alpha)

    def init_state(self, param: Any) -> None:
        xp = param.device.xp
        dtype = _intermediate_dtype(param.dtype)
        self.state["m"] = xp.zeros(param.shape, dtype)
        self.state["v"] = xp.zeros(param.shape, dtype)
        if self.hyperparam.amsgrad:
            self.state["vhat"] = xp.zeros(param.shape, dtype)

    def _bounds(self) -> tuple[float, float]:
        hp = self.hyperparam
        final_lr = _common.scalar(hp.final_lr)
        if self.initial_alpha:
            final_lr *= _common.scalar(hp.alpha) / self.initial_alpha
        gamma_t = _common.scalar(hp.gamma) * self.t
        lower = final_lr * (1.0 - 1.0 / (gamma_t + 1.0))
        upper = final_lr * (1.0 + 1.0 / gamma_t) if gamma_t else math.inf
        return lower, upper

    def _checked_eps(self, dtype: numpy.dtype[Any]) -> float:
        eps = _common.scalar(self.hyperparam.eps)
        if eps != 0 and dtype.type(eps) == 0:
            raise ValueError(f"{type(self).__name__}: eps={eps} underflows to zero in {dtype}; use a larger eps")
        return eps

    def _kernel_scalars(self, eps: float) -> tuple[float, ...]:
        """``lr, 1 - beta1, 1 - beta2, eps, weight_decay_rate, eta`` as the fused GPU
        kernel and the compiled CPU kernel take them."""
        hp = self.hyperparam
        scalar = _common.scalar
        return (
            self.alpha_t,
            1 - scalar(hp.beta1),
            1 - scalar(hp.beta2),
            eps,
            scalar(hp.weight_decay_rate),
            scalar(hp.eta),
        )

    def _update_param_gpu(self, param: Any, grad: Any) -> None:
        hp = self.hyperparam
        eps = self._checked_eps(_intermediate_dtype(param.dtype))
        lower, upper = self._bounds() if hp.adabound else (0.0, math.inf)
        state = self.state
        moments = (state["m"], state["v"], state["vhat"]) if hp.amsgrad else (state["m"], state["v"])
        _gpu_kernel(bool(hp.amsgrad))(
            grad, *self._kernel_scalars(eps), lower, upper, bool(hp.adabound), param.array, *moments
        )

    def _update_param(self, param: Any, grad: Any) -> None:
        hp = self.hyperparam
        xp = param.device.xp
        dtype = _intermediate_dtype(param.dtype)
        eps = self._checked_eps(dtype)
        kernel = cpu_kernels.get("adam") if xp is numpy else None
        if kernel is not None:
            lower, upper = self._bounds() if hp.adabound else (None, None)
            state = self.state
            vhat = state["vhat"] if hp.amsgrad else None
            _common.check_kernel_shapes(self, param, grad, m=state["m"], v=state["v"], vhat=vhat)
            if kernel(param.array, grad, state["m"], state["v"], vhat, *self._kernel_scalars(eps), lower, upper):
                return
        one_minus_beta1, beta2 = 1 - _common.scalar(hp.beta1), _common.scalar(hp.beta2)
        grad = grad.astype(dtype, copy=False)
        m, v = self.state["m"], self.state["v"]
        # The passes share one scratch array kept between steps: a fresh temporary the
        # size of a large parameter would be page-faulted in anew on every step.
        tmp = _workspace.scratch("adam.tmp", m.shape, dtype, xp)
        xp.subtract(grad, m, out=tmp)
        tmp *= one_minus_beta1
        m += tmp
        xp.multiply(grad, grad, out=tmp)
        tmp *= 1 - beta2
        v *= beta2
        v += tmp
        if hp.amsgrad:
            vhat = self.state["vhat"]
            xp.maximum(vhat, v, out=vhat)
            v = vhat

        step = xp.sqrt(v, out=tmp)
        step += eps
        if hp.adabound:
            xp.divide(self.alpha_t, step, out=step)
            xp.clip(step, *self._bounds(), out=step)
            step *= m
        else:
            xp.divide(m, step, out=step)
            step *= self.alpha_t
        weight_decay_rate = _common.scalar(hp.weight_decay_rate)
        if weight_decay_rate != 0:
            step += weight_decay_rate * param.array
        eta = _common.scalar(hp.eta)
        if eta != 1:
            step *= eta
        param.array -= step


class Adam(_BiasCorrectedRate, _common.OptimizerBase):
    """Adam (Kingma and Ba, 2015), with its variants as options.

    Args:
        alpha: Step size.
        beta1: Exponential decay rate of the first moment.
        beta2: Exponential decay rate of the second moment.
        eps: Small value for numerical stability.
        eta: Schedule multiplier of the whole step (e.g. for warm restarts).
        weight_decay_rate: Decoupled weight decay rate (AdamW, Loshchilov and Hutter,
            2019): ``eta * weight_decay_rate * param`` is subtracted at each update.
        amsgrad: Use the running maximum of the second moment (AMSGrad, Reddi et al., 2018).
        adabound: Clip the per-element step into bounds converging to ``final_lr``
            (AdaBound, Luo et al., 2019).
        final_lr: The step size the AdaBound bounds converge to.
        gamma: Convergence speed of the AdaBound bounds.

    Example:
        >>> model = L.Linear(3, 2)
        >>> optimizer = chainer.optimizers.Adam(alpha=1e-3).setup(model)
    """

    _rule_class = AdamRule
    _alpha_t_owner = "Adam"

    alpha = optimizer.HyperparameterProxy("alpha")
    beta1 = optimizer.HyperparameterProxy("beta1")
    beta2 = optimizer.HyperparameterProxy("beta2")
    eps = optimizer.HyperparameterProxy("eps")
    eta = optimizer.HyperparameterProxy("eta")
    weight_decay_rate = optimizer.HyperparameterProxy("weight_decay_rate")
    amsgrad = optimizer.HyperparameterProxy("amsgrad")
    adabound = optimizer.HyperparameterProxy("adabound")
    final_lr = optimizer.HyperparameterProxy("final_lr")
    gamma = optimizer.HyperparameterProxy("gamma")

    def __init__(
        self,
        alpha: float = _default_hyperparam.alpha,
        beta1: float = _default_hyperparam.beta1,
        beta2: float = _default_hyperparam.beta2,
        eps: float = _default_hyperparam.eps,
        eta: float = _default_hyperparam.eta,
        weight_decay_rate: float = _default_hyperparam.weight_decay_rate,
        amsgrad: bool = _default_hyperparam.amsgrad,
        adabound: bool = _default_hyperparam.adabound,
        final_lr: float = _default_hyperparam.final_lr,
        gamma: float = _default_hyperparam.gamma,
    ) -> None:
        super().__init__(
            alpha=alpha,
            beta1=beta1,
            beta2=beta2,
            eps=eps,
            eta=eta,
            weight_decay_rate=weight_decay_rate,
            amsgrad=amsgrad,
            adabound=adabound,
            final_lr=final_lr,
            gamma=gamma,
        )


class AdamW(Adam):
    """AdamW: Adam with decoupled weight decay (Loshchilov and Hutter, 2019); see
    :class:`Adam` for the arguments."""

    def __init__(
        self,
        alpha: float = _default_hyperparam.alpha,
        beta1: float = _default_hyperparam.beta1,
        beta2: float = _default_hyperparam.beta2,
        eps: float = _default_hyperparam.eps,
        eta: float = _default_hyperparam.eta,
        weight_decay_rate: float = _default_hyperparam.weight_decay_rate,
    ) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta, weight_decay_rate=weight_decay_rate)


class AMSGrad(Adam):
    """AMSGrad: Adam with the running maximum of the second moment (Reddi et al.,
    2018); see :class:`Adam` for the arguments."""

    def __init__(
        self,
        alpha: float = _default_hyperparam.alpha,
        beta1: float = _default_hyperparam.beta1,
        beta2: float = _default_hyperparam.beta2,
        eps: float = _default_hyperparam.eps,
        eta: float = _default_hyperparam.eta,
    ) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta, amsgrad=True)


class AdaBound(Adam):
    """AdaBound: Adam with per-element steps clipped into bounds that converge to
    ``final_lr`` (Luo et al., 2019); see :class:`Adam` for the arguments."""

    def __init__(
        self,
        alpha: float = _default_hyperparam.alpha,
        beta1: float = _default_hyperparam.beta1,
        beta2: float = _default_hyperparam.beta2,
        final_lr: float = _default_hyperparam.final_lr,
        gamma: float = _default_hyperparam.gamma,
        eps: float = _default_hyperparam.eps,
        eta: float = _default_hyperparam.eta,
    ) -> None:
        super().__init__(
            alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta, adabound=True, final_lr=final_lr, gamma=gamma
        )


class AMSBound(Adam):
    """AMSBound: AdaBound with the AMSGrad maximum (Luo et al., 2019); see :class:`Adam`
    for the arguments."""

    def __init__(
        self,
        alpha: float = _default_hyperparam.alpha,
        beta1: float = _default_hyperparam.beta1,
        beta2: float = _default_hyperparam.beta2,
        final_lr: float = _default_hyperparam.final_lr,
        gamma: float = _default_hyperparam.gamma,
        eps: float = _default_hyperparam.eps,
        eta: float = _default_hyperparam.eta,
    ) -> None:
        super().__init__(
            alpha=alpha,
            beta1=beta1,
            beta2=beta2,
            eps=eps,
            eta=eta,
            amsgrad=True,
            adabound=True,
            final_lr=final_lr,
            gamma=gamma,
        )


__all__ = ["AMSBound", "AMSGrad", "AdaBound", "Adam", "AdamRule", "AdamW"]
