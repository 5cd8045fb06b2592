"""Type checkers see Chainer's namespaces: mypy on a user's training script.

The namespaces are written out (no names added at run time), so mypy knows
``F.relu``, ``L.Linear``, ``training.Trainer``, ``extensions.LogReport``... with their
signatures. A second file misuses them, as a control that mypy does read them: the
errors are those of that file only.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("mypy")

SCRIPT = """
    import numpy as np

    import chainer
    import chainer.functions as F
    import chainer.links as L
    from chainer import training
    from chainer.training import extensions

    x = chainer.Variable(np.ones((2, 3), np.float32))
    t = np.zeros(2, np.int32)
    loss = F.softmax_cross_entropy(F.relu(x), t)
    model = L.Classifier(L.Linear(3, 2))
    optimizer = chainer.optimizers.SGD(lr=0.1)
    optimizer.setup(model)
    data = chainer.datasets.TupleDataset(np.ones((4, 3), np.float32), np.zeros(4, np.int32))
    updater = training.updaters.StandardUpdater(chainer.iterators.SerialIterator(data, 2), optimizer)
    trainer = training.Trainer(updater, (1, "epoch"), out="result")
    trainer.extend(extensions.LogReport())
    reveal_type(F.relu)
    reveal_type(L.Linear)
    reveal_type(training.Trainer)
    reveal_type(extensions.LogReport)
    reveal_type(chainer.utils.WalkerAlias)
"""

# A misuse of each: mypy must report each line (it would not, were the names unknown).
MISUSE = """
    import chainer.functions as F
    import chainer.links as L
    from chainer import training
    from chainer.training import extensions

    F.no_such_function(1)
    F.relu(1, 2, 3)
    L.Linear(3, 2, no_such_argument=1)
    training.Trainer()
    extensions.LogReport().log.no_such_method()
"""


@pytest.mark.slow
def test_mypy_sees_the_namespaces(tmp_path):
    (tmp_path / "train.py").write_text(textwrap.dedent(SCRIPT))
    (tmp_path / "misuse.py").write_text(textwrap.dedent(MISUSE))
    # As a user runs it: no configuration of this repository, a fresh cache.
    (tmp_path / "mypy.ini").write_text("[mypy]\n")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--cache-dir", ".cache", "train.py", "misuse.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = done.stdout + done.stderr
    errors = [line for line in output.splitlines() if ": error:" in line]
    assert not [line for line in errors if line.startswith("train.py")], output
    # Each name revealed with its real type (a name mypy cannot see would be Any).
    revealed = re.findall(r'^train\.py:\d+: note: Revealed type is "(.*)"$', output, flags=re.M)
    assert len(revealed) == 5, output
    assert all(kind != "Any" for kind in revealed), revealed
    assert "chainer.variable.Variable" in revealed[0] and "Linear" in revealed[1]
    assert "Trainer" in revealed[2] and "LogReport" in revealed[3] and "WalkerAlias" in revealed[4]
    # The control: one error per misuse line (lines 7 to 11 of misuse.py).
    assert sorted({int(line.split(":")[1]) for line in errors if line.startswith("misuse.py")}) == [7, 8, 9, 10, 11]
