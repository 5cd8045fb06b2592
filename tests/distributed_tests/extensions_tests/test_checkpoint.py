"""The checkpointer's file names and save statistics, in this process (its resumes are
in test_training_run.py, under mpiexec)."""

from __future__ import annotations

import os
import re

import numpy
import pytest

import chainer
import chainermn
from chainermn.extensions import checkpoint


def test_file_names_round_trip():
    comm = chainermn.create_communicator("naive")
    cp = checkpoint.create_multi_node_checkpointer("run.a", comm, cp_interval=3, gc_interval=2)
    iterations = [0, 7, 4095, 10**9]
    names = cp._filenames(iterations)
    assert names == [f"run.a.0.{i}" for i in iterations]
    # Names of other runs, partial names and temporary files are not checkpoints.
    foreign = [
        "run.a.0",
        "run.a.0.x",
        "run.ab.0.5",
        ".run.a.0.1234.tmp",
        ".run.a.0.5.x1y2.chainer-tmp",
        "run.b.0.5",
        "xrun.a.0.5",
    ]
    assert cp._parse_filenames(names + foreign) == [("run.a", 0, i) for i in iterations]
    assert cp._parse_filenames(["run.a.3.12"]) == [("run.a", 3, 12)]


def test_save_statistics(tmp_path):
    stats = checkpoint._CheckpointStats()
    assert stats.report() == "no checkpoint saved"
    with pytest.raises(RuntimeError, match="start\\(\\) was not called"):
        stats.end()
    for _ in range(3):
        stats.start()
        stats.end()
    assert re.fullmatch(
        r"3 checkpoints saved in [0-9.]+ s \(mean [0-9.]+ s, min [0-9.]+ s, max [0-9.]+ s\)", stats.report()
    )

    comm = chainermn.create_communicator("naive")
    cp = checkpoint.create_multi_node_checkpointer("s", comm, path=str(tmp_path))
    link = chainer.Link()
    with link.init_scope():
        link.p = chainer.Parameter(numpy.arange(3.0))
    cp.save(link, 5)
    cp.save(link, 6)
    assert cp.get_stats().startswith("2 checkpoints saved")
    assert sorted(os.listdir(tmp_path)) == ["s.0.5", "s.0.6"]
    cp.finalize()
    assert os.listdir(tmp_path) == []
