"""Composable class decorators that turn one test class into many.

``@testing.parameterize``, ``@testing.inject_backend_tests`` and the other generators
may be stacked in any order. Each one receives either a class or the bundle that the
decorator below it returned, expands every case of it into new classes, puts those in
the test module (where pytest collects them) and takes the cases it expanded out of
the module again. The name the test module binds to the decorated class ends up bound
to a :class:`_ParameterizedTestCaseBundle`, which pytest does not collect.

A *test case generator* is a callable ``generator(base)`` that yields
``(class_name, members, method_generator)`` triples: the name of a new subclass of
``base``, the class attributes to give it, and a callable that wraps each of its test
methods (or ``None`` to leave them as they are).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

MethodGenerator = Callable[[Callable[..., Any]], Callable[..., Any]]
TestCaseGenerator = Callable[[type], Iterable[tuple[str, dict[str, Any], "MethodGenerator | None"]]]


class _TestCaseTuple(NamedTuple):
    """One generated test class, the module it lives in, and its name there."""

    klass: type
    module_name: str
    name: str


class _ParameterizedTestCaseBundle:
    """The classes a stack of test case decorators has made so far from one class."""

    def __init__(self, cases: list[_TestCaseTuple]) -> None:
        self.cases = cases

    def __repr__(self) -> str:
        names = ", ".join(case.name for case in self.cases[:3])
        more = f", ... ({len(self.cases)} in all)" if len(self.cases) > 3 else ""
        return f"<test case bundle: {names}{more}>"


def _test_method_names(klass: type) -> list[str]:
    return [name for name in dir(klass) if name.startswith("test") and callable(getattr(klass, name, None))]


def _generate_case(
    base: type,
    module: types.ModuleType,
    cls_name: str,
    mb: dict[str, Any],
    method_generator: MethodGenerator | None,
) -> type:
    """Make the subclass ``cls_name`` of ``base`` with members ``mb`` and its test
    methods wrapped by ``method_generator``, and put it in ``module``."""
    members = dict(mb)
    members.setdefault("__module__", module.__name__)
    members["__qualname__"] = cls_name
    klass = type(cls_name, (base,), members)
    if method_generator is not None:
        for name in _test_method_names(klass):
            method = getattr(klass, name)
            setattr(klass, name, method_generator(method))
    setattr(module, cls_name, klass)
    return klass


def _generate_test_cases(
    module_name: str, base_class: type, test_case_generator: TestCaseGenerator
) -> list[_TestCaseTuple]:
    module = sys.modules[module_name]
    cases = []
    for cls_name, members, method_generator in test_case_generator(base_class):
        klass = _generate_case(base_class, module, cls_name, members, method_generator)
        cases.append(_TestCaseTuple(klass, module_name, cls_name))
    return cases


def make_decorator(test_case_generator: TestCaseGenerator) -> Callable[[Any], _ParameterizedTestCaseBundle]:
    """A class decorator that expands a class (or a bundle) with ``test_case_generator``."""

    def decorator(target: Any) -> _ParameterizedTestCaseBundle:
        if isinstance(target, _ParameterizedTestCaseBundle):
            cases = target.cases
        elif isinstance(target, type):
            cases = [_TestCaseTuple(target, target.__module__, target.__name__)]
        else:
            raise TypeError(
                f"chainer.testing: a test case decorator expects a class, got {type(target).__name__} ({target!r})"
            )
        generated: list[_TestCaseTuple] = []
        for case in cases:
            generated += _generate_test_cases(case.module_name, case.klass, test_case_generator)
            # The expanded class is now a base of the generated ones: it must not be
            # collected by itself (its test methods may lack their parameters).
            module = sys.modules[case.module_name]
            if getattr(module, case.name, None) is case.klass:
                delattr(module, case.name)
        return _ParameterizedTestCaseBundle(generated)

    return decorator


def map_classes(target: Any, decorate: Callable[[type], type]) -> Any:
    """Apply a class decorator that changes a class in place (markers, set-up hooks) to
    ``target``, or to every class of it if it is a bundle; returns what it was given,
    so that such decorators stack with the generating ones in any order."""
    if isinstance(target, _ParameterizedTestCaseBundle):
        for case in target.cases:
            decorated = decorate(case.klass)
            if decorated is not case.klass:
                raise TypeError(f"chainer.testing: {decorate!r} must change the class in place")
        return target
    return decorate(target)
