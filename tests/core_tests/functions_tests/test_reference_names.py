"""Every name of chainer.functions in Chainer 7.8.1's API list resolves.

data/reference_names.txt is the list of public names of ``chainer.functions`` taken from
the reference ../shared/reference/chainer-7.8.1-api.txt (a fact list).
"""

from pathlib import Path

import chainer.functions as F

NAMES = (Path(__file__).parent / "data" / "reference_names.txt").read_text().split()


def test_reference_list_is_complete():
    assert len(NAMES) == 216


def test_every_reference_name_resolves():
    missing = [name for name in NAMES if not hasattr(F, name)]
    assert not missing, f"chainer.functions lacks {len(missing)} name(s): {', '.join(missing)}"


def test_every_reference_name_is_callable():
    assert all(callable(getattr(F, name)) for name in NAMES if hasattr(F, name))
