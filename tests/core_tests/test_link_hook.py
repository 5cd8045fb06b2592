"""Tests of chainer.LinkHook and how links call hooks."""

import pytest

import chainer


class Double(chainer.Link):
    def forward(self, x, scale=1):
        return 2 * x * scale


class Outer(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.inner = Double()

    def forward(self, x):
        return self.inner(x) + 1


class Recorder(chainer.LinkHook):
    def __init__(self, name, log):
        self.name = name
        self.log = log

    def added(self, link):
        self.log.append(("added", self.name, link))

    def deleted(self, link):
        self.log.append(("deleted", self.name, link))

    def forward_preprocess(self, args):
        self.log.append(("pre", self.name, type(args.link).__name__, args.forward_name, args.args, args.kwargs))

    def forward_postprocess(self, args):
        self.log.append(("post", self.name, type(args.link).__name__, args.out))


def test_base_hook_is_a_no_op():
    hook = chainer.LinkHook()
    assert hook.name == "LinkHook"
    link = Double()
    link.add_hook(hook)
    assert link(3) == 6
    link.delete_hook("LinkHook")


def test_local_hook_sees_args_kwargs_and_output():
    log = []
    link = Double()
    hook = Recorder("r", log)
    assert link.add_hook(hook) is link
    assert link.local_link_hooks == {"r": hook}
    assert link(3, scale=2) == 12
    assert log == [
        ("added", "r", link),
        ("pre", "r", "Double", "forward", (3,), {"scale": 2}),
        ("post", "r", "Double", 12),
    ]
    link.delete_hook("r")
    assert log[-1] == ("deleted", "r", link)
    assert link.local_link_hooks == {}
    link(1)
    assert len(log) == 4


def test_global_hook_applies_to_every_link_in_the_block():
    log = []
    model = Outer()
    with Recorder("g", log) as hook:
        assert chainer.link_hook.get_link_hooks() == {"g": hook}
        assert model(1) == 3
    assert chainer.link_hook.get_link_hooks() == {}
    kinds = [(entry[0], entry[2]) for entry in log[1:-1]]
    assert kinds == [("pre", "Outer"), ("pre", "Double"), ("post", "Double"), ("post", "Outer")]
    assert log[0] == ("added", "g", None) and log[-1] == ("deleted", "g", None)


def test_global_hooks_run_before_local_ones():
    log = []
    link = Double()
    link.add_hook(Recorder("local", log))
    with Recorder("global", log):
        link(1)
    names = [entry[1] for entry in log if entry[0] == "pre"]
    assert names == ["global", "local"]


def test_hook_name_collisions():
    link = Double()
    link.add_hook(chainer.LinkHook())
    with pytest.raises(KeyError, match="already registered"):
        link.add_hook(chainer.LinkHook())
    link.add_hook(chainer.LinkHook(), name="second")
    with pytest.raises(KeyError, match="no hook named"):
        link.delete_hook("missing")
    with pytest.raises(TypeError, match="expected a LinkHook"):
        link.add_hook(object())
    with chainer.LinkHook():
        with pytest.raises(KeyError, match="already active"):
            with chainer.LinkHook():
                pass


def test_forward_exception_skips_postprocess_and_calls_abort():
    log = []

    class Aborting(Recorder):
        def _forward_aborted(self, args):
            self.log.append(("aborted", self.name))

    class Failing(chainer.Link):
        def forward(self, x):
            raise ValueError("bad input")

    link = Failing()
    link.add_hook(Aborting("a", log))
    with pytest.raises(ValueError, match="bad input"):
        link(1)
    assert [entry[0] for entry in log] == ["added", "pre", "aborted"]


def test_old_style_call_bypasses_hooks():
    log = []

    class OldStyle(chainer.Link):
        def __call__(self, x):
            return x

    link = OldStyle()
    link.add_hook(Recorder("r", log))
    assert link(5) == 5
    assert [entry[0] for entry in log] == ["added"]


def test_failing_added_does_not_leave_the_hook_active():
    class Refusing(chainer.LinkHook):
        name = "Refusing"

        def added(self, link):
            raise ValueError("links only")

    with pytest.raises(ValueError, match="links only"):
        with Refusing():
            pass
    assert chainer.link_hook.get_link_hooks() == {}


def test_global_hook_in_another_thread_does_not_apply_here():
    import threading

    log = []
    entered, release = threading.Event(), threading.Event()

    def worker():
        with Recorder("other-thread", log):
            entered.set()
            release.wait(5)

    t = threading.Thread(target=worker)
    t.start()
    entered.wait(5)
    try:
        assert Double()(2) == 4
    finally:
        release.set()
        t.join()
    assert [entry[0] for entry in log] == ["added", "deleted"]
