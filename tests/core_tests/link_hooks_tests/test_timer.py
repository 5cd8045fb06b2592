"""Tests of chainer.link_hooks.TimerHook."""

import io
import time

import pytest

import chainer
from chainer import link_hooks


class Sleeper(chainer.Link):
    def __init__(self, seconds):
        super().__init__()
        self.seconds = seconds

    def forward(self, x):
        time.sleep(self.seconds)
        return x


class Outer(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.a = Sleeper(0.01)
            self.b = Sleeper(0.02)

    def forward(self, x):
        return self.b(self.a(x))


def test_timer_records_nested_calls_and_total():
    model = Outer()
    with link_hooks.TimerHook() as hook:
        model(1)
        model(1)
    names = [name for name, _ in hook.call_history]
    assert names == ["Sleeper", "Sleeper", "Outer"] * 2
    summary = hook.summary()
    assert list(summary) == ["Sleeper", "Outer"]
    assert summary["Sleeper"]["occurrence"] == 4
    assert summary["Outer"]["occurrence"] == 2
    assert summary["Sleeper"]["elapsed_time"] >= 0.06
    outer_total = summary["Outer"]["elapsed_time"]
    assert outer_total >= summary["Sleeper"]["elapsed_time"]
    # only outermost calls add to the total
    assert hook.total_time() == pytest.approx(outer_total)


def test_print_report_units():
    hook = link_hooks.TimerHook()
    hook.call_history = [("Linear", 0.0025), ("Linear", 0.0005), ("Conv", 2e-6)]
    out = io.StringIO()
    hook.print_report(unit="ms", file=out)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["LinkName", "ElapsedTime", "Occurrence"]
    assert lines[1].split() == ["Linear", "3.000ms", "2"]
    assert lines[2].split() == ["Conv", "0.002ms", "1"]
    out = io.StringIO()
    hook.print_report(unit="auto_foreach", file=out)
    assert out.getvalue().splitlines()[2].split() == ["Conv", "2.000us", "1"]
    out = io.StringIO()
    hook.print_report(file=out)  # auto: one unit, from the smallest time
    assert out.getvalue().splitlines()[1].split() == ["Linear", "3000.000us", "2"]
    with pytest.raises(ValueError, match="unit must be one of"):
        hook.print_report(unit="minutes")


def test_timer_survives_exceptions():
    class Failing(chainer.Link):
        def forward(self, x):
            raise RuntimeError("fail")

    link = Failing()
    hook = link_hooks.TimerHook()
    link.add_hook(hook)
    with pytest.raises(RuntimeError):
        link(1)
    assert hook.call_history == [] and hook._starts == []
