"""``distribution_unittest``: the standard tests of a probability distribution."""

import unittest


class distribution_unittest(unittest.TestCase):  # noqa: N801 (the 7.8.1 name)
    def setUp(self) -> None:
        raise NotImplementedError("distribution_unittest: being written")
