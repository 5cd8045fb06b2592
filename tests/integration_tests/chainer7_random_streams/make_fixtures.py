"""Record what the cases of ``programs.py`` draw under Chainer 7.8.1 into ``<case>.npz``.

Run it only with the interpreter that has Chainer 7.8.1 (NumPy 1.26), from anywhere::

    /work/venv781/bin/python tests/integration_tests/chainer7_random_streams/make_fixtures.py [CASE ...]

pytest never runs it: the test reads the committed files.
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import programs  # noqa: E402

import chainer  # noqa: E402


def main(names):
    if chainer.__version__ != "7.8.1":
        raise SystemExit(f"make_fixtures.py records Chainer 7.8.1, this is Chainer {chainer.__version__}")
    results = {}
    for name in names or sorted(programs.CASES):
        results[name] = programs.run(name)
    # Written only once every case has run, so that a failing one leaves the old files.
    if not names:
        for old in os.listdir(HERE):
            if old.endswith(".npz"):
                os.remove(os.path.join(HERE, old))
    total = 0
    for name, arrays in results.items():
        path = os.path.join(HERE, name + ".npz")
        np.savez_compressed(path, **arrays)
        total += os.path.getsize(path)
    print(f"{len(results)} cases, {total / 1e6:.2f} MB")


if __name__ == "__main__":
    main(sys.argv[1:])
