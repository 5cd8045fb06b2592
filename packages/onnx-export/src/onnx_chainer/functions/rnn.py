"""Recurrent networks (``chainer.functions.rnn``) in an exported graph.

``F.n_step_lstm``, ``F.n_step_gru``, ``F.lstm`` and the other recurrent functions are
computed by the functions they are built of (linear maps, ``Sigmoid``, ``Tanh``,
splits and concatenations), so their recorded graph exports through the converters of
those functions and this module defines none of its own.
"""

from __future__ import annotations

__all__: list[str] = []
