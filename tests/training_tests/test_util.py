"""``chainer.training.util``, Chainer 7.8.1's module of ``get_trigger``."""

from chainer import training
from chainer.training import util


def test_util_is_the_home_of_get_trigger_in_7_8_1():
    assert util.get_trigger is training.get_trigger
    trigger = util.get_trigger((2, "iteration"))
    assert (trigger.period, trigger.unit) == (2, "iteration")
    assert util.get_trigger(None) is util._never_fire_trigger and util._never_fire_trigger(None) is False
