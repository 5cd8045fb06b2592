"""Record the trajectories of ``programs.py`` under Chainer 7.8.1 into ``<name>.npz``.

Run it only with the interpreter that has Chainer 7.8.1 (NumPy 1.26), from anywhere::

    /work/venv781/bin/python tests/integration_tests/chainer7_trajectories/make_fixtures.py [NAME ...]

pytest never runs it: the test reads the committed files.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]

import _chainer7_fixtures  # noqa: E402
import programs  # noqa: E402

if __name__ == "__main__":
    _chainer7_fixtures.record(HERE, programs.run, sys.argv[1:], programs.PROGRAMS)
