"""Chainer 7.8.1's module tree: every module path imports and defines its names.

Code written for Chainer imports modules, not only the public namespaces
(``from chainer.functions.connection import convolution_2d``,
``chainer.functions.activation.relu.ReLU``). The list of every module of ``chainer``,
``chainermn`` and ``onnx_chainer`` in 7.8.1 with the classes, functions and constants it
defines is a fact file of the shared reference (``chainer-7.8.1-modules.txt``), outside
this repository; these tests are skipped where it is absent. Every distribution must be
installed (``nox -s tests``).

Also checked: a name that 7.8.1 defines in a module and exports from a public namespace
(``chainer.functions.relu``, defined in ``chainer.functions.activation.relu``) is one
object under both paths.
"""

from __future__ import annotations

import importlib
import os
import pathlib
import re
import warnings

import pytest

_SHARED = pathlib.Path(os.environ.get("CHAINER_SHARED_DIR", pathlib.Path(__file__).parents[3] / "shared"))
_MODULES = _SHARED / "reference" / "chainer-7.8.1-modules.txt"
_API = _SHARED / "reference" / "chainer-7.8.1-api.txt"

pytestmark = pytest.mark.skipif(not _MODULES.exists(), reason=f"the shared reference is absent ({_MODULES})")

# Public names (no leading underscore in the module path or the name) that are not
# provided, with why. A fix makes the strict xfail fail: then remove the entry.
KNOWN_GAPS: dict[str, str] = {}


def _read_modules() -> dict[str, list[str]]:
    modules: dict[str, list[str]] = {}
    current = None
    for line in _MODULES.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if not line.startswith(" "):
            current = line.strip()
            modules[current] = []
            continue
        match = re.match(r"\s+(?:class|def|const)\s+(\w+)", line)
        if match and current is not None:
            modules[current].append(match.group(1))
    return modules


def _read_api_names() -> set[str]:
    if not _API.exists():
        return set()
    names = set()
    for line in _API.read_text().splitlines():
        match = re.match(r"(?:class|function|data|module|method|attribute)\s+([\w.]+)", line)
        if match:
            names.add(match.group(1))
    return names


MODULES = _read_modules() if _MODULES.exists() else {}
API_NAMES = _read_api_names() if _MODULES.exists() else set()


def _is_public(module: str, name: str) -> bool:
    return not name.startswith("_") and not any(part.startswith("_") for part in module.split("."))


def _import(module: str):
    with warnings.catch_warnings():
        # Deprecated 7.8.1 modules may warn on import; importing them is the point.
        warnings.simplefilter("ignore", DeprecationWarning)
        return importlib.import_module(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_imports(module):
    _import(module)


def _public_names():
    for module, names in sorted(MODULES.items()):
        for name in names:
            if _is_public(module, name):
                key = f"{module}.{name}"
                marks = [pytest.mark.xfail(reason=KNOWN_GAPS[key], strict=True)] if key in KNOWN_GAPS else []
                yield pytest.param(module, name, id=key, marks=marks)


@pytest.mark.parametrize(("module", "name"), list(_public_names()))
def test_public_name_is_defined(module, name):
    assert hasattr(_import(module), name), f"{module} does not define {name}, which Chainer 7.8.1's module did"


def _aliases():
    """(defining module, name, public path) where 7.8.1's API lists the name under a
    package above the one module of that package that defines it (where several modules
    below the package define the name, 7.8.1 itself had distinct objects: not checked)."""
    definers: dict[tuple[str, str], list[str]] = {}
    for module, names in MODULES.items():
        parts = module.split(".")
        for name in names:
            for cut in range(1, len(parts)):
                definers.setdefault((".".join(parts[:cut]), name), []).append(module)
    for (package, name), modules in sorted(definers.items()):
        public = f"{package}.{name}"
        if public in API_NAMES and len(modules) == 1 and name not in MODULES.get(package, ()):
            yield pytest.param(modules[0], name, public, id=f"{modules[0]}.{name}={public}")


def _resolve(path: str):
    module, _, name = path.rpartition(".")
    return getattr(_import(module), name)


@pytest.mark.parametrize(("module", "name", "public"), list(_aliases()))
def test_public_alias_is_the_same_object(module, name, public):
    try:
        defined = getattr(_import(module), name, None)
    except ImportError:
        defined = None
    if defined is None:
        pytest.skip(f"{module}.{name} is missing (reported by test_public_name_is_defined)")
    assert defined is _resolve(public), f"{module}.{name} and {public} are different objects"


def test_reference_is_complete():
    # The reference lists 516 modules; a truncated copy would make the checks above pass vacuously.
    assert len(MODULES) == 516
