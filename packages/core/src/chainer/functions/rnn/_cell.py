"""The second-order gradients shared by the LSTM-family cells (``lstm``, ``slstm``).

A cell with children ``k`` computes ``c = sum_k (a_k i_k + f_k c_k)`` and
``h = o tanh(c)`` from activated gates ``a_k = tanh(.)`` and ``i_k, f_k, o = sigmoid(.)``
(``lstm`` has one child, ``slstm`` two). The gradient node of such a cell maps
``(c_k, gates, c, gc, gh)`` to ``(gc_k, g_gates)`` with ``co = gc + gh o (1 - tanh(c)^2)``:
``gc_k = co f_k``, ``g_a_k = co i_k (1 - a_k^2)``, ``g_i_k = co a_k i_k (1 - i_k)``,
``g_f_k = co c_k f_k (1 - f_k)`` and ``g_o = gh tanh(c) o (1 - o)``, where ``c`` is an
input of its own. This module differentiates that map once more.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def grad_of_grad(
    as_: Sequence[Any],
    is_: Sequence[Any],
    fs: Sequence[Any],
    o: Any,
    cs: Sequence[Any],
    t: Any,
    gc: Any,
    gh: Any,
    us: Sequence[Any],
    uas: Sequence[Any],
    uis: Sequence[Any],
    ufs: Sequence[Any],
    uo: Any,
) -> tuple[list[Any], list[Any], list[Any], list[Any], Any, Any, Any, Any]:
    """Gradients of ``L = sum_k (<u_k, gc_k> + <ua_k, g_a_k> + <ui_k, g_i_k> + <uf_k, g_f_k>)
    + <uo, g_o>`` with respect to the inputs of the gradient node.

    Args:
        as_, is_, fs: The activated gates of each child.
        o: The activated output gate.
        cs: The children's cell states.
        t: ``tanh(c)`` of the cell state produced.
        gc, gh: The gradients of the cell's outputs ``c`` and ``h``.
        us, uas, uis, ufs, uo: The gradients ``L`` takes with respect to the gradient
            node's outputs ``gc_k`` and the gate gradients.

    Returns:
        ``(g_cs, g_as, g_is, g_fs, g_o, g_c, g_gc, g_gh)``: with respect to the children's
        states, each child's gate pre-activations, the output gate's pre-activation,
        ``c``, ``gc`` and ``gh``. Only ``+``, ``-`` and ``*`` are used, so the arguments
        may be arrays or variables (the results are then differentiable again).
    """
    so, dt = o * (1 - o), 1 - t * t
    das = [1 - a * a for a in as_]
    sis = [i * (1 - i) for i in is_]
    sfs = [f * (1 - f) for f in fs]
    co = gc + gh * o * dt  # the gradient reaching c
    k: Any = 0  # dL/dco
    for a, i, f, c_k, u, ua, ui, uf, da, si, sf in zip(as_, is_, fs, cs, us, uas, uis, ufs, das, sis, sfs):
        k = k + u * f + ua * i * da + ui * a * si + uf * c_k * sf
    g_cs = [co * uf * sf for uf, sf in zip(ufs, sfs)]
    g_as = [co * (ui * si - 2 * ua * i * a) * da for a, i, ua, ui, da, si in zip(as_, is_, uas, uis, das, sis)]
    g_is = [co * (ua * da + ui * a * (1 - 2 * i)) * si for a, i, ua, ui, da, si in zip(as_, is_, uas, uis, das, sis)]
    g_fs = [co * (u + uf * c_k * (1 - 2 * f)) * sf for f, c_k, u, uf, sf in zip(fs, cs, us, ufs, sfs)]
    g_o = (k * gh * dt + uo * gh * t * (1 - 2 * o)) * so
    g_c = (uo * gh * so - 2 * k * gh * o * t) * dt
    g_gh = k * o * dt + uo * t * so
    return g_cs, g_as, g_is, g_fs, g_o, g_c, k, g_gh


def sigmoid_array(xp: Any, v: Any) -> Any:
    """``sigmoid(v)`` of a raw array through one ``tanh`` (no overflow for large ``|v|``)."""
    half = 0.5
    return xp.tanh(v * half) * half + half
