"""chainer.functions is written out: every public function of a category module is
imported by name in chainer/functions/__init__.py, so readers and type checkers see it
(nothing is added to the namespace at run time)."""

import ast
import importlib
import inspect
import pkgutil

import chainer.functions as F

CATEGORIES = (
    "activation",
    "array",
    "connection",
    "evaluation",
    "loss",
    "math",
    "noise",
    "normalization",
    "pooling",
    "rnn",
    "util",
)


def _module_exports():
    """``{name: module}`` for every name in the ``__all__`` of a category's modules."""
    exports = {}
    for category in CATEGORIES:
        package = importlib.import_module(f"chainer.functions.{category}")
        for info in pkgutil.iter_modules(package.__path__):
            if info.name.startswith("_"):
                continue
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for name in getattr(module, "__all__", ()):
                assert name not in exports, f"{name} is exported by {exports[name].__name__} and {module.__name__}"
                exports[name] = module
    return exports


def test_every_module_export_is_in_the_namespace():
    exports = _module_exports()
    missing = sorted(set(exports) - set(F.__all__))
    assert not missing, f"add to chainer/functions/__init__.py: {missing}"
    for name, module in exports.items():
        assert getattr(F, name) is getattr(module, name), name


def test_all_lists_each_name_once_and_only_exports():
    assert len(F.__all__) == len(set(F.__all__))
    assert set(F.__all__) == set(_module_exports())


def test_names_are_bound_by_import_statements():
    """Every name of ``__all__`` is bound by a ``from ... import`` of the module file,
    and ``__all__`` is a literal list: what a type checker reads is the namespace."""
    tree = ast.parse(inspect.getsource(F))
    imported = {
        alias.asname or alias.name for node in tree.body if isinstance(node, ast.ImportFrom) for alias in node.names
    }
    assigned = [node for node in tree.body if isinstance(node, ast.Assign) and node.targets[0].id == "__all__"]
    assert len(assigned) == 1 and isinstance(assigned[0].value, ast.List)
    listed = [element.value for element in assigned[0].value.elts]
    assert set(listed) <= imported
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == "globals"]
