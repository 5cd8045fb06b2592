"""chainer.links: connection links."""
