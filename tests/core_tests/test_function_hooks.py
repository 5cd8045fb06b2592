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
    # Rows are keyed by the function's class name (its label is 'exp').
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert rows["Exp"][2] == "2" and rows["Exp"][1].endswith("ms")
    # Exp's backward applies Mul inside the timed call: total_time counts that once.
    assert hook.total_time() < sum(e["elapsed_time"] for e in hook.summary().values())
    with pytest.raises(ValueError, match="unit must be"):
        hook.print_report(unit="hours")
    out = io.StringIO()
    hook.print_report(unit="auto_foreach", file=out)
    assert len(out.getvalue().splitlines()) == 1 + len(hook.summary())


def test_timer_hook_times_nested_calls_inside_the_outer_one():
    hook = function_hooks.TimerHook()
    outer, inner = F.math.exponential.Exp(), F.math.identity.Identity()
    x = np.ones(2, np.float32)
    hook.backward_preprocess(outer, (x,), (x,))
    hook.forward_preprocess(inner, (x,))
    hook.forward_postprocess(inner, (x,))
    hook.backward_postprocess(outer, (x,), (x,))
    times = dict(hook.call_history)
    assert set(times) == {"Exp", "Identity"}
    assert times["Exp"] >= times["Identity"]
    assert hook.total_time() == times["Exp"]


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
    assert lines[1].split()[0] == "Exp" and lines[1].split()[2] == "1"


def test_print_hook_in_backward_shows_removed_inputs_and_the_gradient():
    class KeepFirst(chainer.Function):
        def forward(self, inputs):
            self.retain_inputs((0,))
            return (inputs[0] + inputs[1],)

        def backward(self, inputs, grad_outputs):
            return grad_outputs[0], grad_outputs[0]

    a = chainer.Variable(np.ones(2, np.float32))
    b = chainer.Variable(np.ones(2, np.float32))
    y = KeepFirst()(a, b)
    y.grad = np.array([1.0, 3.0], np.float32)
    out = io.StringIO()
    with function_hooks.PrintHook(file=out):
        y.backward()
    text = out.getvalue()
    head, gradient = text.split("output gradient\n")
    assert "(removed)" in head  # the second input was not kept for backward
    assert "- grad: mean=2.00000000, std=1.00000000" in gradient
