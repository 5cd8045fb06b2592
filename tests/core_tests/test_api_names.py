"""Every public name of Chainer 7.8.1 that chainer-core provides resolves, with the kind
(module, class, function, data) and the class members the 7.8.1 API has.

The list, api_names_7_8_1.txt next to this file, is taken from the API reference of
Chainer 7.8.1 (outside chainer.functions, chainer.links, chainer.training,
chainer.dataset(s), chainer.iterators, chainer.optimizers, chainer.serializers,
chainer.initializers, chainermn and onnx_chainer, which have their own checks).
"""

from __future__ import annotations

import importlib
import pathlib
import types

import pytest

_LIST = pathlib.Path(__file__).with_name("api_names_7_8_1.txt")


def _entries():
    entries = []
    for line in _LIST.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        parts = line.split(" ")
        kind, name = parts[0], parts[1]
        members = parts[2].split(",") if len(parts) > 2 else []
        entries.append((kind, name, members))
    return entries


ENTRIES = _entries()

# Known gaps, reported to their owners; strict xfail makes a fix visible.
KNOWN_GAPS: dict[str, str] = {}


def _params():
    for kind, name, members in ENTRIES:
        marks = [pytest.mark.xfail(reason=KNOWN_GAPS[name], strict=True)] if name in KNOWN_GAPS else []
        yield pytest.param(kind, name, members, id=name, marks=marks)


def resolve(name: str):
    """The object a dotted name designates: the longest importable module prefix, then
    attributes."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(f"no module of {name!r} can be imported")


def test_the_list_is_complete():
    assert len(ENTRIES) == 158
    assert sum(len(m) for _, _, m in ENTRIES) == 503
    names = {name for _, name, _ in ENTRIES}
    assert "chainer.static_graph" in names and "chainer.distributions.Normal" in names
    assert not any(n.startswith(("chainer.functions.", "chainer.links.", "chainermn", "onnx_chainer")) for n in names)


@pytest.mark.parametrize("kind,name,members", list(_params()))
def test_name_resolves(kind, name, members):
    obj = resolve(name)
    if kind == "module":
        assert isinstance(obj, types.ModuleType) or importlib.import_module(name), name
    elif kind == "class":
        assert isinstance(obj, type), f"{name} is a {type(obj).__name__}, not a class"
    elif kind == "function":
        assert callable(obj), f"{name} is not callable"
    missing = [m for m in members if not hasattr(obj, m)]
    assert not missing, f"{name} lacks {missing}"
