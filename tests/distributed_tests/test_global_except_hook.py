"""chainermn.global_except_hook: an unhandled exception on one rank aborts the whole MPI
job at once, instead of leaving the other ranks waiting in their next collective."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

ABORTING = """
import sys
assert sys.excepthook is sys.__excepthook__, sys.excepthook  # not installed by the environment
chainermn.global_except_hook.add_hook()
hook = sys.excepthook
chainermn.global_except_hook.add_hook()  # installs once
assert sys.excepthook is hook
comm.bcast_obj(None)  # both ranks got here
if rank == 1:
    raise RuntimeError("planned failure on rank 1")
comm.allreduce_obj(rank)  # without the hook, rank 0 would wait here for rank 1 forever
print("unreachable", rank)
"""


@pytest.mark.mpi
def test_unhandled_exception_aborts_every_process(launch_mpi):
    start = time.monotonic()
    # The fixtures install the hook for every program through the environment: not here.
    returncode, output = launch_mpi(2, ABORTING, timeout=60, env={"CHAINERMN_FORCE_ABORT_ON_EXCEPTION": ""})
    assert time.monotonic() - start < 45, output
    assert returncode != 0, output
    assert "chainermn: unhandled exception on rank 1; aborting all MPI processes" in output
    assert "RuntimeError: planned failure on rank 1" in output  # the traceback is printed first
    assert "unreachable" not in output


@pytest.mark.mpi
@pytest.mark.parametrize("variable", ["CHAINERMN_FORCE_ABORT_ON_EXCEPTION", "CHAINERMN_FORCE_ABORT_ON_EXCEPTIONS"])
def test_environment_variable_installs_the_hook_at_import(variable):
    # Both spellings appear in the Chainer documentation. (Without the variable the hook
    # is not installed: checked at the start of ABORTING.)
    code = "import sys, chainermn; print(sys.excepthook is sys.__excepthook__)"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHAINERMN_FORCE_ABORT")}
    env.update({"CHAINER_DISABLE_PLUGIN_AUTOLOAD": "1", variable: "1"})
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert proc.stdout.strip() == "False", proc.stdout + proc.stderr
