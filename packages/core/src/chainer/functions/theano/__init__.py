"""chainer.functions.theano: a differentiable function made of two array callables
(compiled Theano functions in Chainer's time)."""
