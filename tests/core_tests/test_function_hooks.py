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


class _FakeMemoryHooks:
    """Stands in for cupy.cuda.memory_hook: a registry the profile hook's counter joins."""

    def __init__(self):
        self.hooks = {}

    def get_memory_hooks(self):
        return self.hooks

    def allocate(self, used, acquired=0):
        for hook in list(self.hooks.values()):
            if acquired:
                hook.alloc_preprocess(mem_size=acquired)
            hook.malloc_preprocess(mem_size=used)


@pytest.fixture
def fake_cupy_memory(monkeypatch):
    from chainer.function_hooks import cupy_memory_profile

    fake = _FakeMemoryHooks()
    monkeypatch.setattr(chainer.backends.cuda, "check_cuda_available", lambda: None)
    monkeypatch.setattr(cupy_memory_profile, "_memory_hook_module", lambda: fake)
    return fake


def test_cupy_memory_profile_counts_nested_calls_once_in_totals(fake_cupy_memory):
    # A function applied inside another's backward is recorded one level deeper; the
    # totals count the outermost calls only, which include what is nested in them.
    hook = function_hooks.CupyMemoryProfileHook()
    x = np.ones(2, np.float32)
    with hook:
        assert hook._memory_hook.name in fake_cupy_memory.hooks
        outer_node = chainer.functions.math.exponential.Exp()
        inner_node = chainer.functions.math.identity.Identity()
        hook.backward_preprocess(outer_node, (x,), (x,))
        fake_cupy_memory.allocate(512, 1024)
        hook.forward_preprocess(inner_node, (x,))
        fake_cupy_memory.allocate(256)
        hook.forward_postprocess(inner_node, (x,))
        hook.backward_postprocess(outer_node, (x,), (x,))
    assert not fake_cupy_memory.hooks  # the counter leaves with the hook
    assert hook.call_history == [("Identity", 256, 0, 1), ("Exp", 768, 1024, 0)]
    assert hook.total_used_bytes() == 768 and hook.total_acquired_bytes() == 1024
    assert hook.summary() == {
        "Identity": {"used_bytes": 256, "acquired_bytes": 0, "occurrence": 1},
        "Exp": {"used_bytes": 768, "acquired_bytes": 1024, "occurrence": 1},
    }


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        (-1, (1, "B")),
        (0, (1, "B")),
        (1023, (1, "B")),
        (1024, (1024, "KB")),
        (1024**2 - 1, (1024, "KB")),
        (3 * 1024**3, (1024**3, "GB")),
        (1024**7, (1024**7, "ZB")),
        (1024**9, (1024**7, "ZB")),
    ],
)
def test_cupy_memory_profile_unit_is_the_largest_power_of_1024_not_above(fake_cupy_memory, size, expected):
    assert function_hooks.CupyMemoryProfileHook()._choose_unit(size) == expected


def test_cupy_memory_profile_report(fake_cupy_memory):
    hook = function_hooks.CupyMemoryProfileHook()
    hook.call_history = [("Exp", 2048, 4096, 0), ("ReLU", 512, 0, 0), ("Exp", 2048, 0, 0)]
    out = io.StringIO()
    hook.print_report(file=out)  # 'auto': one unit, from the smallest figure (0 -> B)
    lines = out.getvalue().splitlines()
    assert lines[0] == "FunctionName  UsedBytes  AcquiredBytes  Occurrence"
    assert lines[1].split() == ["Exp", "4096.00B", "4096.00B", "2"]
    assert lines[2].split() == ["ReLU", "512.00B", "0.00B", "1"]
    assert all(len(line) == len(lines[0]) for line in lines[1:])  # right-aligned under the header
    out = io.StringIO()
    hook.print_report(unit="auto_foreach", file=out)
    assert out.getvalue().splitlines()[1].split() == ["Exp", "4.00KB", "4.00KB", "2"]
    out = io.StringIO()
    hook.print_report(unit="KB", file=out)
    assert out.getvalue().splitlines()[2].split() == ["ReLU", "0.50KB", "0.00KB", "1"]
    with pytest.raises(ValueError, match=r"print_report: unit must be"):
        hook.print_report(unit="kB")
