"""The temporaries of atomic saves, and the removal of those that killed saves left."""

import os
import time

from chainer import utils


def _age(path, seconds):
    past = time.time() - seconds
    os.utime(path, (past, past))


def test_make_temporary_names_a_hidden_file_or_folder_next_to_the_target(tmp_path):
    target = tmp_path / "model.npz"
    temporary = utils.make_temporary(target)
    assert os.path.dirname(temporary) == str(tmp_path) and os.path.isfile(temporary)
    assert os.path.basename(temporary).startswith(".model.npz.") and temporary.endswith(".chainer-tmp")
    folder = utils.make_temporary(str(target), folder=True)
    assert os.path.isdir(folder) and os.path.basename(folder).startswith(".model.npz.")
    assert folder.endswith(".chainer-tmp") and folder != temporary


def test_only_our_temporaries_untouched_for_an_hour_are_removed(tmp_path):
    stale_file = tmp_path / ".model.npz.k1ll3d.chainer-tmp"
    stale_folder = tmp_path / ".snapshot_iter_7.abc.chainer-tmp"
    busy_folder = tmp_path / ".snapshot_iter_8.def.chainer-tmp"
    recent_file = tmp_path / ".model.npz.running.chainer-tmp"
    not_ours = [tmp_path / ".model.npz.abcdefgh.tmp", tmp_path / "model.chainer-tmp", tmp_path / "model.npz"]
    for path in (stale_file, recent_file, *not_ours):
        path.write_bytes(b"partial")
    for folder in (stale_folder, busy_folder):
        folder.mkdir()
        (folder / "snapshot").write_bytes(b"partial")
    for path in (stale_file, stale_folder / "snapshot", stale_folder, busy_folder, *not_ours):
        _age(path, 2 * 3600)
    _age(recent_file, 3000)  # less than an hour
    # busy_folder's own time is old, but a file in it is being written: a save in progress.

    removed = utils.remove_stale_temporaries(tmp_path)
    assert sorted(removed) == sorted([str(stale_file), str(stale_folder)])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [busy_folder.name, recent_file.name] + [p.name for p in not_ours]
    )
    assert utils.remove_stale_temporaries(tmp_path / "missing") == []
    assert utils.remove_stale_temporaries(tmp_path, older_than=0) != []
