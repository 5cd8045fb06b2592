"""Loading chainer-cpu-kernels tunes glibc's malloc so that a loop's freed arrays are
reused without faulting their pages in again; the switches that leave glibc alone.

Each case runs in a fresh interpreter (malloc settings are process-wide): it loads the
plugin, then allocates and frees the same arrays round after round, as a training step
does, and counts the minor page faults of the last rounds (getrusage)."""

import os
import platform
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("chainer_cpu_kernels._ops", reason="chainer-cpu-kernels is not installed")
pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc", reason="tunes glibc's malloc only"
)

_CHILD = textwrap.dedent(
    """
    import resource, numpy
    from chainer_cpu_kernels import plugin

    def rounds():
        for _ in range(3):
            arrays = [numpy.ones(1 << 19, numpy.float32) for _ in range(4)]  # 2 MiB each, written
            del arrays

    rounds()
    rounds()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    rounds()
    print(plugin.MALLOC_TUNED, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    """
)


def _run(**settings):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    env.pop("CHAINER_MALLOC_TUNING", None)
    env.update(settings)
    result = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    tuned, faults = result.stdout.split()
    return tuned == "True", int(faults)


def test_freed_arrays_are_reused_without_page_faults():
    tuned, faults = _run()
    assert tuned
    # Three rounds of four 2 MiB arrays are 6,144 pages: reused, almost none fault again.
    assert faults < 200


def test_glibc_defaults_fault_the_pages_in_again():
    # The reference the tuning is measured against: glibc's own thresholds give the freed
    # top of the heap back, and every round faults its arrays' pages in again.
    tuned, faults = _run(CHAINER_MALLOC_TUNING="0")
    assert not tuned
    assert faults > 3000


@pytest.mark.parametrize(
    "setting",
    [
        {"MALLOC_TRIM_THRESHOLD_": "131072"},
        {"MALLOC_MMAP_THRESHOLD_": "131072"},
        {"MALLOC_TOP_PAD_": "0"},
        {"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=131072"},
    ],
)
def test_the_users_own_malloc_settings_are_left_alone(setting):
    tuned, _ = _run(**setting)
    assert not tuned


def test_tune_malloc_refuses_thresholds_out_of_range():
    from chainer_cpu_kernels import _ops

    with pytest.raises(ValueError, match=r"chainer_cpu_kernels.tune_malloc: the thresholds must be in \[0, "):
        _ops.tune_malloc(-1, 0)
    with pytest.raises(ValueError, match="the thresholds must be in"):
        _ops.tune_malloc(0, 2**40)
