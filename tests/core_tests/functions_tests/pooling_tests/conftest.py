"""The pooling tests import their shared helpers (``_roi_testlib``) from this folder, and
``_elementwise_harness`` (runs CuPy kernel sources on the CPU) from ``utils_tests``."""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)
sys.path.insert(0, os.path.join(_HERE, os.pardir, os.pardir, "utils_tests"))
