import io

import numpy as np
import pytest

import chainer
import chainer.functions as F
from chainer import function_hooks


def test_timer_hook_report_table():
    x = chainer.Variable(np.ones(3, np.float32))
    hook = function_hooks.TimerHook()
    with hook:
        F.sum(F.exp(x)).backward()
    out = io.StringIO()
    hook.print_report(unit="ms", file=out)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["FunctionName", "ElapsedTime", "Occurrence"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert rows["exp"][2] == "2" and rows["exp"][1].endswith("ms")
    assert abs(hook.total_time() - sum(e["elapsed_time"] for e in hook.summary().values())) < 1e-12
    with pytest.raises(ValueError, match="unit must be"):
        hook.print_report(unit="hours")


def test_print_hook_output():
    out = io.StringIO()
    x = chainer.Variable(np.array([1.0, 3.0], np.float32))
    with function_hooks.PrintHook(file=out):
        F.exp(x)
    text = out.getvalue()
    assert text.startswith("function\texp\ninput data\n")
    assert "mean=2.00000000" in text


def test_gpu_hooks_explain_missing_cuda():
    if chainer.backends.cuda.available:
        pytest.skip("a GPU is available")
    for cls in (function_hooks.CupyMemoryProfileHook, function_hooks.CUDAProfileHook):
        with pytest.raises(RuntimeError, match="CUDA environment is not available"):
            cls()


def test_timer_hook_report_goes_to_current_stdout(capsys):
    # The default destination is the sys.stdout of the call, not the one at import time,
    # so pytest's capture (and contextlib.redirect_stdout, doctest) sees the table.
    hook = function_hooks.TimerHook()
    with hook:
        F.exp(chainer.Variable(np.ones(3, np.float32)))
    hook.print_report()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["FunctionName", "ElapsedTime", "Occurrence"]
    assert lines[1].split()[0] == "exp" and lines[1].split()[2] == "1"
