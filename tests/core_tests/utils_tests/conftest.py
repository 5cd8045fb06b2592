"""Puts this folder on ``sys.path`` so that tests can import ``_elementwise_harness``
(which runs the sources of CuPy elementwise kernels on the CPU)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
