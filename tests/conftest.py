"""Test-wide settings: no third-party plugin autoload, deterministic random numbers."""

import os
import random
import zlib

import numpy
import pytest

# Plugins installed in the developer's environment must not change test outcomes.
os.environ.setdefault("CHAINER_DISABLE_PLUGIN_AUTOLOAD", "1")


@pytest.fixture(autouse=True)
def _seed_from_test_id(request):
    """Seed NumPy's and Python's global generators from the test's id, so that every test
    sees the same random inputs whatever the order or the xdist worker it runs in."""
    seed = zlib.crc32(request.node.nodeid.encode())
    numpy.random.seed(seed)
    random.seed(seed)
