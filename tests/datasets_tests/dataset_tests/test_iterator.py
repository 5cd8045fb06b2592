import pytest

from chainer.dataset import Iterator


class Countdown(Iterator):
    def __init__(self, n):
        self.n = n
        self.finalized = 0

    def __next__(self):
        if self.n == 0:
            raise StopIteration
        self.n -= 1
        return [self.n]

    def finalize(self):
        self.finalized += 1


def test_iteration_protocol_and_next():
    it = Countdown(3)
    assert iter(it) is it
    assert it.next() == [2]
    assert list(it) == [[1], [0]]


def test_context_manager_finalizes():
    with Countdown(1) as it:
        assert next(it) == [0]
    assert it.finalized == 1


def test_base_methods():
    it = Iterator()
    with pytest.raises(NotImplementedError, match="__next__"):
        next(it)
    it.finalize()
    it.serialize(lambda key, value: pytest.fail("the base iterator has no state"))


def test_subclass_may_use_plain_epoch_attributes():
    # The tutorial iterators assign these as attributes: the base class must allow it.
    class Plain(Iterator):
        def __init__(self):
            self.epoch = 0
            self.is_new_epoch = False
            self.epoch_detail = 0.0

    it = Plain()
    it.epoch = 3
    assert (it.epoch, it.is_new_epoch, it.epoch_detail) == (3, False, 0.0)
