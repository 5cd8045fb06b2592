"""What the ``make_fixtures.py`` scripts of the Chainer 7.8.1 comparisons share: run a
folder's programs under Chainer 7.8.1 and write each one's arrays to ``<name>.npz``.

Imported by those scripts only (under the interpreter that has Chainer 7.8.1), never by
pytest: the tests read the committed files.
"""

import os

import numpy as np


def record(folder, run, names, all_names):
    """Run ``run(name)`` (a dict of arrays) for ``names`` (all of ``all_names`` if empty)
    and write the results into ``folder``; the files are written only once every program
    has run, so that a failing one leaves the old files as they were."""
    import chainer

    if chainer.__version__ != "7.8.1":
        raise SystemExit(f"make_fixtures.py records Chainer 7.8.1, this is Chainer {chainer.__version__}")
    results = {}
    for name in names or sorted(all_names):
        print(name, end=": ", flush=True)
        results[name] = run(name)
        print(f"{len(results[name])} arrays")
    if not names:
        for old in os.listdir(folder):
            if old.endswith(".npz"):
                os.remove(os.path.join(folder, old))
    total = 0
    for name, arrays in results.items():
        path = os.path.join(folder, name + ".npz")
        np.savez_compressed(path, **arrays)
        total += os.path.getsize(path)
    print(f"{len(results)} files, {total / 1e6:.2f} MB")
