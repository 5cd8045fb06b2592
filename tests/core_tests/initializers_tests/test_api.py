"""Signatures and defaults of the initializers, as listed for Chainer 7.8.1."""

import inspect

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
