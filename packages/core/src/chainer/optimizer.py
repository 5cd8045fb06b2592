"""Optimizers: the :class:`Optimizer` and :class:`GradientMethod` base classes, and the
per-parameter :class:`UpdateRule` with its :class:`Hyperparameter` set."""

from __future__ import annotations

import importlib
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import numpy

from chainer import _update_rule, configuration, memory_layouts
from chainer import warnings as chainer_warnings
from chainer._update_rule import Hyperparameter, UpdateRule
from chainer.backends import cuda

if TYPE_CHECKING:
    from chainer import variable


class HyperparameterProxy:
    """A class attribute of an optimizer that reads and writes ``self.hyperparam.<name>``.

    ``lr = HyperparameterProxy('lr')`` makes ``optimizer.lr`` an alias of
    ``optimizer.hyperparam.lr``.
    """

    def __init__(self, attr_name: str) -> None:
        self._attr_name = attr_name
        self.__doc__ = f"Alias of ``self.hyperparam.{attr_name}``."

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return getattr(obj.hyperparam, self._attr_name)

    def __set__(self, obj: Any, value: Any) -> None:
        setattr(obj.hyperparam, self._attr_name, value)


class Optimizer:
    """The base of every optimizer: the target link, the update counter ``t``, the
    epoch counter, hook functions and loss scaling.

    A subclass implements :meth:`update`. Hooks are called around each update: ``'pre'``
    hooks after the gradients are computed and before the parameters change (weight
    decay, gradient clipping), ``'post'`` hooks after.

    Attributes:
        target: The link being optimized (set by :meth:`setup`).
        t (int): Number of updates made.
        epoch (int): Current epoch (incremented by :meth:`new_epoch`).
        use_auto_new_epoch (bool): Set by updaters that call ``new_epoch(auto=True)``
            themselves.
    """

    target: Any = None
    t = 0
    epoch = 0
    use_auto_new_epoch = False
    _pre_update_hooks: OrderedDict[str, Any] | None = None
    _post_update_hooks: OrderedDict[str, Any] | None = None
    # Loss scaling (mixed precision). The largest scale keeps float16 losses finite.
    _loss_scale: float | None = None
    _loss_scale_max = 65504.0
    _loss_scaling_is_dynamic = False
    _loss_scaling_multiplier = 2.0 ** (1.0 / 1000)
    _loss_scaling_isnan = False
    _loss_scaling_isnan_ever = False

    def setup(self, link: Any) -> Optimizer:
        """Set the link to optimize; resets ``t``, ``epoch`` and the hooks.

        Returns:
            The optimizer itself, so ``opt = optimizers.SGD().setup(model)`` works.
        """
        if not (callable(getattr(link, "namedparams", None)) and callable(getattr(link, "params", None))):
            raise TypeError(
                f"{type(self).__name__}.setup: optimization target must be a link (chainer.Link), "
                f"got {type(link).__name__}"
            )
        self.target = link
        self.t = 0
        self.epoch = 0
        self._pre_update_hooks = OrderedDict()
        self._post_update_hooks = OrderedDict()
        return self

    def _check_target(self, where: str) -> Any:
        if self.target is None:
            raise RuntimeError(f"{type(self).__name__}.{where}: call setup(link) first")
        return self.target

    def update(self, lossfun: Callable[..., Any] | None = None, *args: Any, **kwds: Any) -> None:
        """Update the parameters once (to be implemented by subclasses).

        Args:
            lossfun: If given, called as ``lossfun(*args, **kwds)`` to compute the loss
                whose gradients are used; otherwise the gradients already stored are used.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement update()")

    def new_epoch(self, auto: bool = False) -> None:
        """Count a new epoch.

        Args:
            auto: ``True`` when called by an updater that manages epochs
                (``use_auto_new_epoch``); mixing manual and automatic calls is an error.
        """
        if self.use_auto_new_epoch and not auto:
            raise RuntimeError(
                f"{type(self).__name__}.new_epoch: the updater already calls new_epoch(auto=True) at each epoch "
                "(use_auto_new_epoch is on); do not call it yourself, or create the updater with auto_new_epoch=False"
            )
        if auto and not self.use_auto_new_epoch:
            raise RuntimeError(
                f"{type(self).__name__}.new_epoch(auto=True) is for updaters, and use_auto_new_epoch is off"
            )
        self.epoch += 1

    # -- hooks ---------------------------------------------------------------------------

    def add_hook(self, hook: Callable[..., Any], name: str | None = None, timing: str = "auto") -> None:
        """Register a hook function.

        A hook with a true ``call_for_each_param`` attribute is called as
        ``hook(param.update_rule, param)`` for each parameter; any other as ``hook(optimizer)``.

        Args:
            hook: A callable.
            name: Name of the hook (defaults to ``hook.name``, then ``hook.__name__``).
            timing: ``'pre'`` (before the parameter update), ``'post'`` (after) or
                ``'auto'`` (the hook's ``timing`` attribute, ``'pre'`` if it has none).
        """
        if self._pre_update_hooks is None or self._post_update_hooks is None:
            raise RuntimeError(f"{type(self).__name__}.add_hook: call setup(link) before adding hooks")
        _update_rule._add_hook(type(self).__name__, self._pre_update_hooks, self._post_update_hooks, hook, name, timing)

    def remove_hook(self, name: str) -> None:
        """Unregister the hook called ``name``."""
        if self._pre_update_hooks is None or self._post_update_hooks is None:
            raise RuntimeError(f"{type(self).__name__}.remove_hook: call setup(link) first")
        _update_rule._remove_hook(type(self).__name__, self._pre_update_hooks, self._post_update_hooks, name)

    def call_hooks(self, timing: str = "pre") -> None:
        """Call the hooks registered for ``timing`` (``'pre'`` or ``'post'``) in order."""
        if timing not in ("pre", "post"):
            raise ValueError(f"{type(self).__name__}.call_hooks: timing must be 'pre' or 'post', got {timing!r}")
        hooks = self._pre_update_hooks if timing == "pre" else self._post_update_hooks
        for hook in tuple((hooks or {}).values()):
            self.call_hook(hook)

    def call_hook(self, hook: Callable[..., Any]) -> None:
        """Call one hook: ``hook(param.update_rule, param)`` for each parameter if it has a
        true ``call_for_each_param`` attribute, else ``hook(self)``."""
        if getattr(hook, "call_for_each_param", False):
            for param in self._check_target("call_hook").params():
                hook(param.update_rule, param)
        else:
            hook(self)

    # -- serialization -------------------------------------------------------------------

    def serialize(self, serializer: Any) -> None:
        """Save or load ``t``, ``epoch`` and each parameter's update-rule state (under the
        parameter's path, e.g. ``predictor/l1/W/m``)."""
        self.t = serializer("t", self.t)
        self.epoch = serializer("epoch", self.epoch)
        for name, param in self._check_target("serialize").namedparams():
            rule = getattr(param, "update_rule", None)
            if rule is None:
                continue
            child = serializer[name.lstrip("/")]
            if type(rule).serialize is UpdateRule.serialize:
                rule._serialize(child, param_initialized=param.raw_array is not None, param=param)
            else:
                rule.serialize(child)  # a rule with its own serialize

    # -- loss scaling --------------------------------------------------------------------

    def loss_scaling(self, interval: int = 1000, scale: float | None = None) -> None:
        """Configure loss scaling for mixed-precision training.

        The loss is multiplied by the scale before backprop (so small float16 gradients do
        not underflow) and the gradients are divided by it before the update.

        Args:
            interval: With dynamic scaling, the number of updates over which the scale
                doubles once the gradients have overflowed.
            scale: A fixed scale (static loss scaling), or ``None`` for dynamic loss
                scaling: the scale starts at 1 and doubles at each update until the
                gradients first overflow. An update whose gradients contain inf or NaN
                leaves the parameters alone (the hooks still run and ``t`` still counts
                it, as in Chainer 7.8.1) and halves the scale; after the first overflow,
                each good update multiplies the scale by ``2 ** (1 / interval)``. The scale
                stays in ``[1, 65504]``.
        """
        if scale is None:
            if isinstance(interval, bool) or not isinstance(interval, (int, numpy.integer)) or interval < 1:
                raise ValueError(
                    f"{type(self).__name__}.loss_scaling: interval must be an integer >= 1, got {interval!r}"
                )
            self._loss_scaling_is_dynamic = True
            self._loss_scaling_multiplier = 2.0 ** (1.0 / int(interval))
            self._loss_scale = 1.0
            self._loss_scaling_isnan = False
            self._loss_scaling_isnan_ever = False
            return
        if isinstance(scale, bool) or not isinstance(scale, (int, float, numpy.integer, numpy.floating)):
            raise TypeError(f"{type(self).__name__}.loss_scaling: scale must be a number or None, got {scale!r}")
        if not numpy.isfinite(scale) or scale <= 0:
            raise ValueError(f"{type(self).__name__}.loss_scaling: scale must be a positive number, got {scale!r}")
        self._loss_scaling_is_dynamic = False
        self._loss_scaling_isnan = False
        self._loss_scale = float(scale)

    def set_loss_scale(self, loss_scale: float | None) -> None:
        """Use a fixed loss scale (static loss scaling); ``None`` turns loss scaling off."""
        if loss_scale is None:
            self._loss_scale = None
            self._loss_scaling_is_dynamic = False
            self._loss_scaling_isnan = False
            return
        self.loss_scaling(scale=loss_scale)

    def check_nan_in_grads(self) -> None:
        """With dynamic loss scaling, record whether any gradient holds inf or NaN."""
        self._loss_scaling_isnan = False
        if not self._loss_scaling_is_dynamic:
            return
        flags: dict[Any, list[Any]] = {}
        for param in self._check_target("check_nan_in_grads").params():
            grad = _update_rule.peek_grad(param)
            if grad is None or not _is_enabled(param):
                continue
            xp = _update_rule._array_module(grad)
            flags.setdefault(xp, []).append(xp.isfinite(grad).all())
        # One host synchronization per array module, not per parameter.
        for xp, finite in flags.items():
            if not bool(xp.stack(finite).all()):
                self._loss_scaling_isnan = True
                self._loss_scaling_isnan_ever = True
                return

    def is_safe_to_update(self) -> bool:
        """``False`` when dynamic loss scaling found inf or NaN in the gradients."""
        return not self._loss_scaling_isnan

    def update_loss_scale(self) -> None:
        """Adjust the dynamic loss scale after an update (see :meth:`loss_scaling`)."""
        if not self._loss_scaling_is_dynamic or self._loss_scale is None:
            return
        if self._loss_scaling_isnan:
            self._loss_scale = max(1.0, self._loss_scale / 2.0)
            return
        # Chainer 7.8.1's schedule, so that a float16 training follows the same trajectory:
        # double while no gradient has overflowed yet, then grow smoothly.
        growth = self._loss_scaling_multiplier if self._loss_scaling_isnan_ever else 2.0
        self._loss_scale = min(self._loss_scale * growth, self._loss_scale_max)


def _is_enabled(param: Any) -> bool:
    rule = param.update_rule
    return rule is not None and rule.enabled


def _warn_of_missing_gradients(optimizer: Any, target: Any) -> None:
    """Debug mode: name the parameters that backprop left without a gradient.

    An update gives such a parameter a zero gradient (as Chainer 7.8.1 does), so a graph
    cut off from the loss (a ``Variable.array`` taken mid-graph, a link left out of the
    loss) otherwise trains on silently with those parameters stuck.
    """
    names = []
    total = 0
    for name, param in target.namedparams():
        if param.array is None or not _is_enabled(param):
            continue
        total += 1
        if _update_rule.peek_grad(param) is None:
            names.append(name)
    if names:
        shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        warnings.warn(
            f"{type(optimizer).__name__}.update: {len(names)} of {total} parameters received no gradient from "
            f"backward ({shown}) and are updated as if their gradient were zero. The loss does not depend on "
            "them: the graph may be cut off (Variable.array or .data used mid-graph, a link left out of the "
            "loss). Parameters frozen on purpose: link.disable_update(). (Reported in debug mode.)",
            chainer_warnings.MissingGradientWarning,
            stacklevel=3,
        )


def _reallocate_cleared_grads(params: Iterable[Any]) -> None:
    # GradientMethod.reallocate_cleared_grads, and the recorded update's
    # (chainer.graph_optimizations._update), over the parameters given.
    for param in params:
        if param.array is not None and _update_rule.peek_grad(param) is None:
            param.grad = _update_rule._array_module(param.array).zeros_like(param.array)


def _own_grads(params: Iterable[Any]) -> None:
    # Hooks update gradients in place, but backprop may hand out arrays that are not
    # the parameter's own: one array for several parameters (x + y gives both the
    # output gradient) or a read-only broadcast view (the gradient of a sum).
    seen: set[int] = set()
    for param in params:
        grad = _update_rule.peek_grad(param)
        if grad is None:
            continue
        base = getattr(grad, "base", None)
        key = id(grad)
        if key in seen or (base is not None and id(base) in seen) or not _update_rule.is_own_array(grad):
            param.grad = grad.copy()
            seen.add(id(param.grad))
            continue
        seen.add(key)
        if base is not None:
            seen.add(id(base))


class GradientMethod(Optimizer):
    """The base of optimizers that update each parameter from its own gradient.

    ``setup(link)`` gives every parameter an update rule made by
    :meth:`create_update_rule`; :meth:`update` optionally computes the gradients, calls
    the hooks and updates each parameter through its rule.

    Attributes:
        hyperparam (Hyperparameter): The hyperparameters shared by the rules.
    """

    _use_fp32_update = False
    _use_cleargrads = True
    # The recorded update of a target with a static chain (set by setup; see
    # chainer.graph_optimizations._update), None otherwise.
    _update_plan: Any = None

    def __init__(self) -> None:
        super().__init__()
        self.hyperparam = Hyperparameter()
        self._use_fp32_update = False
        self._use_cleargrads = True

    def create_update_rule(self) -> UpdateRule:
        """Return a new update rule for one parameter (implemented by each optimizer)."""
        raise NotImplementedError(f"{type(self).__name__} must implement create_update_rule()")

    def setup(self, link: Any) -> GradientMethod:
        """Set the link to optimize and give each of its parameters a new update rule.

        A parameter whose previous rule was disabled (``link.disable_update()``) stays
        frozen.
        """
        super().setup(link)
        use_fp32 = self._use_fp32_update
        for param in link.params():
            previous = param.update_rule
            rule = self.create_update_rule()
            if use_fp32:
                rule.use_fp32_update()
            if previous is not None and not previous.enabled:
                rule.enabled = False
            param.update_rule = rule
        # Not imported at the top: chainer.graph_optimizations imports the links.
        from chainer.graph_optimizations import _update

        self._update_plan = _update.UpdatePlan() if _update.has_static_chain(link) else None
        return self

    def _params(self, where: str) -> Iterator[variable.Variable]:
        return self._check_target(where).params()

    def reallocate_cleared_grads(self) -> None:
        """Give every initialized parameter whose gradient is ``None`` a zero gradient.

        Called before and after the hooks, so that hooks and rules see an array. An
        optimizer that does not need it may override it with a no-op.
        """
        _reallocate_cleared_grads(self._params("reallocate_cleared_grads"))

    def call_hook(self, hook: Callable[..., Any]) -> None:
        """Call one hook: per parameter (``hook(rule, param)``) if it has a true
        ``call_for_each_param`` attribute, else ``hook(self)``; then reallocate cleared
        gradients."""
        if getattr(hook, "call_for_each_param", False):
            for param in self._params("call_hook"):
                if _is_enabled(param) and param.array is not None:
                    hook(param.update_rule, param)
        else:
            hook(self)
        self.reallocate_cleared_grads()

    def update(self, lossfun: Callable[..., Any] | None = None, *args: Any, **kwds: Any) -> None:
        """Update the parameters once.

        With ``lossfun``, the loss ``lossfun(*args, **kwds)`` is computed, the gradients
        are cleared and recomputed by ``loss.backward`` (with the loss scale, if any).
        Without it, the gradients already stored are used. Then: the 'pre' hooks, each
        parameter's update rule, the 'post' hooks. With dynamic loss scaling, an update
        whose gradients are not finite is skipped. When the target contains a static
        chain, these steps run from a list recorded at the previous update, with the
        same results (see ``chainer.graph_optimizations._update``).
        On a GPU, the parameters of the common rules (SGD, MomentumSGD, Adam and its
        variants; float32 and float64) are updated by one kernel launch per group, with
        the same results (see ``chainer.optimizers._multi_tensor``).
        """
        target = self._check_target("update")
        if lossfun is not None:
            loss = lossfun(*args, **kwds)
            if self._use_cleargrads:
                target.cleargrads()
            else:
                # The deprecation was reported by use_cleargrads(False) already.
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DeprecationWarning)
                    target.zerograds()
            loss.backward(loss_scale=self._loss_scale)
            del loss
        # Parameters stored in a non-standard memory layout (chainer.memory_layouts) are
        # updated as stored, as every rule and hook works elementwise: within this block
        # their .array, .grad and .shape are the stored ones.
        with memory_layouts._raw_access():
            if configuration.hot_flags().debug:  # the snapshot (config.debug costs 0.5 us)
                _warn_of_missing_gradients(self, target)
            plan = self._update_plan
            if plan is not None and plan.run(self):
                return
            self.reallocate_cleared_grads()
            self._own_grads()
            self.check_nan_in_grads()
            safe = self.is_safe_to_update()
            if not safe:
                self._warn_non_finite_grads()
            # As in Chainer 7.8.1, an update skipped for non-finite gradients still runs the
            # hooks and counts in t; only the update rules leave the parameters alone.
            self.call_hooks("pre")
            self.t += 1
            if safe:
                params: Iterable[Any] = target.params()
                if cuda.available:
                    # CuPy parameters of the common rules: one kernel launch per group rather
                    # than one per parameter. Not imported at the top: the optimizers import this.
                    from chainer.optimizers import _multi_tensor

                    params = _multi_tensor.update(self, params)
                for param in params:
                    param.update()
            self.reallocate_cleared_grads()
            self.call_hooks("post")
            self.update_loss_scale()
            if plan is not None:
                plan.record(self)

    def _warn_non_finite_grads(self) -> None:
        # The warning Chainer 7.8.1 gives for each parameter of a skipped update.
        for name, param in sorted(self._check_target("update").namedparams()):
            grad = _update_rule.peek_grad(param)
            if (
                grad is not None
                and _is_enabled(param)
                and not bool(_update_rule._array_module(grad).isfinite(grad).all())
            ):
                warnings.warn(
                    f"Non finite number found in param.grad of {name} (iteration: {self.t}, "
                    f"loss_scale: {self._loss_scale})",
                    stacklevel=3,
                )

    def _own_grads(self) -> None:
        _own_grads(self._params("update"))

    def use_cleargrads(self, use: bool = True) -> None:
        """Choose ``cleargrads`` (default) or ``zerograds`` before backprop in :meth:`update`.

        .. deprecated:: v2
            ``cleargrads`` is the default and the better choice.
        """
        # No stacklevel: attributed to Chainer as in Chainer 7 (Python's default filters hide it).
        warnings.warn(
            "GradientMethod.use_cleargrads is deprecated: update() calls cleargrads() by default", DeprecationWarning
        )
        self._use_cleargrads = bool(use)

    def use_fp32_update(self, flag: bool = True) -> None:
        """Update float16 parameters through float32 master copies (applies to the rules
        created by :meth:`setup`, and to those that exist already)."""
        self._use_fp32_update = bool(flag)
        if self.target is not None:
            for param in self.target.params():
                if param.update_rule is not None:
                    param.update_rule.use_fp32_update(flag)


