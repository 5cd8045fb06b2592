"""chainer.links: pre-trained vision models (the model zoo)."""
