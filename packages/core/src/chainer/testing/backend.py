"""Running one test on several backends: :class:`BackendConfig` and
:func:`inject_backend_tests`."""

from __future__ import annotations

import contextlib
import functools
import unittest
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from chainer import backend, configuration
from chainer.testing import _bundle

# The keys of a configuration and their CPU defaults, in the order in which 7.8.1
# names them in generated test names (get_func_str) and in repr.
_DEFAULTS: dict[str, Any] = {
    "use_chainerx": False,
    "chainerx_device": None,
    "use_cuda": False,
    "cuda_device": None,
    "use_cudnn": "never",
    "cudnn_deterministic": False,
    "autotune": False,
    "cudnn_fast_batch_normalization": False,
    "use_ideep": "never",
}


def _name_of(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


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
        """The configuration as it appears in generated test names: every key and its
        value, booleans in lower case (``use_chainerx_false__chainerx_device_None__
        use_cuda_true__cuda_device_0__...__use_ideep_never``), as in 7.8.1, so that
        ``-k use_cuda_true`` selects the GPU tests."""
        return "__".join(f"{key}_{_name_of(self._params[key])}" for key in _DEFAULTS)

    def get_pytest_marks(self) -> list[Any]:
        import pytest

        marks = []
        if self.use_chainerx:
            marks.append(pytest.mark.chainerx)
            device = str(self.chainerx_device or "")
            if device.startswith("cuda"):
                marks.append(pytest.mark.gpu)
                if device != "cuda:0":
                    marks.append(pytest.mark.multi_gpu)
        if self.use_cuda:
            marks.append(pytest.mark.gpu)
            if self.use_cudnn != "never":
                marks.append(pytest.mark.cudnn)
            if self.cuda_device not in (None, 0):
                marks.append(pytest.mark.multi_gpu)
        if self.use_ideep != "never":
            marks.append(pytest.mark.ideep)
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
        items = " ".join(f"{key}={self._params[key]!r}" for key in _DEFAULTS)
        return f"<BackendConfig {items}>"


def _wrap_with_config(impl: Callable[..., Any], config: BackendConfig) -> Callable[..., Any]:
    @functools.wraps(impl)
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        reason = config.skip_reason()
        if reason is not None:
            raise unittest.SkipTest(f"{config.get_func_str()}: {reason}")
        with config:
            return impl(self, config, *args, **kwargs)

    # functools.wraps copied the signature; pytest must not see backend_config.
    del method.__wrapped__
    for mark in config.get_pytest_marks():
        method = mark(method)
    return method


def _test_case_generator(
    base: type, method_names: Sequence[str] | None, params: Sequence[Mapping[str, Any]]
) -> Iterator[tuple[str, dict[str, Any], Callable[[Callable[..., Any]], Callable[..., Any]]]]:
    """One subclass of ``base`` per backend configuration, whose test methods (those in
    ``method_names``, all if ``None``) receive that configuration."""
    for config in (BackendConfig(p) for p in params):
        members: dict[str, Any] = {}
        if method_names is not None:
            # A configuration's class runs the named methods only, each with it.
            for name in _test_names(base):
                if name not in method_names:
                    members[name] = None
            for name in method_names:
                impl = getattr(base, name, None)
                if impl is None:
                    raise ValueError(f"inject_backend_tests: {base.__name__} has no method {name!r}")
                members[name] = _wrap_with_config(impl, config)
            yield f"{base.__name__}_{config.get_func_str()}", members, None
        else:
            yield (
                f"{base.__name__}_{config.get_func_str()}",
                members,
                functools.partial(_wrap_with_config, config=config),
            )
    if method_names is not None:
        # The class's other test methods stay in a class of the decorated class's own
        # name. As in Chainer 7.8.1, where this decorator is the outermost one the name
        # is then bound to the bundle, so those tests are not collected; a decorator
        # stacked above (parameterize) generates collected classes from it.
        yield base.__name__, dict.fromkeys(method_names), None


def _test_names(klass: type) -> list[str]:
    return [name for name in dir(klass) if name.startswith("test") and callable(getattr(klass, name, None))]


def inject_backend_tests(
    method_names: Sequence[str] | None, params: Sequence[Mapping[str, Any]]
) -> Callable[[Any], Any]:
    """Class decorator: run test methods once per backend configuration.

    Every method named in ``method_names`` (every ``test*`` method if ``None``) takes a
    :class:`BackendConfig` argument after ``self``. Where names are given, the class's
    other test methods run without a configuration in a class of the decorated class's
    name, which is collected only where another decorator is stacked above this one
    (Chainer 7.8.1's rule, by which its suites count their tests). One test class is generated per
    configuration of ``params``; its methods receive that configuration, run inside it
    (``with backend_config:``) and carry the pytest markers of the backend (``gpu``,
    ``cudnn``, ``ideep``, ``chainerx``), so that a run can select or deselect them. A
    configuration that cannot run here is skipped with the reason. It may be stacked
    with :func:`~chainer.testing.parameterize`.

    Example:
        >>> import unittest
        >>> from chainer import testing
        >>> @testing.inject_backend_tests(None, [{}, {'use_cuda': True}])
        ... class TestFoo(unittest.TestCase):
        ...     def test_forward(self, backend_config):
        ...         x = backend_config.get_array(np.ones(3, 'f'))
    """
    if isinstance(method_names, str):
        raise TypeError(f"inject_backend_tests: method_names must be a list of names or None, got {method_names!r}")
    params = [dict(p) for p in params]
    if not params:
        raise ValueError("inject_backend_tests: params must contain at least one configuration")
    for p in params:
        BackendConfig(p)  # an unknown key is an error at decoration time
    names = None if method_names is None else list(method_names)
    return _bundle.make_decorator(lambda base: _test_case_generator(base, names, params))
