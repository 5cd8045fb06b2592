"""Signatures and defaults of the initializers, as listed for Chainer 7.8.1."""

import inspect

import numpy
import pytest

from chainer import initializers


def plain_signature(obj):
    """The signature as the 7.8.1 API list writes it: names, defaults, no annotations."""
    parts = []
    for p in inspect.signature(obj).parameters.values():
        if p.kind is p.VAR_KEYWORD:
            parts.append(f"**{p.name}")
        elif p.kind is p.VAR_POSITIONAL:
            parts.append(f"*{p.name}")
        elif p.default is p.empty:
            parts.append(p.name)
        elif callable(p.default):
            parts.append(f"{p.name}=<function {p.default.__name__}>")
        else:
            parts.append(f"{p.name}={p.default!r}")
    return "(" + ", ".join(parts) + ")"


EXPECTED = {
    "Constant": "(fill_value, dtype=None)",
    "DownsamplingConvFilter": "(interpolation='linear', dtype=None)",
    "GlorotNormal": "(scale=1.0, dtype=None, **kwargs)",
    "GlorotUniform": "(scale=1.0, dtype=None, **kwargs)",
    "HeNormal": "(scale=1.0, dtype=None, fan_option='fan_in', **kwargs)",
    "HeUniform": "(scale=1.0, dtype=None, **kwargs)",
    "Identity": "(scale=1.0, dtype=None)",
    "LeCunNormal": "(scale=1.0, dtype=None, **kwargs)",
    "LeCunUniform": "(scale=1.0, dtype=None, **kwargs)",
    "NaN": "(dtype=None)",
    "Normal": "(scale=0.05, dtype=None, **kwargs)",
    "One": "(dtype=None)",
    "Orthogonal": "(scale=1.1, dtype=None, mode='auto', **kwargs)",
    "Uniform": "(scale=0.05, dtype=None, **kwargs)",
    "UpsamplingDeconvFilter": "(interpolation='linear', dtype=None)",
    "Zero": "(dtype=None)",
    "generate_array": "(initializer, shape, xp, dtype=None, device=None)",
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_signature(name):
    assert plain_signature(getattr(initializers, name)) == EXPECTED[name]


@pytest.mark.parametrize(
    "shape, error, detail",
    [((2**50,), MemoryError, "Unable to allocate"), ((2**40, 2**40), ValueError, "array is too big")],
)
def test_generate_array_of_an_absurd_shape_names_itself_and_the_request(shape, error, detail):
    # More bytes than any address space holds: fails at once on every machine.
    with pytest.raises(error) as info:
        initializers.generate_array(initializers.Normal(), shape, numpy)
    message = str(info.value)
    assert message.startswith(f"generate_array: cannot create an array of shape {shape} and dtype float32 for Normal(")
    assert detail in message
