"""chainer.functions: rnn functions."""
