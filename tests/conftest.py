"""Test-wide settings: no third-party plugin autoload, deterministic random numbers."""

import os
import random
import zlib

# Plugins installed in the developer's environment must not change test outcomes. Set
# before chainer is first imported (here), which is when the entry points would load.
os.environ.setdefault("CHAINER_DISABLE_PLUGIN_AUTOLOAD", "1")

import numpy
import pytest

import chainer


@pytest.fixture(autouse=True)
def _seed_from_test_id(request):
    """Seed NumPy's and Python's global generators from the test's id, so that every test
    sees the same random inputs whatever the order or the xdist worker it runs in."""
    seed = zlib.crc32(request.node.nodeid.encode())
    numpy.random.seed(seed)
    random.seed(seed)


@pytest.fixture(autouse=True)
def _restore_configuration():
    """Undo configuration changes a test leaves behind (global and this thread's), so
    that no test depends on the ones that ran before it on the same worker."""
    global_before = dict(vars(chainer.global_config))
    local_before = dict(chainer.config._local.__dict__)
    yield
    if vars(chainer.global_config) != global_before:
        for key in set(vars(chainer.global_config)) - set(global_before):
            delattr(chainer.global_config, key)
        for key, value in global_before.items():
            setattr(chainer.global_config, key, value)
    local = chainer.config._local.__dict__
    if local != local_before:
        local.clear()
        local.update(local_before)
        chainer.configuration._bump_version()
