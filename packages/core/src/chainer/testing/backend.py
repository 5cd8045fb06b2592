"""Running one test on several backends: :class:`BackendConfig` and
:func:`inject_backend_tests`."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from chainer import backend, configuration

_DEFAULTS: dict[str, Any] = {
    "use_cuda": False,
    "cuda_device": None,
    "use_cudnn": "never",
    "cudnn_deterministic": False,
    "autotune": False,
    "cudnn_fast_batch_normalization": False,
    "use_ideep": "never",
    "use_chainerx": False,
    "chainerx_device": None,
}


class BackendConfig:
    """One backend configuration of a test: device and the related config keys.

    Args:
        params: Keys ``use_cuda``, ``cuda_device``, ``use_cudnn``, ``cudnn_deterministic``,
            ``autotune``, ``cudnn_fast_batch_normalization``, ``use_ideep``,
            ``use_chainerx``, ``chainerx_device``; missing keys take CPU defaults.
    """

    def __init__(self, params: Mapping[str, Any]) -> None:
        unknown = set(params) - set(_DEFAULTS)
        if unknown:
            raise ValueError(f"BackendConfig: unknown keys {sorted(unknown)}; known: {sorted(_DEFAULTS)}")
        merged = dict(_DEFAULTS)
        merged.update(params)
        if merged["use_cuda"] and merged["cuda_device"] is None:
            merged["cuda_device"] = 0
        self._params = merged
        for key, value in merged.items():
            setattr(self, key, value)
        self._contexts: list[contextlib.ExitStack] = []

    def skip_reason(self) -> str | None:
        """Why this configuration cannot run here, or ``None``."""
        if self.use_chainerx:
            return "ChainerX is not part of this distribution"
        if self.use_cuda:
            from chainer.backends import cuda

            return cuda._unavailable_reason()
        if self.use_ideep != "never":
            from chainer.backends import intel64

            return intel64._ideep_import_error()
        return None

    @property
    def device(self) -> backend.Device:
        if self.use_chainerx:
            raise RuntimeError("BackendConfig: ChainerX is not part of this distribution")
        if self.use_cuda:
            return backend.get_device(f"@cupy:{self.cuda_device}")
        if self.use_ideep != "never":
            return backend.get_device("@intel64")
        return backend.cpu()

    @property
    def xp(self) -> Any:
        return self.device.xp

    def get_array(self, np_array: Any) -> Any:
        """Send an array (or a tuple/list/dict of arrays) to this configuration's device."""
        return self.device.send(np_array)

    def get_func_str(self) -> str:
        """A short identifier used in generated test names."""
        parts = []
        for key, value in self._params.items():
            if value != _DEFAULTS[key] and not (key == "cuda_device" and not self.use_cuda):
                parts.append(f"{key}_{value}")
        return "__".join(parts) if parts else "numpy"

    def get_pytest_marks(self) -> list[Any]:
        import pytest

        marks = []
        if self.use_cuda:
            marks.append(pytest.mark.gpu)
        return marks

    def __enter__(self) -> BackendConfig:
        stack = contextlib.ExitStack()
        for key in ("use_cudnn", "cudnn_deterministic", "autotune", "cudnn_fast_batch_normalization", "use_ideep"):
            stack.enter_context(configuration.using_config(key, getattr(self, key)))
        if self.use_cuda:
            stack.enter_context(self.device.create_context())
        self._contexts.append(stack)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._contexts.pop().__exit__(*exc)

    def __repr__(self) -> str:
        return f"<BackendConfig {self.get_func_str()}>"


def inject_backend_tests(
    method_names: Sequence[str] | None, params: Sequence[Mapping[str, Any]]
) -> Callable[[type], type]:
    """Class decorator: run each test method once per backend configuration.

    Every method named in ``method_names`` (all ``test_*`` methods if ``None``) must
    take a ``backend_config`` argument. It is replaced by one method per configuration,
    ``<name>__<config>``; GPU configurations carry the ``gpu`` marker and are skipped
    with the reason when no GPU is usable.

    Example:
        >>> import unittest
        >>> from chainer import testing
        >>> @testing.inject_backend_tests(None, [{}, {'use_cuda': True}])
        ... class TestFoo(unittest.TestCase):
        ...     def test_forward(self, backend_config):
        ...         x = backend_config.get_array(np.ones(3, 'f'))
    """
    configs = [BackendConfig(p) for p in params]
    if not configs:
        raise ValueError("inject_backend_tests: params must contain at least one configuration")

    def decorator(cls: type) -> type:
        names = (
            method_names
            if method_names is not None
            else [n for n in dir(cls) if n.startswith("test_") and callable(getattr(cls, n))]
        )
        for name in names:
            impl = getattr(cls, name)
            for config in configs:
                setattr(cls, f"{name}__{config.get_func_str()}", _make_method(impl, config))
            # Hide the original (it needs an argument pytest cannot supply).
            setattr(cls, name, None)
        return cls

    return decorator


def _make_method(impl: Callable[..., Any], config: BackendConfig) -> Callable[..., Any]:
    @functools.wraps(impl)
    def method(self: Any) -> Any:
        reason = config.skip_reason()
        if reason is not None:
            import pytest

            pytest.skip(f"{config.get_func_str()}: {reason}")
        with config:
            return impl(self, config)

    for mark in config.get_pytest_marks():
        method = mark(method)
    return method
