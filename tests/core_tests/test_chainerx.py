import numpy as np
import pytest

import chainerx


def test_chainerx_imports_and_is_unavailable():
    assert chainerx.is_available() is False
    assert not isinstance(np.ones(1), chainerx.ndarray)


@pytest.mark.parametrize(
    "use", [lambda: chainerx.zeros(3), lambda: chainerx.ndarray((2,)), lambda: chainerx.get_default_device()]
)
def test_any_use_raises_clear_error(use):
    with pytest.raises(chainerx.ChainerxNotAvailableError, match="ChainerX is not part of this distribution"):
        use()
