"""Links asked for parameters of absurd sizes raise errors that name the link, the
parameter and its shape (NumPy's name only the array it could not allocate)."""

import pytest

import chainer.links as L

# More bytes than any 64-bit address space holds: the allocation fails at once on every
# machine, whatever its memory and overcommit settings.
_HUGE = 2**50


@pytest.mark.parametrize(
    "make, prefix",
    [
        (lambda: L.Linear(3, _HUGE), "Linear: cannot initialize "),
        (lambda: L.Convolution2D(1, _HUGE, 3), "Convolution2D: cannot initialize "),
        (lambda: L.Bias(shape=(_HUGE,)), f"Bias: cannot initialize b with shape ({_HUGE},): "),
        (lambda: L.Scale(W_shape=(_HUGE,)), f"Scale: cannot initialize W with shape ({_HUGE},): "),
        (lambda: L.BatchNormalization(_HUGE), "BatchNormalization: cannot create "),
    ],
    ids=["Linear", "Convolution2D", "Bias", "Scale", "BatchNormalization"],
)
def test_parameter_of_an_absurd_size_is_a_named_memory_error(make, prefix):
    with pytest.raises(MemoryError) as info:
        make()
    message = str(info.value)
    assert message.startswith(prefix)
    assert "generate_array: cannot create an array of shape" in message and "Unable to allocate" in message
