"""Whole training trajectories of ours against those of Chainer 7.8.1.

Chainer 7.8.1's own tests check an optimizer, hook, link or schedule one call at a time; a
bug in what carries over between steps (optimizer states, bias corrections, ``t``, the order
of hooks, running statistics, recurrent state, schedules, the loss scale) would pass them.
Here each small program of ``chainer7_trajectories/programs.py`` runs under ours, and
everything it recorded after every step is compared with what the same program text
recorded under Chainer 7.8.1 on NumPy 1.26 (``make_fixtures.py``; the ``.npz`` files are
committed, so Chainer 7.8.1 is not needed here).

Tolerances: the programs run in float64 wherever Chainer allows it, compared to rtol 1e-6
(the two implementations sum in different orders, so bit equality is not expected; over
20 steps the largest relative difference measured is 4e-10, in MSVAG's state ``m`` near
zero, and most stay below 1e-12). The loss-scaling and use_fp32_update
programs need float32 and float16 parameters: rtol 1e-5 for float32 and 1e-2 (a few float16 ulps) for float16.
Integers (``t``, ``N``, counts of warnings) and shapes and dtypes must be equal.

What this found, and what was fixed in ours to match (no expected difference remains):
dynamic loss scaling's schedule after the first overflow, ``optimizer.t`` and the hooks
on a skipped update, and its warning; SpectralNormalization's output in test mode.

SpectralNormalization's power-iteration vector ``W_u`` starts from each implementation's
own random draw: the programs overwrite it with seeded values right after ``add_hook``.
A new program: add it to ``programs.py``, then rerun ``make_fixtures.py`` under Chainer
7.8.1 (its docstring says how) and commit the ``.npz`` files it writes.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "chainer7_trajectories")
# Loaded from its path under a name of its own ("programs" alone could meet another module).
_spec = importlib.util.spec_from_file_location("chainer7_trajectory_programs", os.path.join(HERE, "programs.py"))
assert _spec is not None and _spec.loader is not None
programs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(programs)

TOLERANCES = {
    np.dtype(np.float64): (1e-6, 1e-10),
    np.dtype(np.float32): (1e-5, 1e-6),
    np.dtype(np.float16): (1e-2, 1e-3),
}


def _fixture(name: str) -> dict[str, np.ndarray]:
    with np.load(os.path.join(HERE, name + ".npz")) as npz:
        return {key: npz[key] for key in npz.files}


def _first_difference(case: str, key: str, ours: np.ndarray, theirs: np.ndarray) -> str | None:
    if ours.shape != theirs.shape:
        return f"{case}: {key!r} has shape {ours.shape} here, {theirs.shape} in Chainer 7.8.1"
    if ours.dtype != theirs.dtype:
        return f"{case}: {key!r} is {ours.dtype} here, {theirs.dtype} in Chainer 7.8.1"
    if ours.dtype.kind != "f":
        bad = ours != theirs
    else:
        rtol, atol = TOLERANCES[ours.dtype]
        bad = ~np.isclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=True)
    if not bad.any():
        return None
    index = np.argwhere(bad)[0]
    # Keys that end in #NNN are one array per step; the others stack the steps on axis 0.
    step = int(key.rsplit("#", 1)[1]) if "#" in key else int(index[0])
    where = tuple(int(i) for i in index)
    return (
        f"{case}: {key!r} differs first at step {step} (element {where}): ours {ours[where]!r}, "
        f"Chainer 7.8.1 {theirs[where]!r}; {int(bad.sum())} of {bad.size} elements differ"
    )


@pytest.mark.parametrize("case", sorted(programs.PROGRAMS))
def test_trajectory_matches_chainer_7_8_1(case: str) -> None:
    theirs = _fixture(case)
    ours = programs.run(case)
    problems = []
    for key in sorted(set(theirs) - set(ours)):
        problems.append(f"{case}: {key!r} recorded by Chainer 7.8.1, not here")
    for key in sorted(set(ours) - set(theirs)):
        problems.append(f"{case}: {key!r} recorded here, not by Chainer 7.8.1")
    for key in sorted(set(ours) & set(theirs)):
        problem = _first_difference(case, key, ours[key], theirs[key])
        if problem:
            problems.append(problem)
    assert not problems, "\n".join(problems)


def test_every_fixture_has_a_program() -> None:
    # A renamed or removed program must take its fixture with it.
    names = {f[: -len(".npz")] for f in os.listdir(HERE) if f.endswith(".npz")}
    assert names == set(programs.PROGRAMS)
