"""fix_random, do_setup and do_teardown: fixed seeds, and the states restored after."""

import random
import unittest

import numpy as np
import pytest

from chainer import testing
from chainer.testing import random as testing_random


def test_a_fixed_function_draws_the_same_numbers_and_restores_the_state():
    @testing.fix_random()
    def draw():
        return np.random.rand(3), random.random()

    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    first, second = draw(), draw()
    np.testing.assert_array_equal(first[0], second[0])
    assert first[1] == second[1]
    np.testing.assert_array_equal(np.random.get_state()[1], before)


def test_the_seed_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("CHAINER_TEST_RANDOM_SEED", "7")
    assert testing_random.generate_seed() == 7
    testing_random.do_setup()
    try:
        drawn = np.random.rand(2)
    finally:
        testing_random.do_teardown()
    np.random.seed(7)
    np.testing.assert_array_equal(drawn, np.random.rand(2))
    monkeypatch.setenv("CHAINER_TEST_RANDOM_SEED", "seven")
    with pytest.raises(ValueError, match="must be an integer"):
        testing_random.generate_seed()


def test_setups_nest():
    np.random.seed(1)
    outer_state = np.random.get_state()[1].copy()
    testing_random.do_setup()
    np.random.rand(5)
    testing_random.do_setup(deterministic=False)
    testing_random.do_teardown()
    testing_random.do_teardown()
    np.testing.assert_array_equal(np.random.get_state()[1], outer_state)
    with pytest.raises(RuntimeError, match="without a do_setup"):
        testing_random.do_teardown()


def test_a_fixed_class_seeds_before_set_up(scratch, run):
    drawn = []

    class Case(unittest.TestCase):
        def setUp(self):
            self.x = np.random.rand()

        def test_a(self):
            drawn.append((self.x, np.random.rand()))

    (klass,) = scratch.expand(lambda c: testing.fix_random()(testing.parameterize({"p": 1})(c)), Case).values()
    assert run(klass, "test_a").wasSuccessful() and run(klass, "test_a").wasSuccessful()
    assert drawn[0] == drawn[1]
