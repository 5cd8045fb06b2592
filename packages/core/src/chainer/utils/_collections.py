"""``collections.abc``, under the name code written for Chainer imports it by
(``chainer.utils.collections_abc``)."""

from __future__ import annotations

import collections.abc as collections_abc

__all__ = ["collections_abc"]
