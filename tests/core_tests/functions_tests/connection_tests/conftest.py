"""Puts this folder on ``sys.path`` so that the tests of the (de)convolution functions can
import ``_conv_testlib`` (their shared naive references and tolerances)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
