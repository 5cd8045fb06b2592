"""chainer.links: theano links."""
