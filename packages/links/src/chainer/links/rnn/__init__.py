"""chainer.links: rnn links."""
