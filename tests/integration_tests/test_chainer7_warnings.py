"""Deprecation warnings where Chainer 7.8.1 gave them, and only there.

Chainer 7.8.1 raised a ``DeprecationWarning`` for the calls of ``DEPRECATED`` (its own
test suite asserts several of them), always from inside Chainer: the warning names a
file of the library, not the caller's line. Python's default filters show a
``DeprecationWarning`` only when it is attributed to ``__main__``, so an unchanged
Chainer 7 script printed nothing for them; ours must print nothing either, while a
test run (pytest shows every warning) or ``-W error`` still sees them. The calls of
``SILENT`` never warned in 7.8.1 and must not warn here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Callable

import numpy as np
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import optimizers
from chainer.backends import cuda


def _link() -> chainer.Link:
    return L.Linear(2, 3)


def _sgd() -> chainer.Optimizer:
    return optimizers.SGD().setup(_link())


def _adam_after_one_update() -> optimizers.Adam:
    model = _link()
    opt = optimizers.Adam().setup(model)
    opt.update(lambda: F.sum(model(np.ones((1, 2), np.float32))))
    return opt


def _backward_of_shape_1() -> None:
    (chainer.Variable(np.ones(1, np.float32)) * 2).backward()


DEPRECATED: dict[str, Callable[[], object]] = {
    "chainer.optimizer.WeightDecay": lambda: chainer.optimizer.WeightDecay(0.1),
    "chainer.optimizer.Lasso": lambda: chainer.optimizer.Lasso(0.1),
    "chainer.optimizer.GradientClipping": lambda: chainer.optimizer.GradientClipping(1.0),
    "chainer.optimizer.GradientHardClipping": lambda: chainer.optimizer.GradientHardClipping(-1.0, 1.0),
    "chainer.optimizer.GradientNoise": lambda: chainer.optimizer.GradientNoise(0.1),
    "GradientMethod.use_cleargrads": lambda: _sgd().use_cleargrads(),
    "Adam.lr": lambda: _adam_after_one_update().lr,
    "AdamRule.lr": lambda: _adam_after_one_update().target.W.update_rule.lr,
    "Variable.zerograd": lambda: chainer.Variable(np.ones(2, np.float32)).zerograd(),
    "Link.zerograds": lambda: _link().zerograds(),
    "Link.to_cpu": lambda: _link().to_cpu(),
    "WalkerAlias.to_cpu": lambda: chainer.utils.WalkerAlias([0.5, 0.5]).to_cpu(),
    "cuda.get_device": lambda: cuda.get_device(np.ones(1)),
    "F.batch_matmul": lambda: F.batch_matmul(np.ones((2, 2, 3), np.float32), np.ones((2, 3, 2), np.float32)),
    "F.fixed_batch_renormalization": lambda: F.fixed_batch_renormalization(
        np.ones((2, 3), np.float32), *(np.ones(3, np.float32),) * 4
    ),
    "backward of a variable of shape (1,)": _backward_of_shape_1,
    "chainer.DebugMode": lambda: chainer.DebugMode(False),
    "get_cross_validation_datasets(n_fold=)": lambda: chainer.datasets.get_cross_validation_datasets(
        list(range(6)), n_fold=3
    ),
}

SILENT: dict[str, Callable[[], object]] = {
    "optimizer_hooks.WeightDecay": lambda: chainer.optimizer_hooks.WeightDecay(0.1),
    "optimizer_hooks.GradientClipping": lambda: chainer.optimizer_hooks.GradientClipping(1.0),
    "Adam.alpha_t": lambda: _adam_after_one_update().alpha_t,
    "Link.to_device": lambda: _link().to_device("@numpy"),
    "Variable.to_cpu": lambda: chainer.Variable(np.ones(2, np.float32)).to_cpu(),
    "Parameter.to_cpu": lambda: chainer.Parameter(np.ones(2, np.float32)).to_cpu(),
    "Link.cleargrads": lambda: _link().cleargrads(),
    "cuda.get_device_from_array": lambda: cuda.get_device_from_array(np.ones(1)),
    "F.matmul": lambda: F.matmul(np.ones((2, 3), np.float32), np.ones((3, 2), np.float32)),
    "backward of a 0-d variable": lambda: (chainer.Variable(np.array(1.0, np.float32)) * 2).backward(),
    "get_cross_validation_datasets(n_folds=)": lambda: chainer.datasets.get_cross_validation_datasets(
        list(range(6)), n_folds=3
    ),
}


@pytest.mark.parametrize("name", sorted(DEPRECATED))
def test_deprecated_as_in_chainer_7_and_attributed_to_chainer(name: str) -> None:
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        DEPRECATED[name]()
    deprecations = [w for w in record if issubclass(w.category, DeprecationWarning)]
    assert deprecations, f"{name}: no DeprecationWarning (Chainer 7.8.1 gave one)"
    for w in deprecations:
        # A file of the library, not this test: hidden by Python's default filters.
        assert w.filename != __file__, f"{name}: attributed to the caller: {w.message}"
        assert "/chainer/" in w.filename.replace("\\", "/"), (name, w.filename)


@pytest.mark.parametrize("name", sorted(SILENT))
def test_silent_as_in_chainer_7(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SILENT[name]()


def test_an_unchanged_chainer_7_script_prints_no_warning(tmp_path) -> None:
    """A script as written for Chainer 7 (the hooks under their old names, zerograds,
    to_cpu, batch_matmul) run as ``__main__`` with Python's default warning filters: no
    output on stderr, as with Chainer 7.8.1. Under ``-W error`` the same calls fail."""
    script = tmp_path / "old_script.py"
    script.write_text(
        textwrap.dedent(
            """
            import numpy as np
            import chainer
            import chainer.functions as F
            import chainer.links as L

            model = L.Classifier(L.Linear(3, 2))
            model.to_cpu()
            optimizer = chainer.optimizers.MomentumSGD(lr=0.1)
            optimizer.setup(model)
            optimizer.add_hook(chainer.optimizer.WeightDecay(1e-4))
            optimizer.add_hook(chainer.optimizer.GradientClipping(5.0))
            x = np.ones((4, 3), np.float32)
            t = np.zeros(4, np.int32)
            model.zerograds()
            loss = model(x, t)
            loss.backward()
            optimizer.update()
            F.batch_matmul(np.ones((1, 2, 2), np.float32), np.ones((1, 2, 2), np.float32))
            print("done")
            """
        )
    )
    env = dict(os.environ, CHAINER_DISABLE_PLUGIN_AUTOLOAD="1")  # no third-party plugin's own warnings
    env.pop("PYTHONWARNINGS", None)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "done\n"
    assert done.stderr == ""
    strict = subprocess.run(
        [sys.executable, "-W", "error", str(script)], capture_output=True, text=True, timeout=120, env=env
    )
    assert strict.returncode != 0 and "DeprecationWarning" in strict.stderr
