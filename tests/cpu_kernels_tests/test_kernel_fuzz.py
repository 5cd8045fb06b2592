"""The compiled kernels under a fuzz (``_kernel_fuzz.py``): thousands of calls with random
geometry, dtypes, layouts and sizes, 0 and near-overflow values included, each checked
against the kernels' contract: the work done and equal to a NumPy computation, a
decline that writes nothing, or a clear refusal naming the kernel. It runs in a child
process, so that a crash shows as its exit status."""

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("chainer_cpu_kernels._ops", reason="chainer-cpu-kernels is not installed")

FUZZ = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_kernel_fuzz.py")
# About 12 s on one core; CHAINER_KERNEL_FUZZ_SEEDS=first:count runs another range.
SEEDS = os.environ.get("CHAINER_KERNEL_FUZZ_SEEDS", "0:4000")


def test_kernels_survive_the_fuzz_and_refuse_clearly():
    first, count = SEEDS.split(":")
    result = subprocess.run(
        [sys.executable, "-X", "faulthandler", FUZZ, first, count], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, f"exit status {result.returncode}:\n{result.stderr[-4000:]}"
    assert result.stderr == ""
    counts = json.loads(result.stdout)
    # Every kernel met every outcome many times: the fuzz reached past the argument checks.
    for kernel, outcomes in counts.items():
        for outcome, n in outcomes.items():
            assert n >= int(count) // 40, f"{kernel}: only {n} calls ended {outcome}"
