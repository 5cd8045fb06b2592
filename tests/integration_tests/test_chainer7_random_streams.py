"""A program seeded with ``numpy.random.seed`` gets Chainer 7.8.1's random numbers.

Each case of ``chainer7_random_streams/programs.py`` runs after ``numpy.random.seed(0)``
under ours, and what it returns (initial weights, dropout masks, samples, shuffles, and the
next ``numpy.random.rand(4)`` of the global generator, so that a different count of draws
shows too) is compared with what the same program text returned under Chainer 7.8.1 on
NumPy 1.26 (``make_fixtures.py``; the ``.npz`` files are committed, so Chainer 7.8.1 is
not needed here).

Exact equality, except for the outputs of the n-step RNNs (``nstep.*``: the dropout masks
are exact, but the recurrences sum in another order, a few float32 ulps apart, so rtol 1e-5)
and for the cases in ``EXPECTED_DIFFERENCES``, where Chainer 7.8.1 is wrong and ours is kept.

Where Chainer 7.8.1's numbers depend on timing: its MultiprocessIterator draws the orders of
prefetched batches in a thread; the fixtures record that thread settled (what a training
step gives it), which is what ours draws at once.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "chainer7_random_streams")
# Loaded from its path under a name of its own ("programs" alone could meet another module).
_spec = importlib.util.spec_from_file_location("chainer7_random_stream_programs", os.path.join(HERE, "programs.py"))
assert _spec is not None and _spec.loader is not None
programs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(programs)

# Chainer 7.8.1 leaves BlackOut's W uninitialised (NaN, no draw at all); ours draws it with
# LeCunNormal like the other embeddings.
EXPECTED_DIFFERENCES = {"link.BlackOut"}

TOLERANCES = {"nstep.": (1e-5, 1e-6)}


def _fixture(name: str) -> dict[str, np.ndarray]:
    with np.load(os.path.join(HERE, name + ".npz")) as npz:
        return {key: npz[key] for key in npz.files}


def _differences(case: str, ours: dict[str, np.ndarray], theirs: dict[str, np.ndarray]) -> list[str]:
    problems = [f"{case}: {key!r} recorded by Chainer 7.8.1, not here" for key in sorted(set(theirs) - set(ours))]
    problems += [f"{case}: {key!r} recorded here, not by Chainer 7.8.1" for key in sorted(set(ours) - set(theirs))]
    rtol, atol = next((tol for prefix, tol in TOLERANCES.items() if case.startswith(prefix)), (0.0, 0.0))
    for key in sorted(set(ours) & set(theirs)):
        a, b = ours[key], theirs[key]
        if a.shape != b.shape or a.dtype != b.dtype:
            problems.append(f"{case}: {key!r} is {a.dtype}{a.shape} here, {b.dtype}{b.shape} in Chainer 7.8.1")
            continue
        if a.dtype.kind in "fc":
            bad = (
                ~np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
                if rtol
                else ~((a == b) | (np.isnan(a) & np.isnan(b)))
            )
        else:
            bad = a != b
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim else ()
            problems.append(
                f"{case}: {key!r} differs first at {where}: ours {a[where]!r}, Chainer 7.8.1 {b[where]!r}; "
                f"{int(bad.sum())} of {bad.size} elements differ"
            )
    return problems


@pytest.mark.parametrize("case", sorted(set(programs.CASES) - EXPECTED_DIFFERENCES))
def test_draws_match_chainer_7_8_1(case: str) -> None:
    problems = _differences(case, programs.run(case), _fixture(case))
    assert not problems, "\n".join(problems)


def test_blackout_differs_only_where_chainer_7_8_1_leaves_nan() -> None:
    theirs = _fixture("link.BlackOut")
    ours = programs.run("link.BlackOut")
    # Chainer 7.8.1: W all NaN and nothing drawn (``after`` is the first rand(4) after the seed).
    assert np.isnan(theirs["param/W"]).all()
    np.random.seed(0)
    np.testing.assert_array_equal(theirs["after"], np.random.rand(4))
    # Ours: a finite LeCunNormal draw of W's 3 x 3 entries, from the same stream.
    assert np.isfinite(ours["param/W"]).all()
    np.random.seed(0)
    np.testing.assert_allclose(ours["param/W"], np.random.normal(0, 1 / np.sqrt(3), (3, 3)), rtol=1e-6)
    np.testing.assert_array_equal(ours["after"], np.random.rand(4))


def test_every_fixture_has_a_case() -> None:
    # A renamed or removed case must take its fixture with it.
    names = {f[: -len(".npz")] for f in os.listdir(HERE) if f.endswith(".npz")}
    assert names == set(programs.CASES)
