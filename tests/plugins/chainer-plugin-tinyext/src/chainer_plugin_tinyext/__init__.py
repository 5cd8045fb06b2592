"""Third-party trainer extensions for tests: ``CountCalls`` reports how many times it
ran; ``report_constant(key, value)`` makes an extension reporting a constant."""

import chainer
from chainer import training


class CountCalls(training.Extension):
    priority = training.PRIORITY_WRITER

    def __init__(self, key="calls"):
        self.key = key
        self.count = 0

    def __call__(self, trainer):
        self.count += 1
        chainer.report({self.key: self.count})

    def serialize(self, serializer):
        self.count = serializer("count", self.count)


def report_constant(key, value):
    @training.make_extension(trigger=(1, "epoch"), priority=training.PRIORITY_WRITER)
    def _report(trainer):
        chainer.report({key: value})

    return _report


@chainer.hookimpl
def chainer_register_extensions(register):
    register(CountCalls)
    register(report_constant)
