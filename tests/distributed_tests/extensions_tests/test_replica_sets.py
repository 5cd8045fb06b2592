"""multi_node_snapshot's replica sets (the table of the documentation), in this process:
which rank writes for which, and the file names of each set."""

from __future__ import annotations

import types

import pytest

from chainer.training import extensions
from chainermn.extensions import multi_node_snapshot


def _writers(replica_sets, size):
    """The writing rank of every rank's replica set."""
    return [
        multi_node_snapshot(types.SimpleNamespace(rank=r, size=size), extensions.snapshot(), replica_sets).master
        for r in range(size)
    ]


@pytest.mark.parametrize(
    ("replica_sets", "size", "expected_sets"),
    [
        ([0], 4, [{0}, {1, 2, 3}]),
        ([0, 1], 4, [{0}, {1}, {2, 3}]),
        ([[0, 1], [2, 3]], 4, [{0, 1}, {2, 3}]),
        ([], 4, [{0, 1, 2, 3}]),
        ([range(0, 8, 2)], 8, [set(range(0, 8, 2)), set(range(1, 8, 2))]),
        ([[0], range(1, 3)], 3, [{0}, {1, 2}]),
    ],
)
def test_documented_replica_sets(replica_sets, size, expected_sets):
    # Each set is written by its lowest rank.
    expected = [min(next(s for s in expected_sets if r in s)) for r in range(size)]
    assert _writers(replica_sets, size) == expected


def test_each_set_writes_its_own_files():
    trainer = types.SimpleNamespace(updater=types.SimpleNamespace(iteration=7))
    comm = types.SimpleNamespace(rank=2, size=3)
    by_format = multi_node_snapshot(comm, extensions.snapshot(filename="s_{.updater.iteration}"), [0])
    by_callable = multi_node_snapshot(comm, extensions.snapshot(filename=lambda t: f"c{t.updater.iteration}"), [0])
    assert by_format.snapshot.filename.format(trainer) == "s_7.1"
    assert by_callable.snapshot.filename(trainer) == "c7.1"


def test_bad_replica_sets():
    comm = types.SimpleNamespace(rank=0, size=3)
    with pytest.raises(ValueError, match=r"ranks \[1\] belong to two replica sets"):
        multi_node_snapshot(comm, extensions.snapshot(), [[0, 1], [1, 2]])
    with pytest.raises(ValueError, match=r"ranks in \[0, 3\), got \[3\]"):
        multi_node_snapshot(comm, extensions.snapshot(), [3])
    with pytest.raises(TypeError, match="replica_sets must be a list"):
        multi_node_snapshot(comm, extensions.snapshot(), 0)
    with pytest.raises(TypeError, match="must be a snapshot extension"):
        multi_node_snapshot(comm, object(), [0])