_MOVED_HOOKS = ("GradientClipping", "GradientHardClipping", "GradientNoise", "Lasso", "WeightDecay")


def make_deprecation_message(module_name: str) -> str:
    """The warning given for ``chainer.optimizer.<module_name>``, a hook that moved to
    :mod:`chainer.optimizer_hooks` in Chainer v4."""
    return f"chainer.optimizer.{module_name} is deprecated from v4. Use chainer.optimizer_hooks.{module_name} instead."


def _moved_hook_class(name: str) -> type:
    # As in Chainer 7.8.1: chainer.optimizer.<Hook> is a subclass of the hook of
    # chainer.optimizer_hooks that warns when it is instantiated (looking the name up is
    # silent, so hasattr and imports stay quiet under warnings-as-errors).
    base = getattr(importlib.import_module("chainer.optimizer_hooks"), name)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        # No stacklevel: attributed to Chainer as in Chainer 7, so that Python's default
        # filters keep it out of the output of unchanged Chainer 7 scripts.
        warnings.warn(make_deprecation_message(name), DeprecationWarning)
        base.__init__(self, *args, **kwargs)

    doc = f"Deprecated alias of :class:`chainer.optimizer_hooks.{name}` (moved there in Chainer v4)."
    return type(name, (base,), {"__init__": __init__, "__module__": __name__, "__qualname__": name, "__doc__": doc})


def __getattr__(name: str) -> Any:
    # The hooks moved to chainer.optimizer_hooks in v4; the old names still work. The
    # classes are made on first use (importing the hooks here would be circular at start-up).
    if name in _MOVED_HOOKS:
        cls = globals()[name] = _moved_hook_class(name)
        return cls
    raise AttributeError(f"module 'chainer.optimizer' has no attribute {name!r}")


__all__ = ["GradientMethod", "Hyperparameter", "HyperparameterProxy", "Optimizer", "UpdateRule"]
