"""Fixtures of the chainer-training tests. ``_training_testlib`` (next to this file) holds
small links, losses and a synthetic data set shared by the tests."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import chainer


@pytest.fixture(autouse=True)
def _restore_config():
    """Extensions such as DumpGraph change chainer.config; no test may leak a change."""
    keep_graph = chainer.config.keep_graph_on_report
    train = chainer.config.train
    yield
    chainer.config.keep_graph_on_report = keep_graph
    chainer.config.train = train
