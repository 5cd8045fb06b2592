"""Base of hooks that replace a link's weight by a function of it during ``forward``."""

from __future__ import annotations

from typing import Any

from chainer import _parameter, link_hook


class WeightRewritingHook(link_hook.LinkHook):
    """Swaps ``link.<weight_name>`` for :meth:`rewrite` of it around ``forward``.

    The parameter itself stays registered (optimizers and serializers see it); only the
    attribute that ``forward`` reads is replaced, and it is put back after ``forward``,
    also when ``forward`` raises.
    """

    def __init__(self, weight_name: str, name: str | None) -> None:
        if not isinstance(weight_name, str) or not weight_name:
            raise TypeError(f"{type(self).__name__}: weight_name must be a non-empty str, got {weight_name!r}")
        self.weight_name = weight_name
        if name is not None:
            self.name = name
        self._originals: dict[int, Any] = {}

    # -- to implement -------------------------------------------------------------------

    def prepare(self, link: Any) -> None:
        """Create the hook's own state on ``link`` once its weight is initialized."""

    def is_prepared(self, link: Any) -> bool:
        return True

    def rewrite(self, link: Any, weight: _parameter.Parameter) -> Any:
        """Return the variable ``forward`` should use instead of ``weight``."""
        raise NotImplementedError(f"{type(self).__name__} must implement rewrite()")

    # -- LinkHook --------------------------------------------------------------------------

    def _weight(self, link: Any) -> _parameter.Parameter:
        weight = link.__dict__.get(self.weight_name)
        if not isinstance(weight, _parameter.Parameter):
            raise ValueError(
                f"{type(self).__name__}: {type(link).__name__} has no parameter named {self.weight_name!r} "
                f"(set weight_name to the parameter to normalize)"
            )
        return weight

    def added(self, link: Any) -> None:
        if link is None:
            raise NotImplementedError(
                f"{type(self).__name__} must be registered to a link with link.add_hook(hook); "
                "it cannot be used as a global 'with hook:' hook"
            )
        if self._weight(link).array is not None:
            self.prepare(link)

    def forward_preprocess(self, args: link_hook._ForwardPreprocessCallbackArgs) -> None:
        link = args.link
        weight = self._weight(link)
        if weight.array is None:
            self._initialize_weight(link, args)
        if not self.is_prepared(link):
            self.prepare(link)
        self._originals[id(link)] = weight
        link.__dict__[self.weight_name] = self.rewrite(link, weight)

    def forward_postprocess(self, args: link_hook._ForwardPostprocessCallbackArgs) -> None:
        self._restore(args.link)

    def _forward_aborted(self, args: link_hook._ForwardPreprocessCallbackArgs) -> None:
        self._restore(args.link)

    def _restore(self, link: Any) -> None:
        original = self._originals.pop(id(link), None)
        if original is not None:
            link.__dict__[self.weight_name] = original

    def _initialize_weight(self, link: Any, args: link_hook._ForwardPreprocessCallbackArgs) -> None:
        # Links with lazily shaped weights (Linear(None, n), ...) create them from the
        # input size in _initialize_params(in_size); do that now, before rewriting.
        initialize = getattr(link, "_initialize_params", None)
        x = args.args[0] if args.args else None
        if callable(initialize) and x is not None and getattr(x, "ndim", 0) >= 2:
            initialize(x.shape[1])
        if self._weight(link).array is None:
            raise RuntimeError(
                f"{type(self).__name__}: the weight {self.weight_name!r} of {type(link).__name__} is not "
                "initialized; give the link its input size, or run it once before adding the hook"
            )
