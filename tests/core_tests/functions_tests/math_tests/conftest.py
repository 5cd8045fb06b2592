"""The math tests import their shared helpers (``_math_testlib``) from this folder."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
